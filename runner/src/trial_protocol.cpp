#include "hpsearch/runner/trial_protocol.hpp"

#include <cmath>
#include <set>

#include "hpsearch/searcher/json_lines.hpp"
#include "hpsearch/searcher/json_number.hpp"

namespace hpsearch {
namespace {

// The fields a report may have, besides "type".
void expect_fields(const nlohmann::json& j, const std::string& type, const std::set<std::string>& allowed) {
  for (const auto& [key, value] : j.items()) {
    if (key != "type" && !allowed.contains(key)) {
      std::string names;
      for (const std::string& a : allowed) names += (names.empty() ? "" : ", ") + a;
      throw TrialProtocolError(type + ": unknown field '" + key + "' (fields: " + names + ")");
    }
  }
}

std::uint64_t length_field(const nlohmann::json& j, const std::string& type) {
  if (!j.contains("length")) throw TrialProtocolError(type + ": missing field 'length'");
  const nlohmann::json& v = j.at("length");
  if (!v.is_number_unsigned()) {
    throw TrialProtocolError(type + ": 'length' must be an integer >= 0, got " + v.dump());
  }
  return v.get<std::uint64_t>();
}

}  // namespace

std::string command_line(const TrialCommand& command) {
  nlohmann::json j;
  if (const auto* train = std::get_if<TrainCommand>(&command)) {
    j = {{"op", "validate_after"}, {"length", train->length}};
  } else if (std::holds_alternative<CloseCommand>(command)) {
    j = {{"op", "close"}};
  } else {
    j = {{"op", "pause"}};
  }
  return json_line(j) + '\n';
}

TrialReport parse_trial_report(std::string_view line, const std::string& metric) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error&) {
    throw TrialProtocolError("not a JSON object");
  }
  if (!j.is_object()) throw TrialProtocolError("not a JSON object");
  if (!j.contains("type") || !j.at("type").is_string()) {
    throw TrialProtocolError(
        "missing field 'type' (one of progress, validation, checkpoint, invalid_hp)");
  }
  const std::string type = j.at("type").get<std::string>();
  if (type == "progress") {
    expect_fields(j, type, {"units"});
    if (!j.contains("units") || !j.at("units").is_number() || j.at("units").get<double>() < 0 ||
        !std::isfinite(j.at("units").get<double>())) {
      throw TrialProtocolError("progress: 'units' must be a number >= 0");
    }
    return ProgressReport{j.at("units").get<double>()};
  }
  if (type == "validation") {
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
                               report.metrics.at(metric).dump());
    }
    report.metric = *value;
    return report;
  }
  if (type == "checkpoint") {
    expect_fields(j, type, {"path", "length"});
    if (!j.contains("path") || !j.at("path").is_string() || j.at("path").get<std::string>().empty()) {
      throw TrialProtocolError("checkpoint: 'path' must be a non-empty string");
    }
    return CheckpointReport{j.at("path").get<std::string>(), length_field(j, type)};
  }
  if (type == "invalid_hp") {
    expect_fields(j, type, {"reason"});
    std::string reason;
    if (j.contains("reason")) {
      if (!j.at("reason").is_string()) throw TrialProtocolError("invalid_hp: 'reason' must be a string");
      reason = j.at("reason").get<std::string>();
    }
    return InvalidHpReport{reason};
  }
  throw TrialProtocolError("unknown type '" + type +
                           "' (types: progress, validation, checkpoint, invalid_hp)");
}

}  // namespace hpsearch
