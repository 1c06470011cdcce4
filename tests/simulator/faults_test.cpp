// Faults, stragglers, worker speeds and metric noise in the engine, and the timeline it records
// (and the trace's record of it).
// Where a figure is exact it is derived by hand from the cost model (1 s per unit).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "hpsearch/simulator/compare.hpp"
#include "hpsearch/simulator/engine.hpp"
#include "support/spaces.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

namespace {

HyperparameterSpace hartmann3_space() {
  return space({{"x0", double_hp(0, 1)}, {"x1", double_hp(0, 1)}, {"x2", double_hp(0, 1)}});
}

RunSummary play(const MethodConfig& config, std::uint64_t max_length, RunOptions options) {
  Searcher searcher = make_searcher(config, hartmann3_space(), 7);
  const auto workload = make_workload("mf-hartmann3");
  options.timeline = true;
  return run_simulation(searcher, *workload, hartmann3_space(), max_length, options);
}

const RandomConfig kFourTrials{.max_length = 10, .max_trials = 4, .max_concurrent_trials = 4};
const AshaConfig kAsha{
    .max_length = 27, .max_trials = 40, .num_rungs = 3, .divisor = 3, .max_concurrent_trials = 8};

// No worker runs two launches at once, and no trial runs on two workers at once.
void check_no_overlap(const RunSummary& s) {
  std::map<std::uint32_t, std::vector<WorkerSpan>> by_worker;
  std::map<std::uint32_t, std::vector<WorkerSpan>> by_trial;
  for (const WorkerSpan& span : s.timeline.spans) {
    CHECK(span.start <= span.end);
    by_worker[span.worker].push_back(span);
    by_trial[span.trial].push_back(span);
  }
  for (auto* groups : {&by_worker, &by_trial}) {
    for (auto& [key, spans] : *groups) {
      std::sort(spans.begin(), spans.end(),
                [](const WorkerSpan& a, const WorkerSpan& b) { return a.start < b.start; });
      for (std::size_t i = 1; i < spans.size(); ++i) CHECK(spans[i - 1].end <= spans[i].start);
    }
  }
}

// Busy worker time is the training that counted plus the training crashes threw away (no
// start-up, checkpoint or restore costs here).
void check_busy_time(const RunSummary& s, std::uint64_t workers) {
  double busy = 0;
  for (const WorkerSpan& span : s.timeline.spans) busy += span.end - span.start;
  CHECK(busy == doctest::Approx(s.utilisation * static_cast<double>(workers) * s.wall_time));
}

}  // namespace

TEST_CASE("faults: a trial that always crashes exits errored after its restarts") {
  // A crash rate of 10^6 per second crashes every span within microseconds.
  for (const std::uint64_t restarts : {0ULL, 2ULL, 5ULL}) {
    INFO(restarts << " restarts");
    RunOptions options{.workers = 2};
    options.faults = {.crash_rate = 1e6, .max_restarts = restarts};
    const RunSummary s = play(kFourTrials, 10, options);
    CHECK(s.trials_created == 4);  // random search counts errored trials toward max_trials
    CHECK(s.errored_trials == 4);
    CHECK(s.crashes == 4 * (restarts + 1));
    CHECK(s.training_units == 0);
    CHECK(s.validations_per_length.empty());
    CHECK_FALSE(s.best_metric.has_value());
    // Every trial errored: Determined's rule ends the search as a failure.
    CHECK(s.shutdown == Shutdown{false, true});
    for (const TrialRecord& t : s.timeline.trials) {
      CHECK(t.outcome == TrialOutcome::kErrored);
      CHECK(t.restarts == restarts);
    }
    CHECK(s.timeline.spans.size() == s.crashes);
    CHECK(std::all_of(s.timeline.spans.begin(), s.timeline.spans.end(),
                      [](const WorkerSpan& span) { return span.crashed; }));
    check_no_overlap(s);
  }
}

TEST_CASE("faults: crashed trials resume from their checkpoint and finish the same search") {
  // Enough restarts that no trial errors: the search makes the same decisions as without
  // crashes only for random search (ASHA's depend on timing), so compare what is fixed.
  RunOptions options{.workers = 3};
  const RunSummary clean = play(kFourTrials, 10, options);
  options.faults = {.crash_rate = 0.05, .max_restarts = 1000};
  const RunSummary crashy = play(kFourTrials, 10, options);
  CHECK(crashy.crashes > 0);
  CHECK(crashy.errored_trials == 0);
  CHECK(crashy.validations_per_length == clean.validations_per_length);
  CHECK(crashy.training_units == clean.training_units);
  CHECK(crashy.best_metric == clean.best_metric);
  CHECK(crashy.wall_time > clean.wall_time);
  CHECK(crashy.lost_seconds > 0);
  // Busy time = 40 units of counted training + the lost seconds.
  double busy = 0;
  for (const WorkerSpan& span : crashy.timeline.spans) busy += span.end - span.start;
  CHECK(busy == doctest::Approx(40 + crashy.lost_seconds));
  check_no_overlap(crashy);
  check_busy_time(crashy, 3);
  // Deterministic for a seed; another seed crashes elsewhere.
  CHECK(play(kFourTrials, 10, options).to_json() == crashy.to_json());
  options.seed = 1;
  CHECK(play(kFourTrials, 10, options).to_json() != crashy.to_json());
}

TEST_CASE("faults: ASHA goes on when some trials error out") {
  RunOptions options{.workers = 4};
  options.faults = {.crash_rate = 0.1, .max_restarts = 1};
  const RunSummary s = play(kAsha, 27, options);
  CHECK(s.errored_trials > 0);
  CHECK(s.errored_trials < s.trials_created);
  CHECK(s.shutdown == Shutdown{false, false});
  CHECK(s.validations_per_length.contains(27));
  std::uint64_t completed = 0;
  std::uint64_t errored = 0;
  for (const TrialRecord& t : s.timeline.trials) {
    CHECK(t.outcome != TrialOutcome::kUnfinished);
    completed += t.outcome == TrialOutcome::kCompleted ? 1 : 0;
    errored += t.outcome == TrialOutcome::kErrored ? 1 : 0;
  }
  CHECK(completed == s.validations_per_length.at(27));
  CHECK(errored == s.errored_trials);
  check_no_overlap(s);
  check_busy_time(s, 4);
}

TEST_CASE("faults: stragglers slow their span by the factor") {
  // Every span straggles 3x: two rounds of 10-unit trials on 2 workers take 2 x 30 s.
  RunOptions options{.workers = 2};
  options.cost.straggler_probability = 1;
  options.cost.straggler_factor = 3;
  const RunSummary s = play(kFourTrials, 10, options);
  CHECK(s.wall_time == 60);
  CHECK(s.training_units == 40);
  options.cost.straggler_probability = 0.5;
  const RunSummary some = play(kFourTrials, 10, options);
  CHECK(some.wall_time > 20);
  check_no_overlap(some);
}

TEST_CASE("faults: a worker's speed divides every span it runs") {
  RunOptions options{.workers = 3};
  options.cost.worker_sigma = 0.5;
  const RunSummary s = play(
      RandomConfig{.max_length = 10, .max_trials = 12, .max_concurrent_trials = 12}, 10, options);
  REQUIRE(s.timeline.worker_speeds.size() == 3);
  CHECK(s.timeline.worker_speeds[0] != s.timeline.worker_speeds[1]);
  for (const WorkerSpan& span : s.timeline.spans) {
    CHECK(span.end - span.start == doctest::Approx(10 / s.timeline.worker_speeds[span.worker]));
  }
  check_no_overlap(s);
  check_busy_time(s, 3);
}

TEST_CASE("faults: a per-trial cost factor is the same for every span of the trial") {
  RunOptions options{.workers = 2};
  options.cost.config_sigma = 0.5;
  const AshaConfig stopping{.max_length = 8,
                            .max_trials = 6,
                            .num_rungs = 3,
                            .divisor = 2,
                            .max_concurrent_trials = 2,
                            .stop_once = true};
  const RunSummary s = play(stopping, 8, options);
  // With one launch per trial, a trial's span is factor x the length it reached.
  std::map<std::uint32_t, double> factor;
  for (const WorkerSpan& span : s.timeline.spans) {
    const auto& lengths = s.timeline.trials[span.trial].lengths;
    factor[span.trial] = (span.end - span.start) / static_cast<double>(lengths.back());
  }
  CHECK(factor.size() == 6);
  CHECK(factor.at(0) != doctest::Approx(factor.at(1)));
}

TEST_CASE("faults: metric noise picks the incumbent by what the searcher saw") {
  RunOptions options{.workers = 4};
  const RunSummary clean = play(kFourTrials, 10, options);
  // Noise of 10 swamps Hartmann's range: the incumbent is whichever noisy metric was lowest,
  // but the reported value is always that trial's true value.
  options.metric_noise = 10;
  const RunSummary noisy = play(kFourTrials, 10, options);
  REQUIRE(noisy.best_metric.has_value());
  std::vector<double> finals;
  for (const ValidationRecord& v : noisy.timeline.validations) finals.push_back(v.value);
  CHECK(std::find(finals.begin(), finals.end(), *noisy.best_metric) != finals.end());
  CHECK(*clean.best_metric == *std::min_element(finals.begin(), finals.end()));
}

TEST_CASE("faults: ASHA's time to a target regret shrinks nearly linearly from 1 to 16 workers") {
  // Promotion ASHA (rungs 3, 9, 27, 81; 1,000 trials) on MF-Hartmann-3 with linear cost, 20
  // seeds: the median time until a trial at max_length has regret <= 0.1.
  const ExperimentConfig config = parse_config(
      "searcher: {name: async_halving, metric: loss, num_rungs: 4, divisor: 3, max_trials: 1000,"
      " max_length: 81, max_concurrent_trials: 64}\n"
      "hyperparameters:\n"
      "  x0: {type: double, minval: 0, maxval: 1}\n"
      "  x1: {type: double, minval: 0, maxval: 1}\n"
      "  x2: {type: double, minval: 0, maxval: 1}\n",
      "asha.yaml");
  const auto workload = make_workload("mf-hartmann3");
  std::map<std::uint64_t, double> median;
  for (const std::uint64_t workers : {1ULL, 16ULL}) {
    const CompareResult result =
        compare_configs({config}, {"asha"}, *workload, 20, RunOptions{.workers = workers}, {}, 0.1);
    const Quartiles& q = result.configs.front().time_to_target;
    CHECK(q.runs >= 18);
    REQUIRE(q.median.has_value());
    median[workers] = *q.median;
  }
  const double speedup = median[1] / median[16];
  MESSAGE("1 -> 16 workers: median time to regret 0.1 ", median[1], " s -> ", median[16],
          " s, speed-up ", speedup);
  CHECK(speedup > 11);  // at least 70% of linear
}

TEST_CASE("faults: the trace records each worker a launch takes and frees, as the timeline does") {
  // ASHA with crashes: launches end by a pause for a decision, a close and a crash. The trace's
  // "launched" and "exited" lines (docs/simulator.md) pair up into the timeline's spans.
  RunOptions options{.workers = 4};
  options.faults = {.crash_rate = 0.1, .max_restarts = 1};
  std::ostringstream trace;
  options.trace = &trace;
  const RunSummary s = play(kAsha, 27, options);
  REQUIRE(s.crashes > 0);
  std::map<std::string, std::uint32_t> index;  // request id -> creation index
  for (std::uint32_t i = 0; i < s.timeline.trials.size(); ++i)
    index[s.timeline.trials[i].id.to_string()] = i;
  std::map<std::uint32_t, std::pair<std::uint32_t, double>> taken;  // trial -> worker, start
  std::vector<std::tuple<std::uint32_t, std::uint32_t, double, double, bool>> traced, recorded;
  std::istringstream lines(trace.str());
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json record = nlohmann::json::parse(line);
    REQUIRE(record.contains("time"));
    if (record.contains("in")) continue;  // a searcher call
    const bool launched = record.contains("launched");
    const nlohmann::json& body = record.at(launched ? "launched" : "exited");
    REQUIRE(record.size() == 2);
    const std::uint32_t trial = index.at(body.at("request_id").get<std::string>());
    const std::uint32_t worker = body.at("worker").get<std::uint32_t>();
    if (launched) {
      CHECK_FALSE(taken.contains(trial));
      taken[trial] = {worker, record["time"].get<double>()};
      continue;
    }
    REQUIRE(taken.contains(trial));
    CHECK(taken[trial].first == worker);
    traced.emplace_back(worker, trial, taken[trial].second, record["time"].get<double>(),
                        body.at("crashed").get<bool>());
    taken.erase(trial);
  }
  CHECK(taken.empty());  // every launch freed its worker by the end
  for (const WorkerSpan& span : s.timeline.spans)
    recorded.emplace_back(span.worker, span.trial, span.start, span.end, span.crashed);
  CHECK(traced == recorded);  // both in the order the workers were freed
  // The same bytes for the same seed.
  std::ostringstream again;
  options.trace = &again;
  (void)play(kAsha, 27, options);
  CHECK(again.str() == trace.str());
}
