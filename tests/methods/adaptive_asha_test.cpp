// adaptive_asha: spec 3.7 (worked table and outcome) and the adaptive tests of spec 7.2.
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include "hpsearch/simulator/preview.hpp"
#include "support/spaces.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

namespace {
using Lengths = std::vector<std::vector<std::uint64_t>>;

AdaptiveAshaConfig adaptive(std::uint64_t length, std::uint64_t trials, AdaptiveMode mode,
                            std::uint64_t max_rungs, double divisor, std::uint64_t concurrent) {
  return AdaptiveAshaConfig{.max_length = length,
                            .max_trials = trials,
                            .mode = mode,
                            .divisor = divisor,
                            .max_rungs = max_rungs,
                            .max_concurrent_trials = concurrent};
}

void check_row(const AdaptiveAshaConfig& config, std::vector<std::uint64_t> rungs,
               std::vector<std::uint64_t> trials, std::vector<std::uint64_t> concurrency,
               const Lengths& lengths) {
  const std::vector<Bracket> brackets = adaptive_brackets(config);
  REQUIRE(brackets.size() == rungs.size());
  const AdaptiveAsha method(config);
  for (std::size_t i = 0; i < brackets.size(); ++i) {
    INFO("bracket " << i);
    CHECK(brackets[i] == Bracket{rungs[i], trials[i], concurrency[i]});
    CHECK(method.brackets()[i].rung_lengths() == lengths[i]);
  }
}

std::map<std::string, std::uint64_t> preview_shape(AdaptiveAshaConfig config,
                                                   PreviewMetric metric) {
  Searcher s = make_searcher(config, space({{"lr", log_hp(-4, -1, 10)}}), 0);
  return simulate(s, PreviewOptions{.order = PickOrder::kFifo, .metric = metric}).sequences;
}
}  // namespace

TEST_CASE("adaptive asha: the worked bracket table of spec 3.7") {
  using M = AdaptiveMode;
  check_row(adaptive(900, 5, M::kStandard, 2, 3, 16), {2, 1}, {3, 2}, {8, 8}, {{300, 900}, {900}});
  check_row(adaptive(1000, 16, M::kStandard, 5, 4, 16), {3, 2}, {12, 4}, {8, 8},
            {{62, 250, 1000}, {250, 1000}});
  check_row(adaptive(1000, 100, M::kAggressive, 5, 4, 16), {4}, {100}, {16}, {{15, 62, 250, 1000}});
  check_row(adaptive(1000, 100, M::kConservative, 5, 4, 16), {4, 3, 2, 1}, {67, 21, 8, 4},
            {4, 4, 4, 4}, {{15, 62, 250, 1000}, {62, 250, 1000}, {250, 1000}, {1000}});
  check_row(adaptive(6400, 128, M::kStandard, 5, 4, 16), {4, 3, 2}, {89, 29, 10}, {6, 5, 5},
            {{100, 400, 1600, 6400}, {400, 1600, 6400}, {1600, 6400}});
  check_row(adaptive(1000, 1000, M::kStandard, 5, 4, 16), {5, 4, 3}, {707, 220, 73}, {6, 5, 5},
            {{3, 15, 62, 250, 1000}, {15, 62, 250, 1000}, {62, 250, 1000}});
  check_row(adaptive(1000, 10, M::kConservative, 5, 3, 5), {3, 2, 1}, {7, 2, 1}, {2, 2, 1},
            {{111, 333, 1000}, {333, 1000}, {1000}});
}

TEST_CASE("adaptive asha: the rung clamp uses natural logs in double (ln 1000 / ln 10 < 3)") {
  CHECK(std::log(1000.0) / std::log(10.0) == 2.9999999999999996);
  CHECK(adaptive_max_rungs(adaptive(1000, 1000, AdaptiveMode::kStandard, 5, 10, 16)) == 3);
  CHECK(adaptive_max_rungs(adaptive(1000, 16, AdaptiveMode::kStandard, 5, 4, 16)) == 3);
  CHECK(adaptive_max_rungs(adaptive(100000, 100000, AdaptiveMode::kStandard, 5, 4, 16)) == 5);
}

TEST_CASE("adaptive asha: modes give their rung lists (1..5) and bracket_rungs overrides") {
  for (std::uint64_t max_rungs = 1; max_rungs <= 5; ++max_rungs) {
    INFO("max rungs " << max_rungs);
    const auto config = adaptive(1'000'000, 1'000'000, AdaptiveMode::kStandard, max_rungs, 4, 16);
    const std::vector<std::vector<std::uint64_t>> standard{
        {1}, {2, 1}, {3, 2}, {4, 3, 2}, {5, 4, 3}};
    CHECK(adaptive_bracket_rungs(config) == standard[max_rungs - 1]);
  }
  AdaptiveAshaConfig listed = adaptive(1000, 50, AdaptiveMode::kAggressive, 5, 4, 16);
  listed.bracket_rungs = {1, 3};
  CHECK(adaptive_bracket_rungs(listed) == std::vector<std::uint64_t>{3, 1});
}

TEST_CASE("adaptive asha: trials per bracket (TestBracketMaxTrials)") {
  CHECK(bracket_max_trials(20, 3, {3, 2, 1}) == std::vector<std::uint64_t>{12, 5, 3});
  CHECK(bracket_max_trials(50, 3, {4, 3}) == std::vector<std::uint64_t>{35, 15});
  CHECK(bracket_max_trials(50, 4, {3, 2}) == std::vector<std::uint64_t>{37, 13});
  CHECK(bracket_max_trials(100, 4, {4, 3, 2}) == std::vector<std::uint64_t>{70, 22, 8});
}

TEST_CASE("adaptive asha: concurrency per bracket (TestBracketMaxConcurrentTrials)") {
  CHECK(bracket_max_concurrent_trials(0, 3, {9, 3, 1}) == std::vector<std::uint64_t>{3, 3, 3});
  CHECK(bracket_max_concurrent_trials(11, 3, {9, 3, 1}) == std::vector<std::uint64_t>{4, 4, 3});
  CHECK(bracket_max_concurrent_trials(0, 4, {40, 10}) == std::vector<std::uint64_t>{10, 10});
  CHECK(bracket_max_concurrent_trials(2, 4, {5, 3, 1}) == std::vector<std::uint64_t>{1, 1, 1});
}

TEST_CASE("adaptive asha: the worked outcome of spec 3.7 (L=1000, T=16, FIFO)") {
  const auto config = adaptive(1000, 16, AdaptiveMode::kStandard, 5, 4, 16);
  // Bracket 1: 3 trials reach rung 1, int(3/4) = 0 promotions, so nothing reaches 1000.
  CHECK(
      preview_shape(config, PreviewMetric::kConstant) ==
      std::map<std::string, std::uint64_t>{{"62", 9}, {"62 250", 3}, {"250", 3}, {"250 1000", 1}});
  AdaptiveAshaConfig stopping = config;
  stopping.stop_once = true;
  CHECK(preview_shape(stopping, PreviewMetric::kConstant) ==
        std::map<std::string, std::uint64_t>{{"62 250 1000", 12}, {"250 1000", 4}});
  CHECK(preview_shape(stopping, PreviewMetric::kTrialId) ==
        std::map<std::string, std::uint64_t>{
            {"62", 11}, {"62 250 1000", 1}, {"250", 3}, {"250 1000", 1}});
}

TEST_CASE("adaptive asha: equal seeds reproduce (TestAdaptiveASHASearcherReproducibility)") {
  const auto config = adaptive(6400, 128, AdaptiveMode::kStandard, 5, 4, 16);
  const HyperparameterSpace hps = space({{"lr", log_hp(-4, -1, 10)}, {"n", int_hp(1, 8)}});
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
  CHECK(ra.trials == 128);
  CHECK(ra.sequences == rb.sequences);
  CHECK_FALSE(trace_a.str().empty());
  CHECK(trace_a.str() == trace_b.str());
}
