// random and single: spec 3.2, 3.3 and the random_test.go cases of spec 7.2.
#include <doctest/doctest.h>

#include <sstream>

#include "hpsearch/simulator/preview.hpp"
#include "support/ops.hpp"
#include "support/spaces.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

namespace {
std::map<std::string, std::uint64_t> shape(const MethodConfig& config, std::uint32_t seed = 0,
                                           const HyperparameterSpace& hps = {}) {
  Searcher s = make_searcher(config, hps, seed);
  return simulate(s, PreviewOptions{.order = PickOrder::kRandom, .seed = seed}).sequences;
}
using Shape = std::map<std::string, std::uint64_t>;
}  // namespace

TEST_CASE("random: every trial trains to max_length (TestRandomSearcherRecords/Batches)") {
  CHECK(shape(RandomConfig{.max_length = 19200, .max_trials = 4}) == Shape{{"19200", 4}});
  CHECK(shape(RandomConfig{.max_length = 300, .max_trials = 4}) == Shape{{"300", 4}});
}

TEST_CASE(
    "random: one trial at a time does not shut down early (TestRandomSearcherSingleConcurrent)") {
  CHECK(shape(RandomConfig{.max_length = 100, .max_trials = 2, .max_concurrent_trials = 1}) ==
        Shape{{"100", 2}});
}

TEST_CASE("random: equal seeds reproduce ids and lengths (TestRandomSearcherReproducibility)") {
  const RandomConfig config{.max_length = 300, .max_trials = 4};
  const HyperparameterSpace hps = space({{"x", double_hp(0, 1)}});
  Searcher a = make_searcher(config, hps, 17);
  Searcher b = make_searcher(config, hps, 17);
  // Each trace holds every event and answer: request ids, hyperparameters and lengths.
  std::ostringstream trace_a;
  std::ostringstream trace_b;
  const PreviewResult ra =
      simulate(a, {.order = PickOrder::kRandom, .seed = 17, .trace = &trace_a});
  const PreviewResult rb =
      simulate(b, {.order = PickOrder::kRandom, .seed = 17, .trace = &trace_b});
  CHECK(ra.trials == rb.trials);
  CHECK(ra.sequences == rb.sequences);
  CHECK_FALSE(trace_a.str().empty());
  CHECK(trace_a.str() == trace_b.str());
}

TEST_CASE("random: initial trials are min(max_trials, max_concurrent_trials), or all for 0") {
  const auto initial = [](std::uint64_t trials, std::uint64_t concurrent) {
    Searcher s = make_searcher(
        RandomConfig{.max_length = 5, .max_trials = trials, .max_concurrent_trials = concurrent},
        HyperparameterSpace(), 0);
    return all_of_type<Create>(s.initial_operations()).size();
  };
  CHECK(initial(10, 3) == 3);
  CHECK(initial(10, 0) == 10);
  CHECK(initial(2, 16) == 2);
}

TEST_CASE("random: samples are the seed's golden values (spec 1.4, x: int 0..10)") {
  Searcher s = make_searcher(RandomConfig{.max_length = 5, .max_trials = 3},
                             space({{"x", int_hp(0, 10)}}), 0);
  const auto creates = all_of_type<Create>(s.initial_operations());
  REQUIRE(creates.size() == 3);
  CHECK(creates[0].hparams == nlohmann::json({{"x", 5}}));
  CHECK(creates[0].request_id.to_string() == "c0cc21d8-43b3-4e9a-bb52-a2dbc3767d8b");
  CHECK(creates[0].trial_seed == 1491434855);
  CHECK(creates[1].hparams == nlohmann::json({{"x", 9}}));
  CHECK(creates[1].request_id.to_string() == "d3dea19f-1551-49a5-b2d6-666224b70570");
  CHECK(creates[2].hparams == nlohmann::json({{"x", 6}}));
  CHECK(creates[2].trial_seed == 2051556033);
}

TEST_CASE("random: an invalid-hyperparameter trial is replaced, other exits are not") {
  for (const ExitedReason reason :
       {ExitedReason::kInvalidHp, ExitedReason::kInitInvalidHp, ExitedReason::kErrored,
        ExitedReason::kUserCanceled, ExitedReason::kUserRequestedStop}) {
    INFO("reason " << to_string(reason));
    Searcher s =
        make_searcher(RandomConfig{.max_length = 5, .max_trials = 2, .max_concurrent_trials = 1},
                      HyperparameterSpace(), 0);
    const RequestId a = only_create(s.initial_operations()).request_id;
    s.handle(TrialCreated{a});
    s.handle(TrialExitedEarly{a, reason});
    const RequestId b = only_create(s.handle(TrialClosed{a})).request_id;
    s.handle(TrialCreated{b});
    s.handle(ValidationCompleted{b, 1, 5});
    const auto after_b = s.handle(TrialClosed{b});
    const bool replaced =
        reason == ExitedReason::kInvalidHp || reason == ExitedReason::kInitInvalidHp;
    // Replaced: b did not count, so a third trial comes; otherwise the search is over.
    CHECK(all_of_type<Create>(after_b).size() == (replaced ? 1U : 0U));
    CHECK(all_of_type<Shutdown>(after_b).size() == (replaced ? 0U : 1U));
  }
}

TEST_CASE("single: one trial, not replaced after invalid hyperparameters") {
  Searcher s = make_searcher(SingleConfig{12}, space({{"lr", ConstHp{0.1}}}), 0);
  const auto initial = s.initial_operations();
  REQUIRE(initial.size() == 3);
  const Create create = only_create(initial);
  CHECK(create.hparams == nlohmann::json({{"lr", 0.1}}));
  CHECK(initial[1] == Operation(ValidateAfter{create.request_id, 12}));
  s.handle(TrialCreated{create.request_id});
  s.handle(TrialExitedEarly{create.request_id, ExitedReason::kInvalidHp});
  CHECK(s.handle(TrialClosed{create.request_id}) == std::vector<Operation>{Shutdown{false, false}});
  CHECK(s.method().state()["search_method_type"] == "single");
}
