#pragma once
// Private to the web UI's API: what its files share. api.cpp routes a request (the Host check,
// the token) to one of the others, each one job: api_experiments.cpp (the experiments served,
// their rows and charts), api_trials.cpp (an experiment's trials and a trial's metrics, output
// and checkpoints), api_control.cpp (pause, activate, kill).

#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "store/store.hpp"
#include "ui/api.hpp"
#include "ui/experiment_view.hpp"

namespace hpsearch::ui {

// Named, not anonymous: Api::State holds its types, and a unity build compiles these files
// inside one another (GCC's -Wsubobject-linkage).
namespace api_detail {

/// An answer other than 200: thrown by a handler, turned into {"error": message}.
struct HttpError {
  int status;
  std::string message;
};

[[nodiscard]] Response json_response(const nlohmann::json& j, int status = 200);
/// A positive integer path segment ("12"), else a 404 naming it.
[[nodiscard]] std::uint64_t id_segment(const std::string& text, const char* what);
/// The query parameter `name` as an integer from low to high (fallback if absent), else a 400.
[[nodiscard]] std::uint64_t count_param(const Request& request, const std::string& name,
                                        std::uint64_t fallback, std::uint64_t low,
                                        std::uint64_t high);

/// One experiment the UI serves: where its files are and what it last read of them.
struct Entry {
  std::uint64_t id = 0;
  bool simulation = false;
  std::filesystem::path directory;  ///< the run directory or the simulation's --out directory
  std::filesystem::path config;     ///< its config (empty for a simulation)
  std::filesystem::file_time_type config_time{};
  std::string name;
  std::string metric = "metric";
  std::string searcher;
  bool smaller_is_better = true;
  std::string config_error;
  std::unique_ptr<ExperimentView> view;
  std::map<std::string, std::uint64_t> trial_ids;  // request id -> global trial id (store)
  std::size_t trial_ids_for = 0;                   // how many trials trial_ids was read for
  std::uint64_t charts_version = std::numeric_limits<std::uint64_t>::max();
  nlohmann::json charts;
};

/// Reads (again, if it changed) the entry's config: its name, metric, direction, searcher.
void read_config(Entry& entry);

}  // namespace api_detail

struct Api::State {
  ApiSettings settings;
  std::unique_ptr<store::Store> store;
  std::map<std::uint64_t, std::unique_ptr<api_detail::Entry>> entries;
};

namespace api_detail {

/// The experiment, its view refreshed (a 404 if there is none).
Entry& entry_of(Api::State& state, std::uint64_t id);
/// The trial's id in the API: the store's global trial id, or its number in a directory.
[[nodiscard]] nlohmann::json trial_id_json(const Entry& entry, const TrialView& trial, bool store);

// The routes (docs/ui.md lists them).
[[nodiscard]] Response list_experiments(Api::State& state);
[[nodiscard]] Response get_experiment(Api::State& state, std::uint64_t id);
[[nodiscard]] Response experiment_charts(Api::State& state, std::uint64_t id,
                                         const Request& request);
[[nodiscard]] Response list_trials(Api::State& state, std::uint64_t id, const Request& request);
[[nodiscard]] Response get_trial(Api::State& state, std::uint64_t trial_id);
[[nodiscard]] Response trial_metrics(Api::State& state, std::uint64_t trial_id,
                                     const Request& request);
[[nodiscard]] Response trial_logs(Api::State& state, std::uint64_t trial_id,
                                  const Request& request);
[[nodiscard]] Response trial_checkpoints(Api::State& state, std::uint64_t trial_id);
/// POST .../experiments/{id}/pause|activate|kill, the token already checked (`id_text`: the
/// path's segment, checked here, after the read-only refusal).
[[nodiscard]] Response experiment_action(Api::State& state, const std::string& id_text,
                                         const std::string& action);

}  // namespace api_detail
}  // namespace hpsearch::ui
