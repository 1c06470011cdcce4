#pragma once
/// \file
/// TrialBook: the searcher wrapper's bookkeeping (spec section 2.3) with the experiment's
/// per-trial operation state (section 2.4), so that every event can be checked before it
/// reaches a search method.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <vector>

#include "hpsearch/searcher/event.hpp"
#include "hpsearch/searcher/operation.hpp"
#include "hpsearch/searcher/request_id_index.hpp"

namespace hpsearch {

/// Running totals that make every method's progress O(1) (no sum over trials).
struct ProgressTotals {
  std::uint64_t requested = 0;       ///< Creates emitted so far.
  std::uint64_t closed = 0;          ///< Trials closed.
  std::uint64_t closed_tracked = 0;  ///< Closed trials whose progress is still tracked.
  std::uint64_t open_tracked = 0;    ///< Tracked trials not closed yet.
  double open_units = 0;             ///< Sum of reported units over tracked, open trials.
  friend bool operator==(const ProgressTotals&, const ProgressTotals&) = default;
};

/// Per-trial state in dense arrays (creation order) with a hash index for lookups.
/// A trial's progress is "tracked" from trial_created until an invalid-hyperparameter exit,
/// mirroring Determined's `trial_progress` map. O(1) per event and per operation.
class TrialBook {
 public:
  /// What to do with an event that passed the checks.
  enum class Disposition { kApply, kIgnore };

  /// The result of a check: what to do, and the trial's dense index.
  struct Checked {
    Disposition disposition = Disposition::kApply;
    std::uint32_t trial = 0;
  };

  /// Checks that `event` is allowed now. Throws ProtocolError (naming the event, the request
  /// id and what was expected) if not; kIgnore for a repeated early-exit report.
  [[nodiscard]] Checked check(const Event& event) const;
  /// The wrapper's own state change for a checked event (trial from check), before the
  /// method sees it.
  void apply(const Event& event, std::uint32_t trial);
  /// What every searcher does first with an event: refuses it before the search started
  /// (`started` false: initial_operations not yet called), checks it, and applies it unless it
  /// is to be ignored. The caller acts on the event only if the result is not kIgnore.
  [[nodiscard]] Checked admit(const Event& event, bool started);
  /// The dense index of a requested trial, if any.
  [[nodiscard]] std::optional<std::uint32_t> index_of(const RequestId& id) const;
  /// Books the operations a method returned: Creates add trials, ValidateAfter becomes the
  /// trial's outstanding operation, Close is remembered, Shutdown ends the search.
  void record(const std::vector<Operation>& ops);
  /// Checks operations that did not come from a built-in method (a custom search method's,
  /// posted by its client) before they are recorded: each in order, against the book and the
  /// operations before it in the list. Throws ProtocolError naming the operation, its request
  /// id and why: a create whose request id was requested already; a validate_after or close
  /// for a trial never requested, closed, exited early or asked to close; a validate_after
  /// while another is outstanding or not beyond the length last asked; an operation after a
  /// shutdown. O(ops), whatever the number of trials.
  void check_operations(const std::vector<Operation>& ops) const;
  /// Determined's shutdown rule after an early exit or a close: once every requested trial is
  /// closed, the search is over. Fails only if every trial errored; canceled only if every
  /// trial was canceled (and only on the close path, as in Determined).
  [[nodiscard]] std::optional<Shutdown> shutdown_due(const Event& event) const;

  [[nodiscard]] bool shut_down() const { return shut_down_; }
  [[nodiscard]] const ProgressTotals& totals() const { return totals_; }
  /// Number of trials requested so far (Creates recorded).
  [[nodiscard]] std::uint64_t trials_requested() const { return totals_.requested; }

  friend bool operator==(const TrialBook& a, const TrialBook& b) {
    return a.trials_ == b.trials_ && a.totals_ == b.totals_ && a.shut_down_ == b.shut_down_;
  }
  friend void to_json(nlohmann::json& j, const TrialBook& book);
  /// Throws ProtocolError naming the bad field.
  friend void from_json(const nlohmann::json& j, TrialBook& book);

 private:
  struct Trial {
    RequestId id;
    double units = 0;
    std::uint64_t op_length = 0;
    ExitedReason exit_reason = ExitedReason::kErrored;
    bool created = false;
    bool closed = false;
    bool exited = false;
    bool tracked = false;
    bool has_op = false;
    bool op_completed = false;
    bool close_requested = false;
    friend bool operator==(const Trial&, const Trial&) = default;
  };

  [[nodiscard]] std::uint32_t created_trial(const Event& event) const;
  Trial& trial(const RequestId& id);
  void untrack(Trial& trial);
  void add_trial(Trial trial);

  std::vector<Trial> trials_;
  RequestIdIndex index_;
  ProgressTotals totals_;
  std::uint64_t cancels_ = 0;
  std::uint64_t failures_ = 0;
  bool shut_down_ = false;
};

}  // namespace hpsearch
