// The per-event cost of embedding through the C ABI (hpsearch/hpsearch.h): the same random
// search as BM_Searcher_RandomTrialCycle (searcher_bench.cpp), but every event goes in as JSON
// text and every answer comes back as JSON text, as a Go or Rust master would use it.
#include <benchmark/benchmark.h>
#include <hpsearch/hpsearch.h>

#include <deque>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// searcher_bench.cpp's five_hyperparameters, as config text.
std::string config_text(std::int64_t trials) {
  return "searcher: {name: random, metric: loss, max_length: 100, max_concurrent_trials: 16, "
         "max_trials: " +
         std::to_string(trials) +
         "}\n"
         "hyperparameters:\n"
         "  learning_rate: {type: log, minval: -5, maxval: -1, base: 10}\n"
         "  momentum: {type: double, minval: 0.5, maxval: 0.99}\n"
         "  layers: {type: int, minval: 1, maxval: 8}\n"
         "  activation: {type: categorical, vals: [relu, tanh, gelu]}\n"
         "  batch_size: {type: const, val: 64}\n";
}

hpsearch_searcher* new_searcher(const std::string& config) {
  const std::uint32_t seed = 42;
  hpsearch_searcher* s = hpsearch_searcher_new(config.c_str(), "bench.yaml", &seed, nullptr);
  if (s == nullptr) throw std::runtime_error("bad benchmark config");
  return s;
}

const char* feed(hpsearch_searcher* s, const std::string& line) {
  const char* answer = nullptr;
  if (hpsearch_searcher_feed(s, line.c_str(), &answer) != HPSEARCH_OK) {
    throw std::runtime_error(hpsearch_searcher_last_error(s));
  }
  return answer;
}

// Plays the whole search FIFO as a master does (metric 0.5 for every validation), reading
// each answer with nlohmann::json. Returns the lines it fed.
std::vector<std::string> play(hpsearch_searcher* s) {
  std::vector<std::string> lines;
  std::deque<nlohmann::json> pending;
  const auto ask = [&](std::string line) {
    nlohmann::json answer = nlohmann::json::parse(feed(s, line));
    for (nlohmann::json& op : answer.at("operations")) {
      if (op.at("type") != "shutdown") pending.push_back(std::move(op));
    }
    lines.push_back(std::move(line));
  };
  ask(R"({"event":"initial_operations"})");
  while (!pending.empty()) {
    const nlohmann::json op = std::move(pending.front());
    pending.pop_front();
    const std::string id = op.at("request_id");
    const std::string type = op.at("type");
    if (type == "create") {
      ask(R"({"event":"trial_created","request_id":")" + id + "\"}");
    } else if (type == "validate_after") {
      ask(R"({"event":"validation_completed","request_id":")" + id + R"(","metric":0.5,"length":)" +
          op.at("length").dump() + "}");
    } else {
      ask(R"({"event":"trial_closed","request_id":")" + id + "\"}");
    }
  }
  return lines;
}

// The master's side included: events built and answers parsed with nlohmann::json.
void BM_CApi_RandomTrialCycle(benchmark::State& state) {
  const std::string config = config_text(state.range(0));
  std::uint64_t events = 0;
  for (auto _ : state) {
    state.PauseTiming();
    hpsearch_searcher* s = new_searcher(config);
    state.ResumeTiming();
    events += play(s).size();
    state.PauseTiming();
    hpsearch_searcher_free(s);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));  // trials
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CApi_RandomTrialCycle)
    ->RangeMultiplier(10)
    ->Range(1000, 100'000)
    ->Unit(benchmark::kMillisecond);

// The C ABI alone: the same lines replayed, answers not parsed (the library's JSON reading,
// the searcher, and its JSON writing).
void BM_CApi_ReplayRandomSearch(benchmark::State& state) {
  const std::string config = config_text(state.range(0));
  hpsearch_searcher* recorder = new_searcher(config);
  const std::vector<std::string> lines = play(recorder);
  hpsearch_searcher_free(recorder);
  for (auto _ : state) {
    state.PauseTiming();
    hpsearch_searcher* s = new_searcher(config);
    state.ResumeTiming();
    for (const std::string& line : lines) benchmark::DoNotOptimize(feed(s, line));
    state.PauseTiming();
    hpsearch_searcher_free(s);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));  // trials
  state.counters["events/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * static_cast<double>(lines.size()),
      benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CApi_ReplayRandomSearch)
    ->RangeMultiplier(10)
    ->Range(1000, 100'000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
