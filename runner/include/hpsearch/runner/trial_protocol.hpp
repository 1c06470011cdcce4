#pragma once
/// \file
/// The trial protocol: JSON lines between the runner and a training process, on two file
/// descriptors the trial inherits (HPSEARCH_CMD_FD: runner to trial, HPSEARCH_REPORT_FD:
/// trial to runner), apart from its stdout and stderr. See docs/runner.md.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

namespace hpsearch {

/// Runner to trial.
struct TrainCommand {       ///< {"op":"validate_after","length":L}: train to total length L, validate
  std::uint64_t length = 0;
};
struct CloseCommand {};     ///< {"op":"close"}: the trial is done; exit 0
struct PauseCommand {};     ///< {"op":"pause"}: checkpoint (if not already) and exit 0
using TrialCommand = std::variant<TrainCommand, CloseCommand, PauseCommand>;

[[nodiscard]] std::string command_line(const TrialCommand& command);  ///< with the newline

/// Trial to runner.
struct ProgressReport {      ///< {"type":"progress","units":X}: total units trained so far
  double units = 0;
};
struct ValidationReport {    ///< {"type":"validation","length":L,"metrics":{...}}
  std::uint64_t length = 0;
  double metric = 0;         ///< the searcher's metric, taken from metrics
  nlohmann::json metrics;    ///< every metric the trial reported
};
struct CheckpointReport {    ///< {"type":"checkpoint","path":P,"length":L}: a stored checkpoint
  std::string path;
  std::uint64_t length = 0;
};
struct InvalidHpReport {     ///< {"type":"invalid_hp","reason":"..."}: the hyperparameters cannot work
  std::string reason;
};
using TrialReport = std::variant<ProgressReport, ValidationReport, CheckpointReport, InvalidHpReport>;

/// A line that breaks the protocol: what was wrong with it.
class TrialProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parses one report line. `metric` is the searcher's metric name, which a validation must
/// report as a number (or "Infinity", "-Infinity", "NaN"). Throws TrialProtocolError.
[[nodiscard]] TrialReport parse_trial_report(std::string_view line, const std::string& metric);

}  // namespace hpsearch
