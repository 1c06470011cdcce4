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

TEST_CASE("snapshot property: single") { check_method(SingleConfig{30}, 100); }

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
  CHECK_THROWS_WITH_AS(random.restore(future),
                       "snapshot: format_version 99 is not supported (this build reads versions 1 and 2)",
                       ProtocolError);
  nlohmann::json broken = random.snapshot();
  broken.erase("rng");
  CHECK_THROWS_WITH_AS(grid.restore(broken), "snapshot: key 'rng' not found", ProtocolError);
  CHECK(grid.snapshot() == before);
}
