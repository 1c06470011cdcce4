#include <doctest/doctest.h>

#include <limits>

#include "hpsearch/samplers/observation_store.hpp"
#include "hpsearch/searcher/errors.hpp"

using namespace hpsearch;

namespace {
ObservationStore with_trials(std::size_t trials, std::size_t cap) {
  ObservationStore store(1, cap);
  for (std::uint32_t t = 0; t < trials; ++t) {
    const double x = static_cast<double>(t) / static_cast<double>(trials);
    store.add_trial(t, std::vector<double>{x});
  }
  return store;
}

std::vector<std::uint32_t> trials_of(const std::vector<ObservationStore::Observed>& data) {
  std::vector<std::uint32_t> out;
  for (const auto& o : data) out.push_back(o.trial);
  return out;
}
}  // namespace

TEST_CASE("observation store: trials rank by the longest length reached, then by metric there") {
  // Trials 0-4 report at length 1; 1 and 3 are promoted to 3 (0.4 and 0.2); 3 goes on to 9.
  ObservationStore store = with_trials(6, 16);
  const std::vector<double> first{0.5, 0.3, 0.9, 0.1, 0.7};
  for (std::uint32_t t = 0; t < 5; ++t) store.observe(t, 1, first[t]);
  store.observe(3, 3, 0.2);
  store.observe(1, 3, 0.4);
  store.observe(3, 9, 0.6);
  std::vector<std::uint32_t> leaders;
  store.leaders(10, leaders);
  // 3 (length 9), 1 (length 3), then length 1 by metric: 0 (0.5), 4 (0.7), 2 (0.9).
  CHECK(leaders == std::vector<std::uint32_t>{3, 1, 0, 4, 2});
  CHECK(store.ranks_before(3, 1));
  CHECK(store.ranks_before(1, 0));
  CHECK(store.ranks_before(0, 4));
  CHECK_FALSE(store.ranks_before(2, 4));
  store.leaders(2, leaders);
  CHECK(leaders == std::vector<std::uint32_t>{3, 1});
  CHECK(store.observed_trials() == 5);
  CHECK_FALSE(store.observed(5));
  CHECK(store.longest_length() == 9);
  CHECK(store.observations() == 8);
}

TEST_CASE("observation store: equal metrics rank by first observation, NaN is the worst") {
  ObservationStore store = with_trials(4, 16);
  store.observe(2, 1, 0.5);
  store.observe(0, 1, std::numeric_limits<double>::quiet_NaN());
  store.observe(1, 1, 0.5);
  store.observe(3, 1, std::numeric_limits<double>::infinity());
  std::vector<std::uint32_t> leaders;
  store.leaders(4, leaders);
  CHECK(leaders == std::vector<std::uint32_t>{2, 1, 0, 3});
}

TEST_CASE("observation store: model sets are whole while they fit, capped beyond") {
  // Cap 4: the 2 leaders plus an even spread of the observed trials (every k-th in
  // observation order), in first-observation order.
  ObservationStore store = with_trials(8, 4);
  const std::vector<double> m{0.3, 0.1, 0.8, 0.2, 0.9, 0.7, 0.6, 0.5};
  for (std::uint32_t t = 0; t < 4; ++t) store.observe(t, 1, m[t]);
  std::vector<std::uint32_t> trials;
  store.model_trials(trials);
  CHECK(trials == std::vector<std::uint32_t>{0, 1, 2, 3});
  for (std::uint32_t t = 4; t < 8; ++t) store.observe(t, 1, m[t]);
  store.model_trials(trials);
  // Leaders 1 (0.1) and 3 (0.2); spread of 2 over 8: positions 0 and 4 -> trials 0 and 4.
  CHECK(trials == std::vector<std::uint32_t>{0, 1, 3, 4});
  std::vector<std::uint32_t> spread;
  store.spread(3, spread);
  CHECK(spread == std::vector<std::uint32_t>{0, 2, 5});

  std::vector<ObservationStore::Observed> data;
  store.model_observations(data);
  // The same rule over observations (one per trial here).
  CHECK(trials_of(data) == std::vector<std::uint32_t>{0, 1, 3, 4});
  CHECK(data[2] == ObservationStore::Observed{3, 1, 0.2, 3});
}

TEST_CASE("observation store: model observations put the longest lengths first among the best") {
  ObservationStore store = with_trials(4, 4);
  store.observe(0, 1, 0.1);
  store.observe(1, 1, 0.2);
  store.observe(2, 1, 0.3);
  store.observe(0, 3, 0.9);
  store.observe(3, 1, 0.05);
  // 5 observations, cap 4: the best 2 are (0 at length 3) and (3 at length 1, 0.05); the
  // spread of 2 over 5 takes positions 0 and 2. In order: 0, 2, 3, 4.
  std::vector<ObservationStore::Observed> data;
  store.model_observations(data);
  std::vector<std::uint64_t> orders;
  for (const auto& o : data) orders.push_back(o.order);
  CHECK(orders == std::vector<std::uint64_t>{0, 2, 3, 4});
  CHECK(data[2] == ObservationStore::Observed{0, 3, 0.9, 3});
}

TEST_CASE("observation store: pending trials") {
  ObservationStore store = with_trials(5, 16);
  store.on_pending(3, 1);
  store.on_pending(1, 1);
  store.on_pending(4, 1);
  store.observe(1, 1, 0.2);  // reported: no longer pending
  store.on_pending(1, 3);    // promoted: training toward 3 now
  store.on_finished(4);      // closed
  store.on_pending(99, 1);   // unknown trials are ignored
  std::vector<std::uint32_t> pending;
  store.pending(pending);
  CHECK(pending == std::vector<std::uint32_t>{1, 3});
  CHECK(store.pending_length(1) == 3);
}

TEST_CASE("observation store: snapshot round trip, and malformed states are refused") {
  ObservationStore store = with_trials(6, 4);
  for (std::uint32_t t = 0; t < 6; ++t) store.observe(t, 2, 1.0 / (t + 1.0));
  store.observe(0, 8, -std::numeric_limits<double>::infinity());
  store.on_pending(2, 8);
  store.on_pending(5, 8);
  store.on_finished(2);
  const nlohmann::json j = store.to_json();
  ObservationStore back(1, 4);
  back.restore(j);
  CHECK(back == store);
  CHECK(back.to_json() == j);
  CHECK(j["observations"][6] == nlohmann::json::parse(R"([0, 8, "-Infinity"])"));
  CHECK(j["pending"] == nlohmann::json::parse("[[5, 8]]"));

  nlohmann::json bad = j;
  bad["points"][1] = nlohmann::json::parse("[1.5]");
  CHECK_THROWS_WITH_AS(back.restore(bad),
                       "sampler_state.points[1]: expected 1 numbers in [0, 1], got [1.5]",
                       ProtocolError);
  bad = j;
  bad["pending"][0][0] = 6;
  CHECK_THROWS_WITH_AS(back.restore(bad),
                       "sampler_state.pending: trial 6 is not one of the 6 points", ProtocolError);
  bad = j;
  bad["observations"][0][1] = 0;
  CHECK_THROWS_WITH_AS(back.restore(bad),
                       "sampler_state.observations: length 0 is not an integer >= 1",
                       ProtocolError);
  CHECK(back == store);  // unchanged by the failed restores
}
