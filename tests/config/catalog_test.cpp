// The catalog of methods and samplers, and `searcher.sampler` read through it.
#include <doctest/doctest.h>

#include <utility>

#include "hpsearch/config/catalog.hpp"
#include "hpsearch/config/config.hpp"
#include "support/parse_config_text.hpp"

using namespace hpsearch;

namespace {
using testing::parse;

// An ASHA section with the given sampler line, over one double (no count) or a counted one.
std::string asha_with(const std::string& sampler, bool counted = false) {
  return std::string("hyperparameters:\n  x: {type: double, minval: 0, maxval: 1") +
         (counted ? ", count: 3}" : "}") +
         "\nsearcher:\n  name: async_halving\n  metric: loss\n  max_trials: 20\n"
         "  max_length: 27\n  num_rungs: 3\n  divisor: 3\n" +
         sampler;
}

// method_name / sampler_name index the rows by the variant's alternative: the rows must be in
// the variants' order, each alternative's name the one its parser reads.
template <class Variant, std::size_t... I>
std::vector<std::string> names_by_alternative(std::string (*name)(const Variant&),
                                              std::index_sequence<I...>) {
  return {name(Variant(std::in_place_index<I>))...};
}
}  // namespace

TEST_CASE("catalog: rows are in the order of the config variants") {
  const auto methods = names_by_alternative<MethodConfig>(
      method_name, std::make_index_sequence<std::variant_size_v<MethodConfig>>());
  REQUIRE(methods.size() == catalog_methods().size());
  CHECK(methods == std::vector<std::string>{"single", "random", "grid", "async_halving",
                                            "adaptive_asha", "pbt"});
  const auto samplers = names_by_alternative<SamplerConfig>(
      sampler_name, std::make_index_sequence<std::variant_size_v<SamplerConfig>>());
  REQUIRE(samplers.size() == catalog_samplers().size());
  CHECK(samplers == std::vector<std::string>{"random", "grid", "tpe", "gp", "auto"});
  for (std::size_t i = 0; i < catalog_methods().size(); ++i) {
    CHECK(catalog_methods()[i].name == methods[i]);
  }
  for (std::size_t i = 0; i < catalog_samplers().size(); ++i) {
    CHECK(catalog_samplers()[i].name == samplers[i]);
  }
}

TEST_CASE("catalog: snapshots carry the types the catalog lists") {
  for (const char* name : {"random", "grid", "tpe", "gp", "auto"}) {
    INFO(name);
    const std::string yaml =
        "hyperparameters:\n  x: {type: double, minval: 0, maxval: 1, count: 2}\nsearcher:\n"
        "  name: async_halving\n  metric: loss\n  max_trials: 4\n  max_length: 9\n"
        "  num_rungs: 2\n  stop_once: true\n  sampler: " +
        std::string(name) + "\n";
    const ExperimentConfig config = parse(yaml);
    const nlohmann::json snapshot =
        make_searcher(config.searcher, config.hyperparameters, 0).snapshot();
    const auto& samplers = catalog_samplers()[config.searcher.sampler.index()].snapshot_types;
    CHECK(std::find(samplers.begin(), samplers.end(),
                    snapshot["sampler_state"]["sampler_type"].get<std::string>()) !=
          samplers.end());
    const auto& methods = catalog_methods()[config.searcher.method.index()].snapshot_types;
    CHECK(std::find(methods.begin(), methods.end(),
                    snapshot["search_method_state"]["search_method_type"].get<std::string>()) !=
          methods.end());
  }
}

TEST_CASE("catalog: the help text lists every method and sampler with its fields") {
  const std::string help = catalog_help();
  for (const auto* entries : {&catalog_methods(), &catalog_samplers()}) {
    for (const CatalogEntry& entry : *entries) {
      CHECK_MESSAGE(help.find("  " + std::string(entry.name) + " ") != std::string::npos,
                    entry.name);
      CHECK(help.find(std::string(entry.summary)) != std::string::npos);
      for (const std::string_view field : entry.fields) {
        CHECK(help.find(std::string(field)) != std::string::npos);
      }
    }
  }
}

TEST_CASE("sampler: defaults, a bare name and a map with options") {
  CHECK(std::holds_alternative<RandomSamplerConfig>(parse(asha_with("")).searcher.sampler));
  CHECK(parse(asha_with("  sampler: tpe\n")).searcher.sampler == SamplerConfig(TpeConfig{}));
  TpeConfig tpe;
  tpe.gamma = 0.25;
  tpe.model.candidates = 48;
  CHECK(
      parse(asha_with("  sampler: {name: tpe, gamma: 0.25, candidates: 48}\n")).searcher.sampler ==
      SamplerConfig(tpe));
  GpConfig gp;
  gp.fit_observations = 40;
  gp.model.random_fraction = 0;
  CHECK(parse(asha_with("  sampler:\n    name: gp\n    fit_observations: 40\n"
                        "    random_fraction: 0\n"))
            .searcher.sampler == SamplerConfig(gp));
  // The grid searcher's sampler is the grid, named or not; the grid under ASHA needs counts.
  const std::string grid =
      "hyperparameters:\n  x: {type: double, minval: 0, maxval: 1, count: 3}\n"
      "searcher:\n  name: grid\n  metric: loss\n  max_length: 5\n";
  CHECK(std::holds_alternative<GridSamplerConfig>(parse(grid).searcher.sampler));
  CHECK(std::holds_alternative<GridSamplerConfig>(
      parse(grid + "  sampler: grid\n").searcher.sampler));
  CHECK(std::holds_alternative<GridSamplerConfig>(
      parse(asha_with("  sampler: grid\n", true)).searcher.sampler));
}

TEST_CASE("sampler: errors name the field, the value and what was expected") {
  CHECK_THROWS_WITH_AS((void)parse(asha_with("  sampler: bayes\n")),
                       "exp.yaml:10:12: searcher.sampler: must be one of 'random', 'grid', 'tpe', "
                       "'gp', 'auto', got 'bayes'",
                       ConfigError);
  CHECK_THROWS_WITH_AS((void)parse(asha_with("  sampler: {gamma: 0.2}\n")),
                       "exp.yaml:10:12: searcher.sampler.name: missing required field (one of "
                       "'random', 'grid', 'tpe', 'gp', 'auto')",
                       ConfigError);
  CHECK_THROWS_WITH_AS((void)parse(asha_with("  sampler: {name: tpe, gamma: 1}\n")),
                       "exp.yaml:10:31: searcher.sampler.gamma: must be a number in (0, 1), got 1",
                       ConfigError);
  CHECK_THROWS_WITH_AS(
      (void)parse(asha_with("  sampler: {name: tpe, candidates: 0}\n")),
      "exp.yaml:10:36: searcher.sampler.candidates: must be an integer >= 1, got 0", ConfigError);
  CHECK_THROWS_WITH_AS((void)parse(asha_with("  sampler: {name: random, gamma: 0.2}\n")),
                       "exp.yaml:10:27: searcher.sampler.gamma: unknown field; valid fields of the "
                       "'random' sampler are: name",
                       ConfigError);
  CHECK_THROWS_WITH_AS(
      (void)parse("hyperparameters:\n  x: {type: double, minval: 0, maxval: 1, count: 3}\n"
                  "searcher:\n  name: grid\n  metric: loss\n  max_length: 5\n  sampler: tpe\n"),
      "exp.yaml:7:12: searcher.sampler: the 'grid' searcher trains every point of the grid, so its "
      "sampler is 'grid', got 'tpe' (to use that sampler, name a searcher that samples: 'random', "
      "'async_halving' or 'adaptive_asha')",
      ConfigError);
  CHECK_THROWS_WITH_AS((void)parse(asha_with("  sampler: grid\n")),
                       "exp.yaml:2:6: hyperparameters.x: grid search is in use but count was not "
                       "provided (add count: N, the number of grid values for this hyperparameter)",
                       ConfigError);
}

TEST_CASE("custom searcher: read as Determined 0.37 wrote it, served by searcher-run only") {
  const ExperimentConfig c = parse_config(R"(entrypoint: python3 model.py
searcher:
  name: custom
  metric: validation_error
  smaller_is_better: false
  unit: batches
)",
                                          "custom.yaml");
  CHECK(c.searcher.custom);
  CHECK(c.searcher.metric == "validation_error");
  CHECK_FALSE(c.searcher.smaller_is_better);
  CHECK(c.searcher.max_length.unit == "batches");
  CHECK_THROWS_WITH_AS(
      (void)make_searcher(c.searcher, c.hyperparameters, 0),
      doctest::Contains("searcher.name: the 'custom' searcher's method runs outside hpsearch"),
      ConfigError);
  CHECK_THROWS_WITH_AS(
      (void)parse_config("searcher: {name: custom, metric: m, unit: steps}\n", "c.yaml"),
      "c.yaml:1:43: searcher.unit: must be one of 'batches', 'records', "
      "'epochs', got 'steps'",
      ConfigError);
  CHECK_THROWS_WITH_AS(
      (void)parse_config("searcher: {name: custom, metric: m, max_trials: 3}\n", "c.yaml"),
      doctest::Contains("searcher.max_trials"), ConfigError);
  CHECK_THROWS_WITH_AS((void)parse_config("searcher: {name: custom}\n", "c.yaml"),
                       doctest::Contains("searcher.metric"), ConfigError);
}
