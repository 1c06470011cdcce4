// What repeats teach the models (docs/samplers.md, "The repeat radius" and "sampler: auto"): the
// store's repeat radius is the median distance between a repeat's point and the point of the
// trial that first reported its metric (categoricals must match); the models propose nothing
// within it of a trial they know; `auto` proposes with GP until the radius is known, then TPE,
// and with TPE from the start where the space has an int.
// Oracles worked out by hand from those rules.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hpsearch/config/catalog.hpp"
#include "hpsearch/config/config.hpp"
#include "hpsearch/samplers/auto_sampler.hpp"
#include "hpsearch/samplers/gp.hpp"
#include "hpsearch/samplers/observation_store.hpp"
#include "hpsearch/samplers/tpe.hpp"
#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/space_encoding.hpp"
#include "model_common.hpp"

using namespace hpsearch;

TEST_CASE("repeat radius: the median distance of repeats to their first reporter") {
  // Two coordinates, the second categorical. Trial 0 reports 0.5; trials 1..4 lie at
  // distances 0.1, 0.4, 0.2 and 0.3 from it along the first coordinate.
  ObservationStore store(2, 64, {0, 1});
  const std::vector<double> xs{0.0, 0.1, 0.4, 0.2, 0.3};
  for (std::uint32_t t = 0; t < xs.size(); ++t) {
    store.add_trial(t, std::vector<double>{xs[t], 0.25});
  }
  // A categorical that differs: trial 5 reports the same value but is another configuration.
  store.add_trial(5, std::vector<double>{0.0, 0.75});
  store.observe(0, 1, 0.5);
  CHECK(store.repeat_radius() == 0);
  store.observe(1, 1, 0.5);           // 0.1
  store.observe(2, 1, 0.5);           // 0.4
  CHECK(store.repeat_radius() == 0);  // two repeats: not yet evidence
  store.observe(5, 1, 0.5);           // categorical differs: a coincidence, not a repeat
  CHECK_FALSE(store.repeated(5));
  CHECK(store.repeat_radius() == 0);
  store.observe(3, 1, 0.5);  // 0.2: {0.1, 0.2, 0.4}, median 0.2
  CHECK(store.repeat_radius() == doctest::Approx(0.2));
  store.observe(4, 1, 0.5);  // 0.3: {0.1, 0.2, 0.3, 0.4}, the lower median 0.2
  CHECK(store.repeat_radius() == doctest::Approx(0.2));
  // Only a trial's first result is compared (as for the guard's repeats): equal later results
  // of two trials teach nothing new.
  store.observe(1, 3, 0.9);
  store.observe(2, 3, 0.9);
  CHECK(store.repeat_radius() == doctest::Approx(0.2));

  CHECK(store.within(std::vector<double>{0.3, 0.25}, std::vector<double>{0.0, 0.25}, 0.3));
  CHECK_FALSE(store.within(std::vector<double>{0.31, 0.25}, std::vector<double>{0.0, 0.25}, 0.3));
  CHECK_FALSE(store.within(std::vector<double>{0.0, 0.75}, std::vector<double>{0.0, 0.25}, 0.3));

  // A restored store learns the same radius from the same observations.
  ObservationStore restored(2, 64, {0, 1});
  restored.restore(store.to_json());
  CHECK(restored.repeat_radius() == store.repeat_radius());
  CHECK(restored == store);
}

namespace {

HyperparameterSpace space_of(const std::string& yaml) {
  return parse_config(
             yaml + "searcher: {name: random, metric: loss, max_trials: 500, max_length: 1}\n",
             "test.yaml")
      .hyperparameters;
}

// A table-like objective: the value of the cell (of width 0.25 in each coordinate) the point
// falls in, so every point of a cell repeats its value bit for bit.
double cell_value(const std::vector<double>& p) {
  const double a = std::floor(p[0] * 4);
  const double b = std::floor(p[1] * 4);
  return (a - 2) * (a - 2) + (b - 1) * (b - 1) + 0.125 * a;
}

}  // namespace

TEST_CASE("repeat radius: TPE proposes nothing within the radius of a trial it knows") {
  const HyperparameterSpace space = space_of(
      "hyperparameters:\n  x: {type: double, minval: 0, maxval: 1}\n"
      "  y: {type: double, minval: 0, maxval: 1}\n");
  const SpaceEncoding encoding(space);
  TpeSampler tpe(space, TpeConfig{});
  Rng rng(7);
  std::vector<double> point(2);
  for (std::uint32_t t = 0; t < 120; ++t) {
    const nlohmann::json hparams = tpe.propose(rng, t);
    encoding.encode(hparams, point);
    const double radius = tpe.store().repeat_radius();
    if (radius > 0 && tpe.store().modelled(t)) {
      // Every trial the model knew (all observed here: fewer than its cap) lies outside.
      for (std::uint32_t other = 0; other < t; ++other) {
        INFO("trial " << t << " near " << other);
        CHECK_FALSE(tpe.store().within(point, tpe.store().point(other), radius));
      }
    }
    tpe.observe(t, 1, cell_value(point));
  }
  CHECK(tpe.store().repeat_radius() > 0);  // the cells were learned
}

TEST_CASE("auto: GP until the radius is known, then TPE, each proposal is that model's own") {
  const HyperparameterSpace space = space_of(
      "hyperparameters:\n  x: {type: double, minval: 0, maxval: 1}\n"
      "  y: {type: double, minval: 0, maxval: 1}\n");
  const SpaceEncoding encoding(space);
  AutoSampler automatic(space);
  // The oracle: the two models run by hand as the rule says.
  GpSampler gp(space, GpConfig{});
  TpeSampler tpe(space, TpeConfig{});
  Rng rng_auto(11);
  Rng rng_hand(11);
  std::vector<double> point(2);
  bool switched = false;
  std::optional<std::uint32_t> first_tpe;  // the trial the hand-run rule first gives TPE
  for (std::uint32_t t = 0; t < 40; ++t) {
    const bool use_tpe = tpe.store().repeat_radius() > 0;
    CHECK(std::string(automatic.model()) == (use_tpe ? "tpe" : "gp"));
    CHECK(automatic.tpe_from_trial() == first_tpe);  // none until TPE has proposed
    nlohmann::json expected;
    if (use_tpe) {
      expected = tpe.propose(rng_hand, t);
      gp.record(t, expected);
      switched = true;
      if (!first_tpe) first_tpe = t;
    } else {
      expected = gp.propose(rng_hand, t);
      tpe.record(t, expected);
    }
    const nlohmann::json got = automatic.propose(rng_auto, t);
    REQUIRE(got == expected);
    encoding.encode(got, point);
    const double value = cell_value(point);
    automatic.observe(t, 1, value);
    gp.observe(t, 1, value);
    tpe.observe(t, 1, value);
  }
  CHECK(switched);
  REQUIRE(first_tpe);
  CHECK(*first_tpe > 0);
  CHECK(automatic.tpe_from_trial() == first_tpe);
  // A snapshot restores into a fresh sampler that continues identically.
  AutoSampler restored(space);
  restored.restore_state(automatic.state());
  CHECK(restored == automatic);
  CHECK(restored.tpe_from_trial() == first_tpe);
  CHECK(automatic.state()["model"] == "tpe");
  CHECK(automatic.state()["tpe_from_trial"] == *first_tpe);
  // A state written before tpe_from_trial was kept restores with it unknown; a bad one is
  // refused naming the field.
  nlohmann::json older = automatic.state();
  older.erase("tpe_from_trial");
  restored.restore_state(older);
  CHECK(!restored.tpe_from_trial());
  // TPE proposes there already: the switch was at a trial nobody recorded, and a proposal now
  // does not claim it; the state leaves it out again, so a restore of it keeps it unknown.
  Rng rng_more(5);
  (void)restored.propose(rng_more, 40);
  CHECK(!restored.tpe_from_trial());
  CHECK(!restored.state().contains("tpe_from_trial"));
  AutoSampler again(space);
  again.restore_state(restored.state());
  (void)again.propose(rng_more, 41);
  CHECK(!again.tpe_from_trial());
  nlohmann::json bad = automatic.state();
  bad["tpe_from_trial"] = -1;
  CHECK_THROWS_WITH_AS(restored.restore_state(bad),
                       doctest::Contains("sampler_state.tpe_from_trial"), ProtocolError);
  CHECK_THROWS_AS(restored.restore_state(TpeSampler(space, TpeConfig{}).state()), ProtocolError);
}

TEST_CASE("auto: GP throughout where no result repeats") {
  const HyperparameterSpace space =
      space_of("hyperparameters:\n  x: {type: double, minval: 0, maxval: 1}\n");
  const SpaceEncoding encoding(space);
  AutoSampler automatic(space);
  Rng rng(3);
  std::vector<double> point(1);
  for (std::uint32_t t = 0; t < 25; ++t) {
    encoding.encode(automatic.propose(rng, t), point);
    automatic.observe(t, 1, (point[0] - 0.3) * (point[0] - 0.3));  // smooth: no repeats
    CHECK(std::string(automatic.model()) == "gp");
  }
  CHECK(!automatic.tpe_from_trial());
  CHECK(automatic.state()["tpe_from_trial"].is_null());
}

TEST_CASE("auto: TPE from the first trial where the space has an int, GP where it has none") {
  // An int input makes the space discrete: TPE proposes from the start, before any result (and
  // so before any repeat) is known. The objective is smooth in x, so no result ever repeats
  // and the repeat rule alone would have kept GP throughout.
  const HyperparameterSpace space = space_of(
      "hyperparameters:\n  x: {type: double, minval: 0, maxval: 1}\n"
      "  n: {type: int, minval: 1, maxval: 4}\n");
  const SpaceEncoding encoding(space);
  CHECK(AutoSampler::integer_input(encoding) == "n");
  AutoSampler automatic(space);
  // The oracle: TPE run by hand, GP only recording what TPE proposed.
  GpSampler gp(space, GpConfig{});
  TpeSampler tpe(space, TpeConfig{});
  Rng rng_auto(5);
  Rng rng_hand(5);
  for (std::uint32_t t = 0; t < 30; ++t) {
    CHECK(std::string(automatic.model()) == "tpe");
    const nlohmann::json expected = tpe.propose(rng_hand, t);
    gp.record(t, expected);
    const nlohmann::json got = automatic.propose(rng_auto, t);
    REQUIRE(got == expected);
    const double x = got["x"].get<double>();
    const double value = (x - 0.3) * (x - 0.3) + 0.01 * got["n"].get<double>();
    automatic.observe(t, 1, value);
    gp.observe(t, 1, value);
    tpe.observe(t, 1, value);
  }
  CHECK(tpe.store().repeat_radius() == 0);
  CHECK(automatic.tpe_from_trial() == 0u);  // TPE from the first trial
  AutoSampler restored(space);
  restored.restore_state(automatic.state());
  CHECK(restored == automatic);
  CHECK(automatic.state()["model"] == "tpe");

  // Categoricals alone do not (counting ones has binary categoricals and GP searches it best).
  const HyperparameterSpace no_int = space_of(
      "hyperparameters:\n  x: {type: double, minval: 0, maxval: 1}\n"
      "  c: {type: categorical, vals: [a, b]}\n  k: 7\n");
  CHECK(AutoSampler::integer_input(SpaceEncoding(no_int)).empty());
  CHECK(std::string(AutoSampler(no_int).model()) == "gp");
}

TEST_CASE("auto: random where no model could act, with the reason") {
  const std::string two_inputs =
      "hyperparameters:\n  x: {type: double, minval: 0, maxval: 1}\n"
      "  n: {type: int, minval: 1, maxval: 5}\n  c: 3\n";
  const auto choice = [&](const std::string& hps, const std::string& searcher) {
    const ExperimentConfig config = parse_config(hps + "searcher: {" + searcher + "}\n", "t.yaml");
    return choose_sampler(config.searcher.sampler, config.searcher.method, config.hyperparameters);
  };
  // Two inputs vary (the constant does not), so a model proposes once 4 trials have reported:
  // max_trials 4 ends first, 5 does not.
  const SamplerChoice small =
      choice(two_inputs, "name: random, metric: loss, max_trials: 4, max_length: 1, sampler: auto");
  CHECK(std::holds_alternative<RandomSamplerConfig>(small.sampler));
  CHECK(small.reason ==
        "max_trials 4 ends before a model's first proposal (after 4 trials have reported)");
  CHECK(small.proposes == "random");
  CHECK(small.then.empty());
  const SamplerChoice enough =
      choice(two_inputs, "name: random, metric: loss, max_trials: 5, max_length: 1, sampler: auto");
  CHECK(std::holds_alternative<AutoSamplerConfig>(enough.sampler));
  CHECK(enough.reason ==
        "from the first trial, as int hyperparameter 'n' makes the space discrete (results will "
        "repeat); GP only records the trials");
  CHECK(enough.proposes == "tpe");
  CHECK(enough.then.empty());
  const SamplerChoice smooth =
      choice("hyperparameters:\n  x: {type: double, minval: 0, maxval: 1}\n",
             "name: random, metric: loss, max_trials: 5, max_length: 1, "
             "sampler: auto");
  CHECK(std::holds_alternative<AutoSamplerConfig>(smooth.sampler));
  CHECK(smooth.reason ==
        "GP while results vary smoothly, TPE for good from the third result that repeats "
        "another's (a table or a coarse discrete space)");
  CHECK(smooth.proposes == "gp");
  CHECK(smooth.then == "tpe");
  CHECK(std::holds_alternative<RandomSamplerConfig>(
      choice("hyperparameters:\n  c: 3\n",
             "name: random, metric: loss, max_trials: 50, max_length: 1, sampler: auto")
          .sampler));
  // Another sampler is returned as it is.
  const SamplerChoice tpe =
      choice(two_inputs, "name: random, metric: loss, max_trials: 4, max_length: 1, sampler: tpe");
  CHECK(tpe.sampler == SamplerConfig(TpeConfig{}));
  CHECK(tpe.reason.empty());
}
