// The conformance suite: every search method of the catalog with every sampler it accepts,
// read from YAML through the real parser, in both directions, played by the randomised master.
// Each pairing must be deterministic, restore from a snapshot at any point and continue
// identically, keep progress in [0, 1], propose only points of the space, and shut down.
// A method or sampler added to the catalog without a row here fails the first test case.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>

#include "hpsearch/config/config.hpp"
#include "hpsearch/searcher/space_encoding.hpp"
#include "support/random_driver.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

namespace {
// Each method's own fields, small enough that a search ends in a few hundred events.
const std::map<std::string, std::string>& method_yaml() {
  static const std::map<std::string, std::string> yaml{
      {"single", "  max_length: 8\n"},
      {"random", "  max_length: 8\n  max_trials: 10\n  max_concurrent_trials: 3\n"},
      {"grid", "  max_length: 8\n  max_concurrent_trials: 3\n"},
      {"async_halving",
       "  max_length: 9\n  max_trials: 14\n  num_rungs: 3\n  divisor: 3\n"
       "  max_concurrent_trials: 4\n"},
      {"adaptive_asha",
       "  max_length: 9\n  max_trials: 14\n  divisor: 3\n  max_rungs: 2\n"
       "  max_concurrent_trials: 4\n"},
      {"pbt",
       "  population_size: 4\n  num_rounds: 3\n  length_per_round: 3\n"
       "  replace_function: {truncate_fraction: 0.25}\n"
       "  explore_function: {resample_probability: 0.3, perturb_factor: 0.2}\n"},
  };
  return yaml;
}

// Each sampler's options: models that start after a few observations, so they decide here.
const std::map<std::string, std::string>& sampler_yaml() {
  static const std::map<std::string, std::string> yaml{
      {"random", "{name: random}"},
      {"grid", "{name: grid}"},
      {"tpe", "{name: tpe, min_observations: 3, candidates: 8}"},
      {"gp", "{name: gp, min_observations: 3, candidates: 16, fit_observations: 12}"},
      {"auto", "auto"},  // no options: the models' defaults (they start after 6 reports here)
  };
  return yaml;
}

// Every kind of hyperparameter, nested, each with a count so the grid sampler can use it.
constexpr const char* kSpace = R"(hyperparameters:
  lr: {type: log, minval: -4, maxval: -1, base: 10, count: 3}
  layers: {type: int, minval: 1, maxval: 4, count: 2}
  fixed: yes
  optimizer:
    name: {type: categorical, vals: [sgd, adam]}
    momentum: {type: double, minval: 0, maxval: 1, count: 2}
)";

struct Pairing {
  std::string label;
  ExperimentConfig config;
};

std::vector<Pairing> pairings() {
  std::vector<Pairing> out;
  for (const CatalogEntry& method : catalog_methods()) {
    for (const CatalogEntry& sampler : catalog_samplers()) {
      // The grid method trains the grid's points: only the grid sampler (the parser says so).
      if ((method.name == "grid") != (sampler.name == "grid") && method.name == "grid") continue;
      for (const bool smaller : {true, false}) {
        const std::string text =
            std::string(kSpace) + "searcher:\n  name: " + std::string(method.name) +
            "\n  metric: loss\n" + "  smaller_is_better: " + (smaller ? "true" : "false") + "\n" +
            method_yaml().at(std::string(method.name)) +
            "  sampler: " + sampler_yaml().at(std::string(sampler.name)) + "\n";
        out.push_back({std::string(method.name) + " + " + std::string(sampler.name) +
                           (smaller ? "" : ", larger is better"),
                       parse_config(text, "conformance.yaml")});
      }
    }
  }
  return out;
}

// Equal, numbers to 1e-12 relative (a log scale round-trips to a few ulps; the encoding's own
// test bounds it).
bool same_point(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_object() && b.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key()) || !same_point(it.value(), b.at(it.key()))) return false;
    }
    return true;
  }
  if (a.is_number_float() && b.is_number_float()) {
    return a.get<double>() == doctest::Approx(b.get<double>()).epsilon(1e-12);
  }
  return a == b;
}

const DriverOptions kOptions{.exit_probability = 0.08,
                             .progress_probability = 0.15,
                             .odd_metrics = true,
                             .waiting_exit_probability = 0.01};
}  // namespace

TEST_CASE("conformance: every method and sampler of the catalog has a configuration here") {
  for (const CatalogEntry& method : catalog_methods()) {
    CHECK_MESSAGE(method_yaml().contains(std::string(method.name)), method.name);
  }
  for (const CatalogEntry& sampler : catalog_samplers()) {
    CHECK_MESSAGE(sampler_yaml().contains(std::string(sampler.name)), sampler.name);
  }
  // 5 samplers under 5 methods, the grid method with the grid sampler only, two directions.
  CHECK(pairings().size() == 2 * (5 * 5 + 1));
}

TEST_CASE("conformance: the catalog's names are the configs' (method_name, sampler_name)") {
  for (const Pairing& p : pairings()) {
    INFO(p.label);
    const std::string label =
        method_name(p.config.searcher.method) + " + " + sampler_name(p.config.searcher.sampler);
    CHECK(p.label.starts_with(label));
  }
}

TEST_CASE("conformance: deterministic, valid points, progress in [0, 1], shutdown") {
  for (const Pairing& p : pairings()) {
    const SpaceEncoding encoding(p.config.hyperparameters);
    for (std::uint32_t seed = 0; seed < 6; ++seed) {
      INFO(p.label << ", seed " << seed);
      std::vector<std::string> logs[2];
      for (std::vector<std::string>& log : logs) {
        Searcher s = make_searcher(p.config.searcher, p.config.hyperparameters, seed);
        RandomDriver driver(seed, kOptions);
        driver.start(s, log);
        std::size_t steps = 0;
        do {
          const double progress = s.progress();
          REQUIRE(progress >= 0.0);
          REQUIRE(progress <= 1.0);
          REQUIRE(++steps < 20'000);
        } while (driver.step(s, log));
        REQUIRE(driver.shut_down());
        CHECK(s.shut_down());
      }
      REQUIRE(logs[0] == logs[1]);
      // Every proposal is a point of the space: it encodes, and decodes back to itself.
      for (const std::string& line : logs[0]) {
        const nlohmann::json ops = nlohmann::json::parse(line);
        if (!ops.is_array()) continue;
        for (const nlohmann::json& op : ops) {
          if (op.at("type") != "create") continue;
          const std::vector<double> u = encoding.encode(op.at("hparams"));
          CHECK(std::all_of(u.begin(), u.end(), [](double x) { return x >= 0 && x <= 1; }));
          CHECK(same_point(encoding.decode(u), op.at("hparams")));
        }
      }
    }
  }
}

TEST_CASE("conformance: restore at any point continues identically") {
  for (const Pairing& p : pairings()) {
    for (std::uint32_t seed = 0; seed < 8; ++seed) {
      const std::size_t cut = 1 + seed * 17 % 90;
      INFO(p.label << ", seed " << seed << ", cut after " << cut << " steps");
      check_restore_property(
          [&] { return make_searcher(p.config.searcher, p.config.hyperparameters, seed); }, seed,
          cut, kOptions);
    }
  }
}

TEST_CASE("conformance: a learning sampler departs from the random draws once it has data") {
  // Guards the suite itself: the model-based samplers really decide in the runs above.
  const std::vector<Pairing> all = pairings();
  const auto creates = [](const Pairing& p) {
    Searcher s = make_searcher(p.config.searcher, p.config.hyperparameters, 3);
    std::vector<std::string> log;
    RandomDriver driver(3, kOptions);
    driver.start(s, log);
    while (driver.step(s, log)) {}
    std::vector<nlohmann::json> points;
    for (const std::string& line : log) {
      const nlohmann::json ops = nlohmann::json::parse(line);
      if (!ops.is_array()) continue;
      for (const nlohmann::json& op : ops) {
        if (op.at("type") == "create") points.push_back(op.at("hparams"));
      }
    }
    return points;
  };
  for (const Pairing& p : all) {
    const std::string sampler = sampler_name(p.config.searcher.sampler);
    if (sampler != "tpe" && sampler != "gp") continue;
    // Single samples one trial; PBT samples only its first population, before any data
    // (its clones are explored, not sampled).
    if (method_name(p.config.searcher.method) == "single") continue;
    if (method_name(p.config.searcher.method) == "pbt") continue;
    const auto random = std::find_if(all.begin(), all.end(), [&](const Pairing& q) {
      return q.label == method_name(p.config.searcher.method) + " + random" +
                            p.label.substr(p.label.find(sampler) + sampler.size());
    });
    REQUIRE(random != all.end());
    INFO(p.label << " against " << random->label);
    const std::vector<nlohmann::json> model = creates(p);
    const std::vector<nlohmann::json> draws = creates(*random);
    REQUIRE(model.size() > 3);
    CHECK(model.front() == draws.front());  // no data yet: Determined's draws
    CHECK(model != draws);
  }
}
