// The exploration guard (samplers/src/model_common.hpp, docs/samplers.md): the share of random
// proposals from how model-made trials rank beside random ones of a like age. Oracles worked
// out by hand from the rule.
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

TEST_CASE("guard: wary (half random) until each side has 3 observed comparable trials") {
  ObservationStore store = interleaved();
  CHECK(random_share(options(0.1), store) == 0.5);
  store.observe(4, 1, 0.1);
  store.observe(6, 1, 0.2);
  store.observe(8, 1, 0.3);
  store.observe(5, 1, 0.9);
  store.observe(7, 1, 0.8);
  CHECK(store.comparable_modelled() == 3);
  CHECK(store.comparable_random() == 2);
  CHECK(random_share(options(0.1), store) == 0.5);  // only 2 random ones
  // A random_fraction above the wary share is kept; 0 turns the guard off.
  CHECK(random_share(options(0.7), store) == 0.7);
  CHECK(random_share(options(0), store) == 0);
}

TEST_CASE("guard: trust when model-made trials are over-represented among the best") {
  ObservationStore store = interleaved();
  // Modelled 0.1 .. 0.4, random 0.5 .. 0.8: 8 comparable, k = 8 / 4 = 2; the best two are
  // trials 4 and 6, both modelled: 2 * 8 > 4 * 2, trusted, the share is random_fraction.
  for (std::uint32_t i = 0; i < 4; ++i) {
    store.observe(4 + 2 * i, 1, 0.1 * (i + 1));
    store.observe(5 + 2 * i, 1, 0.5 + 0.1 * i);
  }
  CHECK(store.comparable_modelled() == 4);
  CHECK(store.comparable_random() == 4);
  CHECK(random_share(options(0.1), store) == 0.1);
  CHECK(random_share(options(0.05), store) == 0.05);
}

TEST_CASE("guard: no trust when random trials do as well or better") {
  ObservationStore worse = interleaved();
  // Random 0.1 .. 0.4, modelled 0.5 .. 0.8: the best two are random: 0 * 8 > 4 * 2 is false.
  for (std::uint32_t i = 0; i < 4; ++i) {
    worse.observe(5 + 2 * i, 1, 0.1 * (i + 1));
    worse.observe(4 + 2 * i, 1, 0.5 + 0.1 * i);
  }
  CHECK(random_share(options(0.1), worse) == 0.5);
  // As well: the best two are one of each (trial 4 at 0.1, trial 5 at 0.2): 1 * 8 > 4 * 2 is
  // false (the model's share among the best must exceed its share overall).
  ObservationStore even = interleaved();
  even.observe(4, 1, 0.1);
  even.observe(5, 1, 0.2);
  for (std::uint32_t t = 6; t < 12; ++t) even.observe(t, 1, 0.5 + 0.01 * t);
  CHECK(random_share(options(0.1), even) == 0.5);
}

TEST_CASE("guard: the best are ranked as the store ranks trials, longer lengths first") {
  ObservationStore store = interleaved();
  for (std::uint32_t i = 0; i < 4; ++i) {
    store.observe(4 + 2 * i, 1, 0.1 * (i + 1));
    store.observe(5 + 2 * i, 1, 0.5 + 0.1 * i);
  }
  // Random trials 9 and 11 were promoted to length 3: they lead the ranking whatever their
  // metric, so the best two are random and trust is lost.
  store.observe(9, 3, 0.95);
  store.observe(11, 3, 0.99);
  CHECK(random_share(options(0.1), store) == 0.5);
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

TEST_CASE("guard: repeats are no success of the model's, and raise the random share") {
  // Modelled 4 at 0.1 and 6, 8, 10 repeating it; random 5, 7, 9, 11 at 0.5 .. 0.8. Without the
  // repeats the best two comparable trials are 4 (modelled) and 5 (random): 1 * 8 > 4 * 2 is
  // false, so wary (0.5); 3 of the 4 model-made trials were repeats: max(0.5, 0.75) = 0.75.
  ObservationStore wasted = interleaved();
  for (std::uint32_t i = 0; i < 4; ++i) {
    wasted.observe(4 + 2 * i, 1, 0.1);
    wasted.observe(5 + 2 * i, 1, 0.5 + 0.1 * i);
  }
  CHECK(wasted.comparable_modelled_repeats() == 3);
  CHECK(random_share(options(0.1), wasted) == 0.75);
  // Trusted (the best two, 4 at 0.1 and 6 at 0.2, are the model's) but trial 10 repeats 4:
  // max(0.1, 1/4) = 0.25.
  ObservationStore one = interleaved();
  one.observe(4, 1, 0.1);
  one.observe(6, 1, 0.2);
  one.observe(8, 1, 0.3);
  one.observe(10, 1, 0.1);
  for (std::uint32_t i = 0; i < 4; ++i) one.observe(5 + 2 * i, 1, 0.5 + 0.1 * i);
  CHECK(random_share(options(0.1), one) == 0.25);
  // Every model-made trial a repeat: at most 0.9.
  ObservationStore all = interleaved();
  for (std::uint32_t i = 0; i < 4; ++i) {
    all.observe(4 + 2 * i, 1, 0.0);  // trial 0's result
    all.observe(5 + 2 * i, 1, 0.5 + 0.1 * i);
  }
  CHECK(random_share(options(0.1), all) == 0.9);
}
