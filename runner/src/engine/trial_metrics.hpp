#pragma once
// Private to runner/: every metric a trial reports, kept on disk per trial
// (DIR/trials/N-ID/metrics.jsonl, one JSON line per report, synced before the runner goes on)
// and summarised in memory for experiment.json, the plots, checkpoint policies and
// get_experiment_best_validation().

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "hpsearch/runner/journal.hpp"

namespace hpsearch::runner_detail {

/// One point of a trial's searcher metric: at a number of steps, when (seconds since the
/// epoch: for plots only).
struct MetricPoint {
  std::uint64_t steps = 0;
  double value = 0;
  double time = 0;
};

class TrialMetrics {
 public:
  TrialMetrics(std::string metric, bool smaller_is_better)
      : metric_(std::move(metric)), smaller_is_better_(smaller_is_better) {}

  /// Appends a report to the trial's file (synced) and takes it into the summary. `time` is
  /// the wall-clock time of the report (seconds since the epoch).
  void record(std::uint32_t trial, const std::filesystem::path& file, const std::string& group,
              std::uint64_t steps_completed, const nlohmann::json& metrics, double time);
  /// Takes in a trial's file as it is on disk (resume); a torn last line is ignored.
  void load(std::uint32_t trial, const std::filesystem::path& file);
  /// Determined's rollback: a trial relaunched from its checkpoint at `steps` (0: from
  /// scratch) reports again every step after it, so what its earlier runs reported after
  /// `steps` is discarded: the file is rewritten without those reports (atomically; untouched if
  /// there are none) and the trial's summary rebuilt, so each step is reported once, by the
  /// latest run. The trial's file must be closed (it is not running).
  void rollback(std::uint32_t trial, const std::filesystem::path& file, std::uint64_t steps);
  /// Closes the trial's file until it reports again.
  void release(std::uint32_t trial) { open_.erase(trial); }

  /// {"file", "groups": {group: {"reports", "metrics": [names], "last": {...}}}}.
  [[nodiscard]] nlohmann::json summary(std::uint32_t trial) const;
  /// The searcher metric the trial reported in validation metrics at `steps`, if any.
  [[nodiscard]] std::optional<double> searcher_metric_at(std::uint32_t trial,
                                                         std::uint64_t steps) const;
  /// The metrics of the trial's last validation report if it was at `steps`, else {}.
  [[nodiscard]] nlohmann::json validation_metrics_at(std::uint32_t trial,
                                                     std::uint64_t steps) const;
  /// The trial's validation values of the searcher metric, in report order.
  [[nodiscard]] const std::vector<MetricPoint>& curve(std::uint32_t trial) const;
  /// The best searcher metric any trial has reported (validation metrics not rolled back, or
  /// operations).
  [[nodiscard]] std::optional<double> best() const;
  /// Counts an operation's validation towards best().
  void note_searcher_value(double value);

 private:
  struct Group {
    std::uint64_t reports = 0;
    std::map<std::string, bool> names;
    nlohmann::json last;
  };
  struct Trial {
    std::filesystem::path file;
    std::map<std::string, Group> groups;
    std::vector<MetricPoint> curve;
    nlohmann::json last_validation;  // the last validation report: {steps_completed, metrics}
    std::optional<double> best;      // the best of `curve`, keyed (signed) as in curve_bests_
  };
  // A value as a key that sorts best first.
  double key(double value) const { return smaller_is_better_ ? value : -value; }
  void take(std::uint32_t trial, const std::string& group, std::uint64_t steps,
            const nlohmann::json& metrics, double time);

  std::string metric_;
  bool smaller_is_better_;
  std::unordered_map<std::uint32_t, Trial> trials_;
  std::unordered_map<std::uint32_t, std::unique_ptr<Journal>> open_;
  std::optional<double> operation_best_;  // keyed: the best value an operation completed with
  std::multiset<double> curve_bests_;     // keyed: each trial's best validation report
};

}  // namespace hpsearch::runner_detail
