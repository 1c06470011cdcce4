#include "hpsearch/config/config.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

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

// Names the runner sets for every trial (HPSEARCH_*): a config cannot redefine them.
constexpr std::string_view kRunnerPrefix = "HPSEARCH_";

// One `NAME=VALUE` entry of environment.environment_variables (VALUE may be empty or hold '=').
std::pair<std::string, std::string> parse_variable(const Reader& reader, const Node& node,
                                                   const std::string& path) {
  if (!node.is_scalar() || !node.value().is_string()) {
    reader.fail(node, path, "must be a string NAME=VALUE, got " + describe(node));
  }
  const std::string text = node.value().get<std::string>();
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    reader.fail(
        node, path,
        "must be NAME=VALUE (a name, '=', then the value, possibly empty), got " + describe(node));
  }
  std::string name = text.substr(0, equals);
  if (name.compare(0, kRunnerPrefix.size(), kRunnerPrefix) == 0) {
    reader.fail(node, path,
                name + " is set by searcher-run for each trial and cannot be set by the config");
  }
  return {std::move(name), text.substr(equals + 1)};
}

std::vector<std::pair<std::string, std::string>> parse_variable_list(const Reader& reader,
                                                                     const Node& node,
                                                                     const std::string& path) {
  std::vector<std::pair<std::string, std::string>> variables;
  if (!node.defined() || node.is_null()) return variables;
  if (!node.is_list())
    reader.fail(node, path, "must be a list of NAME=VALUE, got " + describe(node));
  for (std::size_t i = 0; i < node.items().size(); ++i) {
    variables.push_back(
        parse_variable(reader, node.items()[i], path + "[" + std::to_string(i) + "]"));
  }
  return variables;
}

// environment.environment_variables: a list of NAME=VALUE, or per device type {cpu, cuda, rocm}
// of which a trial on CPU slots (every trial searcher-run starts) takes `cpu`. The rest of
// `environment` (image, pod_spec, ...) is for containers and is not judged.
std::vector<std::pair<std::string, std::string>> parse_environment_variables(
    const Reader& reader, const Node& environment) {
  if (!environment.is_map()) return {};  // null, or not ours to judge
  const Node* variables = environment.find("environment_variables");
  if (variables == nullptr || variables->is_null()) return {};
  const std::string path = "environment.environment_variables";
  if (variables->is_list()) return parse_variable_list(reader, *variables, path);
  if (!variables->is_map()) {
    reader.fail(*variables, path,
                "must be a list of NAME=VALUE or a map of them per device type {cpu: [...], cuda: "
                "[...], rocm: [...]}, got " +
                    describe(*variables));
  }
  const Map devices(reader, *variables, path, {"cpu", "cuda", "rocm"},
                    "of environment.environment_variables");
  for (const char* device : {"cuda", "rocm"}) {
    (void)parse_variable_list(reader, devices.get(device), devices.path_of(device));  // checked
  }
  return devices.has("cpu")
             ? parse_variable_list(reader, devices.get("cpu"), devices.path_of("cpu"))
             : std::vector<std::pair<std::string, std::string>>{};
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
  if (top.has("environment")) {
    config.environment_variables = parse_environment_variables(reader, top.get("environment"));
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
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw ConfigError(path.string(), "", "is a directory, not a config file (a YAML or JSON file)");
  }
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
