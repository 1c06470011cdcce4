// async_halving: spec 3.5, 3.6 and the asha tests of spec 7.2. Expected shapes come from the
// spec; the value-simulation traces below were derived by hand from the rules, step by step.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "hpsearch/simulator/drive.hpp"
#include "hpsearch/simulator/preview.hpp"
#include "support/ops.hpp"
#include "support/spaces.hpp"
#include "support/value_simulation.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

namespace {
using Shape = std::map<std::string, std::uint64_t>;

Shape preview_shape(const MethodConfig& config, PreviewMetric metric) {
  Searcher s = make_searcher(config, testing::space({{"x", double_hp(0, 1)}}), 0);
  return simulate(s, PreviewOptions{.order = PickOrder::kFifo, .metric = metric}).sequences;
}

AshaConfig asha(std::uint64_t max_length, bool stop_once = false) {
  return AshaConfig{.max_length = max_length,
                    .max_trials = 12,
                    .num_rungs = 3,
                    .divisor = 3,
                    .max_concurrent_trials = 16,
                    .stop_once = stop_once};
}
}  // namespace

TEST_CASE("asha: rung lengths are absolute per-rung targets (spec 3.5)") {
  CHECK(asha_rung_lengths(9000, 3, 3) == std::vector<std::uint64_t>{1000, 3000, 9000});
  CHECK(asha_rung_lengths(12, 3, 3) == std::vector<std::uint64_t>{1, 4, 12});
  CHECK(asha_rung_lengths(576000, 3, 3) == std::vector<std::uint64_t>{64000, 192000, 576000});
  CHECK(asha_rung_lengths(9, 3, 3) == std::vector<std::uint64_t>{1, 3, 9});
  CHECK(asha_rung_lengths(10, 4, 2) == std::vector<std::uint64_t>{1, 2, 5, 10});
  CHECK(asha_rung_lengths(9, 1, 3) == std::vector<std::uint64_t>{9});
  CHECK(asha_rung_lengths(12, 4, 3) == std::vector<std::uint64_t>{1, 1, 4, 12});
}

TEST_CASE("asha: promotion shapes (TestASHASearcherRecords/Batches/Epochs)") {
  CHECK(preview_shape(asha(576000), PreviewMetric::kConstant) ==
        Shape{{"64000", 8}, {"64000 192000", 3}, {"64000 192000 576000", 1}});
  CHECK(preview_shape(asha(9000), PreviewMetric::kConstant) ==
        Shape{{"1000", 8}, {"1000 3000", 3}, {"1000 3000 9000", 1}});
  CHECK(preview_shape(asha(12), PreviewMetric::kConstant) ==
        Shape{{"1", 8}, {"1 4", 3}, {"1 4 12", 1}});
}

TEST_CASE("asha: stopping shapes with trial-id metrics (TestASHAStoppingSearcherBatches/Epochs)") {
  CHECK(preview_shape(asha(9000, true), PreviewMetric::kTrialId) ==
        Shape{{"1000 3000 9000", 1}, {"1000", 11}});
  CHECK(preview_shape(asha(12, true), PreviewMetric::kTrialId) == Shape{{"1 4 12", 1}, {"1", 11}});
  // Ties continue under stopping ASHA: with equal metrics every trial trains to the end.
  CHECK(preview_shape(asha(12, true), PreviewMetric::kConstant) == Shape{{"1 4 12", 12}});
}

TEST_CASE("asha: initial trials follow max_concurrent_trials, or d^(R-1) when it is 0") {
  const auto initial = [](std::uint64_t concurrent, std::uint64_t trials) {
    AshaConfig config = asha(9000);
    config.max_concurrent_trials = concurrent;
    config.max_trials = trials;
    Searcher s = make_searcher(config, {}, 0);
    return all_of_type<Create>(s.initial_operations()).size();
  };
  CHECK(initial(16, 12) == 12);
  CHECK(initial(4, 12) == 4);
  CHECK(initial(0, 12) == 9);  // 3^2
  CHECK(initial(0, 5) == 5);
}

// The "async promotions" trace of spec 3.5 (R=3, d=3, T=12, C=16, FIFO). Trial 3 exits early,
// so trial 1 is promoted when rung 0 reaches 3 entries; trial 4 (0.01) is promoted at once;
// 5-7 report better still and are promoted at once; at rung 1, trial 4 (0.01) is promoted
// when trial 5 makes the rung 3 long, and 1, 5, 6, 7 are closed when the rung settles.
std::vector<PredefinedTrial> async_promotions(double sign) {
  const std::vector<std::uint64_t> one{1000};
  const std::vector<std::uint64_t> two{1000, 3000};
  return {trial(two, {sign * 0.10, sign * 0.10}),
          constant_trial(one, sign * 0.11),
          early_exit_trial(one, sign * 0.12),
          trial({1000, 3000, 9000}, {sign * 0.01, sign * 0.01, sign * 0.01}),
          trial(two, {sign * 0.005, sign * 0.2}),
          trial(two, {sign * 0.004, sign * 0.3}),
          trial(two, {sign * 0.003, sign * 0.4}),
          constant_trial(one, sign * 0.5),
          constant_trial(one, sign * 0.6),
          constant_trial(one, sign * 0.7),
          constant_trial(one, sign * 0.8),
          constant_trial(one, sign * 0.9)};
}

TEST_CASE("asha: the async promotions trace, FIFO value simulation (spec 3.5)") {
  run_value_simulation(asha(9000), {}, async_promotions(1));
}

TEST_CASE("asha: larger-is-better metrics are negated once on entry (by the Searcher)") {
  run_value_simulation(asha(9000), {}, async_promotions(-1), /*smaller_is_better=*/false);
}

// Stopping ASHA, R=2, d=2, T=4, C=2, lengths 2 and 4. Trial 2 has invalid hyperparameters and is
// replaced outside max_trials; trial 4 exits early and is recorded as the worst metric.
//   t1 0.5 at rung 0: first of its rung, continues; reaches 4 and finishes -> t4 created.
//   t2 invalid: closed and replaced by t3.   t3 0.7: rank 2 of 2, top 1 -> stopped; t5 created.
//   t4 exits: recorded worst, no trial created (4 valid trials exist).
//   t5 0.1: rank 1 of 4, top 2 -> continues; finishes at 4.
TEST_CASE("asha: stopping variant with an invalid and an early-exited trial") {
  for (const bool smaller_is_better : {true, false}) {
    INFO("smaller_is_better " << smaller_is_better);
    const double sign = smaller_is_better ? 1 : -1;  // the same ranking in both directions
    run_value_simulation(
        AshaConfig{.max_length = 4,
                   .max_trials = 4,
                   .num_rungs = 2,
                   .divisor = 2,
                   .max_concurrent_trials = 2,
                   .stop_once = true},
        {},
        {constant_trial({2, 4}, sign * 0.5), invalid_trial(2), constant_trial({2}, sign * 0.7),
         early_exit_trial({2}, sign * 0.9), constant_trial({2, 4}, sign * 0.1)},
        smaller_is_better);
  }
}

// Promotion ASHA, R=2, d=2, T=3, C=3, lengths 5 and 10: t1 invalid (replaced by t4), t2 0.3
// (n=0: nothing), t3 0.2 (n=1: new = int(2/2) = 1, k = 0 < 1: promoted at once), t4 0.1
// (n=2: new = int(3/2) = 1, k = 0 < 1: promoted at once). Rung 0 then holds max_trials = 3
// metrics and settles: t2 is closed. t3 and t4 finish at 10.
TEST_CASE("asha: promotion variant replaces invalid trials outside max_trials") {
  run_value_simulation(AshaConfig{.max_length = 10,
                                  .max_trials = 3,
                                  .num_rungs = 2,
                                  .divisor = 2,
                                  .max_concurrent_trials = 3},
                       {},
                       {invalid_trial(5), constant_trial({5}, 0.3), constant_trial({5, 10}, 0.2),
                        constant_trial({5, 10}, 0.1)});
}

TEST_CASE("asha: NaN ranks worst, infinities are ordinary values") {
  // Stopping, R=2, d=2: the first report of a rung always continues; after that only a metric
  // that ranks first among two continues.
  const AshaConfig config{.max_length = 4,
                          .max_trials = 3,
                          .num_rungs = 2,
                          .divisor = 2,
                          .max_concurrent_trials = 1,
                          .stop_once = true};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // t1 NaN continues (the first of a rung always does); t2 1e300 ranks before NaN, so first
  // of two: continues; t3 +inf ties NaN (mapped to +inf), goes before it, ranks 2 of 3, and
  // the top is max(int(3/2), 1) = 1: stopped.
  run_value_simulation(
      config, {},
      {constant_trial({2, 4}, nan), constant_trial({2, 4}, 1e300), constant_trial({2}, inf)});
  // -inf is the best value there is.
  run_value_simulation(
      config, {},
      {constant_trial({2, 4}, 0.0), constant_trial({2, 4}, -inf), constant_trial({2}, 1.0)});
}

TEST_CASE("asha: snapshots keep infinite metrics as strings and restore them") {
  Searcher s = make_searcher(asha(9000), {}, 0);
  const auto creates = all_of_type<Create>(s.initial_operations());
  s.handle(TrialCreated{creates[0].request_id});
  s.handle(
      ValidationCompleted{creates[0].request_id, -std::numeric_limits<double>::infinity(), 1000});
  s.handle(TrialCreated{creates[1].request_id});
  s.handle(
      ValidationCompleted{creates[1].request_id, std::numeric_limits<double>::quiet_NaN(), 1000});
  const nlohmann::json snapshot = s.snapshot();
  const std::string text = snapshot.dump();
  CHECK(text.find("\"-Infinity\"") != std::string::npos);
  CHECK(text.find("\"Infinity\"") != std::string::npos);  // NaN is kept as worst: +infinity
  Searcher restored = make_searcher(asha(9000), {}, 0);
  restored.restore(nlohmann::json::parse(text));
  CHECK(restored.snapshot() == snapshot);
}

TEST_CASE("asha: --explain says why a trial was promoted or stopped") {
  Searcher s = make_searcher(asha(9000, true), {}, 0);
  const auto creates = all_of_type<Create>(s.initial_operations());
  const RequestId a = creates[0].request_id;
  const RequestId b = creates[1].request_id;
  s.handle(TrialCreated{a});
  s.handle(TrialCreated{b});
  const auto first = s.handle(ValidationCompleted{a, 0.5, 1000});
  const auto second = s.handle(ValidationCompleted{b, 0.7, 1000});
  REQUIRE(first.size() == 1);
  CHECK(operation_to_json(first[0], true)["explain"] ==
        nlohmann::json::parse(R"({"reason":"continued","rung":0,"length":1000,"rank":1,"of":1,
          "cutoff":1,"metric":0.5,"text":"ranked 1 of 1 at rung 0 (length 1000); the top 1 continue"})"));
  REQUIRE(all_of_type<Close>(second).size() == 1);
  const nlohmann::json stopped = operation_to_json(all_of_type<Close>(second)[0], true);
  CHECK(stopped["explain"]["text"] ==
        "ranked 2 of 2 at rung 0 (length 1000); only the top 1 continue");
  CHECK_FALSE(nlohmann::json(first[0]).contains("explain"));  // only when asked
}

namespace {
// Operations as the drive protocol writes them (without --explain), for comparisons that
// ignore ASHA's explanations.
nlohmann::json plain(const std::vector<Operation>& ops) {
  return nlohmann::json(ops);
}
}  // namespace

TEST_CASE("asha: a closed trial that a reopened rung promotes gets no operation (issue 10)") {
  // Derived by hand from spec 3.5 and docs/asha.md (deviations). R=2, d=2, T=4, C=4: rungs at
  // 50 and 100; a, b, c, d report 0.1 .. 0.4 at rung 0.
  Searcher s = make_searcher(AshaConfig{.max_length = 100,
                                        .max_trials = 4,
                                        .num_rungs = 2,
                                        .divisor = 2,
                                        .max_concurrent_trials = 4},
                             HyperparameterSpace(), 0);
  const auto creates = all_of_type<Create>(s.initial_operations());
  REQUIRE(creates.size() == 4);
  const RequestId a = creates[0].request_id, b = creates[1].request_id, c = creates[2].request_id,
                  d = creates[3].request_id;
  for (const RequestId& id : {a, b, c, d}) s.handle(TrialCreated{id});
  // a: n=0, nothing. b: int(2/2)=1 > int(1/2)=0, the entry at 0 (a) is promoted.
  CHECK(s.handle(ValidationCompleted{a, 0.1, 50}).empty());
  CHECK(plain(s.handle(ValidationCompleted{b, 0.2, 50})) == plain({ValidateAfter{a, 100}}));
  CHECK(s.handle(ValidationCompleted{c, 0.3, 50}).empty());
  // d: int(4/2)=2 > 1, the entry at 1 (b) is promoted; rung 0 is full and settled, so close-out
  // closes c and d.
  CHECK(plain(s.handle(ValidationCompleted{d, 0.4, 50})) ==
        plain({ValidateAfter{b, 100}, Close{c}, Close{d}}));
  s.handle(TrialClosed{c});
  s.handle(TrialClosed{d});
  // a reports invalid hyperparameters at rung 1: closed, its metrics leave both rungs, and a
  // replacement e is created outside max_trials. Rung 0 is now [b (promoted), c, d].
  const auto after_invalid = s.handle(TrialExitedEarly{a, ExitedReason::kInvalidHp});
  REQUIRE(after_invalid.size() == 3);
  CHECK(plain({after_invalid[0]}) == plain({Close{a}}));
  const RequestId e = only_create(after_invalid).request_id;
  CHECK(plain({after_invalid[2]}) == plain({ValidateAfter{e, 50}}));
  s.handle(TrialClosed{a});
  s.handle(TrialCreated{e});
  // e reports the worst value: int(4/2)=2 > int(3/2)=1, so the entry at 1 (c, closed) is due
  // for promotion. Determined would send c a validate_after its master drops; hpsearch records
  // c at rung 1 as the worst value and sends it nothing (before issue 10: a second close).
  // Then rung 0 is full and settled again, and e, unpromoted, is closed out.
  CHECK(plain(s.handle(ValidationCompleted{e, 0.5, 50})) == plain({Close{e}}));
}

TEST_CASE("asha: an early exit of a waiting trial records nothing more (issue 10)") {
  // Same start as above: after d's report, c and d are closed and a and b train at rung 1.
  // R=3 this time, so that a waits at rung 1 after reporting there.
  Searcher s = make_searcher(AshaConfig{.max_length = 400,
                                        .max_trials = 4,
                                        .num_rungs = 3,
                                        .divisor = 2,
                                        .max_concurrent_trials = 4},
                             HyperparameterSpace(), 0);
  const auto creates = all_of_type<Create>(s.initial_operations());
  REQUIRE(creates.size() == 4);  // rungs at 100, 200, 400
  const RequestId a = creates[0].request_id, b = creates[1].request_id, c = creates[2].request_id,
                  d = creates[3].request_id;
  for (const RequestId& id : {a, b, c, d}) s.handle(TrialCreated{id});
  s.handle(ValidationCompleted{a, 0.1, 100});
  s.handle(ValidationCompleted{b, 0.2, 100});  // promotes a
  s.handle(ValidationCompleted{c, 0.3, 100});
  s.handle(ValidationCompleted{d, 0.4, 100});  // promotes b, closes out c and d
  s.handle(TrialClosed{c});
  s.handle(TrialClosed{d});
  // a at rung 1: n=0, no promotion; it waits. Rung 1 holds [a].
  CHECK(s.handle(ValidationCompleted{a, 0.1, 200}).empty());
  const nlohmann::json before = s.snapshot()["search_method_state"]["rungs"];
  // A user kills the waiting a. Determined would add a second entry for a at rung 1 and count
  // rung 1 down again; hpsearch changes no rung and starts nothing.
  CHECK(s.handle(TrialExitedEarly{a, ExitedReason::kUserCanceled}).empty());
  CHECK(s.snapshot()["search_method_state"]["rungs"] == before);
  s.handle(TrialClosed{a});
  // b reports at rung 1: n=1, int(2/2)=1 > 0, the entry at 0 (a, exited) is promoted and
  // recorded at rung 2 as the worst value: no operation for a. Rung 1 is settled (nothing
  // outstanding) and b, unpromoted, is closed out.
  CHECK(plain(s.handle(ValidationCompleted{b, 0.2, 200})) == plain({Close{b}}));
  s.handle(TrialClosed{b});
  CHECK(s.shut_down());
}
