#include <doctest/doctest.h>

#include <set>

#include "hpsearch/samplers/random_sampler.hpp"
#include "hpsearch/searcher/searcher.hpp"
#include "support/spaces.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

namespace {
// Determined's TestSamplingReproducibility space.
HyperparameterSpace reproducibility_space() {
  return space({{"cat", categorical({0, 1, 2, 3, 4, 5, 6})},
                {"const", ConstHp{"val"}},
                {"double", double_hp(0, 100)},
                {"int", int_hp(0, 100)},
                {"log", log_hp(-2, 2, 10)}});
}
}  // namespace

TEST_CASE("hyperparameters: golden sample of seed 0 and the create that follows (spec 1.4)") {
  Rng rng(0);
  const HyperparameterSpace hps = reproducibility_space();
  RandomSampler sampler(hps);
  SearchContext ctx{rng, SamplerRef(sampler), 0, 0};
  const Create create = sample_create(ctx);
  CHECK(create.hparams["cat"] == 4);
  CHECK(create.hparams["const"] == "val");
  CHECK(create.hparams["double"].get<double>() == 59.28446182250183);
  CHECK(create.hparams["int"] == 64);
  // Go's math.Pow gives ...887; glibc's correctly rounded pow would give ...883.
  CHECK(create.hparams["log"].get<double>() == 2.5766385746135887);
  // The six sample draws are cat (w0), double (w1, w2), int (w3) and log (w4, w5); the id
  // starts at w6 = 0x8b7d76c3, whose little-endian bytes open "c3767d8b".
  CHECK(create.request_id.to_string() == "c3767d8b-677d-45d8-89a4-746cd3dea19f");
  CHECK(create.trial_seed == 626610453);
}

TEST_CASE("hyperparameters: equal seeds give equal samples and equal RNG states (seeds 0..49)") {
  const HyperparameterSpace hps = reproducibility_space();
  for (std::uint32_t seed = 0; seed < 50; ++seed) {
    INFO("seed " << seed);
    Rng a(seed);
    Rng b(seed);
    const nlohmann::json sa = sample(hps, a);
    CHECK(sa.size() == 5);
    CHECK(sa == sample(hps, b));
    CHECK(a.bits64() == b.bits64());
  }
}

TEST_CASE("hyperparameters: int samples are inclusive of both ends") {
  Rng rng(3);
  const HyperparameterSpace hps = space({{"x", int_hp(-1, 1)}});
  std::set<std::int64_t> seen;
  for (int i = 0; i < 200; ++i) seen.insert(sample(hps, rng)["x"].get<std::int64_t>());
  CHECK(seen == std::set<std::int64_t>{-1, 0, 1});
}

TEST_CASE("hyperparameters: an all-const nest samples to the same nested map") {
  Rng rng(0);
  const HyperparameterSpace hps = space({{"optimizer", space({{"type", ConstHp{"adam"}},
                                                              {"learning_rate", ConstHp{0.01}},
                                                              {"momentum", ConstHp{0.9}}})}});
  const Rng before = rng;
  CHECK(sample(hps, rng) ==
        nlohmann::json::parse(
            R"({"optimizer":{"type":"adam","learning_rate":0.01,"momentum":0.9}})"));
  CHECK(rng == before);  // constants draw nothing
}

TEST_CASE("hyperparameters: nested names are visited in sorted order (documented deviation)") {
  // Determined iterates nested maps in Go's random order; hpsearch sorts, so the draws are a
  // function of the seed. Independent derivation: draw by hand in sorted order.
  const HyperparameterSpace hps =
      space({{"nest", space({{"zeta", double_hp(0, 1)}, {"alpha", int_hp(0, 9)}})},
             {"a", double_hp(5, 6)}});
  Rng rng(11);
  Rng by_hand(11);
  const double a = by_hand.uniform(5, 6);
  const auto alpha = static_cast<std::int64_t>(by_hand.bits_limit(9));
  const double zeta = by_hand.uniform(0, 1);
  const nlohmann::json sampled = sample(hps, rng);
  CHECK(sampled["a"].get<double>() == a);
  CHECK(sampled["nest"]["alpha"] == alpha);
  CHECK(sampled["nest"]["zeta"].get<double>() == zeta);
  CHECK(rng == by_hand);
}

TEST_CASE("hyperparameters: an empty nest samples to an empty object") {
  Rng rng(0);
  CHECK(sample(space({{"e", HyperparameterSpace()}}), rng) == nlohmann::json::parse(R"({"e":{}})"));
}

TEST_CASE("hyperparameters: categorical values keep their JSON type") {
  Rng rng(0);
  const HyperparameterSpace hps =
      space({{"c", categorical({nlohmann::json::parse(R"({"k":[1,2]})")})}});
  CHECK(sample(hps, rng)["c"] == nlohmann::json::parse(R"({"k":[1,2]})"));
}
