#include "hpsearch/runner/trial_protocol.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "hpsearch/searcher/bounded_json.hpp"
#include "hpsearch/searcher/json_lines.hpp"
#include "hpsearch/searcher/json_number.hpp"

namespace hpsearch {
namespace {

constexpr std::size_t kShownLength = 100;

// The trial's own text in a message: at most kShownLength bytes of it, so that a message
// stays short whatever the line holds. The cut is at a character's start, so that the message
// stays UTF-8 (the parsed line is) and reads back as the JSON text it goes into.
std::string clipped(std::string text) {
  if (text.size() <= kShownLength) return text;
  std::size_t cut = kShownLength;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0U) == 0x80U)
    --cut;  // a continuation byte
  return text.substr(0, cut) + "...";
}
std::string shown(const nlohmann::json& value) {
  return clipped(value.dump());
}

// The fields a report may have, besides "type" (a list, not a set: nothing to allocate for
// a report on the runner's hot path; the message lists them sorted).
void expect_fields(const nlohmann::json& j, const std::string& type,
                   std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : j.get_ref<const nlohmann::json::object_t&>()) {
    if (key != "type" && std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::vector<std::string_view> sorted(allowed);
      std::sort(sorted.begin(), sorted.end());
      std::string names;
      for (const std::string_view a : sorted) names += (names.empty() ? "" : ", ") + std::string(a);
      throw TrialProtocolError(type + ": unknown field '" + clipped(key) + "' (fields: " + names +
                               ")");
    }
  }
}

std::uint64_t length_field(const nlohmann::json& j, const std::string& type,
                           const std::string& name = "length") {
  if (!j.contains(name)) throw TrialProtocolError(type + ": missing field '" + name + "'");
  const nlohmann::json& v = j.at(name);
  if (!v.is_number_unsigned()) {
    throw TrialProtocolError(type + ": '" + name + "' must be an integer >= 0, got " + shown(v));
  }
  return v.get<std::uint64_t>();
}

std::string string_field(const nlohmann::json& j, const std::string& type,
                         const std::string& name) {
  if (!j.contains(name) || !j.at(name).is_string()) {
    throw TrialProtocolError(type + ": '" + name + "' must be a string");
  }
  return j.at(name).get<std::string>();
}

// One parser per report type (kReportTypes, below): the fields checked, every error naming
// the type, the field and what was expected.
TrialReport stored_checkpoint_report(const nlohmann::json& j, const std::string& type) {
  expect_fields(j, type, {"storage_id", "steps_completed", "metadata"});
  const nlohmann::json& id = j.at("storage_id");
  if (!id.is_string() || id.get<std::string>().empty() ||
      id.get<std::string>().find_first_of("/\\") != std::string::npos ||
      id.get<std::string>().starts_with(".")) {
    throw TrialProtocolError("checkpoint: 'storage_id' must be a plain name (a UUID), got " +
                             shown(id));
  }
  CheckpointReport report;
  report.storage_id = id.get<std::string>();
  if (j.contains("steps_completed") && !j.at("steps_completed").is_null())
    report.length = length_field(j, type, "steps_completed");
  report.metadata = j.value("metadata", nlohmann::json::object());
  if (!report.metadata.is_object())
    throw TrialProtocolError("checkpoint: 'metadata' must be an object");
  return report;
}

TrialReport progress_report(const nlohmann::json& j, const std::string& type,
                            const std::string& /*metric*/) {
  expect_fields(j, type, {"units", "fraction"});
  if (j.contains("fraction") && !j.contains("units")) {
    const nlohmann::json& f = j.at("fraction");
    if (!f.is_number() || !(f.get<double>() >= 0 && f.get<double>() <= 1)) {
      throw TrialProtocolError("progress: 'fraction' must be a number between 0 and 1, got " +
                               shown(f));
    }
    return ProgressReport{std::nullopt, f.get<double>()};
  }
  if (!j.contains("units") || !j.at("units").is_number() || j.at("units").get<double>() < 0 ||
      !std::isfinite(j.at("units").get<double>()) || j.contains("fraction")) {
    throw TrialProtocolError("progress: 'units' must be a number >= 0 (or give 'fraction' alone)");
  }
  return ProgressReport{j.at("units").get<double>(), std::nullopt};
}

TrialReport validation_report(const nlohmann::json& j, const std::string& type,
                              const std::string& metric) {
  expect_fields(j, type, {"length", "metrics"});
  ValidationReport report;
  report.length = length_field(j, type);
  if (!j.contains("metrics") || !j.at("metrics").is_object()) {
    throw TrialProtocolError("validation: 'metrics' must be an object of metric values");
  }
  report.metrics = j.at("metrics");
  if (!report.metrics.contains(metric)) {
    throw TrialProtocolError("validation: the metrics lack the searcher's metric '" + metric + "'");
  }
  const std::optional<double> value = metric_from_json(report.metrics.at(metric));
  if (!value) {
    throw TrialProtocolError("validation: metric '" + metric + "' must be a number, got " +
                             shown(report.metrics.at(metric)));
  }
  report.metric = *value;
  return report;
}

TrialReport checkpoint_report(const nlohmann::json& j, const std::string& type,
                              const std::string& /*metric*/) {
  if (j.contains("storage_id")) return stored_checkpoint_report(j, type);
  expect_fields(j, type, {"path", "length"});
  if (!j.contains("path") || !j.at("path").is_string() || j.at("path").get<std::string>().empty()) {
    throw TrialProtocolError("checkpoint: 'path' must be a non-empty string");
  }
  CheckpointReport report;
  report.path = j.at("path").get<std::string>();
  report.length = length_field(j, type);
  return report;
}

TrialReport invalid_hp_report(const nlohmann::json& j, const std::string& type,
                              const std::string& /*metric*/) {
  expect_fields(j, type, {"reason"});
  std::string reason;
  if (j.contains("reason")) {
    if (!j.at("reason").is_string())
      throw TrialProtocolError("invalid_hp: 'reason' must be a string");
    reason = j.at("reason").get<std::string>();
  }
  return InvalidHpReport{reason};
}

TrialReport metrics_report(const nlohmann::json& j, const std::string& type,
                           const std::string& /*metric*/) {
  expect_fields(j, type, {"group", "steps_completed", "metrics"});
  MetricsReport report{string_field(j, type, "group"), length_field(j, type, "steps_completed"),
                       j.value("metrics", nlohmann::json())};
  if (report.group.empty() || report.group.find('.') != std::string::npos) {
    throw TrialProtocolError("metrics: 'group' must be a non-empty name without '.', got " +
                             shown(report.group));
  }
  if (!report.metrics.is_object()) throw TrialProtocolError("metrics: 'metrics' must be an object");
  return report;
}

TrialReport status_report(const nlohmann::json& j, const std::string& type,
                          const std::string& /*metric*/) {
  expect_fields(j, type, {"text"});
  return StatusReport{string_field(j, type, "text")};
}

TrialReport early_exit_report(const nlohmann::json& j, const std::string& type,
                              const std::string& /*metric*/) {
  expect_fields(j, type, {"reason"});
  const std::string reason = string_field(j, type, "reason");
  if (reason == "invalid_hp") return EarlyExitReport{ExitedReason::kInvalidHp};
  if (reason == "user_requested_stop") return EarlyExitReport{ExitedReason::kUserRequestedStop};
  throw TrialProtocolError(
      "early_exit: 'reason' must be \"invalid_hp\" or \"user_requested_stop\", got " +
      shown(reason));
}

TrialReport request_report(const nlohmann::json& j, const std::string& type,
                           const std::string& /*metric*/) {
  expect_fields(j, type, {"id", "what"});
  RequestReport report{length_field(j, type, "id"), string_field(j, type, "what")};
  if (report.what != "best_validation" && report.what != "sync") {
    throw TrialProtocolError("request: unknown request '" + clipped(report.what) +
                             "' (requests: best_validation, sync)");
  }
  return report;
}

TrialReport acknowledgement_report(const nlohmann::json& j, const std::string& type,
                                   const std::string& /*metric*/) {
  expect_fields(j, type, {});
  return AcknowledgementReport{};
}

TrialReport checkpoint_deleted_report(const nlohmann::json& j, const std::string& type,
                                      const std::string& /*metric*/) {
  expect_fields(j, type, {"storage_id"});
  return CheckpointDeletedReport{string_field(j, type, "storage_id")};
}

// The report types, in the order an error lists them, each with its parser.
struct ReportType {
  const char* name;
  TrialReport (*parse)(const nlohmann::json& j, const std::string& type, const std::string& metric);
};
constexpr ReportType kReportTypes[] = {
    {"progress", progress_report},
    {"validation", validation_report},
    {"checkpoint", checkpoint_report},
    {"invalid_hp", invalid_hp_report},
    {"metrics", metrics_report},
    {"status", status_report},
    {"early_exit", early_exit_report},
    {"request", request_report},
    {"preemption_acknowledged", acknowledgement_report},
    {"checkpoint_deleted", checkpoint_deleted_report},
};

std::string type_names() {
  std::string names;
  for (const ReportType& t : kReportTypes)
    names += (names.empty() ? "" : ", ") + std::string(t.name);
  return names;
}

}  // namespace

std::string command_line(const TrialCommand& command) {
  // json_line's bytes for {"op": ..., "length": L}, written directly (one per operation).
  if (const auto* train = std::get_if<TrainCommand>(&command)) {
    std::string line = "{\"length\":";
    append_json_number(line, train->length);
    line += ",\"op\":\"validate_after\"}\n";
    return line;
  }
  if (std::holds_alternative<CloseCommand>(command)) return "{\"op\":\"close\"}\n";
  return "{\"op\":\"pause\"}\n";
}

TrialReport parse_trial_report(std::string_view line, const std::string& metric) {
  nlohmann::json j;
  try {
    j = parse_json(line);
  } catch (const nlohmann::json::exception&) {  // not JSON, or a number beyond double's range
    throw TrialProtocolError("not a JSON object");
  }
  if (!j.is_object()) throw TrialProtocolError("not a JSON object");
  if (!j.contains("type") || !j.at("type").is_string()) {
    throw TrialProtocolError("missing field 'type' (one of " + type_names() + ")");
  }
  const std::string type = j.at("type").get<std::string>();
  for (const ReportType& t : kReportTypes) {
    if (type == t.name) return t.parse(j, type, metric);
  }
  throw TrialProtocolError("unknown type '" + clipped(type) + "' (types: " + type_names() + ")");
}

}  // namespace hpsearch
