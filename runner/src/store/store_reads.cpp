// What the store's clients read of an experiment and its trials (store_reads.hpp).
#include "store/store_reads.hpp"

#include <fstream>
#include <limits>
#include <ostream>

#include "hpsearch/config/config.hpp"
#include "hpsearch/searcher/bounded_json.hpp"
#include "store/store.hpp"

namespace hpsearch::store {

namespace fs = std::filesystem;

nlohmann::json describe_json(const Store& store, std::uint64_t id) {
  const fs::path dir = store.directory(id);
  const Status status = store.status(id);
  nlohmann::json j{{"id", id},
                   {"state", status.state},
                   {"reason", status.reason},
                   {"alive", status.alive},
                   {"directory", dir.string()},
                   {"config", (dir / "experiment.yaml").string()},
                   {"model_dir", (dir / "model").string()},
                   {"run_dir", (dir / "run").string()},
                   {"log", (dir / "experiment.log").string()}};
  for (const char* field : {"pid", "started", "exit_code", "seed"}) {
    j[field] = status.record.contains(field) ? status.record[field] : nlohmann::json(nullptr);
  }
  j["ended"] = status.end_time();
  j["name"] = nullptr;
  j["description"] = nullptr;
  j["experiment_config"] = nullptr;
  j["metric"] = nullptr;
  j["smaller_is_better"] = nullptr;
  try {
    const ExperimentConfig config = load_config(dir / "experiment.yaml");
    if (config.document.is_object()) {
      j["name"] = config.document.value("name", nlohmann::json(nullptr));
      j["description"] = config.document.value("description", nlohmann::json(nullptr));
    }
    j["experiment_config"] = config.document;
    j["metric"] = config.searcher.metric;
    j["smaller_is_better"] = config.searcher.smaller_is_better;
  } catch (const std::exception& e) {
    j["config_error"] = e.what();
  }
  nlohmann::json damaged = nlohmann::json::array();
  for (const std::string& file : status.damaged) damaged.push_back(file);
  nlohmann::json experiment = nullptr;
  if (std::ifstream in(dir / "run" / "experiment.json"); in) {
    experiment = parse_json_or_discarded(in);
    // The runner writes it atomically: one that does not parse was damaged afterwards, and
    // "no trial yet" would be a wrong answer.
    if (experiment.is_discarded() || !experiment.is_object()) {
      experiment = nullptr;
      damaged.push_back("run/experiment.json");
    }
  }
  j["damaged"] = std::move(damaged);
  if (experiment.is_object() && experiment.contains("trials")) {
    const std::map<std::string, std::uint64_t> ids = store.trial_ids(id);
    const auto id_of = [&](const nlohmann::json& trial) {
      const auto found = ids.find(trial.value("request_id", std::string()));
      return found != ids.end() ? nlohmann::json(found->second) : nlohmann::json(nullptr);
    };
    for (nlohmann::json& t : experiment["trials"]) t["trial_id"] = id_of(t);
    if (experiment.contains("best") && experiment["best"].is_object())
      experiment["best"]["trial_id"] = id_of(experiment["best"]);
  }
  j["experiment"] = std::move(experiment);
  // The trial index (current; experiment.json lags by a snapshot): what get_trials() lists.
  j["trial_index"] = store.trials_of(id);
  return j;
}

fs::path trial_directory(const fs::path& run, const std::string& request_id) {
  std::string suffix = "-";  // appended, not "-" + ...: GCC 12 warns wrongly (-Wrestrict) on that
  suffix += request_id.substr(0, 8);
  std::error_code error;
  for (const fs::directory_entry& d : fs::directory_iterator(run / "trials", error)) {
    if (d.is_directory(error) && d.path().filename().string().ends_with(suffix)) return d.path();
  }
  return {};
}

nlohmann::json trial_metrics(const fs::path& directory, const std::optional<std::string>& group) {
  nlohmann::json reports = nlohmann::json::array();
  if (directory.empty()) return reports;
  std::ifstream in(directory / "metrics.jsonl");
  for (std::string line; std::getline(in, line);) {
    nlohmann::json report = parse_json_or_discarded(line);
    if (report.is_discarded() || !report.is_object()) continue;
    if (group && report.value("group", std::string()) != *group) continue;
    reports.push_back(std::move(report));
  }
  return reports;
}

void copy_trial_log(const fs::path& directory, std::uint64_t from, std::uint64_t limit,
                    std::ostream& out) {
  if (directory.empty()) return;
  std::ifstream in(directory / "output.log", std::ios::binary);
  if (!in) return;
  in.seekg(static_cast<std::streamoff>(from));
  if (!in) return;
  if (limit == std::numeric_limits<std::uint64_t>::max()) {
    out << in.rdbuf();
    return;
  }
  std::string chunk(static_cast<std::size_t>(limit), '\0');
  in.read(chunk.data(), static_cast<std::streamsize>(limit));
  out.write(chunk.data(), in.gcount());
}

}  // namespace hpsearch::store
