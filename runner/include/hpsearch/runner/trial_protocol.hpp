#pragma once
/// \file
/// The trial protocol: JSON lines between the runner and a training process, on the trial's
/// connections to the trial channel (HPSEARCH_CHANNEL) or on two descriptors it inherits
/// (HPSEARCH_CMD_FD: runner to trial, HPSEARCH_REPORT_FD: trial to runner), apart from its
/// stdout and stderr. See docs/runner.md.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

#include "hpsearch/searcher/event.hpp"
#include "hpsearch/searcher/printable.hpp"

namespace hpsearch {

/// Runner to trial.
struct TrainCommand {  ///< {"op":"validate_after","length":L}: train to total length L, validate
  std::uint64_t length = 0;
};
struct CloseCommand {};  ///< {"op":"close"}: the trial is done; exit 0
struct PauseCommand {};  ///< {"op":"pause"}: checkpoint (if not already) and exit 0
using TrialCommand = std::variant<TrainCommand, CloseCommand, PauseCommand>;

[[nodiscard]] std::string command_line(const TrialCommand& command);  ///< with the newline

/// Trial to runner.
struct ProgressReport {  ///< {"type":"progress","units":X} or {"type":"progress","fraction":F}
  std::optional<double> units;     ///< total units trained so far
  std::optional<double> fraction;  ///< or the fraction of the trial done (0 to 1)
};
struct ValidationReport {  ///< {"type":"validation","length":L,"metrics":{...}}
  std::uint64_t length = 0;
  double metric = 0;       ///< the searcher's metric, taken from metrics
  nlohmann::json metrics;  ///< every metric the trial reported
};
/// A stored checkpoint: {"type":"checkpoint","path":P,"length":L} (a directory), or
/// {"type":"checkpoint","storage_id":U,"steps_completed":N,"metadata":{...}} (in the
/// experiment's checkpoint storage).
struct CheckpointReport {
  std::string path;
  std::uint64_t length = 0;
  std::string storage_id;
  nlohmann::json metadata;
};
struct InvalidHpReport {  ///< {"type":"invalid_hp","reason":"..."}: the hyperparameters cannot work
  std::string reason;
};
/// {"type":"metrics","group":G,"steps_completed":N,"metrics":{...}}: metrics to keep (and, when
/// the metrics drive the search, validation metrics for the searcher).
struct MetricsReport {
  std::string group;
  std::uint64_t steps_completed = 0;
  nlohmann::json metrics;
};
struct StatusReport {  ///< {"type":"status","text":"..."}: what the trial is doing
  std::string text;
};
struct EarlyExitReport {  ///< {"type":"early_exit","reason":"invalid_hp"|"user_requested_stop"}
  ExitedReason reason = ExitedReason::kUserRequestedStop;
};
/// {"type":"request","id":K,"what":W}: answered on the trial's connection with {"reply":K,...}.
/// W is "best_validation" (the answer carries "value") or "sync" (the bare answer says the
/// runner has read every line the trial sent before the request).
struct RequestReport {
  std::uint64_t id = 0;
  std::string what;
};
struct AcknowledgementReport {  ///< {"type":"preemption_acknowledged"}
};
struct CheckpointDeletedReport {  ///< {"type":"checkpoint_deleted","storage_id":U}
  std::string storage_id;
};
using TrialReport = std::variant<ProgressReport, ValidationReport, CheckpointReport,
                                 InvalidHpReport, MetricsReport, StatusReport, EarlyExitReport,
                                 RequestReport, AcknowledgementReport, CheckpointDeletedReport>;

/// A line that breaks the protocol: what was wrong with it, as one printable line (the
/// trial's own text in it has its control characters shown as \xNN).
class TrialProtocolError : public std::runtime_error {
 public:
  explicit TrialProtocolError(std::string_view what) : std::runtime_error(printable(what)) {}
};

/// Parses one report line. `metric` is the searcher's metric name, which a validation must
/// report as a number (or "Infinity", "-Infinity", "NaN"). Throws TrialProtocolError.
[[nodiscard]] TrialReport parse_trial_report(std::string_view line, const std::string& metric);

}  // namespace hpsearch
