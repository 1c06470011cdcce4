// AshaSearch (order-statistic rungs, amortised close-out) against ReferenceAsha (a literal
// sorted-vector reading of the spec) on random event sequences with ties, non-finite metrics,
// early exits of every reason, invalid hyperparameters and restores in the middle; and the
// restore property for the ASHA methods.
#include <doctest/doctest.h>

#include "support/random_driver.hpp"
#include "support/reference_asha.hpp"
#include "support/spaces.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

namespace {
using ReferenceSearcher = BasicSearcher<ReferenceAsha, RandomSampler>;

// 5,000 sequences per variant in the normal build; sanitised builds run a tenth.
#ifdef HPSEARCH_SANITIZED
constexpr std::uint32_t kSequences = 500;
#else
constexpr std::uint32_t kSequences = 5000;
#endif

AshaConfig config_for(std::uint32_t seed, bool stop_once) {
  // Vary the shape with the seed: 1-4 rungs, divisors 2-4.5, 2-40 trials, 0-6 concurrent.
  return AshaConfig{.max_length = 1000,
                    .max_trials = 2 + seed % 39,
                    .num_rungs = 1 + seed % 4,
                    .divisor = 2.0 + 0.5 * static_cast<double>(seed % 6),
                    .max_concurrent_trials = seed % 7,
                    .stop_once = stop_once};
}

// The direction, varied with the seed too.
bool smaller_is_better(std::uint32_t seed) {
  return seed % 3 != 0;
}

void compare(std::uint32_t seed, bool stop_once) {
  const AshaConfig config = config_for(seed, stop_once);
  const HyperparameterSpace hps = space({{"x", double_hp(0, 1)}});
  const DriverOptions options{.exit_probability = 0.08,
                              .progress_probability = 0.05,
                              .odd_metrics = true,
                              .waiting_exit_probability = 0.03};
  Searcher fast(AnyMethod(AshaSearch(config)), AnySampler(RandomSampler(hps)), seed,
                smaller_is_better(seed));
  ReferenceSearcher reference(ReferenceAsha(config), RandomSampler(hps), seed,
                              smaller_is_better(seed));
  std::vector<std::string> fast_log;
  std::vector<std::string> reference_log;
  RandomDriver a(seed, options);
  RandomDriver b(seed, options);
  a.start(fast, fast_log);
  b.start(reference, reference_log);
  // Halfway through some sequences, the fast searcher is replaced by one restored from its
  // snapshot (through text), and must go on agreeing with the reference.
  const std::size_t restore_at = seed % 3 == 0 ? 1 + seed % 50 : 0;
  std::size_t steps = 0;
  bool more = true;
  while (more) {
    if (++steps == restore_at) {
      Searcher restored(AnyMethod(AshaSearch(config)), AnySampler(RandomSampler(hps)), seed,
                        smaller_is_better(seed));
      restored.restore(nlohmann::json::parse(fast.snapshot().dump()));
      fast = std::move(restored);
    }
    more = a.step(fast, fast_log);
    REQUIRE(b.step(reference, reference_log) == more);
    REQUIRE(fast_log.size() == reference_log.size());
    REQUIRE(fast_log.back() == reference_log.back());
    REQUIRE(fast.progress() == reference.progress());
  }
  CHECK(a.shut_down());
}
}  // namespace

TEST_CASE("asha differential: promotion variant agrees with the reference") {
  for (std::uint32_t seed = 0; seed < kSequences; ++seed) {
    INFO("seed " << seed);
    compare(seed, false);
  }
}

TEST_CASE("asha differential: stopping variant agrees with the reference") {
  for (std::uint32_t seed = 0; seed < kSequences; ++seed) {
    INFO("seed " << seed);
    compare(seed, true);
  }
}

TEST_CASE("snapshot property: async_halving, both variants") {
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    const bool stop_once = seed % 2 == 1;
    const AshaConfig config = config_for(seed, stop_once);
    INFO("seed " << seed);
    check_restore_property(
        [&] {
          return make_searcher(config, space({{"x", double_hp(0, 1)}}), seed,
                               smaller_is_better(seed));
        },
        seed, 1 + seed * 13 % 80,
        DriverOptions{.exit_probability = 0.08, .progress_probability = 0.1, .odd_metrics = true});
  }
}

TEST_CASE("snapshot property: adaptive_asha") {
  for (std::uint32_t seed = 0; seed < 150; ++seed) {
    const AdaptiveAshaConfig config{.max_length = 256,
                                    .max_trials = 5 + seed % 40,
                                    .mode = static_cast<AdaptiveMode>(seed % 3),
                                    .divisor = 2.0 + static_cast<double>(seed % 3),
                                    .max_rungs = 1 + seed % 5,
                                    .max_concurrent_trials = seed % 9,
                                    .stop_once = seed % 2 == 0};
    INFO("seed " << seed);
    check_restore_property(
        [&] {
          return make_searcher(config, space({{"x", double_hp(0, 1)}}), seed);
        },
        seed, 1 + seed * 17 % 120,
        DriverOptions{.exit_probability = 0.06, .progress_probability = 0.1, .odd_metrics = true});
  }
}
