// The searcher's per-trial cost: whole searches driven in-process, FIFO, one trial cycle =
// create -> trial_created -> validation_completed -> trial_closed.
#include <benchmark/benchmark.h>

#include <deque>

#include "hpsearch/methods/any_method.hpp"

namespace {
using namespace hpsearch;

HyperparameterSpace five_hyperparameters() {
  return HyperparameterSpace({{"learning_rate", LogHp{-5, -1, 10, std::nullopt}},
                              {"momentum", DoubleHp{0.5, 0.99, std::nullopt}},
                              {"layers", IntHp{1, 8, std::nullopt}},
                              {"activation", CategoricalHp{{"relu", "tanh", "gelu"}}},
                              {"batch_size", ConstHp{64}}});
}

// Plays the search to its end; returns the number of trials.
std::uint64_t play(Searcher& searcher) {
  std::deque<Operation> pending;
  std::uint64_t trials = 0;
  const auto take = [&](std::vector<Operation> ops) {
    for (Operation& op : ops) pending.push_back(std::move(op));
  };
  take(searcher.initial_operations());
  while (!pending.empty()) {
    const Operation op = std::move(pending.front());
    pending.pop_front();
    if (const auto* create = std::get_if<Create>(&op)) {
      ++trials;
      take(searcher.handle(TrialCreated{create->request_id}));
    } else if (const auto* validate = std::get_if<ValidateAfter>(&op)) {
      take(searcher.handle(ValidationCompleted{validate->request_id, 0.5, validate->length}));
    } else if (const auto* close = std::get_if<Close>(&op)) {
      take(searcher.handle(TrialClosed{close->request_id}));
    }
  }
  return trials;
}

void BM_Searcher_RandomTrialCycle(benchmark::State& state) {
  const auto trials = static_cast<std::uint64_t>(state.range(0));
  const RandomConfig config{.max_length = 100, .max_trials = trials, .max_concurrent_trials = 16};
  const HyperparameterSpace space = five_hyperparameters();
  for (auto _ : state) {
    state.PauseTiming();
    Searcher searcher = make_searcher(config, space, 42);
    state.ResumeTiming();
    benchmark::DoNotOptimize(play(searcher));
    state.PauseTiming();
    { Searcher discard = std::move(searcher); }  // freeing is not part of the cycle
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Searcher_RandomTrialCycle)
    ->RangeMultiplier(10)
    ->Range(1000, 1'000'000)
    ->Unit(benchmark::kMillisecond);

void BM_Searcher_GridTrialCycle(benchmark::State& state) {
  const auto trials = static_cast<std::uint64_t>(state.range(0));
  const GridConfig config{.max_length = 100, .max_concurrent_trials = 16};
  const HyperparameterSpace space({{"a", IntHp{0, 1'000'000'000, trials}},
                                   {"b", CategoricalHp{{"x"}}}});
  for (auto _ : state) {
    state.PauseTiming();
    Searcher searcher = make_searcher(config, space, 42);
    state.ResumeTiming();
    benchmark::DoNotOptimize(play(searcher));
    state.PauseTiming();
    { Searcher discard = std::move(searcher); }
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Searcher_GridTrialCycle)
    ->RangeMultiplier(10)
    ->Range(1000, 1'000'000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
