// The web UI's API, the experiments (api_detail.hpp): the experiments served and their files
// (followed by an ExperimentView each), their rows, one experiment, its charts.
#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "hpsearch/config/config.hpp"
#include "store/store_reads.hpp"
#include "ui/api_detail.hpp"
#include "ui/charts.hpp"

namespace hpsearch::ui::api_detail {

namespace fs = std::filesystem;

using nlohmann::json;

void read_config(Entry& entry) {
  if (entry.config.empty()) return;
  std::error_code error;
  const fs::file_time_type time = fs::last_write_time(entry.config, error);
  if (error) {
    entry.config_error = entry.config.string() + " cannot be read";
    return;
  }
  if (time == entry.config_time && !entry.name.empty()) return;
  entry.config_time = time;
  try {
    const ExperimentConfig config = load_config(entry.config);
    entry.metric = config.searcher.metric;
    entry.smaller_is_better = config.searcher.smaller_is_better;
    if (config.document.is_object()) {
      entry.name = config.document.value("name", std::string());
      if (config.document.contains("searcher") && config.document["searcher"].is_object())
        entry.searcher = config.document["searcher"].value("name", std::string());
    }
    entry.config_error.clear();
  } catch (const std::exception& e) {
    entry.config_error = e.what();
  }
}

Entry& entry_of(Api::State& state, std::uint64_t id) {
  if (!state.store) {
    const auto found = state.entries.find(id);
    if (found == state.entries.end())
      throw HttpError{404, "experiment " + std::to_string(id) +
                               " not found (this server shows "
                               "one directory, experiment 1)"};
    found->second->view->refresh();
    return *found->second;
  }
  fs::path directory;
  try {
    directory = state.store->directory(id);
  } catch (const store::StoreError& e) {
    throw HttpError{404, e.what()};
  }
  std::unique_ptr<Entry>& slot = state.entries[id];
  if (!slot) {
    slot = std::make_unique<Entry>();
    slot->id = id;
    slot->directory = directory / "run";
    slot->config = directory / "experiment.yaml";
    read_config(*slot);
    slot->view = std::make_unique<ExperimentView>(slot->directory / "journal.jsonl",
                                                  slot->directory / "experiment.json",
                                                  slot->smaller_is_better);
  } else {
    read_config(*slot);
  }
  slot->view->refresh();
  if (slot->view->trials().size() > slot->trial_ids_for) {
    slot->trial_ids = state.store->trial_ids(id);
    slot->trial_ids_for = slot->view->trials().size();
  }
  return *slot;
}

json trial_id_json(const Entry& entry, const TrialView& trial, bool store) {
  if (!store) return trial.index;
  const auto found = entry.trial_ids.find(trial.request_id);
  return found != entry.trial_ids.end() ? json(found->second) : json(nullptr);
}

json experiment_row(Api::State& state, std::uint64_t id) {
  json row{{"id", id}};
  try {
    Entry& entry = entry_of(state, id);
    const ExperimentView& view = *entry.view;
    std::string experiment_state;
    json damaged = json::array();
    json start = nullptr;
    json end = nullptr;
    std::string reason;
    if (state.store) {
      const store::Status status = state.store->status(id);
      experiment_state = status.state;
      reason = status.reason;
      for (const std::string& file : status.damaged) damaged.push_back(file);
      start = status.record.value("started", json(nullptr));
      end = status.end_time();
    } else if (view.run_record().is_object() && view.run_record().contains("state")) {
      experiment_state = view.run_record().value("state", std::string("ACTIVE"));
      std::transform(experiment_state.begin(), experiment_state.end(), experiment_state.begin(),
                     [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    } else {
      experiment_state = view.shutdown().is_null() ? "ACTIVE" : "COMPLETED";
    }
    json progress = nullptr;
    if (view.run_record().is_object() && view.run_record().contains("progress"))
      progress = view.run_record()["progress"];
    else if (!view.shutdown().is_null())
      progress = 1.0;
    if (view.run_record().is_object() && view.run_record().contains("error"))
      damaged.push_back("run/experiment.json");
    const auto best = view.best_trial();
    const TrialView* best_trial = best ? view.trial(*best) : nullptr;
    row.update(
        {{"name", entry.name},
         {"state", "STATE_" + experiment_state},
         {"reason", reason},
         {"progress", progress},
         {"numTrials", view.trials().size()},
         {"searcherType", entry.searcher},
         {"searcherMetric", entry.metric},
         {"smallerIsBetter", entry.smaller_is_better},
         {"bestTrialSearcherMetric",
          best_trial ? metric_json(best_trial->validations[*best_trial->best].metric)
                     : json(nullptr)},
         {"bestTrialId",
          best_trial ? trial_id_json(entry, *best_trial, state.store != nullptr) : json(nullptr)},
         {"startTime", start},
         {"endTime", end},
         {"simulation", entry.simulation},
         {"virtualSeconds", entry.simulation ? json(view.last_at()) : json(nullptr)},
         {"damaged", damaged},
         {"error", view.error().empty()
                       ? (entry.config_error.empty() ? json(nullptr) : json(entry.config_error))
                       : json(view.error())}});
  } catch (const HttpError& e) {
    row["error"] = e.message;
  } catch (const std::exception& e) {
    // A record the store cannot read is a row saying so, never a failed list.
    row["error"] = e.what();
  }
  if (!row.contains("state")) row["state"] = "STATE_UNSPECIFIED";
  return row;
}

Response list_experiments(Api::State& state) {
  json all = json::array();
  const std::vector<std::uint64_t> ids =
      state.store ? state.store->ids() : std::vector<std::uint64_t>{1};
  for (const std::uint64_t id : ids) all.push_back(experiment_row(state, id));
  const std::size_t n = all.size();
  return json_response({{"experiments", std::move(all)},
                        {"pagination", {{"offset", 0}, {"limit", n}, {"total", n}}}});
}

Response get_experiment(Api::State& state, std::uint64_t id) {
  Entry& entry = entry_of(state, id);
  json row = experiment_row(state, id);
  json config = nullptr;
  if (state.store) {
    // The store's own description (describe --json), without the trials: they are paged.
    json described = store::describe_json(*state.store, id);
    described.erase("experiment");
    described.erase("trial_index");
    row["store"] = std::move(described);
  }
  if (!entry.config.empty()) {
    try {
      config = load_config(entry.config).document;
    } catch (const std::exception&) {
      config = nullptr;  // the row's error says why
    }
  }
  row["version"] = entry.view->version();
  return json_response({{"experiment", std::move(row)}, {"config", std::move(config)}});
}

Response experiment_charts(Api::State& state, std::uint64_t id, const Request& request) {
  Entry& entry = entry_of(state, id);
  const std::uint64_t version = entry.view->version();
  if (const auto since = request.query.find("since");
      since != request.query.end() && since->second == std::to_string(version)) {
    return json_response({{"version", version}, {"unchanged", true}});
  }
  if (entry.charts_version != version) {
    entry.charts = chart_data(*entry.view, [&](const TrialView& t) {
      return trial_id_json(entry, t, state.store != nullptr);
    });
    entry.charts["metric"] = entry.metric;
    entry.charts_version = version;
  }
  json j = entry.charts;
  j["version"] = version;
  return json_response(j);
}

}  // namespace hpsearch::ui::api_detail
