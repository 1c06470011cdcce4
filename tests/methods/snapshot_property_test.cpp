// Restore-then-continue emits exactly what the uninterrupted searcher emits (many seeds,
// random event orders, random cut points), for every core method.
#include <doctest/doctest.h>

#include "support/random_driver.hpp"
#include "support/spaces.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

namespace {
const HyperparameterSpace& mixed_space() {
  static const HyperparameterSpace hps =
      space({{"lr", log_hp(-4, -1, 10, 3)},
             {"layers", int_hp(1, 4, 2)},
             {"opt", space({{"name", categorical({"sgd", "adam"})}, {"m", double_hp(0, 1, 2)}})},
             {"fixed", ConstHp{"yes"}}});
  return hps;
}

void check_method(const MethodConfig& config, int seeds) {
  for (std::uint32_t seed = 0; seed < static_cast<std::uint32_t>(seeds); ++seed) {
    const std::size_t cut = 1 + seed * 7 % 60;
    INFO("seed " << seed << ", cut after " << cut << " steps");
    check_restore_property([&] { return make_searcher(config, mixed_space(), seed); }, seed, cut,
                           DriverOptions{.exit_probability = 0.1, .progress_probability = 0.2});
  }
}
}  // namespace

TEST_CASE("snapshot property: random") {
  check_method(RandomConfig{.max_length = 50, .max_trials = 12, .max_concurrent_trials = 3}, 200);
}

TEST_CASE("snapshot property: random, all trials at once") {
  check_method(RandomConfig{.max_length = 7, .max_trials = 9, .max_concurrent_trials = 0}, 100);
}

TEST_CASE("snapshot property: single") {
  check_method(SingleConfig{30}, 100);
}

TEST_CASE("snapshot property: grid") {
  check_method(GridConfig{.max_length = 20, .max_concurrent_trials = 4}, 200);
}

TEST_CASE("snapshot: a snapshot from another method or version is refused, state unchanged") {
  Searcher random = make_searcher(RandomConfig{.max_length = 5, .max_trials = 3}, {}, 0);
  random.initial_operations();
  Searcher grid = make_searcher(GridConfig{.max_length = 5}, double_axes({2}), 0);
  const nlohmann::json before = grid.snapshot();
  CHECK_THROWS_WITH_AS(grid.restore(random.snapshot()),
                       "search_method_state: the snapshot is of a \"random\" search, but the "
                       "config describes a \"grid\" search",
                       ProtocolError);
  nlohmann::json future = random.snapshot();
  future["format_version"] = 99;
  CHECK_THROWS_WITH_AS(
      random.restore(future),
      "snapshot: format_version 99 is not supported (this build reads versions 1 and 2)",
      ProtocolError);
  nlohmann::json broken = random.snapshot();
  broken.erase("rng");
  CHECK_THROWS_WITH_AS(grid.restore(broken), "snapshot: key 'rng' not found", ProtocolError);
  CHECK(grid.snapshot() == before);
}

namespace {
// The position of `request_id` in the snapshot's searcher_state.trials (the trial index
// restore's messages use).
std::size_t trial_index(const nlohmann::json& snapshot, const nlohmann::json& request_id) {
  const nlohmann::json& trials = snapshot.at("searcher_state").at("trials");
  for (std::size_t i = 0; i < trials.size(); ++i) {
    if (trials[i].at("request_id") == request_id) return i;
  }
  FAIL("request id not in searcher_state: " << request_id);
  return 0;
}

void check_refused(Searcher& searcher, const nlohmann::json& snapshot, const std::string& message) {
  const nlohmann::json before = searcher.snapshot();
  CHECK_THROWS_WITH_AS(searcher.restore(snapshot), message.c_str(), ProtocolError);
  CHECK(searcher.snapshot() == before);
}
}  // namespace

TEST_CASE("snapshot: trials that the method's state does not account for are refused") {
  // Found by fuzzing (fuzz/restore_fuzz.cpp); each was accepted, and the next event aborted.
  SUBCASE("a search that has not started has no trials") {
    Searcher random = make_searcher(RandomConfig{.max_length = 5, .max_trials = 3}, {}, 0);
    random.initial_operations();
    nlohmann::json snapshot = random.snapshot();
    snapshot["started"] = false;
    check_refused(random, snapshot,
                  "snapshot: started is false, but searcher_state has 3 trial(s)");
  }
  SUBCASE("ASHA must know every trial") {
    Searcher asha = make_searcher(AshaConfig{.max_length = 8,
                                             .max_trials = 6,
                                             .num_rungs = 2,
                                             .divisor = 2,
                                             .max_concurrent_trials = 2},
                                  {}, 0);
    asha.initial_operations();
    nlohmann::json snapshot = asha.snapshot();
    REQUIRE(snapshot.at("searcher_state").at("trials").size() == 2);
    snapshot["search_method_state"]["trials"].erase(1);
    check_refused(asha, snapshot,
                  "search_method_state.trials: 1 trial(s), but searcher_state has 2");
  }
  SUBCASE("adaptive ASHA: each trial in exactly one bracket") {
    Searcher adaptive = make_searcher(AdaptiveAshaConfig{.max_length = 16,
                                                         .max_trials = 20,
                                                         .mode = AdaptiveMode::kStandard,
                                                         .divisor = 2,
                                                         .max_rungs = 3,
                                                         .max_concurrent_trials = 8},
                                      {}, 0);
    adaptive.initial_operations();
    const nlohmann::json snapshot = adaptive.snapshot();
    const nlohmann::json& brackets = snapshot.at("search_method_state").at("sub_search_states");
    REQUIRE(brackets.size() >= 2);
    std::size_t full = 0;  // a bracket with a trial
    while (full < brackets.size() && brackets[full].at("trials").empty()) ++full;
    REQUIRE(full < brackets.size());
    const nlohmann::json moved = brackets[full].at("trials").back();
    const std::size_t index = trial_index(snapshot, moved.at("request_id"));

    nlohmann::json in_none = snapshot;
    in_none["search_method_state"]["sub_search_states"][full]["trials"].erase(
        brackets[full].at("trials").size() - 1);
    check_refused(adaptive, in_none,
                  "search_method_state.sub_search_states: searcher_state trial " +
                      std::to_string(index) + " is in no bracket");

    nlohmann::json in_two = snapshot;
    const std::size_t other = full == 0 ? 1 : 0;
    in_two["search_method_state"]["sub_search_states"][other]["trials"].push_back(moved);
    check_refused(adaptive, in_two,
                  "search_method_state.sub_search_states: trial " + std::to_string(index) +
                      " is in two brackets");
  }
}
