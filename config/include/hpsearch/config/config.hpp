#pragma once
/// \file
/// Experiment configs (Determined's YAML or JSON) -> validated value types. Every user-facing
/// config error of hpsearch is raised here, as a ConfigError.

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hpsearch/methods/method_config.hpp"
#include "hpsearch/samplers/sampler_config.hpp"
#include "hpsearch/searcher/hyperparameters.hpp"

namespace hpsearch {

/// A config that cannot be used. `what()` reads
/// `exp.yaml:14:7: searcher.max_trials: must be an integer >= 1, got -5`: the location
/// (1-based line and column), the dotted path of the field, the value found and what was
/// expected. Unknown fields list the valid ones.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(const std::string& location, std::string path, const std::string& message);
  /// The dotted path of the offending field, e.g. `searcher.max_trials` (empty for the file).
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// A training length: units plus the unit it was given in (batches, records, epochs, the
/// v0.38 `time_metric` name, or empty for a bare integer).
struct Length {
  std::uint64_t units = 0;
  std::string unit;
  friend bool operator==(const Length&, const Length&) = default;
};

/// The `searcher:` section: how long trials train (the method), which configurations they get
/// (the sampler, `searcher.sampler`), and the direction of the metric, which belongs to the
/// whole search (methods and samplers see metrics with smaller better).
struct SearcherSettings {
  std::string metric;
  bool smaller_is_better = true;
  Length max_length;
  /// Determined 0.38's `time_metric` when the length was given as time_metric + max_time: the
  /// validation metrics reported at that metric's values then drive the search. Empty with
  /// max_length.
  std::string time_metric;
  /// Determined 0.38's single/random/grid without max_length: each trial trains until its
  /// script ends, and max_length is a nominal 1 (the trial's run is one validate_after(1),
  /// completed with the last searcher metric it reported).
  bool trial_decides_length = false;
  /// `searcher: {name: custom}` (Determined 0.19.6 to 0.37): a search method outside hpsearch
  /// (determined.searcher, docs/custom-searcher.md) decides everything through searcher-run;
  /// `method` and `sampler` then keep their defaults and mean nothing, and only searcher-run
  /// serves the config (make_searcher refuses it). max_length is 1 and its unit `unit`'s.
  bool custom = false;
  MethodConfig method;
  SamplerConfig sampler;
};

/// What hpsearch reads of a Determined experiment config. The other top-level sections of a
/// real config (entrypoint, resources, environment, ...) are accepted without being judged.
struct ExperimentConfig {
  SearcherSettings searcher;
  HyperparameterSpace hyperparameters;
  /// `reproducibility.experiment_seed`, if given.
  std::optional<std::uint32_t> experiment_seed;
  /// `entrypoint`, as written (a string or a list of strings), if given.
  std::optional<nlohmann::json> entrypoint;
  /// `max_restarts` (default 5, as in Determined).
  std::uint64_t max_restarts = 5;
  /// `environment.environment_variables` as (name, value) in the config's order, for a trial on
  /// CPU slots: the list form, or the `cpu` list of the per-device form. A later entry for the
  /// same name wins when they are applied.
  std::vector<std::pair<std::string, std::string>> environment_variables;
  /// The whole config as JSON, for what only the runner reads (resources, checkpoint_storage)
  /// and what trials are shown (`det.get_cluster_info().trial._config`); null if it holds a
  /// value JSON cannot (an infinity).
  nlohmann::json document;
};

/// Parses a config from text; `source` names it in error messages (a file name).
/// Throws ConfigError.
[[nodiscard]] ExperimentConfig parse_config(std::string_view text, const std::string& source);

/// Reads and parses a file. Throws ConfigError (also when the file cannot be read).
[[nodiscard]] ExperimentConfig load_config(const std::filesystem::path& path);

}  // namespace hpsearch
