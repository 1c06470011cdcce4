#pragma once
/// \file
/// `async_halving`: asynchronous successive halving (spec 3.5, promotion-based, and 3.6,
/// stopping-based with `stop_once`), O(log n) per event.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "hpsearch/methods/method_config.hpp"
#include "hpsearch/methods/rung.hpp"
#include "hpsearch/searcher/searcher.hpp"

namespace hpsearch {

/// The absolute length of each rung: `max(uint64(max_length / divisor^(R-1-i)), 1)` for
/// i = 0..R-1 (float power, truncation), as Determined computes them.
[[nodiscard]] std::vector<std::uint64_t> asha_rung_lengths(std::uint64_t max_length,
                                                           std::uint64_t num_rungs, double divisor);

/// ASHA. Promotion variant (`stop_once: false`): each report ranks the trial in its rung;
/// the rung promotes its top 1/divisor as it grows (a newcomer goes after equal metrics),
/// paused trials resume at the next rung, and once rung 0 holds max_trials metrics every
/// settled rung closes its unpromoted trials. Stopping variant (`stop_once: true`): each report
/// continues the trial if it ranks within the top max(1, (n+1)/divisor) (a newcomer goes
/// before equal metrics) and stops it otherwise. Both replace invalid-hyperparameter trials
/// outside max_trials and record early exits as the worst metric.
///
/// Metrics arrive canonical from the Searcher (smaller is better; NaN, a diverged trial, as
/// +infinity, the worst in both directions); ±infinity are ordinary values. Explanations carry
/// them canonical too, and the Searcher shows them in the user's direction.
///
/// Deviation from Determined: a trial this method has already closed is never promoted again
/// (Determined can ask a closed trial to train further after an invalid-hyperparameter
/// replacement reopens rung 0); it is recorded as the worst metric of the next rung instead.
class AshaSearch {
 public:
  explicit AshaSearch(const AshaConfig& config);

  std::vector<Operation> initial_operations(SearchContext& ctx);
  std::vector<Operation> on_event(const TrialCreated& event, SearchContext& ctx);
  std::vector<Operation> on_event(const ValidationCompleted& event, SearchContext& ctx);
  std::vector<Operation> on_event(const TrialExitedEarly& event, SearchContext& ctx);
  std::vector<Operation> on_event(const TrialClosed& event, SearchContext& ctx);
  /// metrics in rung 0 / (1.2 max_trials), or once rung 0 is full the larger of that and the
  /// fraction of valid trials closed.
  [[nodiscard]] double progress(const ProgressTotals& totals) const;
  [[nodiscard]] nlohmann::json state() const;
  /// Throws ProtocolError if the state does not fit this config or names a trial the book
  /// does not hold.
  void restore_state(const nlohmann::json& state, const TrialBook& book);

  [[nodiscard]] const std::vector<std::uint64_t>& rung_lengths() const { return lengths_; }
  /// The search-wide dense indexes of this method's trials, in creation order.
  [[nodiscard]] std::vector<std::uint32_t> trial_indexes() const;
  [[nodiscard]] const AshaConfig& config() const { return config_; }

  friend bool operator==(const AshaSearch& a, const AshaSearch& b) {
    return a.state() == b.state();
  }

 private:
  static constexpr std::uint32_t kNone = 0xffffffffU;

  struct Trial {
    RequestId id;
    std::uint32_t global = 0;  // the search-wide dense index
    std::uint32_t rung = 0;
    std::uint32_t last_entry = kNone;  // newest of its rung entries (a list through EntryLink)
    bool early_exited = false;
    bool closed = false;
  };
  // A trial's rung entries, kept in one arena rather than a vector per trial: only
  // invalid-hyperparameter exits need them (to remove the trial's metrics).
  struct EntryLink {
    Rung::Key key;
    std::uint32_t rung = 0;
    std::uint32_t previous = kNone;
    bool removed = false;
  };
  struct RungState {
    Rung rung;
    std::uint64_t length = 0;
    std::int64_t outstanding = 0;
    std::vector<Rung::Key> close_candidates;  // unpromoted entries not yet closed out
  };

  // What a report below the top rung did under promotion ASHA.
  struct RungStep {
    bool added = false;                              // a ValidateAfter moved some trial up
    std::optional<std::uint32_t> stopped_promotion;  // promoted, but the trial already stopped
  };

  void create_trial(std::vector<Operation>& ops, SearchContext& ctx);
  std::vector<Operation> promote(std::uint32_t trial, double metric, SearchContext& ctx);
  RungStep promote_async(std::uint32_t trial, std::uint64_t rung, double metric,
                         std::vector<Operation>& ops);
  // Stopping ASHA; returns whether the trial continues to the next rung.
  bool continue_or_stop(std::uint32_t trial, std::uint64_t rung, double metric,
                        std::vector<Operation>& ops);
  void record(std::uint32_t trial, std::uint64_t rung, double metric, bool promoted);
  void close_out(std::vector<Operation>& ops);
  [[nodiscard]] bool reported_at_current_rung(const Trial& trial) const;
  void remove_entries(Trial& trial, std::uint64_t up_to_rung);
  void add_trial(const RequestId& id, std::uint32_t global);
  [[nodiscard]] std::uint32_t local(std::uint32_t global) const;
  [[nodiscard]] Explanation explain(Explanation::Reason reason, std::uint64_t rung,
                                    std::uint64_t rank, std::uint64_t size, std::uint64_t cutoff,
                                    double metric) const;
  [[nodiscard]] std::uint64_t valid_trials() const { return trials_.size() - invalid_trials_; }

  AshaConfig config_;
  std::vector<std::uint64_t> lengths_;
  std::vector<RungState> rungs_;
  std::vector<Trial> trials_;
  std::vector<EntryLink> links_;
  std::vector<std::uint32_t> local_;  // search-wide index -> index in trials_ (kNone: not ours)
  std::uint64_t trials_completed_ = 0;
  std::uint64_t invalid_trials_ = 0;
};

}  // namespace hpsearch
