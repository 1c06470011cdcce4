#include <doctest/doctest.h>

#include <limits>

#include "hpsearch/samplers/observation_store.hpp"
#include "hpsearch/searcher/errors.hpp"

using namespace hpsearch;

namespace {
std::vector<std::uint32_t> trials_of(const std::vector<Observed>& data) {
  std::vector<std::uint32_t> out;
  for (const Observed& o : data) out.push_back(o.trial);
  return out;
}

ObservationStore with_trials(std::size_t trials, std::size_t cap) {
  ObservationStore store(1, cap);
  for (std::uint32_t t = 0; t < trials; ++t) {
    const double x = static_cast<double>(t) / static_cast<double>(trials);
    store.add_trial(t, std::vector<double>{x});
  }
  return store;
}
}  // namespace

TEST_CASE("observation store: the whole set while it fits the cap, in observation order") {
  ObservationStore store = with_trials(4, 8);
  store.observe(2, 10, 0.5);
  store.observe(0, 10, 0.1);
  store.observe(3, 10, 0.9);
  std::vector<Observed> data;
  store.data(10, data);
  CHECK(trials_of(data) == std::vector<std::uint32_t>{2, 0, 3});
  CHECK(data[1] == Observed{0, 0.1, 1});
  store.data(11, data);
  CHECK(data.empty());
}

TEST_CASE("observation store: over the cap, the best half and the most recent rest") {
  // Cap 4: the 2 best, then the most recent others up to 4. Metrics by hand: trial t reports
  // metric m[t] at length 1, in trial order.
  ObservationStore store = with_trials(8, 4);
  const std::vector<double> m{0.3, 0.1, 0.8, 0.2, 0.9, 0.7, 0.6, 0.5};
  for (std::uint32_t t = 0; t < 8; ++t) store.observe(t, 1, m[t]);
  std::vector<Observed> data;
  store.data(1, data);
  // Best two: trials 1 (0.1) and 3 (0.2). Most recent others: 7, then 6.
  CHECK(trials_of(data) == std::vector<std::uint32_t>{1, 3, 6, 7});
  // A new best pushes trial 3 out of the best half; it is not recent either.
  store.add_trial(8, std::vector<double>{0.5});
  store.observe(8, 1, 0.05);
  store.data(1, data);
  CHECK(trials_of(data) == std::vector<std::uint32_t>{1, 6, 7, 8});
}

TEST_CASE("observation store: equal metrics rank by observation order; NaN is the worst") {
  ObservationStore store = with_trials(5, 2);
  store.observe(0, 1, std::numeric_limits<double>::quiet_NaN());
  store.observe(1, 1, 0.5);
  store.observe(2, 1, 0.5);
  store.observe(3, 1, std::numeric_limits<double>::infinity());
  store.observe(4, 1, 1.0);
  std::vector<Observed> data;
  store.data(1, data);
  // Cap 2: the best (trial 1, first of the equal pair) and the most recent (trial 4).
  CHECK(trials_of(data) == std::vector<std::uint32_t>{1, 4});
  ObservationStore all = with_trials(1, 4);
  all.observe(0, 1, std::numeric_limits<double>::quiet_NaN());
  all.data(1, data);
  CHECK(data[0].metric == std::numeric_limits<double>::infinity());
}

TEST_CASE("observation store: the modelled length is the largest with enough observations") {
  ObservationStore store = with_trials(6, 16);
  for (std::uint32_t t = 0; t < 6; ++t) store.observe(t, 1, 1.0);
  for (std::uint32_t t = 0; t < 3; ++t) store.observe(t, 3, 1.0);
  store.observe(0, 9, 1.0);
  CHECK(store.model_length(1) == 9);
  CHECK(store.model_length(2) == 3);
  CHECK(store.model_length(4) == 1);
  CHECK(store.model_length(7) == std::nullopt);
  CHECK(store.count(3) == 3);
  CHECK(store.count(27) == 0);
}

TEST_CASE("observation store: pending trials below a length") {
  ObservationStore store = with_trials(5, 16);
  store.on_pending(3, 1);
  store.on_pending(1, 1);
  store.on_pending(4, 1);
  store.observe(1, 1, 0.2);  // reported: no longer pending
  store.on_pending(1, 3);    // promoted: training toward 3 now
  store.on_finished(4);      // closed
  store.on_pending(99, 1);   // unknown trials are ignored
  std::vector<std::uint32_t> pending;
  store.pending_below(3, pending);
  CHECK(pending == std::vector<std::uint32_t>{1, 3});
  // At length 1, trial 1 has reported already: it is data there, not a pending trial.
  store.pending_below(1, pending);
  CHECK(pending == std::vector<std::uint32_t>{3});
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
  CHECK(j["observations"][1] == nlohmann::json::parse(R"([8, [[0, "-Infinity"]]])"));

  nlohmann::json bad = j;
  bad["points"][1] = nlohmann::json::parse("[1.5]");
  CHECK_THROWS_WITH_AS(back.restore(bad),
                       "sampler_state.points[1]: expected 1 numbers in [0, 1], got [1.5]",
                       ProtocolError);
  bad = j;
  bad["pending"][0][0] = 6;
  CHECK_THROWS_WITH_AS(back.restore(bad),
                       "sampler_state.pending: trial 6 is not one of the 6 points", ProtocolError);
  CHECK(back == store);  // unchanged by the failed restores
}
