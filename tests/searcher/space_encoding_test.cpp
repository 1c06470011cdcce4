#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "hpsearch/searcher/space_encoding.hpp"
#include "support/spaces.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

namespace {
// Every kind of leaf, nested two deep, with consts at both levels.
HyperparameterSpace mixed_space() {
  return space(
      {{"lr", log_hp(-5, -1, 10)},
       {"layers", int_hp(1, 4)},
       {"name", ConstHp{"mlp"}},
       {"optimizer",
        space({{"type", categorical({"adam", "sgd", 3, nullptr})},
               {"momentum", double_hp(0.5, 0.99)},
               {"schedule", space({{"warmup", int_hp(-3, 3)}, {"kind", ConstHp{"cosine"}}})}})},
       {"dropout", double_hp(0, 0.5)}});
}

// |a - b| within a few ulps of the larger magnitude.
bool close(double a, double b) {
  return std::abs(a - b) <=
         8 * std::numeric_limits<double>::epsilon() * std::max({1.0, std::abs(a), std::abs(b)});
}
}  // namespace

TEST_CASE("space encoding: leaves in sorted route order, consts take no coordinate") {
  const SpaceEncoding e(mixed_space());
  REQUIRE(e.size() == 6);
  CHECK(e.dimensions()[0].name() == "dropout");
  CHECK(e.dimensions()[1].name() == "layers");
  CHECK(e.dimensions()[2].name() == "lr");
  CHECK(e.dimensions()[3].name() == "optimizer.momentum");
  CHECK(e.dimensions()[4].name() == "optimizer.schedule.warmup");
  CHECK(e.dimensions()[5].name() == "optimizer.type");
  CHECK(e.dimensions()[1].kind == EncodedDimension::Kind::kInteger);
  CHECK(e.dimensions()[1].levels == 4);
  CHECK(e.dimensions()[2].kind == EncodedDimension::Kind::kContinuous);
  CHECK(e.dimensions()[5].kind == EncodedDimension::Kind::kCategorical);
  CHECK(e.dimensions()[5].levels == 4);
}

TEST_CASE("space encoding: coordinates by hand") {
  const SpaceEncoding e(mixed_space());
  const auto hparams = nlohmann::json::parse(R"({"dropout":0.125,"layers":3,"lr":0.001,
      "name":"mlp","optimizer":{"type":3,"momentum":0.99,"schedule":{"warmup":-3,"kind":"cosine"}}})");
  const std::vector<double> u = e.encode(hparams);
  CHECK(u[0] == 0.25);      // (0.125 - 0) / 0.5
  CHECK(u[1] == 2.5 / 4);   // third of four integers: cell [0.5, 0.75), centre 0.625
  CHECK(close(u[2], 0.5));  // exponent -3 on [-5, -1]
  CHECK(u[3] == 1.0);       // maxval
  CHECK(u[4] == 0.5 / 7);   // first of seven integers
  CHECK(u[5] == 2.5 / 4);   // third of four values
}

TEST_CASE("space encoding: round trip over samples of the space (seeds 0..199)") {
  const HyperparameterSpace hps = mixed_space();
  const SpaceEncoding e(hps);
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    INFO("seed " << seed);
    Rng rng(seed);
    const nlohmann::json h = sample(hps, rng);
    const std::vector<double> u = e.encode(h);
    for (const double x : u) CHECK((x >= 0 && x <= 1));
    const nlohmann::json back = e.decode(u);
    // Exact for consts, ints and categoricals; doubles and logs up to rounding.
    CHECK(back["name"] == h["name"]);
    CHECK(back["layers"] == h["layers"]);
    CHECK(back["optimizer"]["type"] == h["optimizer"]["type"]);
    CHECK(back["optimizer"]["schedule"] == h["optimizer"]["schedule"]);
    CHECK(close(back["lr"].get<double>(), h["lr"].get<double>()));
    CHECK(close(back["dropout"].get<double>(), h["dropout"].get<double>()));
    CHECK(close(back["optimizer"]["momentum"].get<double>(),
                h["optimizer"]["momentum"].get<double>()));
    // And from the cube side: encode(decode(u)) == u up to rounding.
    const std::vector<double> again = e.encode(back);
    for (std::size_t i = 0; i < u.size(); ++i) CHECK(close(again[i], u[i]));
  }
}

TEST_CASE("space encoding: decode covers the corners and every cell, snap moves to cell centres") {
  const HyperparameterSpace hps =
      space({{"c", categorical({"a", "b", "c"})}, {"i", int_hp(0, 1)}, {"x", double_hp(-5, 10)}});
  const SpaceEncoding e(hps);
  CHECK(e.decode(std::vector<double>{0, 0, 0}) ==
        nlohmann::json::parse(R"({"c":"a","i":0,"x":-5.0})"));
  CHECK(e.decode(std::vector<double>{1, 1, 1}) ==
        nlohmann::json::parse(R"({"c":"c","i":1,"x":10.0})"));
  CHECK(e.decode(std::vector<double>{0.34, 0.49, 0.5})["c"] == "b");
  CHECK(e.decode(std::vector<double>{0.34, 0.51, 0.5})["i"] == 1);
  // Out of the cube is clamped.
  CHECK(e.decode(std::vector<double>{-1, 2, 7}) ==
        nlohmann::json::parse(R"({"c":"a","i":1,"x":10.0})"));
  std::vector<double> p{0.99, 0.2, 1.5};
  e.snap(p);
  CHECK(p == std::vector<double>{2.5 / 3, 0.25, 1.0});
  CHECK(e.encode(e.decode(p)) == p);
  CHECK(SpaceEncoding::category(e.dimensions()[0], 0.999) == 2);
}

TEST_CASE("space encoding: numeric reads values and categorical indexes") {
  const SpaceEncoding e(
      space({{"c", categorical({"x", "y"})}, {"l", log_hp(0, 2, 10)}, {"n", int_hp(-4, 4)}}));
  const auto h = nlohmann::json::parse(R"({"c":"y","l":50.0,"n":-2})");
  CHECK(e.numeric(h, 0) == 1);
  CHECK(e.numeric(h, 1) == 50.0);
  CHECK(e.numeric(h, 2) == -2);
}

TEST_CASE("space encoding: values outside the space are refused, naming the route") {
  const SpaceEncoding e(mixed_space());
  auto h = nlohmann::json::parse(R"({"dropout":0.125,"layers":3,"lr":0.001,"name":"mlp",
      "optimizer":{"type":3,"momentum":0.99,"schedule":{"warmup":-3,"kind":"cosine"}}})");
  SUBCASE("int out of range") {
    h["layers"] = 5;
    CHECK_THROWS_WITH_AS(
        (void)e.encode(h),
        "hyperparameter layers: 5 is not in the space (expected an integer in [1, 4])",
        std::invalid_argument);
  }
  SUBCASE("int of the wrong type") {
    h["layers"] = 2.5;
    CHECK_THROWS_WITH_AS((void)e.encode(h),
                         "hyperparameter layers: 2.5 is not in the space (expected an integer)",
                         std::invalid_argument);
  }
  SUBCASE("unknown categorical value") {
    h["optimizer"]["type"] = "rmsprop";
    CHECK_THROWS_WITH_AS((void)e.encode(h),
                         "hyperparameter optimizer.type: \"rmsprop\" is not in the space "
                         "(expected one of [\"adam\",\"sgd\",3,null])",
                         std::invalid_argument);
  }
  SUBCASE("double out of range") {
    h["dropout"] = 0.75;
    CHECK_THROWS_WITH_AS((void)e.encode(h),
                         "hyperparameter dropout: 0.75 is not in the space (expected a number in "
                         "[0, 0.5])",
                         std::invalid_argument);
  }
  SUBCASE("log out of range") {
    h["lr"] = 1.0;
    CHECK_THROWS_WITH_AS((void)e.encode(h),
                         "hyperparameter lr: 1.0 is not in the space (expected a number in "
                         "[1e-05, 0.1])",
                         std::invalid_argument);
  }
  SUBCASE("missing nested leaf") {
    h["optimizer"]["schedule"].erase("warmup");
    CHECK_THROWS_WITH_AS((void)e.encode(h), "hyperparameter optimizer.schedule.warmup: missing",
                         std::invalid_argument);
  }
}

TEST_CASE("space encoding: the widest int range keeps its ends") {
  const std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  const std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  const SpaceEncoding e(space({{"n", int_hp(lo, hi)}}));
  CHECK(e.decode(std::vector<double>{0})["n"] == lo);
  CHECK(e.encode(nlohmann::json{{"n", lo}})[0] >= 0);
  CHECK(e.encode(nlohmann::json{{"n", hi}})[0] <= 1);
}
