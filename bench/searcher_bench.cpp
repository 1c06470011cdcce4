// The searcher's per-trial cost: whole searches driven in-process, FIFO, one trial cycle =
// create -> trial_created -> validation_completed -> trial_closed.
#include <benchmark/benchmark.h>

#include <optional>

#include "hpsearch/config/catalog.hpp"
#include "play.hpp"

namespace {
using namespace hpsearch;

HyperparameterSpace five_hyperparameters() {
  return HyperparameterSpace({{"learning_rate", LogHp{-5, -1, 10, std::nullopt}},
                              {"momentum", DoubleHp{0.5, 0.99, std::nullopt}},
                              {"layers", IntHp{1, 8, std::nullopt}},
                              {"activation", CategoricalHp{{"relu", "tanh", "gelu"}}},
                              {"batch_size", ConstHp{64}}});
}

// Whole searches of `state.range(0)` trials; setup and teardown outside the timed region.
void run_trial_cycles(benchmark::State& state, const MethodConfig& config,
                      const HyperparameterSpace& space) {
  std::optional<Searcher> searcher;
  for (auto _ : state) {
    state.PauseTiming();
    searcher.emplace(make_searcher(config, space, 42));
    state.ResumeTiming();
    benchmark::DoNotOptimize(bench::play(*searcher, [] { return 0.5; }));
    state.PauseTiming();
    searcher.reset();  // freeing is not part of the cycle
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_Searcher_RandomTrialCycle(benchmark::State& state) {
  const auto trials = static_cast<std::uint64_t>(state.range(0));
  run_trial_cycles(
      state, RandomConfig{.max_length = 100, .max_trials = trials, .max_concurrent_trials = 16},
      five_hyperparameters());
}
BENCHMARK(BM_Searcher_RandomTrialCycle)
    ->RangeMultiplier(10)
    ->Range(1000, 1'000'000)
    ->Unit(benchmark::kMillisecond);

void BM_Searcher_GridTrialCycle(benchmark::State& state) {
  const auto trials = static_cast<std::uint64_t>(state.range(0));
  run_trial_cycles(
      state, GridConfig{.max_length = 100, .max_concurrent_trials = 16},
      HyperparameterSpace({{"a", IntHp{0, 1'000'000'000, trials}}, {"b", CategoricalHp{{"x"}}}}));
}
BENCHMARK(BM_Searcher_GridTrialCycle)
    ->RangeMultiplier(10)
    ->Range(1000, 1'000'000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
