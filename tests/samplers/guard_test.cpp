// The exploration guard (samplers/src/model_common.hpp, docs/samplers.md): the share of random
// proposals is random_fraction, raised to the share of the model's trials whose first result
// repeated another trial's. Oracles worked out by hand from the rule.
#include <doctest/doctest.h>

#include "hpsearch/samplers/observation_store.hpp"
#include "hpsearch/searcher/errors.hpp"
#include "model_common.hpp"

using namespace hpsearch;
using sampler_detail::random_share;

namespace {

// Four random trials before the model (0..3, not comparable), then eight alternating from
// trial 4: modelled, random, modelled, ... (4, 6, 8, 10 modelled; 5, 7, 9, 11 random).
ObservationStore interleaved() {
  ObservationStore store(1, 64);
  for (std::uint32_t t = 0; t < 12; ++t) {
    store.add_trial(t, std::vector<double>{t / 12.0}, t >= 4 && t % 2 == 0);
  }
  for (std::uint32_t t = 0; t < 4; ++t) store.observe(t, 1, 0.0);  // best, but not comparable
  return store;
}

ModelOptions options(double random_fraction) {
  ModelOptions o;
  o.random_fraction = random_fraction;
  return o;
}

}  // namespace

TEST_CASE("guard: without repeats the share is random_fraction, however the model ranks") {
  ObservationStore store = interleaved();
  CHECK(random_share(options(0.1), store) == 0.1);  // no model-made trial observed yet
  // Random trials 5 .. 11 better than the model's 4 .. 10: no repeat, so still 0.1 (the rule
  // looks at waste, not at ranking).
  for (std::uint32_t i = 0; i < 4; ++i) {
    store.observe(5 + 2 * i, 1, 0.1 * (i + 1));
    store.observe(4 + 2 * i, 1, 0.5 + 0.1 * i);
  }
  CHECK(store.comparable_modelled() == 4);
  CHECK(store.comparable_random() == 4);
  CHECK(store.comparable_modelled_repeats() == 0);
  CHECK(random_share(options(0.1), store) == 0.1);
  CHECK(random_share(options(0.7), store) == 0.7);
  CHECK(random_share(options(0), store) == 0);  // 0: every proposal modelled
}

TEST_CASE("guard: repeats before the model's first proposal do not count") {
  ObservationStore store = interleaved();  // trials 1, 2, 3 repeat trial 0's 0.0
  CHECK(store.repeated(1));
  CHECK(store.comparable_modelled_repeats() == 0);
  store.observe(4, 1, 0.3);
  CHECK(random_share(options(0.1), store) == 0.1);
}

TEST_CASE("guard: which trials a model proposed survives a snapshot, older states mean none") {
  ObservationStore store = interleaved();
  store.observe(4, 1, 0.5);
  const nlohmann::json j = store.to_json();
  CHECK(j["modelled"] == nlohmann::json::parse("[4, 6, 8, 10]"));
  ObservationStore back(1, 64);
  back.restore(j);
  CHECK(back == store);
  CHECK(back.comparable_modelled() == 1);

  nlohmann::json older = j;
  older.erase("modelled");
  back.restore(older);
  CHECK_FALSE(back.modelled(4));
  CHECK(back.comparable_modelled() == 0);
  CHECK(back.comparable_random() == 0);  // nothing is comparable before a model-made trial

  nlohmann::json bad = j;
  bad["modelled"] = nlohmann::json::parse("[12]");
  CHECK_THROWS_WITH_AS(back.restore(bad),
                       "sampler_state.modelled: trial 12 is not one of the 12 points",
                       ProtocolError);
  bad["modelled"] = 3;
  CHECK_THROWS_WITH_AS(back.restore(bad), "sampler_state.modelled: expected an array",
                       ProtocolError);
}

TEST_CASE("guard: a repeat is a result another trial reported, bit for bit, at the same length") {
  ObservationStore store = interleaved();  // trials 0..3 reported 0.0 at length 1
  CHECK_FALSE(store.repeated(0));
  CHECK(store.repeated(1));  // 0.0 at length 1 again
  store.observe(4, 3, 0.0);  // 0.0, but at a length nobody reported it
  CHECK_FALSE(store.repeated(4));
  store.observe(6, 3, 0.0);
  CHECK(store.repeated(6));
  store.observe(8, 3, 1e-17);  // not bit for bit
  CHECK_FALSE(store.repeated(8));
  store.observe(4, 9, 0.5);  // a later observation does not make a trial a repeat
  CHECK_FALSE(store.repeated(4));
  CHECK(store.comparable_modelled_repeats() == 1);  // trial 6
}

TEST_CASE("guard: the share rises to the model's share of repeats, at most 0.9") {
  // Modelled 4 at 0.1 and 6, 8, 10 repeating it; random 5, 7, 9, 11 at 0.5 .. 0.8: 3 of the 4
  // model-made trials were repeats: max(0.1, 0.75) = 0.75.
  ObservationStore wasted = interleaved();
  for (std::uint32_t i = 0; i < 4; ++i) {
    wasted.observe(4 + 2 * i, 1, 0.1);
    wasted.observe(5 + 2 * i, 1, 0.5 + 0.1 * i);
  }
  CHECK(wasted.comparable_modelled_repeats() == 3);
  CHECK(random_share(options(0.1), wasted) == 0.75);
  CHECK(random_share(options(0.8), wasted) == 0.8);  // random_fraction is the floor
  // One repeat (10 repeats 4) of 4: max(0.1, 1/4) = 0.25. A random trial's repeat (9 repeats
  // 5) does not count.
  ObservationStore one = interleaved();
  one.observe(4, 1, 0.1);
  one.observe(6, 1, 0.2);
  one.observe(8, 1, 0.3);
  one.observe(10, 1, 0.1);
  one.observe(5, 1, 0.6);
  one.observe(7, 1, 0.7);
  one.observe(9, 1, 0.6);
  CHECK(one.repeated(9));
  CHECK(random_share(options(0.1), one) == 0.25);
  // Every model-made trial a repeat: at most 0.9.
  ObservationStore all = interleaved();
  for (std::uint32_t i = 0; i < 4; ++i) all.observe(4 + 2 * i, 1, 0.0);  // trial 0's result
  CHECK(random_share(options(0.1), all) == 0.9);
}
