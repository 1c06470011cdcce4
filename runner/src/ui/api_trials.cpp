// The web UI's API, the trials (api_detail.hpp): an experiment's trials, sorted and paged on
// the server; one trial, its metrics, its output and its checkpoints.
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <sstream>

#include "hpsearch/searcher/json_number.hpp"
#include "store/store_reads.hpp"
#include "ui/api_detail.hpp"
#include "ui/charts.hpp"

namespace hpsearch::ui::api_detail {

using nlohmann::json;

namespace {

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

double best_metric(const TrialView& t) {
  return t.best ? t.validations[*t.best].metric : std::numeric_limits<double>::quiet_NaN();
}

double latest_metric(const TrialView& t) {
  return t.validations.empty() ? std::numeric_limits<double>::quiet_NaN()
                               : t.validations.back().metric;
}

}  // namespace

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

}  // namespace hpsearch::ui::api_detail
