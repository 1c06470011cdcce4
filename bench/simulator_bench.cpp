// The simulator's speed: whole simulated searches (events per second), `compare` at the size
// issue 4 names, and the table workload's nearest-configuration lookup.
#include <benchmark/benchmark.h>

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_real_distribution.hpp>

#include "hpsearch/simulator/compare.hpp"
#include "hpsearch/simulator/engine.hpp"

namespace {
using namespace hpsearch;

HyperparameterSpace unit_cube(int dimensions) {
  std::vector<NamedHyperparameter> entries;
  for (int j = 0; j < dimensions; ++j) {
    std::string name = "x";
    name += std::to_string(j);
    entries.push_back({name, DoubleHp{0, 1, std::nullopt}});
  }
  return HyperparameterSpace(std::move(entries));
}

void simulate(benchmark::State& state, const MethodConfig& config, std::uint64_t max_length,
              std::uint64_t workers) {
  const auto workload = make_workload("mf-hartmann6");
  const HyperparameterSpace space = unit_cube(6);
  std::uint64_t events = 0;
  for (auto _ : state) {
    Searcher searcher = make_searcher(config, space, 1);
    const RunSummary summary =
        run_simulation(searcher, *workload, space, max_length, RunOptions{.workers = workers});
    events += summary.events;
    benchmark::DoNotOptimize(summary.best_metric);
  }
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.SetItemsProcessed(state.iterations() * state.range(0));  // trials
}

// Issue 4's yardstick: adaptive ASHA (divisor 3, max_length 729) on 64 workers; 10^4 trials
// must take under a second.
void BM_Simulate_AdaptiveAsha_64Workers(benchmark::State& state) {
  const AdaptiveAshaConfig config{.max_length = 729,
                                  .max_trials = static_cast<std::uint64_t>(state.range(0)),
                                  .divisor = 3,
                                  .max_concurrent_trials = 64};
  simulate(state, config, 729, 64);
}
BENCHMARK(BM_Simulate_AdaptiveAsha_64Workers)
    ->RangeMultiplier(10)
    ->Range(1000, 100'000)
    ->Unit(benchmark::kMillisecond);

void BM_Simulate_Random_64Workers(benchmark::State& state) {
  const RandomConfig config{.max_length = 100,
                            .max_trials = static_cast<std::uint64_t>(state.range(0)),
                            .max_concurrent_trials = 64};
  simulate(state, config, 100, 64);
}
BENCHMARK(BM_Simulate_Random_64Workers)
    ->RangeMultiplier(10)
    ->Range(1000, 100'000)
    ->Unit(benchmark::kMillisecond);

// `compare` of 4 configs x 100 seeds x 1,000 trials (issue 4: under 30 s on 2 cores).
void BM_Compare_4Configs_100Seeds_1000Trials(benchmark::State& state) {
  const auto workload = make_workload("mf-hartmann6");
  std::vector<ExperimentConfig> configs(4);
  const std::uint64_t trials = 1000;
  configs[0].searcher.method = AdaptiveAshaConfig{
      .max_length = 729, .max_trials = trials, .divisor = 3, .max_concurrent_trials = 16};
  configs[1].searcher.method = AshaConfig{.max_length = 729,
                                          .max_trials = trials,
                                          .num_rungs = 4,
                                          .divisor = 3,
                                          .max_concurrent_trials = 16};
  configs[2].searcher.method = AshaConfig{.max_length = 729,
                                          .max_trials = trials,
                                          .num_rungs = 4,
                                          .divisor = 3,
                                          .max_concurrent_trials = 16,
                                          .stop_once = true};
  configs[3].searcher.method =
      RandomConfig{.max_length = 729, .max_trials = trials, .max_concurrent_trials = 16};
  for (ExperimentConfig& c : configs) {
    c.searcher.max_length.units = 729;
    c.hyperparameters = unit_cube(6);
  }
  for (auto _ : state) {
    const CompareResult result =
        compare_configs(configs, {"adaptive", "promotion", "stopping", "random"}, *workload, 100,
                        RunOptions{.workers = 16}, {}, 0.5);
    benchmark::DoNotOptimize(result.configs.size());
  }
}
BENCHMARK(BM_Compare_4Configs_100Seeds_1000Trials)->Iterations(1)->Unit(benchmark::kSecond);

// Mapping a trial to its nearest row of a 3,000-configuration rbv2 table (once per trial).
void BM_Table_Locate(benchmark::State& state) {
  const auto table = make_workload("rbv2-svm");
  boost::random::mt19937 rng(3);
  boost::random::uniform_real_distribution<double> unit(0, 1);
  for (auto _ : state) {
    const std::vector<double> x{
        std::pow(10.0, 8 * unit(rng) - 4), std::floor(3 * unit(rng)),
        std::floor(3 * unit(rng)),         std::pow(10.0, 4 * unit(rng) - 4),
        std::pow(10.0, 8 * unit(rng) - 4), 2 + std::floor(4 * unit(rng))};
    benchmark::DoNotOptimize(table->locate(x));
  }
}
BENCHMARK(BM_Table_Locate)->Unit(benchmark::kMicrosecond);

}  // namespace
