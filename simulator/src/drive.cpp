#include "hpsearch/simulator/drive.hpp"

#include <algorithm>
#include <array>
#include <istream>
#include <optional>
#include <ostream>
#include <string>

namespace hpsearch {
namespace {

constexpr std::string_view kCommands = "initial_operations, progress, snapshot, restore";

void expect_only(const nlohmann::json& j, const std::string& name, std::string_view extra = {}) {
  for (const auto& [key, value] : j.items()) {
    (void)value;
    if (key != "event" && key != extra) {
      throw ProtocolError(name + ": unexpected field '" + key + "' (fields: event" +
                          (extra.empty() ? "" : ", " + std::string(extra)) + ")");
    }
  }
}

nlohmann::json respond(Searcher& searcher, const nlohmann::json& j, bool explain) {
  if (j.is_object() && j.contains("event") && j.at("event").is_string()) {
    const std::string name = j.at("event").get<std::string>();
    if (name == "initial_operations") {
      expect_only(j, name);
      return operations_answer(searcher.initial_operations(), explain);
    }
    if (name == "progress") {
      expect_only(j, name);
      return {{"progress", searcher.progress()}};
    }
    if (name == "snapshot") {
      expect_only(j, name);
      return {{"snapshot", searcher.snapshot()}};
    }
    if (name == "restore") {
      expect_only(j, name, "snapshot");
      if (!j.contains("snapshot")) throw ProtocolError("restore: missing field 'snapshot'");
      searcher.restore(j.at("snapshot"));
      return {{"restored", true}};
    }
    constexpr std::array<std::string_view, 5> kTrialEvents{"trial_created", "validation_completed",
                                                           "trial_progress", "trial_exited_early",
                                                           "trial_closed"};
    if (std::find(kTrialEvents.begin(), kTrialEvents.end(), name) == kTrialEvents.end()) {
      throw ProtocolError("unknown event '" + name + "' (expected one of " +
                          std::string(kCommands) + ", " + std::string(trial_event_names()) + ")");
    }
  }
  return operations_answer(searcher.handle(event_from_json(j)), explain);
}

}  // namespace

nlohmann::json drive_line(Searcher& searcher, std::string_view line, const DriveOptions& options) {
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
    return {{"error", "empty line: expected one JSON object per line"}};
  }
  if (std::optional<std::string> refused = json_limit_violation(line, options.limits)) {
    return {{"error", "line refused: " + *refused}};
  }
  nlohmann::json j;
  try {
    j = parse_json(line, options.limits);  // refuses an object with a key twice too
  } catch (
      const nlohmann::json::exception& e) {  // a syntax error, or a number out of range (1e999)
    return {{"error", "not valid JSON: " + parse_error_text(e)}};
  }
  return drive_event(searcher, j, options);
}

nlohmann::json drive_event(Searcher& searcher, const nlohmann::json& event,
                           const DriveOptions& options) {
  try {
    return respond(searcher, event, options.explain);
  } catch (const ProtocolError& e) {
    return {{"error", e.what()}};
  }
}

void run_drive(Searcher& searcher, std::istream& in, std::ostream& out,
               const DriveOptions& options) {
  std::string line;
  for (LineRead read; (read = read_line(in, line, options.limits.max_bytes)) != LineRead::kEnd;) {
    if (read == LineRead::kTooLong) {
      // The rest of the line was read and dropped: the next line is the next event.
      out << json_line({{"error", "line refused: longer than the limit of " +
                                      std::to_string(options.limits.max_bytes) +
                                      " bytes (the rest of the line was skipped)"}})
          << '\n';
    } else {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      out << json_line(drive_line(searcher, line, options)) << '\n';
    }
    out.flush();
  }
}

}  // namespace hpsearch
