// Snapshot and restore against trial count: a searcher that has played a whole search of n
// trials (every trial's bookkeeping is in the snapshot), random search and adaptive ASHA.
#include <benchmark/benchmark.h>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_real_distribution.hpp>

#include "hpsearch/config/catalog.hpp"
#include "play.hpp"

namespace {
using namespace hpsearch;

Searcher played(const MethodConfig& config) {
  Searcher searcher = make_searcher(config, bench::two_hyperparameters(), 1);
  boost::random::mt19937 rng(7);
  boost::random::uniform_real_distribution<double> metric(0, 1);
  bench::play(searcher, [&] { return metric(rng); });
  return searcher;
}

MethodConfig method(benchmark::State& state, int kind) {
  const auto trials = static_cast<std::uint64_t>(state.range(0));
  if (kind == 0)
    return RandomConfig{.max_length = 100, .max_trials = trials, .max_concurrent_trials = 16};
  return AdaptiveAshaConfig{.max_length = 100'000, .max_trials = trials};
}

void snapshot(benchmark::State& state, int kind) {
  const Searcher searcher = played(method(state, kind));
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = searcher.snapshot().dump();  // what a master would store
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["bytes_per_trial"] =
      static_cast<double>(bytes) / static_cast<double>(state.range(0));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void restore(benchmark::State& state, int kind) {
  const MethodConfig config = method(state, kind);
  const std::string text = played(config).snapshot().dump();
  for (auto _ : state) {
    Searcher fresh = make_searcher(config, bench::two_hyperparameters(), 1);
    fresh.restore(nlohmann::json::parse(text));  // parse included: the master reads text
    benchmark::DoNotOptimize(fresh.progress());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_Snapshot_Random(benchmark::State& state) {
  snapshot(state, 0);
}
void BM_Snapshot_AdaptiveAsha(benchmark::State& state) {
  snapshot(state, 1);
}
void BM_Restore_Random(benchmark::State& state) {
  restore(state, 0);
}
void BM_Restore_AdaptiveAsha(benchmark::State& state) {
  restore(state, 1);
}
BENCHMARK(BM_Snapshot_Random)
    ->RangeMultiplier(10)
    ->Range(1000, 100'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Snapshot_AdaptiveAsha)
    ->RangeMultiplier(10)
    ->Range(1000, 100'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Restore_Random)
    ->RangeMultiplier(10)
    ->Range(1000, 100'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Restore_AdaptiveAsha)
    ->RangeMultiplier(10)
    ->Range(1000, 100'000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
