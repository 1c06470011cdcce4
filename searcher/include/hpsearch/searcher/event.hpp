#pragma once
/// \file
/// Events: what whoever runs the trials tells the searcher (spec section 2.2).

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

#include "hpsearch/searcher/request_id.hpp"

namespace hpsearch {

/// The trial asked for by a Create exists now.
struct TrialCreated {
  RequestId request_id;
  friend bool operator==(const TrialCreated&, const TrialCreated&) = default;
};

/// The trial completed its outstanding ValidateAfter of this `length` and reported `metric`
/// (any double: ±infinity are ordinary values, NaN is a diverged trial).
struct ValidationCompleted {
  RequestId request_id;
  double metric = 0;
  std::uint64_t length = 0;
  friend bool operator==(const ValidationCompleted& a, const ValidationCompleted& b) {
    // Bitwise metric equality, so that two NaN events compare equal.
    return a.request_id == b.request_id && a.length == b.length &&
           (a.metric == b.metric || (a.metric != a.metric && b.metric != b.metric));
  }
};

/// The trial has trained `units` in total so far (idempotent; feeds progress only).
struct TrialProgress {
  RequestId request_id;
  double units = 0;
  friend bool operator==(const TrialProgress&, const TrialProgress&) = default;
};

/// Why a trial stopped before completing its operations.
enum class ExitedReason { kErrored, kUserCanceled, kInvalidHp, kInitInvalidHp, kUserRequestedStop };

/// The protocol name: errored, user_canceled, invalid_hp, init_invalid_hp, user_requested_stop.
[[nodiscard]] std::string_view to_string(ExitedReason reason);
/// Inverse of to_string; nullopt for anything else.
[[nodiscard]] std::optional<ExitedReason> parse_exited_reason(std::string_view text);
/// The list of valid names, for error messages.
[[nodiscard]] std::string_view exited_reason_names();

/// The trial stopped early; a TrialClosed for it follows.
struct TrialExitedEarly {
  RequestId request_id;
  ExitedReason reason = ExitedReason::kErrored;
  friend bool operator==(const TrialExitedEarly&, const TrialExitedEarly&) = default;
};

/// The trial's process has exited for good.
struct TrialClosed {
  RequestId request_id;
  friend bool operator==(const TrialClosed&, const TrialClosed&) = default;
};

using Event =
    std::variant<TrialCreated, ValidationCompleted, TrialProgress, TrialExitedEarly, TrialClosed>;

/// The protocol name of an event, e.g. "validation_completed".
[[nodiscard]] std::string_view event_name(const Event& event);
[[nodiscard]] const RequestId& request_id_of(const Event& event);

}  // namespace hpsearch

#include <nlohmann/json_fwd.hpp>

namespace hpsearch {

/// The protocol form, e.g. `{"event":"validation_completed","request_id":"…","metric":0.5,
/// "length":100}`; metrics use metric_to_json (±infinity and NaN as strings).
void to_json(nlohmann::json& j, const Event& event);

/// Reads one of the five trial events in the protocol form. Strict: every field must be
/// present with the right type and no other field is allowed. Throws ProtocolError naming
/// the event, the field, the value received and what was expected.
[[nodiscard]] Event event_from_json(const nlohmann::json& j);

/// The names event_from_json accepts, for error messages.
[[nodiscard]] std::string_view trial_event_names();

}  // namespace hpsearch
