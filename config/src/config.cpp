#include "hpsearch/config/config.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "hpsearch/searcher/grid.hpp"
#include "hpsearch/searcher/printable.hpp"
#include "parsers.hpp"

namespace hpsearch {

ConfigError::ConfigError(const std::string& location, std::string path, const std::string& message)
    : std::runtime_error(printable(location + ": " + (path.empty() ? "" : path + ": ") + message)),
      path_(std::move(path)) {}

namespace config_detail {
namespace {

// Top-level sections of Determined experiment configs (expconf v0, all eras). hpsearch reads
// searcher, hyperparameters, reproducibility, entrypoint and max_restarts; the others are
// accepted as they are, so real configs load unchanged, while a misspelt section is caught.
std::vector<std::string> top_level_fields() {
  return {"batches_per_step",
          "bind_mounts",
          "checkpoint_policy",
          "checkpoint_storage",
          "data",
          "data_layer",
          "debug",
          "description",
          "entrypoint",
          "environment",
          "hyperparameters",
          "integrations",
          "internal",
          "labels",
          "log_policies",
          "max_restarts",
          "min_checkpoint_period",
          "min_validation_period",
          "name",
          "optimizations",
          "pbs",
          "perform_initial_validation",
          "preemption_timeout",
          "profiling",
          "project",
          "records_per_epoch",
          "reproducibility",
          "resources",
          "retention_policy",
          "scheduling_unit",
          "searcher",
          "security",
          "slurm",
          "tensorboard_storage",
          "workspace"};
}

std::optional<std::uint32_t> parse_seed(const Reader& reader, const Node& node) {
  if (node.is_null()) return std::nullopt;
  const Map map(reader, node, "reproducibility", {"experiment_seed"}, "of reproducibility");
  if (!map.has("experiment_seed") || map.get("experiment_seed").is_null()) return std::nullopt;
  const Node& seed = map.get("experiment_seed");
  const std::uint64_t value = read_count(reader, seed, "reproducibility.experiment_seed", 0);
  if (value > std::numeric_limits<std::uint32_t>::max()) {
    reader.fail(seed, "reproducibility.experiment_seed",
                "must be an integer between 0 and 4294967295, got " + seed.text());
  }
  return static_cast<std::uint32_t>(value);
}

}  // namespace
}  // namespace config_detail

ExperimentConfig parse_config(std::string_view text, const std::string& source) {
  using namespace config_detail;
  const Reader reader(source);
  const Node root = read_document(text, source);
  if (!root.defined() || root.is_null()) {
    throw ConfigError(source, "", "the config is empty; it needs at least a searcher section");
  }
  const Map top(reader, root, "", top_level_fields(), "of an experiment config");

  ExperimentConfig config;
  config.searcher =
      parse_searcher(reader,
                     top.require("searcher",
                                 " (the searcher section, e.g. searcher: {name: random, "
                                 "metric: loss, max_trials: 10, max_length: 100})"),
                     root);
  // The grid sampler needs counts and tolerates empty categoricals; every other samples.
  const bool grid = std::holds_alternative<GridSamplerConfig>(config.searcher.sampler);
  if (top.has("hyperparameters")) {
    const Node& node = top.get("hyperparameters");
    config.hyperparameters = parse_hyperparameters(reader, node, "hyperparameters",
                                                   grid ? SpaceUse::kGrid : SpaceUse::kSampled);
    if (grid) {
      try {
        (void)Grid(config.hyperparameters);
      } catch (const std::length_error& e) {
        reader.fail(node, "hyperparameters", e.what());
      }
    }
  }
  if (top.has("reproducibility")) {
    config.experiment_seed = parse_seed(reader, top.get("reproducibility"));
  }
  if (top.has("entrypoint") && !top.get("entrypoint").is_null()) {
    config.entrypoint = to_json(reader, top.get("entrypoint"), "entrypoint");
  }
  if (top.has("max_restarts") && !top.get("max_restarts").is_null()) {
    config.max_restarts = read_count(reader, top.get("max_restarts"), "max_restarts", 0);
  }
  try {
    config.document = to_json(reader, root, "");
  } catch (const ConfigError&) {
    config.document = nullptr;  // an infinity somewhere: valid YAML, not JSON
  }
  return config;
}

ExperimentConfig load_config(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    throw ConfigError(path.string(), "",
                      std::string("cannot read the config file: ") + std::strerror(errno));
  }
  std::ostringstream text;
  text << file.rdbuf();
  return parse_config(text.str(), path.string());
}

}  // namespace hpsearch
