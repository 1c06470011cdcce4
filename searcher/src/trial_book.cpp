#include "hpsearch/searcher/trial_book.hpp"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>

#include "hpsearch/searcher/assert.hpp"
#include "hpsearch/searcher/errors.hpp"

namespace hpsearch {
namespace {

std::string describe(const Event& event) {
  return std::string(event_name(event)) + " for trial " + request_id_of(event).to_string();
}

[[noreturn]] void reject(const Event& event, const std::string& why) {
  throw ProtocolError(describe(event) + ": " + why);
}

bool is_invalid_hp(ExitedReason reason) {
  return reason == ExitedReason::kInvalidHp || reason == ExitedReason::kInitInvalidHp;
}

}  // namespace

std::uint32_t TrialBook::created_trial(const Event& event) const {
  const std::optional<std::uint32_t> found = index_.find(request_id_of(event));
  if (!found) reject(event, "no create operation has requested this id");
  if (!trials_[*found].created && !std::holds_alternative<TrialCreated>(event)) {
    reject(event, "the trial has not been created (send trial_created first)");
  }
  return *found;
}

std::optional<std::uint32_t> TrialBook::index_of(const RequestId& id) const {
  return index_.find(id);
}

TrialBook::Trial& TrialBook::trial(const RequestId& id) {
  const std::optional<std::uint32_t> found = index_.find(id);
  HPSEARCH_ASSERT(found.has_value(), "operation for a trial that was never created");
  return trials_[*found];
}

TrialBook::Checked TrialBook::check(const Event& event) const {
  const std::uint32_t index = created_trial(event);
  const Trial& t = trials_[index];
  const Checked apply{Disposition::kApply, index};
  if (std::holds_alternative<TrialCreated>(event)) {
    if (t.created) reject(event, "the trial was already created");
    return apply;
  }
  if (t.closed && !(std::holds_alternative<TrialExitedEarly>(event) && t.exited)) {
    reject(event, "the trial is already closed");
  }
  if (const auto* validation = std::get_if<ValidationCompleted>(&event)) {
    if (t.exited) reject(event, "the trial already exited early");
    if (!t.has_op) reject(event, "the trial has no validate_after to complete");
    const std::string outstanding = "validate_after length " + std::to_string(t.op_length);
    if (t.op_completed) {
      reject(event, validation->length == t.op_length
                        ? "its " + outstanding + " was already completed"
                        : "the trial has no outstanding validate_after (its last, " + outstanding +
                              ", is completed), got length " + std::to_string(validation->length));
    }
    if (validation->length != t.op_length) {
      reject(event, "length " + std::to_string(validation->length) +
                        " is not the trial's outstanding " + outstanding);
    }
  } else if (const auto* progress = std::get_if<TrialProgress>(&event)) {
    if (!std::isfinite(progress->units) || progress->units < 0) {
      reject(event, "units must be a finite number >= 0");
    }
  } else if (std::holds_alternative<TrialExitedEarly>(event)) {
    // Several ranks may report the same exit; Determined ignores all but the first.
    if (t.exited) return Checked{Disposition::kIgnore, index};
  } else if (std::holds_alternative<TrialClosed>(event)) {
    if (!t.exited && !t.close_requested) {
      reject(event,
             "the searcher has not closed this trial (no close operation); report "
             "trial_exited_early first if it stopped");
    }
    if (!t.exited && t.has_op && !t.op_completed) {
      reject(event, "its validate_after length " + std::to_string(t.op_length) +
                        " is not completed; report validation_completed, or "
                        "trial_exited_early first if it stopped");
    }
  }
  return apply;
}

void TrialBook::untrack(Trial& t) {
  if (!t.tracked) return;
  t.tracked = false;
  if (t.closed) {
    --totals_.closed_tracked;
    return;
  }
  totals_.open_units -= t.units;
  if (--totals_.open_tracked == 0) totals_.open_units = 0;  // no drift once nothing is open
}

TrialBook::Checked TrialBook::admit(const Event& event, bool started) {
  if (!started) {
    throw ProtocolError(std::string(event_name(event)) +
                        ": the search has not started (call initial_operations first)");
  }
  const Checked checked = check(event);
  if (checked.disposition != Disposition::kIgnore) apply(event, checked.trial);
  return checked;
}

void TrialBook::apply(const Event& event, std::uint32_t index) {
  Trial& t = trials_[index];
  if (std::holds_alternative<TrialCreated>(event)) {
    t.created = true;
    t.tracked = true;
    t.units = 0;
    ++totals_.open_tracked;
  } else if (std::holds_alternative<ValidationCompleted>(event)) {
    t.op_completed = true;
  } else if (const auto* progress = std::get_if<TrialProgress>(&event)) {
    if (t.tracked) {
      totals_.open_units += progress->units - t.units;
      t.units = progress->units;
    }
  } else if (const auto* exit = std::get_if<TrialExitedEarly>(&event)) {
    t.exited = true;
    t.exit_reason = exit->reason;
    if (is_invalid_hp(exit->reason)) untrack(t);
    if (exit->reason == ExitedReason::kUserCanceled) ++cancels_;
    if (exit->reason == ExitedReason::kErrored) ++failures_;
  } else if (std::holds_alternative<TrialClosed>(event)) {
    const bool tracked = t.tracked;
    untrack(t);
    t.closed = true;
    ++totals_.closed;
    if (tracked) {
      t.tracked = true;
      ++totals_.closed_tracked;
    }
  }
}

void TrialBook::add_trial(Trial t) {
  HPSEARCH_ASSERT(trials_.size() < std::numeric_limits<std::uint32_t>::max(),
                  "more than 2^32 - 1 trials");
  const bool inserted = index_.insert(t.id, static_cast<std::uint32_t>(trials_.size()));
  HPSEARCH_ASSERT(inserted, "a method created the same request id twice");
  trials_.push_back(t);
}

void TrialBook::record(const std::vector<Operation>& ops) {
  for (const Operation& op : ops) {
    if (const auto* create = std::get_if<Create>(&op)) {
      HPSEARCH_ASSERT(create->trial_index == trials_.size(),
                      "a method numbered its Creates out of creation order");
      add_trial(Trial{.id = create->request_id});
      ++totals_.requested;
    } else if (const auto* validate = std::get_if<ValidateAfter>(&op)) {
      Trial& t = trial(validate->request_id);
      HPSEARCH_ASSERT(!t.has_op || t.op_completed,
                      "a method issued a validate_after while another was outstanding");
      HPSEARCH_ASSERT(!t.close_requested && !t.closed && !t.exited,
                      "a method issued a validate_after for a closed or exited trial");
      HPSEARCH_ASSERT(!t.has_op || validate->length > t.op_length,
                      "a method issued a validate_after for a length already completed");
      t.has_op = true;
      t.op_length = validate->length;
      t.op_completed = false;
    } else if (const auto* close = std::get_if<Close>(&op)) {
      Trial& t = trial(close->request_id);
      HPSEARCH_ASSERT(!t.close_requested && !t.closed, "a method closed a trial twice");
      t.close_requested = true;
    } else {
      shut_down_ = true;
    }
  }
}

void TrialBook::check_operations(const std::vector<Operation>& ops) const {
  // What the list does to the trials it names, over the book (the list's own creates too).
  std::unordered_map<RequestId, Trial, RequestIdHash> touched;
  bool shut_down = shut_down_;
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const Operation& op = ops[k];
    const RequestId* id = request_id_of(op);
    const std::string what = "operation " + std::to_string(k) + " (" +
                             nlohmann::json(op).at("type").get<std::string>() +
                             (id ? " for trial " + id->to_string() : std::string()) + "): ";
    if (shut_down) throw ProtocolError(what + "the search has already shut down");
    if (id == nullptr) {
      shut_down = true;
      continue;
    }
    auto found = touched.find(*id);
    if (found == touched.end()) {
      if (const std::optional<std::uint32_t> i = index_.find(*id)) {
        found = touched.emplace(*id, trials_[*i]).first;
      }
    }
    if (std::holds_alternative<Create>(op)) {
      if (found != touched.end())
        throw ProtocolError(what + "this request id was already requested");
      touched.emplace(*id, Trial{.id = *id});
      continue;
    }
    if (found == touched.end())
      throw ProtocolError(what + "no create operation has requested this id");
    Trial& t = found->second;
    if (t.closed) throw ProtocolError(what + "the trial is already closed");
    if (t.exited) throw ProtocolError(what + "the trial already exited early");
    if (t.close_requested) throw ProtocolError(what + "the trial was already asked to close");
    if (const auto* validate = std::get_if<ValidateAfter>(&op)) {
      if (t.has_op && !t.op_completed) {
        throw ProtocolError(what + "its validate_after length " + std::to_string(t.op_length) +
                            " is still outstanding (one at a time)");
      }
      if (t.has_op && validate->length <= t.op_length) {
        throw ProtocolError(what + "length " + std::to_string(validate->length) +
                            " is not beyond the length it was last asked to reach, " +
                            std::to_string(t.op_length) + " (lengths are absolute)");
      }
      t.has_op = true;
      t.op_length = validate->length;
      t.op_completed = false;
    } else {
      t.close_requested = true;
    }
  }
}

std::optional<Shutdown> TrialBook::shutdown_due(const Event& event) const {
  const bool closing = std::holds_alternative<TrialClosed>(event);
  if (!closing && !std::holds_alternative<TrialExitedEarly>(event)) return std::nullopt;
  if (shut_down_ || totals_.requested != totals_.closed) return std::nullopt;
  return Shutdown{.cancel = closing && cancels_ >= totals_.requested,
                  .failure = failures_ >= totals_.requested};
}

void to_json(nlohmann::json& j, const TrialBook& book) {
  nlohmann::json trials = nlohmann::json::array();
  for (const TrialBook::Trial& t : book.trials_) {
    nlohmann::json entry{
        {"request_id", t.id.to_string()},
        {"created", t.created},
        {"closed", t.closed},
        {"close_requested", t.close_requested},
        {"exit", t.exited ? nlohmann::json(to_string(t.exit_reason)) : nullptr},
        {"units", t.tracked ? nlohmann::json(t.units) : nullptr},
        {"op", t.has_op ? nlohmann::json{{"length", t.op_length}, {"completed", t.op_completed}}
                        : nullptr}};
    trials.push_back(std::move(entry));
  }
  j = nlohmann::json{{"trials", std::move(trials)},
                     {"open_units", book.totals_.open_units},
                     {"shutdown", book.shut_down_}};
}

namespace {
bool bool_at(const nlohmann::json& j, const char* key, const std::string& where) {
  const nlohmann::json& value = j.at(key);
  if (!value.is_boolean()) {
    throw ProtocolError(where + "." + key + ": must be true or false, got " + value.dump());
  }
  return value.get<bool>();
}
}  // namespace

void from_json(const nlohmann::json& j, TrialBook& book) {
  TrialBook out;
  const nlohmann::json& trials = j.at("trials");
  if (!trials.is_array()) throw ProtocolError("searcher_state.trials: must be an array");
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const nlohmann::json& entry = trials[i];
    const std::string where = "searcher_state.trials[" + std::to_string(i) + "]";
    TrialBook::Trial t;
    const nlohmann::json& id = entry.at("request_id");
    const auto parsed =
        id.is_string() ? RequestId::parse(id.get_ref<const std::string&>()) : std::nullopt;
    if (!parsed) throw ProtocolError(where + ".request_id: must be a UUID, got " + id.dump());
    if (out.index_.contains(*parsed)) {
      throw ProtocolError(where + ".request_id: " + id.dump() + " appears twice");
    }
    t.id = *parsed;
    t.created = bool_at(entry, "created", where);
    t.closed = bool_at(entry, "closed", where);
    t.close_requested = bool_at(entry, "close_requested", where);
    const nlohmann::json& exit = entry.at("exit");
    if (!exit.is_null()) {
      const auto reason =
          exit.is_string() ? parse_exited_reason(exit.get_ref<const std::string&>()) : std::nullopt;
      if (!reason) {
        throw ProtocolError(where + ".exit: must be null or one of " +
                            std::string(exited_reason_names()) + ", got " + exit.dump());
      }
      t.exited = true;
      t.exit_reason = *reason;
    }
    const nlohmann::json& units = entry.at("units");
    if (!units.is_null()) {
      if (!units.is_number()) throw ProtocolError(where + ".units: must be a number or null");
      t.tracked = true;
      t.units = units.get<double>();
    }
    const nlohmann::json& op = entry.at("op");
    if (!op.is_null()) {
      const nlohmann::json& length = op.at("length");
      if (!length.is_number_unsigned()) {
        throw ProtocolError(where + ".op.length: must be a non-negative integer");
      }
      t.has_op = true;
      t.op_length = length.get<std::uint64_t>();
      t.op_completed = bool_at(op, "completed", where + ".op");
    }
    out.add_trial(t);
    ++out.totals_.requested;
    if (t.closed) ++out.totals_.closed;
    if (t.tracked) ++(t.closed ? out.totals_.closed_tracked : out.totals_.open_tracked);
    if (t.exited && t.exit_reason == ExitedReason::kUserCanceled) ++out.cancels_;
    if (t.exited && t.exit_reason == ExitedReason::kErrored) ++out.failures_;
  }
  const nlohmann::json& open_units = j.at("open_units");
  if (!open_units.is_number()) throw ProtocolError("searcher_state.open_units: must be a number");
  // Stored rather than re-summed so that progress after a restore is bit-identical.
  out.totals_.open_units = open_units.get<double>();
  out.shut_down_ = bool_at(j, "shutdown", "searcher_state");
  book = std::move(out);
}

}  // namespace hpsearch
