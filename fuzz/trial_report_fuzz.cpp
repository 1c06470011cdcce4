// Fuzz target: the trial protocol's report lines (what a trial sends the runner over its
// channel, docs/runner.md), parsed by parse_trial_report.
//
// Input: byte 0 picks the searcher's metric (one of kMetrics); the rest is what the trial
// sent, cut into lines at '\n' as the supervisor cuts it. Every line is parsed.
//
// Contract: a line is refused with a TrialProtocolError (never another exception) whose
// message is one printable line of bounded length, UTF-8, starting with the report type it
// is about ("validation: ...") or saying the line is no report (not an object, no type, an
// unknown type), without the JSON library's internals; or it is accepted as the report its "type"
// names, with only that type's documented fields, each in its documented domain. The parser
// keeps no state (a report's effect is the runner's), so a refused line changes nothing by
// construction: parsing it again gives the same answer.
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <variant>

#include "hpsearch/runner/trial_protocol.hpp"
#include "hpsearch/searcher/json_number.hpp"
#include "support/fuzz_support.hpp"

namespace {

using hpsearch::fuzz::broken;

constexpr std::array<const char*, 3> kMetrics{"loss", "validation_loss", "acc"};
constexpr std::size_t kMaxMessage = 600;

// The documented fields of each report type, besides "type" (docs/runner.md).
const std::map<std::string, std::set<std::string>>& documented_fields() {
  static const std::map<std::string, std::set<std::string>> fields{
      {"progress", {"units", "fraction"}},
      {"validation", {"length", "metrics"}},
      {"checkpoint", {"path", "length", "storage_id", "steps_completed", "metadata"}},
      {"invalid_hp", {"reason"}},
      {"metrics", {"group", "steps_completed", "metrics"}},
      {"status", {"text"}},
      {"early_exit", {"reason"}},
      {"request", {"id", "what"}},
      {"preemption_acknowledged", {}},
      {"checkpoint_deleted", {"storage_id"}},
  };
  return fields;
}

// The type a report of each alternative comes from.
std::set<std::string> types_of(const hpsearch::TrialReport& report) {
  switch (report.index()) {
    case 0:
      return {"progress"};
    case 1:
      return {"validation"};
    case 2:
      return {"checkpoint"};
    case 3:
      return {"invalid_hp"};
    case 4:
      return {"metrics"};
    case 5:
      return {"status"};
    case 6:
      return {"early_exit"};
    case 7:
      return {"request"};
    case 8:
      return {"preemption_acknowledged"};
    default:
      return {"checkpoint_deleted"};
  }
}

void check_refusal(const std::string& message, const std::string& line) {
  const auto fail = [&](std::string_view what) {
    broken(what, "line:    " + line + "\nmessage: " + message);
  };
  if (message.empty()) fail("an empty message");
  if (message.size() > kMaxMessage) fail("a message longer than the limit");
  for (const char c : message) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) fail("a message with a control character");
  }
  if (hpsearch::fuzz::leaks_json_internals(message, hpsearch::fuzz::quotable(line))) {
    fail("the message leaks the JSON library's internals");
  }
  try {
    (void)nlohmann::json(message).dump();  // strict: throws on bytes that are not UTF-8
  } catch (const nlohmann::json::exception&) {
    fail("a message that is not UTF-8 (a character cut in two)");
  }
  const bool about_the_line = message == "not a JSON object" ||
                              message.starts_with("missing field 'type'") ||
                              message.starts_with("unknown type '");
  bool about_a_type = false;
  for (const auto& [type, fields] : documented_fields())
    about_a_type = about_a_type || message.starts_with(type + ": ");
  if (!about_the_line && !about_a_type)
    fail("the message names neither the report type nor what is wrong with the line");
}

void check_report(const hpsearch::TrialReport& report, const std::string& line,
                  const std::string& metric) {
  const auto fail = [&](std::string_view what) { broken(what, "line: " + line); };
  // An accepted line is a JSON object whose type is the report's, with documented fields only.
  const nlohmann::json j = nlohmann::json::parse(line);
  if (!j.is_object() || !j.contains("type") || !j.at("type").is_string())
    fail("accepted a line that is no report");
  const std::string type = j.at("type").get<std::string>();
  if (!types_of(report).contains(type)) fail("the report is not of the line's type");
  for (const auto& [key, value] : j.items()) {
    if (key != "type" && !documented_fields().at(type).contains(key))
      fail("accepted an undocumented field");
  }
  if (const auto* p = std::get_if<hpsearch::ProgressReport>(&report)) {
    if (p->units.has_value() == p->fraction.has_value())
      fail("progress: not exactly one of units and fraction");
    if (p->units && !(std::isfinite(*p->units) && *p->units >= 0))
      fail("progress: units not finite and >= 0");
    if (p->fraction && !(*p->fraction >= 0 && *p->fraction <= 1))
      fail("progress: fraction outside [0, 1]");
  } else if (const auto* v = std::get_if<hpsearch::ValidationReport>(&report)) {
    if (!v->metrics.is_object() || !v->metrics.contains(metric))
      fail("validation: metrics without the searcher's metric");
    const std::optional<double> value = hpsearch::metric_from_json(v->metrics.at(metric));
    if (!value) fail("validation: the searcher's metric is not a metric value");
    if (!(*value == v->metric || (std::isnan(*value) && std::isnan(v->metric))))
      fail("validation: metric is not the line's");
    if (j.at("length") != v->length) fail("validation: length is not the line's");
  } else if (const auto* c = std::get_if<hpsearch::CheckpointReport>(&report)) {
    if (c->storage_id.empty() == c->path.empty())
      fail("checkpoint: not exactly one of a path and a storage id");
    if (!c->storage_id.empty() && (c->storage_id.find_first_of("/\\") != std::string::npos ||
                                   c->storage_id.starts_with("."))) {
      fail("checkpoint: a storage id that is not a plain name");
    }
    if (!c->storage_id.empty() && !c->metadata.is_object())
      fail("checkpoint: metadata is not an object");
  } else if (const auto* m = std::get_if<hpsearch::MetricsReport>(&report)) {
    if (m->group.empty() || m->group.find('.') != std::string::npos)
      fail("metrics: a group that is no plain name");
    if (!m->metrics.is_object()) fail("metrics: metrics is not an object");
  } else if (const auto* e = std::get_if<hpsearch::EarlyExitReport>(&report)) {
    if (e->reason != hpsearch::ExitedReason::kInvalidHp &&
        e->reason != hpsearch::ExitedReason::kUserRequestedStop) {
      fail("early_exit: a reason a trial may not give");
    }
  } else if (const auto* r = std::get_if<hpsearch::RequestReport>(&report)) {
    if (r->what != "best_validation" && r->what != "sync")
      fail("request: an unknown request accepted");
  }
}

// The answer to a line, for comparing two parses: the report's alternative, or the message.
std::string answer(const std::string& line, const std::string& metric) {
  try {
    return "report " + std::to_string(hpsearch::parse_trial_report(line, metric).index());
  } catch (const hpsearch::TrialProtocolError& e) {
    return std::string("error ") + e.what();
  }
}

void parse_line(const std::string& line, const std::string& metric) {
  std::string first;
  try {
    const hpsearch::TrialReport report = hpsearch::parse_trial_report(line, metric);
    check_report(report, line, metric);
    first = "report " + std::to_string(report.index());
  } catch (const hpsearch::TrialProtocolError& e) {
    check_refusal(e.what(), line);
    first = std::string("error ") + e.what();
  } catch (const std::exception& e) {
    broken("an exception other than TrialProtocolError", "line: " + line + "\nwhat: " + e.what());
  }
  if (answer(line, metric) != first)
    broken("parsing the line again gives another answer", "line: " + line);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input = hpsearch::fuzz::as_text(data, size);
  hpsearch::fuzz::Choices pick(input.substr(0, 1));
  const std::string metric = kMetrics[pick.below(kMetrics.size())];
  input.remove_prefix(std::min<std::size_t>(1, input.size()));
  while (!input.empty()) parse_line(std::string(hpsearch::fuzz::take_line(input)), metric);
  return 0;
}
