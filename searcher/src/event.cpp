#include "hpsearch/searcher/event.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace hpsearch {
namespace {
constexpr std::array<std::pair<ExitedReason, std::string_view>, 5> kReasonNames{{
    {ExitedReason::kErrored, "errored"},
    {ExitedReason::kUserCanceled, "user_canceled"},
    {ExitedReason::kInvalidHp, "invalid_hp"},
    {ExitedReason::kInitInvalidHp, "init_invalid_hp"},
    {ExitedReason::kUserRequestedStop, "user_requested_stop"},
}};

struct EventName {
  std::string_view operator()(const TrialCreated&) const { return "trial_created"; }
  std::string_view operator()(const ValidationCompleted&) const { return "validation_completed"; }
  std::string_view operator()(const TrialProgress&) const { return "trial_progress"; }
  std::string_view operator()(const TrialExitedEarly&) const { return "trial_exited_early"; }
  std::string_view operator()(const TrialClosed&) const { return "trial_closed"; }
};
}  // namespace

std::string_view to_string(ExitedReason reason) {
  for (const auto& [value, name] : kReasonNames) {
    if (value == reason) return name;
  }
  return "errored";
}

std::optional<ExitedReason> parse_exited_reason(std::string_view text) {
  for (const auto& [value, name] : kReasonNames) {
    if (name == text) return value;
  }
  return std::nullopt;
}

std::string_view exited_reason_names() {
  return "errored, user_canceled, invalid_hp, init_invalid_hp, user_requested_stop";
}

std::string_view event_name(const Event& event) {
  return std::visit(EventName{}, event);
}

const RequestId& request_id_of(const Event& event) {
  return std::visit([](const auto& e) -> const RequestId& { return e.request_id; }, event);
}

}  // namespace hpsearch

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/json_number.hpp"

namespace hpsearch {
namespace {

std::string shown(const nlohmann::json& value) {
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

// Reads the fields of one event, with messages that name the event and (once known) the trial.
class EventFields {
 public:
  EventFields(const nlohmann::json& j, std::string name, std::vector<std::string> fields)
      : j_(j), name_(std::move(name)) {
    for (const auto& [key, value] : j.items()) {
      (void)value;
      if (std::find(fields.begin(), fields.end(), key) == fields.end()) {
        std::string list;
        for (const std::string& f : fields) list += (list.empty() ? "" : ", ") + f;
        throw ProtocolError(name_ + ": unexpected field '" + key + "' (fields: " + list + ")");
      }
    }
  }

  const nlohmann::json& at(const char* key) const {
    if (!j_.contains(key)) {
      throw ProtocolError(context() + ": missing field '" + key + "'");
    }
    return j_.at(key);
  }

  RequestId request_id() {
    const nlohmann::json& value = at("request_id");
    const auto id =
        value.is_string() ? RequestId::parse(value.get_ref<const std::string&>()) : std::nullopt;
    if (!id) {
      throw ProtocolError(name_ +
                          ": request_id must be a UUID string like "
                          "\"ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8\", got " +
                          shown(value));
    }
    id_ = id->to_string();
    return *id;
  }

  [[noreturn]] void fail(const char* key, const std::string& expected) const {
    throw ProtocolError(context() + ": " + key + " must be " + expected + ", got " +
                        shown(j_.at(key)));
  }

  std::uint64_t length() const {
    const nlohmann::json& value = at("length");
    if (!value.is_number_unsigned()) fail("length", "a non-negative integer");
    return value.get<std::uint64_t>();
  }

  double metric() const {
    const auto metric = metric_from_json(at("metric"));
    if (!metric) fail("metric", "a number (or \"Infinity\", \"-Infinity\", \"NaN\")");
    return *metric;
  }

  double units() const {
    const nlohmann::json& value = at("units");
    if (!value.is_number() || value.get<double>() < 0) fail("units", "a number >= 0");
    return value.get<double>();
  }

  ExitedReason reason() const {
    const nlohmann::json& value = at("reason");
    const auto reason =
        value.is_string() ? parse_exited_reason(value.get_ref<const std::string&>()) : std::nullopt;
    if (!reason) fail("reason", "one of " + std::string(exited_reason_names()));
    return *reason;
  }

 private:
  std::string context() const { return id_.empty() ? name_ : name_ + " for trial " + id_; }

  const nlohmann::json& j_;
  std::string name_;
  std::string id_;
};

struct EventToJson {
  nlohmann::json operator()(const TrialCreated& e) const {
    return {{"event", "trial_created"}, {"request_id", e.request_id.to_string()}};
  }
  nlohmann::json operator()(const ValidationCompleted& e) const {
    return {{"event", "validation_completed"},
            {"request_id", e.request_id.to_string()},
            {"metric", metric_to_json(e.metric)},
            {"length", e.length}};
  }
  nlohmann::json operator()(const TrialProgress& e) const {
    return {
        {"event", "trial_progress"}, {"request_id", e.request_id.to_string()}, {"units", e.units}};
  }
  nlohmann::json operator()(const TrialExitedEarly& e) const {
    return {{"event", "trial_exited_early"},
            {"request_id", e.request_id.to_string()},
            {"reason", to_string(e.reason)}};
  }
  nlohmann::json operator()(const TrialClosed& e) const {
    return {{"event", "trial_closed"}, {"request_id", e.request_id.to_string()}};
  }
};

}  // namespace

void to_json(nlohmann::json& j, const Event& event) {
  j = std::visit(EventToJson{}, event);
}

std::string_view trial_event_names() {
  return "trial_created, validation_completed, trial_progress, trial_exited_early, trial_closed";
}

Event event_from_json(const nlohmann::json& j) {
  if (!j.is_object()) {
    throw ProtocolError("expected a JSON object like {\"event\":\"trial_created\",...}, got " +
                        shown(j));
  }
  if (!j.contains("event")) throw ProtocolError("missing field 'event'");
  const nlohmann::json& name_value = j.at("event");
  if (!name_value.is_string()) {
    throw ProtocolError("field 'event' must be a string, got " + shown(name_value));
  }
  const std::string name = name_value.get<std::string>();
  if (name == "trial_created") {
    EventFields f(j, name, {"event", "request_id"});
    return TrialCreated{f.request_id()};
  }
  if (name == "validation_completed") {
    EventFields f(j, name, {"event", "request_id", "metric", "length"});
    const RequestId id = f.request_id();
    const double metric = f.metric();
    return ValidationCompleted{id, metric, f.length()};
  }
  if (name == "trial_progress") {
    EventFields f(j, name, {"event", "request_id", "units"});
    const RequestId id = f.request_id();
    return TrialProgress{id, f.units()};
  }
  if (name == "trial_exited_early") {
    EventFields f(j, name, {"event", "request_id", "reason"});
    const RequestId id = f.request_id();
    return TrialExitedEarly{id, f.reason()};
  }
  if (name == "trial_closed") {
    EventFields f(j, name, {"event", "request_id"});
    return TrialClosed{f.request_id()};
  }
  throw ProtocolError("unknown event '" + name + "' (expected one of " +
                      std::string(trial_event_names()) + ")");
}

}  // namespace hpsearch
