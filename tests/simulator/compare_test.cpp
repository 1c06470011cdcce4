#include <doctest/doctest.h>

#include "hpsearch/simulator/compare.hpp"

using namespace hpsearch;

namespace {
ExperimentConfig random_config(std::uint64_t trials) {
  return parse_config(
      "searcher: {name: random, metric: loss, max_trials: " + std::to_string(trials) +
          ", max_length: 10, max_concurrent_trials: 4}\n"
          "hyperparameters:\n"
          "  x1: {type: double, minval: -5, maxval: 10}\n"
          "  x2: {type: double, minval: 0, maxval: 15}\n",
      "random.yaml");
}
}  // namespace

TEST_CASE("compare: quantiles interpolate between order statistics (numpy's default)") {
  CHECK(quantile({4, 1, 3, 2}, 0.25) == 1.75);
  CHECK(quantile({4, 1, 3, 2}, 0.5) == 2.5);
  CHECK(quantile({4, 1, 3, 2}, 0.75) == 3.25);
  CHECK(quantile({7}, 0.5) == 7);
  CHECK(quantile({1, 2, 3}, 1.0) == 3);
}

TEST_CASE("compare: more random trials find lower regret, results are deterministic") {
  const auto workload = make_workload("mf-branin");
  const std::vector<ExperimentConfig> configs{random_config(4), random_config(64)};
  const RunOptions options{.workers = 4};
  const CompareResult defaults =
      compare_configs(configs, {"few", "many"}, *workload, 3, options, {}, std::nullopt);
  // The longest run is 64 trials of 10 s on 4 workers: 160 s; default times are its quarters.
  CHECK(defaults.times == std::vector<double>{40, 80, 120, 160});
  const CompareResult result =
      compare_configs(configs, {"few", "many"}, *workload, 9, options, {10, 160}, 0.5);
  CHECK(result.regret);
  const Quartiles& few = result.configs[0].at_times.back();
  const Quartiles& many = result.configs[1].at_times.back();
  CHECK(few.runs == 9);
  CHECK(many.runs == 9);
  // Each seed's 64 trials begin with the same 4 samples as its 4-trial run (same seed, same
  // draws), so the many-trial regret can only be lower or equal, seed by seed, hence in median.
  CHECK(*many.median <= *few.median);
  CHECK(*many.q3 <= *few.q3);
  // At 10 s both have exactly their first round: the same 4 trials, so the same figures.
  CHECK(result.configs[0].at_times[0].median == result.configs[1].at_times[0].median);
  const CompareResult again =
      compare_configs(configs, {"few", "many"}, *workload, 9, options, {10, 160}, 0.5);
  CHECK(again.configs[1].at_times.back().median == many.median);
  CHECK(result.configs[1].time_to_target.runs >= result.configs[0].time_to_target.runs);
}
