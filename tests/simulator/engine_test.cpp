// The discrete-event engine. Expected times are derived by hand from the cost model: with
// seconds_per_unit 1, a trial trained to L holds a worker for L seconds (+ overheads).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "hpsearch/simulator/engine.hpp"
#include "support/spaces.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

namespace {
HyperparameterSpace branin_space() {
  return space({{"x1", double_hp(-5, 10)}, {"x2", double_hp(0, 15)}});
}

RunSummary run(const MethodConfig& config, std::uint64_t max_length, std::uint64_t workers,
               CostModel cost = {}, const HyperparameterSpace& hps = branin_space()) {
  Searcher searcher = make_searcher(config, hps, 3);
  const auto workload = make_workload("mf-branin");
  return run_simulation(searcher, *workload, hps, max_length,
                        RunOptions{.workers = workers, .cost = cost});
}
}  // namespace

TEST_CASE("engine: random search on 2 workers takes two rounds") {
  const RunSummary s =
      run(RandomConfig{.max_length = 10, .max_trials = 4, .max_concurrent_trials = 4}, 10, 2);
  CHECK(s.wall_time == 20);
  CHECK(s.utilisation == 1.0);
  CHECK(s.training_units == 40);
  CHECK(s.trials_created == 4);
  CHECK(s.validations_per_length == std::map<std::uint64_t, std::uint64_t>{{10, 4}});
  CHECK(s.first_full_length_at == 10.0);
  CHECK(s.shutdown == Shutdown{false, false});
  REQUIRE(s.best_metric.has_value());
  CHECK(s.best_so_far.back().second == *s.best_metric);
}

TEST_CASE("engine: start-up time is paid at every launch") {
  CostModel cost;
  cost.startup_seconds = 1;
  const RunSummary s =
      run(RandomConfig{.max_length = 10, .max_trials = 4, .max_concurrent_trials = 4}, 10, 2, cost);
  CHECK(s.wall_time == 22);  // two rounds of 1 + 10
}

TEST_CASE("engine: random search time shrinks linearly with workers (1 to 16)") {
  const RandomConfig config{.max_length = 10, .max_trials = 16, .max_concurrent_trials = 0};
  for (const std::uint64_t workers : {1ULL, 2ULL, 4ULL, 8ULL, 16ULL}) {
    INFO(workers << " workers");
    CHECK(run(config, 10, workers).wall_time == static_cast<double>(160 / workers));
  }
}

TEST_CASE("engine: with enough workers ASHA reaches max_length after one full training time") {
  // Stopping ASHA, lengths 2, 4, 8: the first report of a rung always continues, and training
  // is absolute, so the first trial reaches 8 after 8 seconds on its own worker.
  const AshaConfig config{.max_length = 8,
                          .max_trials = 16,
                          .num_rungs = 3,
                          .divisor = 2,
                          .max_concurrent_trials = 16,
                          .stop_once = true};
  const RunSummary s = run(config, 8, 16);
  CHECK(s.first_full_length_at == 8.0);
  CHECK(s.trials_created == 16);
}

TEST_CASE("engine: paused trials checkpoint and resume with a restore, runs are deterministic") {
  const AshaConfig config{
      .max_length = 27, .max_trials = 27, .num_rungs = 3, .divisor = 3, .max_concurrent_trials = 9};
  CostModel slow;
  slow.checkpoint_seconds = 2;
  slow.restore_seconds = 3;
  slow.startup_seconds = 1;
  const RunSummary plain = run(config, 27, 4);
  const RunSummary costly = run(config, 27, 4, slow);
  CHECK(costly.wall_time > plain.wall_time);
  CHECK(costly.validations_per_length == plain.validations_per_length);
  CHECK(costly.utilisation <= 1.0);
  CHECK(costly.shutdown == Shutdown{false, false});
  CHECK(run(config, 27, 4, slow).to_json() == costly.to_json());
  slow.noise_sigma = 0.3;
  const RunSummary noisy = run(config, 27, 4, slow);
  CHECK(noisy.wall_time != costly.wall_time);
  CHECK(run(config, 27, 4, slow).to_json() == noisy.to_json());
}

TEST_CASE("engine: the best metric is the workload's value at the best trial") {
  // A one-point grid at Branin's optimum (-pi, 12.275): the value is 0.397887 (spec 2.7).
  using std::numbers::pi;
  const HyperparameterSpace hps =
      space({{"x1", double_hp(-pi - 1, -pi + 1, 1)}, {"x2", double_hp(11.275, 13.275, 1)}});
  const RunSummary s = run(GridConfig{.max_length = 5}, 5, 1, {}, hps);
  REQUIRE(s.best_metric.has_value());
  CHECK(std::abs(*s.best_metric - 0.397887) < 1e-6);
  CHECK(s.wall_time == 5);
}

TEST_CASE("engine: the config must provide exactly the workload's inputs") {
  const auto workload = make_workload("mf-branin");
  CHECK_THROWS_WITH_AS(
      check_workload_parameters(*workload,
                                space({{"x1", double_hp(0, 1)}, {"lr", double_hp(0, 1)}})),
      "the config's hyperparameters do not fit workload 'mf-branin': missing x2; extra lr; it "
      "reads x1 in [-5, 10], x2 in [0, 15]",
      std::invalid_argument);
  CHECK_NOTHROW(check_workload_parameters(*workload, branin_space()));
  CHECK_THROWS_AS((void)make_workload("rosenbrock"), std::invalid_argument);
  CHECK(make_workload("counting-ones-4")->parameters().size() == 8);
  CHECK(make_workload("prior-hartmann-bad")->name() == "prior-hartmann-bad");
}

TEST_CASE("engine: every value a trial can get must be a number the workload reads") {
  const auto branin = make_workload("mf-branin");
  const std::string prefix = "the config's hyperparameters do not fit workload 'mf-branin': ";
  const auto misfit = [&](Hyperparameter x1) {
    try {
      check_workload_parameters(*branin, space({{"x1", std::move(x1)}, {"x2", double_hp(0, 15)}}));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("fits");
  };
  CHECK(misfit(categorical({"a", "b"})) ==
        prefix + "x1 takes the value \"a\", but the workload reads a number in [-5, 10] there");
  CHECK(misfit(double_hp(-10, 10)) ==
        prefix + "x1 ranges over [-10, 10], but the workload reads a number in [-5, 10] there");
  CHECK(misfit(space({{"y", ConstHp{1}}})) ==
        prefix + "x1 is a nested map, but the workload reads a number in [-5, 10] there");
  CHECK(misfit(ConstHp{11}) ==
        prefix + "x1 takes the value 11, but the workload reads a number in [-5, 10] there");
  CHECK(misfit(int_hp(-5, 10)) == "fits");
  CHECK(misfit(categorical({-5, 0.5, 10})) == "fits");
  CHECK(misfit(log_hp(-1, 1, 10)) == "fits");  // 0.1 .. 10
  const auto ones = make_workload("counting-ones-1");
  CHECK_THROWS_WITH_AS(check_workload_parameters(
                           *ones, space({{"cat0", double_hp(0, 1)}, {"cont0", double_hp(0, 1)}})),
                       "the config's hyperparameters do not fit workload 'counting-ones-1': cat0 "
                       "ranges over [0, 1], "
                       "but the workload reads 0 or 1 there",
                       std::invalid_argument);
  CHECK_NOTHROW(check_workload_parameters(
      *ones, space({{"cat0", categorical({0, 1})}, {"cont0", double_hp(0, 1)}})));
}

TEST_CASE("engine: the workload cost curve charges its fixed part on the first span") {
  // Stopping ASHA with rungs 4 and 8 (max_length 8, 1 s per unit) on MF-Branin's curve
  // 0.05 + 0.95 z^1.5: 0 -> 4 costs 8 * cost(0.5) = 3.0870 s and 4 -> 8 costs
  // 8 * (1 - cost(0.5)); one trial trained to the end takes 8 s in all, not 8 * (1 - 0.05).
  CostModel cost;
  cost.workload_cost = true;
  const AshaConfig config{.max_length = 8,
                          .max_trials = 1,
                          .num_rungs = 2,
                          .divisor = 2,
                          .max_concurrent_trials = 1,
                          .stop_once = true};
  const RunSummary s = run(config, 8, 1, cost);
  CHECK(s.validations_per_length == std::map<std::uint64_t, std::uint64_t>{{4, 1}, {8, 1}});
  CHECK(std::abs(s.wall_time - 8.0) < 1e-9);
  CHECK(std::abs(*s.first_full_length_at - 8.0) < 1e-9);
}

TEST_CASE("engine: a PBT clone continues its parent's learning curve (the warm start)") {
  // Population 2, rounds of 10, truncate 0.5: after round 1 (both at 10 of 20) trial 0 (the
  // better: metric = creation index) is continued to 20 and cloned as trial 2, which trains
  // 10 of its own from trial 0's checkpoint at 10: the workload sees it at 10 + 10 = 20, the
  // full length, and the 10 units cost what units 10 to 20 of the curve cost.
  const PbtConfig config{
      .population_size = 2, .num_rounds = 2, .length_per_round = 10, .truncate_fraction = 0.5};
  const HyperparameterSpace hps = branin_space();
  Searcher searcher = make_searcher(config, hps, 3);
  const auto workload = make_workload("mf-branin");
  std::vector<std::pair<std::uint64_t, double>> seen;
  RunOptions options{.workers = 2};
  options.metric = [&](std::uint64_t trial, double fidelity) {
    seen.emplace_back(trial, fidelity);
    return static_cast<double>(trial);
  };
  const RunSummary s = run_simulation(searcher, *workload, hps, 20, options);
  std::sort(seen.begin(), seen.end());
  CHECK(seen ==
        std::vector<std::pair<std::uint64_t, double>>{{0, 0.5}, {0, 1.0}, {1, 0.5}, {2, 1.0}});
  CHECK(s.trials_created == 3);
  CHECK(s.training_units == 40);  // each trial's own units: 20 + 10 + 10
  CHECK(s.validations_per_length == std::map<std::uint64_t, std::uint64_t>{{10, 3}, {20, 1}});
  CHECK(s.wall_time == 20);
  CHECK(s.first_full_length_at == 20.0);
  CHECK(s.shutdown == Shutdown{false, false});
}
