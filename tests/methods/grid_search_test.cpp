// grid: spec 3.4, the grid_test.go cases of spec 7.2 and the documented deviations.
#include <doctest/doctest.h>

#include "hpsearch/simulator/preview.hpp"
#include "support/ops.hpp"
#include "support/spaces.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

TEST_CASE("grid: every point trains to max_length (TestGridSearcherRecords/Batches/Epochs)") {
  for (const std::uint64_t length : {19200ULL, 300ULL, 3ULL}) {
    Searcher s = make_searcher(GridConfig{.max_length = length}, double_axes({2, 1, 3}), 0);
    const PreviewResult result = simulate(s, PreviewOptions{.order = PickOrder::kRandom});
    CHECK(result.sequences == std::map<std::string, std::uint64_t>{{std::to_string(length), 6}});
  }
}

TEST_CASE("grid: trials launch from the last grid point to the first") {
  const HyperparameterSpace hps = space({{"a", int_hp(0, 2, 3)}, {"b", categorical({"x", "y"})}});
  const Grid grid(hps);
  Searcher s = make_searcher(GridConfig{.max_length = 1, .max_concurrent_trials = 1}, hps, 0);
  std::vector<nlohmann::json> launched;
  auto ops = s.initial_operations();
  while (!all_of_type<Create>(ops).empty()) {
    const Create c = only_create(ops);
    launched.push_back(c.hparams);
    s.handle(TrialCreated{c.request_id});
    s.handle(ValidationCompleted{c.request_id, 0, 1});
    ops = s.handle(TrialClosed{c.request_id});
  }
  CHECK(ops == std::vector<Operation>{Shutdown{false, false}});
  REQUIRE(launched.size() == 6);
  for (std::uint64_t k = 0; k < 6; ++k) CHECK(launched[k] == grid.point(5 - k));
}

TEST_CASE("grid: creates draw only the id and the seed (the golden ids of seed 0)") {
  Searcher s =
      make_searcher(GridConfig{.max_length = 1, .max_concurrent_trials = 2}, double_axes({3}), 0);
  const auto creates = all_of_type<Create>(s.initial_operations());
  REQUIRE(creates.size() == 2);  // max_concurrent_trials
  CHECK(creates[0].request_id.to_string() == "ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8");
  CHECK(creates[0].trial_seed == 441365315);
  CHECK(creates[1].request_id.to_string() == "fb52a2db-c376-4d8b-a77d-e5d809a4746c");
}

TEST_CASE("grid: an empty grid shuts the search down at once (deviation: Determined hangs)") {
  for (const HyperparameterSpace& hps :
       {HyperparameterSpace(), space({{"c", categorical({})}, {"x", int_hp(0, 3, 2)}})}) {
    Searcher s = make_searcher(GridConfig{.max_length = 10}, hps, 0);
    CHECK(s.initial_operations() == std::vector<Operation>{Shutdown{false, false}});
    CHECK(s.shut_down());
    CHECK(s.progress() == 1.0);
  }
}

TEST_CASE("grid: an invalid-hyperparameter point is done, and the next point follows") {
  Searcher s =
      make_searcher(GridConfig{.max_length = 10, .max_concurrent_trials = 1}, double_axes({2}), 0);
  const RequestId a = only_create(s.initial_operations()).request_id;
  s.handle(TrialCreated{a});
  CHECK(s.handle(TrialExitedEarly{a, ExitedReason::kInvalidHp}).empty());
  const auto next = s.handle(TrialClosed{a});
  CHECK(all_of_type<Create>(next).size() == 1);
  CHECK(s.progress() == 0.5);  // closed points count, invalid or not
}

TEST_CASE("grid: progress survives a restore (deviation: Determined reports 0)") {
  const GridConfig config{.max_length = 10, .max_concurrent_trials = 2};
  const HyperparameterSpace hps = double_axes({4});
  Searcher s = make_searcher(config, hps, 0);
  const auto creates = all_of_type<Create>(s.initial_operations());
  s.handle(TrialCreated{creates[0].request_id});
  s.handle(ValidationCompleted{creates[0].request_id, 0, 10});
  s.handle(TrialClosed{creates[0].request_id});
  s.handle(TrialCreated{creates[1].request_id});
  s.handle(TrialProgress{creates[1].request_id, 5});
  CHECK(s.progress() == 0.375);  // (10 + 5) / 40
  Searcher restored = make_searcher(config, hps, 0);
  restored.restore(s.snapshot());
  CHECK(restored.progress() == 0.375);
  CHECK(restored.snapshot() == s.snapshot());
}

TEST_CASE("grid: restore refuses a snapshot of another grid") {
  Searcher a = make_searcher(GridConfig{.max_length = 10}, double_axes({4}), 0);
  a.initial_operations();
  Searcher b = make_searcher(GridConfig{.max_length = 10}, double_axes({5}), 0);
  CHECK_THROWS_WITH_AS(b.restore(a.snapshot()),
                       "search_method_state.grid_size: the snapshot was taken with 4 but the "
                       "config says 5",
                       ProtocolError);
  CHECK_FALSE(b.started());
}
