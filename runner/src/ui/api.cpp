// The web UI's JSON API (api.hpp): routing, the token, the experiments and their trials.
#include "ui/api.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "hpsearch/config/config.hpp"
#include "hpsearch/runner/errors.hpp"
#include "hpsearch/searcher/bounded_json.hpp"
#include "hpsearch/searcher/json_number.hpp"
#include "store/store.hpp"
#include "store/store_control.hpp"
#include "store/store_reads.hpp"
#include "ui/assets.hpp"
#include "ui/charts.hpp"
#include "ui/experiment_view.hpp"

extern char** environ;

namespace hpsearch::ui {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// An answer other than 200: thrown by a handler, turned into {"error": message}.
struct HttpError {
  int status;
  std::string message;
};

// Text from the files may not be UTF-8: replaced, never a crash of dump().
std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// With its charset: cpp-httplib (Debian's, built with Brotli) compresses an answer whose type is
// exactly "application/json", or text/*, with Brotli at its highest quality when the browser
// accepts it: about a second for the 170 kB charts answer of a 10,000-trial experiment, all
// loss on a loopback connection (measured: 1.14 s against 0.017 s; docs/ui.md).
constexpr const char* kJson = "application/json; charset=utf-8";

Response json_response(const json& j, int status = 200) {
  return {status, kJson, dump(j)};
}

/// A positive integer path segment ("12"), else a 404 naming it.
std::uint64_t id_segment(const std::string& text, const char* what) {
  std::uint64_t value = 0;
  const bool digits =
      !text.empty() && text.size() <= 18 &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) value = std::stoull(text);
  if (!digits || value == 0)
    throw HttpError{404, std::string(what) + " '" + text + "' is not an id (a positive integer)"};
  return value;
}

std::uint64_t count_param(const Request& request, const std::string& name, std::uint64_t fallback,
                          std::uint64_t low, std::uint64_t high) {
  const auto found = request.query.find(name);
  if (found == request.query.end()) return fallback;
  const std::string& text = found->second;
  const bool digits =
      !text.empty() && text.size() <= 18 &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  const std::uint64_t value = digits ? std::stoull(text) : 0;
  if (!digits || value < low || value > high) {
    throw HttpError{400, "query parameter " + name + "='" + text + "': expected an integer from " +
                             std::to_string(low) + " to " + std::to_string(high)};
  }
  return value;
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 1;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

bool same_secret(const std::string& a, const std::string& b) {
  // Compared in time independent of where they differ.
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

// Named, not anonymous: Api::State holds it, and a unity build compiles this file inside
// another (GCC's -Wsubobject-linkage).
namespace api_detail {

/// One experiment the UI serves: where its files are and what it last read of them.
struct Entry {
  std::uint64_t id = 0;
  bool simulation = false;
  fs::path directory;  ///< the run directory or the simulation's --out directory
  fs::path config;     ///< its config (empty for a simulation)
  fs::file_time_type config_time{};
  std::string name;
  std::string metric = "metric";
  std::string searcher;
  bool smaller_is_better = true;
  std::string config_error;
  std::unique_ptr<ExperimentView> view;
  std::map<std::string, std::uint64_t> trial_ids;  // request id -> global trial id (store)
  std::size_t trial_ids_for = 0;                   // how many trials trial_ids was read for
  std::uint64_t charts_version = std::numeric_limits<std::uint64_t>::max();
  json charts;
};

}  // namespace api_detail

using api_detail::Entry;

struct Api::State {
  ApiSettings settings;
  std::unique_ptr<store::Store> store;
  std::map<std::uint64_t, std::unique_ptr<Entry>> entries;
};

namespace {

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

}  // namespace

Api::Api(ApiSettings settings) : state_(std::make_unique<State>()) {
  state_->settings = std::move(settings);
  if (state_->settings.store_root) {
    state_->store = std::make_unique<store::Store>(*state_->settings.store_root);
    return;
  }
  const fs::path dir = state_->settings.run_directory.value_or(fs::path("."));
  auto entry = std::make_unique<Entry>();
  entry->id = 1;
  entry->directory = dir;
  entry->name = fs::absolute(dir).lexically_normal().filename().string();
  if (fs::exists(dir / "trace.jsonl")) {
    entry->simulation = true;
    entry->metric = "workload value";
    entry->searcher = "simulation";
    entry->view = std::make_unique<ExperimentView>(dir / "trace.jsonl", fs::path(), true);
  } else if (fs::exists(dir / "journal.jsonl")) {
    entry->config = dir / "config.yaml";
    const std::string directory_name = entry->name;
    read_config(*entry);
    if (entry->name.empty()) entry->name = directory_name;
    entry->view = std::make_unique<ExperimentView>(dir / "journal.jsonl", dir / "experiment.json",
                                                   entry->smaller_is_better);
  } else {
    throw RunnerSetupError("--dir '" + dir.string() +
                           "': expected a run directory (with journal.jsonl) or a simulation's "
                           "--out directory (with trace.jsonl), found neither");
  }
  entry->view->refresh();  // a large log is read once, now, not by the first page
  state_->entries.emplace(1, std::move(entry));
}

Api::~Api() = default;

void Api::allow_hosts(std::vector<std::string> hosts) {
  const std::lock_guard<std::mutex> lock(mutex_);
  state_->settings.hosts = std::move(hosts);
}

namespace {

// ----- experiments -----

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

/// The trial's id in the API: the store's global trial id, or its number in a directory.
json trial_id_json(const Entry& entry, const TrialView& trial, bool store) {
  if (!store) return trial.index;
  const auto found = entry.trial_ids.find(trial.request_id);
  return found != entry.trial_ids.end() ? json(found->second) : json(nullptr);
}

json workload(const Entry& entry, const ValidationPoint& v) {
  return {{"totalBatches", v.length},
          {"metrics", {{"avgMetrics", {{entry.metric, metric_json(v.metric)}}}}},
          {"endTime", v.at}};
}

json trial_json(const Entry& entry, const TrialView& t, bool store) {
  json j{{"id", trial_id_json(entry, t, store)},
         {"experimentId", entry.id},
         {"trialNumber", t.index},
         {"requestId", t.request_id},
         {"state", "STATE_" + t.state},
         {"hparams", t.hparams},
         {"restarts", t.restarts},
         {"totalBatchesProcessed", t.validations.empty() ? 0 : t.validations.back().length},
         {"targetLength", t.target},
         {"exitReason", t.exit_reason.empty() ? json(nullptr) : json(t.exit_reason)},
         {"outcome", t.outcome.empty() ? json(nullptr) : json(t.outcome)},
         {"bestValidation", t.best ? workload(entry, t.validations[*t.best]) : json(nullptr)},
         {"latestValidation",
          t.validations.empty() ? json(nullptr) : workload(entry, t.validations.back())},
         {"numCheckpoints", t.checkpoints.size()}};
  return j;
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
      end = status.record.value("ended", json(nullptr));
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

// ----- trials -----

double best_metric(const TrialView& t) {
  return t.best ? t.validations[*t.best].metric : std::numeric_limits<double>::quiet_NaN();
}

double latest_metric(const TrialView& t) {
  return t.validations.empty() ? std::numeric_limits<double>::quiet_NaN()
                               : t.validations.back().metric;
}

Response list_trials(Api::State& state, std::uint64_t id, const Request& request) {
  Entry& entry = entry_of(state, id);
  const ExperimentView& view = *entry.view;
  const std::uint64_t offset = count_param(request, "offset", 0, 0, 1u << 30);
  const std::uint64_t limit = count_param(request, "limit", 100, 1, 1000);
  std::string sort_by = "id";
  if (const auto found = request.query.find("sortBy"); found != request.query.end())
    sort_by = found->second;
  bool descending = false;
  if (const auto found = request.query.find("orderBy"); found != request.query.end()) {
    if (found->second != "ORDER_BY_ASC" && found->second != "ORDER_BY_DESC")
      throw HttpError{400, "query parameter orderBy='" + found->second +
                               "': expected ORDER_BY_ASC or ORDER_BY_DESC"};
    descending = found->second == "ORDER_BY_DESC";
  }
  const std::vector<TrialView>& trials = view.trials();
  // Each trial's key is taken once (not per comparison): group first (a missing or NaN value
  // sorts last either way), then the number or the text, ties by trial number, so the order is
  // total and stable across pages. Metrics sort better first ascending.
  struct SortKey {
    int group = 0;
    double number = 0;
    std::string text;
  };
  std::vector<SortKey> keys(trials.size());
  const auto metric_key = [&](double value) {
    if (std::isnan(value)) return SortKey{1, 0, {}};
    return SortKey{0, view.smaller_is_better() ? value : -value, {}};
  };
  const std::string hp = sort_by.rfind("hp.", 0) == 0 ? sort_by.substr(3) : std::string();
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const TrialView& t = trials[i];
    SortKey& key = keys[i];
    if (sort_by == "id") {
      key.number = static_cast<double>(t.index);
    } else if (sort_by == "best") {
      key = metric_key(best_metric(t));
    } else if (sort_by == "latest") {
      key = metric_key(latest_metric(t));
    } else if (sort_by == "state") {
      key.text = t.state;
    } else if (sort_by == "length") {
      key.number = t.validations.empty() ? 0.0 : static_cast<double>(t.validations.back().length);
    } else if (sort_by == "restarts") {
      key.number = static_cast<double>(t.restarts);
    } else if (!hp.empty()) {
      const auto found = t.hparams.find(hp);
      if (found == t.hparams.end())
        key.group = 2;
      else if (found->is_number())
        key.number = found->get<double>();
      else
        key = SortKey{1, 0, found->dump()};
    } else {
      throw HttpError{400, "query parameter sortBy='" + sort_by +
                               "': expected id, state, best, latest, length, restarts or hp.NAME"};
    }
  }
  std::vector<std::uint32_t> order(trials.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const SortKey& x = keys[a];
    const SortKey& y = keys[b];
    if (x.group != y.group) return x.group < y.group;
    if (x.number != y.number) return (x.number < y.number) != descending;
    if (x.text != y.text) return (x.text < y.text) != descending;
    return a < b;
  });
  json page = json::array();
  for (std::uint64_t i = offset; i < order.size() && i < offset + limit; ++i)
    page.push_back(trial_json(entry, trials[order[i]], state.store != nullptr));
  return json_response(
      {{"trials", std::move(page)},
       {"pagination", {{"offset", offset}, {"limit", limit}, {"total", trials.size()}}},
       {"version", view.version()}});
}

struct FoundTrial {
  Entry* entry;
  const TrialView* trial;
};

FoundTrial find_trial(Api::State& state, std::uint64_t trial_id) {
  if (!state.store) {
    Entry& entry = entry_of(state, 1);
    const TrialView* trial = entry.view->trial(static_cast<std::uint32_t>(
        std::min<std::uint64_t>(trial_id, std::numeric_limits<std::uint32_t>::max())));
    if (trial == nullptr) throw HttpError{404, "trial " + std::to_string(trial_id) + " not found"};
    return {&entry, trial};
  }
  json index;
  try {
    index = state.store->find_trial(trial_id);
  } catch (const store::StoreError& e) {
    throw HttpError{404, e.what()};
  }
  Entry& entry = entry_of(state, index["experiment_id"].get<std::uint64_t>());
  const std::string request_id = index["request_id"].get<std::string>();
  for (const TrialView& t : entry.view->trials())
    if (t.request_id == request_id) return {&entry, &t};
  throw HttpError{404,
                  "trial " + std::to_string(trial_id) + " is not in its experiment's journal yet"};
}

Response get_trial(Api::State& state, std::uint64_t trial_id) {
  const FoundTrial found = find_trial(state, trial_id);
  json j = trial_json(*found.entry, *found.trial, state.store != nullptr);
  json validations = json::array();
  for (const ValidationPoint& v : found.trial->validations)
    validations.push_back({{"length", v.length}, {"metric", metric_json(v.metric)}, {"at", v.at}});
  j["validations"] = std::move(validations);
  j["searcherMetric"] = found.entry->metric;
  j["smallerIsBetter"] = found.entry->smaller_is_better;
  j["lastFailure"] = found.trial->last_failure;
  j["simulation"] = found.entry->simulation;
  return json_response({{"trial", std::move(j)}});
}

Response trial_metrics(Api::State& state, std::uint64_t trial_id, const Request& request) {
  const FoundTrial found = find_trial(state, trial_id);
  std::optional<std::string> group;
  if (const auto g = request.query.find("group"); g != request.query.end() && !g->second.empty())
    group = g->second;
  json out = json::array();
  const json id = trial_id_json(*found.entry, *found.trial, state.store != nullptr);
  if (found.entry->simulation) {
    // A simulated trial reports only what the searcher is told: its validations.
    if (!group || *group == "validation") {
      for (const ValidationPoint& v : found.trial->validations) {
        out.push_back({{"trialId", id},
                       {"group", "validation"},
                       {"totalBatches", v.length},
                       {"endTime", v.at},
                       {"metrics", {{found.entry->metric, metric_json(v.metric)}}}});
      }
    }
  } else {
    const json reports = store::trial_metrics(
        store::trial_directory(found.entry->directory, found.trial->request_id), group);
    for (const json& r : reports) {
      out.push_back({{"trialId", id},
                     {"group", r.value("group", json(nullptr))},
                     {"totalBatches", r.value("steps_completed", json(nullptr))},
                     {"endTime", r.value("time", json(nullptr))},
                     {"metrics", r.value("metrics", json::object())}});
    }
  }
  return json_response({{"metrics", std::move(out)}});
}

constexpr std::uint64_t kLogChunk = 256 * 1024;

Response trial_logs(Api::State& state, std::uint64_t trial_id, const Request& request) {
  const FoundTrial found = find_trial(state, trial_id);
  const std::uint64_t from =
      count_param(request, "offset", 0, 0, std::numeric_limits<std::int64_t>::max());
  std::ostringstream text;
  if (!found.entry->simulation) {
    store::copy_trial_log(store::trial_directory(found.entry->directory, found.trial->request_id),
                          from, kLogChunk, text);
  }
  const std::string logs = text.str();
  return json_response({{"logs", logs}, {"offset", from}, {"nextOffset", from + logs.size()}});
}

Response trial_checkpoints(Api::State& state, std::uint64_t trial_id) {
  const FoundTrial found = find_trial(state, trial_id);
  json out = json::array();
  const json id = trial_id_json(*found.entry, *found.trial, state.store != nullptr);
  for (const json& c : found.trial->checkpoints) {
    if (!c.is_object()) continue;
    out.push_back({{"uuid", c.value("storage_id", json(nullptr))},
                   {"trialId", id},
                   {"state", "STATE_COMPLETED"},
                   {"totalBatches", c.value("length", json(nullptr))},
                   {"path", c.value("path", json(nullptr))}});
  }
  return json_response({{"checkpoints", std::move(out)}});
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
    entry.charts["timeUnit"] = entry.simulation ? "virtual seconds" : "journal record";
    entry.charts_version = version;
  }
  json j = entry.charts;
  j["version"] = version;
  return json_response(j);
}

// ----- pause, activate, kill -----

/// Runs `program args...` with HPSEARCH_HOME set to the store's root; its exit code and output.
std::pair<int, std::string> run_program(const fs::path& program, const fs::path& root,
                                        const std::vector<std::string>& args) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {-1, "cannot make a pipe"};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  // Nothing else of the server's: the activated runner outlives it and must not hold its
  // listening socket (the port would stay taken) or its connections.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  std::vector<std::string> strings{program.string()};
  strings.insert(strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::string_view(*e).rfind("HPSEARCH_HOME=", 0) != 0) env_strings.emplace_back(*e);
  env_strings.push_back("HPSEARCH_HOME=" + root.string());
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int spawned =
      ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    return {-1, "cannot run " + program.string()};
  }
  std::string output;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    output.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace

Response Api::handle(const Request& request) {
  try {
    State& state = *state_;
    if (!state.settings.hosts.empty() &&
        std::find(state.settings.hosts.begin(), state.settings.hosts.end(), request.host) ==
            state.settings.hosts.end()) {
      throw HttpError{403, "Host '" + request.host + "' is not this server's address"};
    }
    const std::vector<std::string> parts = split_path(request.path);
    if (!parts.empty() && parts[0] == "api" && (parts.size() < 2 || parts[1] != "v1"))
      throw HttpError{404, "no such API path: " + request.path + " (the API is /api/v1/...)"};
    if (parts.empty() || parts[0] != "api") {
      if (request.method != "GET") throw HttpError{405, "only GET is answered here"};
      const Asset* asset = find_asset(request.path == "/" ? "/index.html" : request.path);
      if (asset == nullptr) return {404, "text/plain; charset=utf-8", "not found\n"};
      return {200, std::string(asset->content_type), std::string(asset->body)};
    }
    const std::vector<std::string> rest(parts.begin() + 2, parts.end());
    if (request.method == "POST") {
      if (rest.size() != 3 || rest[0] != "experiments" ||
          (rest[2] != "pause" && rest[2] != "activate" && rest[2] != "kill"))
        throw HttpError{404, "no such action: POST " + request.path};
      // The token before anything else: without it, nothing is looked at or changed.
      if (request.authorization.empty())
        throw HttpError{401,
                        "POST needs the token: Authorization: Bearer TOKEN (printed by "
                        "`searcher-run ui` at start-up)"};
      if (!same_secret(request.authorization, "Bearer " + state.settings.token))
        throw HttpError{403, "wrong token"};
      if (!state.store)
        throw HttpError{409,
                        "this server shows a directory, read-only: pause, activate and kill "
                        "are for the experiment store (searcher-run ui without --dir)"};
      const std::uint64_t id = id_segment(rest[1], "experiment");
      try {
        (void)state.store->directory(id);
      } catch (const store::StoreError& e) {
        throw HttpError{404, e.what()};
      }
      const std::string& action = rest[2];
      std::string message;
      try {
        if (action == "pause") {
          message = store::request_pause(*state.store, id) ? "pausing" : "already PAUSED";
        } else if (action == "kill") {
          const store::KillStart start = store::request_kill(*state.store, id);
          message = start == store::KillStart::kAlreadyEnded ? "already ended"
                    : start == store::KillStart::kSignalled  ? "stopping"
                                                             : "CANCELED";
        } else {
          // The command itself: it resumes the experiment detached, as `activate` does.
          const auto [code, output] = run_program(state.settings.program, state.store->root(),
                                                  {"activate", std::to_string(id)});
          if (code != 0) throw HttpError{409, output};
          message = output;
        }
      } catch (const store::StoreError& e) {
        throw HttpError{409, e.what()};
      }
      return json_response({{"id", id},
                            {"action", action},
                            {"message", message},
                            {"state", "STATE_" + state.store->status(id).state}});
    }
    if (request.method != "GET") throw HttpError{405, "only GET and POST are answered"};
    const std::lock_guard<std::mutex> lock(mutex_);
    if (rest.size() == 1 && rest[0] == "experiments") return list_experiments(state);
    if (rest.size() >= 2 && rest[0] == "experiments") {
      const std::uint64_t id = id_segment(rest[1], "experiment");
      if (rest.size() == 2) return get_experiment(state, id);
      if (rest.size() == 3 && rest[2] == "trials") return list_trials(state, id, request);
      if (rest.size() == 3 && rest[2] == "charts") return experiment_charts(state, id, request);
    }
    if (rest.size() >= 2 && rest[0] == "trials") {
      const std::uint64_t id = id_segment(rest[1], "trial");
      if (rest.size() == 2) return get_trial(state, id);
      if (rest.size() == 3 && rest[2] == "metrics") return trial_metrics(state, id, request);
      if (rest.size() == 3 && rest[2] == "logs") return trial_logs(state, id, request);
      if (rest.size() == 3 && rest[2] == "checkpoints") return trial_checkpoints(state, id);
    }
    throw HttpError{404, "no such API path: " + request.path};
  } catch (const HttpError& e) {
    return json_response({{"error", e.message}}, e.status);
  } catch (const std::exception& e) {
    return json_response({{"error", e.what()}}, 500);
  }
}

std::string new_token() {
  std::ifstream in("/dev/urandom", std::ios::binary);
  unsigned char bytes[16];
  if (!in.read(reinterpret_cast<char*>(bytes), sizeof bytes))
    throw RunnerSetupError("cannot read /dev/urandom for the UI's token");
  constexpr const char* kHex = "0123456789abcdef";
  std::string token;
  for (const unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  return token;
}

}  // namespace hpsearch::ui
