#include "engine/trial_metrics.hpp"

#include <cmath>

#include "hpsearch/searcher/json_lines.hpp"
#include "hpsearch/searcher/json_number.hpp"

namespace hpsearch::runner_detail {
namespace {

const std::vector<MetricPoint> kNoCurve;

}  // namespace

void TrialMetrics::record(std::uint32_t trial, const std::filesystem::path& file,
                          const std::string& group, std::uint64_t steps_completed,
                          const nlohmann::json& metrics, double time) {
  auto& journal = open_[trial];
  if (!journal) journal = std::make_unique<Journal>(file);
  journal->append({{"group", group},
                   {"steps_completed", steps_completed},
                   {"metrics", metrics},
                   {"time", time}});
  trials_[trial].file = file;
  take(trial, group, steps_completed, metrics, time);
}

void TrialMetrics::load(std::uint32_t trial, const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) return;
  trials_[trial].file = file;
  const JournalContents contents = read_journal(file);
  // A per-trial file has no spare space of its own, but a machine crash can leave zeros at
  // its end on some filesystems: cut back to the records like a torn tail, or what is
  // appended after the zeros would be hidden from every reader.
  if (contents.torn_tail || contents.spare_space) truncate_journal(file, contents.valid_bytes);
  for (const nlohmann::json& r : contents.records) {
    take(trial, r.at("group").get<std::string>(), r.at("steps_completed").get<std::uint64_t>(),
         r.at("metrics"), r.value("time", 0.0));
  }
}

void TrialMetrics::take(std::uint32_t trial, const std::string& group, std::uint64_t steps,
                        const nlohmann::json& metrics, double time) {
  Trial& t = trials_[trial];
  Group& g = t.groups[group];
  ++g.reports;
  for (const auto& [name, value] : metrics.items()) g.names[name] = true;
  g.last = {{"steps_completed", steps}, {"metrics", metrics}};
  if (group == "validation") t.last_validation = g.last;
  if (group != "validation" || !metrics.contains(metric_)) return;
  const std::optional<double> value = metric_from_json(metrics.at(metric_));
  if (!value) return;
  t.curve.push_back({steps, *value, time});
  if (std::isnan(*value) || (t.best && key(*value) >= *t.best)) return;
  if (t.best) curve_bests_.erase(curve_bests_.find(*t.best));
  t.best = key(*value);
  curve_bests_.insert(*t.best);
}

void TrialMetrics::rollback(std::uint32_t trial, const std::filesystem::path& file,
                            std::uint64_t steps) {
  if (!std::filesystem::exists(file)) return;
  const JournalContents contents = read_journal(file);
  std::string kept;
  std::vector<const nlohmann::json*> keep;
  for (const nlohmann::json& r : contents.records) {
    if (r.at("steps_completed").get<std::uint64_t>() > steps) continue;
    keep.push_back(&r);
    kept += json_line(r) + '\n';
  }
  if (keep.size() == contents.records.size() && !contents.torn_tail && !contents.spare_space)
    return;
  open_.erase(trial);
  write_file_atomically(file, kept);
  if (const auto it = trials_.find(trial); it != trials_.end() && it->second.best) {
    curve_bests_.erase(curve_bests_.find(*it->second.best));
  }
  trials_[trial] = Trial{};
  trials_[trial].file = file;
  for (const nlohmann::json* r : keep) {
    take(trial, r->at("group").get<std::string>(), r->at("steps_completed").get<std::uint64_t>(),
         r->at("metrics"), r->value("time", 0.0));
  }
}

void TrialMetrics::note_searcher_value(double value) {
  if (std::isnan(value)) return;
  if (!operation_best_ || key(value) < *operation_best_) operation_best_ = key(value);
}

std::optional<double> TrialMetrics::best() const {
  std::optional<double> best = operation_best_;
  if (!curve_bests_.empty() && (!best || *curve_bests_.begin() < *best))
    best = *curve_bests_.begin();
  if (!best) return std::nullopt;
  return smaller_is_better_ ? *best : -*best;
}

nlohmann::json TrialMetrics::summary(std::uint32_t trial) const {
  const auto it = trials_.find(trial);
  if (it == trials_.end()) return nullptr;
  nlohmann::json groups = nlohmann::json::object();
  for (const auto& [name, g] : it->second.groups) {
    nlohmann::json names = nlohmann::json::array();
    for (const auto& [metric, present] : g.names) names.push_back(metric);
    groups[name] = {{"reports", g.reports}, {"metrics", names}, {"last", g.last}};
  }
  return {{"file", it->second.file.string()}, {"groups", groups}};
}

std::optional<double> TrialMetrics::searcher_metric_at(std::uint32_t trial,
                                                       std::uint64_t steps) const {
  const auto it = trials_.find(trial);
  if (it == trials_.end()) return std::nullopt;
  for (auto p = it->second.curve.rbegin(); p != it->second.curve.rend(); ++p) {
    if (p->steps == steps) return p->value;
  }
  return std::nullopt;
}

const std::vector<MetricPoint>& TrialMetrics::curve(std::uint32_t trial) const {
  const auto it = trials_.find(trial);
  return it == trials_.end() ? kNoCurve : it->second.curve;
}

}  // namespace hpsearch::runner_detail

namespace hpsearch::runner_detail {

nlohmann::json TrialMetrics::validation_metrics_at(std::uint32_t trial, std::uint64_t steps) const {
  const auto it = trials_.find(trial);
  if (it == trials_.end() || it->second.last_validation.is_null() ||
      it->second.last_validation.at("steps_completed") != steps) {
    return nlohmann::json::object();
  }
  return it->second.last_validation.at("metrics");
}

}  // namespace hpsearch::runner_detail
