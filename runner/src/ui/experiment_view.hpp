#pragma once
// Private to runner/: what the web UI shows of one experiment, kept up to date from its event
// log as the log grows. The runner's journal (run/journal.jsonl) and the simulator's trace
// (`searcher-sim run --out DIR`: DIR/trace.jsonl) carry the same records, {"in": event,
// "out": {"operations": [...]}} (docs/protocol.md), read here with the journal's own reader
// (read from where the last refresh stopped: a refresh costs what was appended, not the whole
// log). The runner's experiment.json adds what the searcher is not told (restarts, checkpoints,
// the runner's outcome), taken in again whenever it is rewritten. The logs' "launched" and
// "exited" records say where each launch of a trial ran (a slot, a worker) and when: the worker
// timeline (docs/store.md, docs/simulator.md).

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace hpsearch::ui {

/// What the times of a view are (its `at`s): virtual seconds of a simulator trace, seconds since
/// a run's first journal record, or, for a journal written before its records carried a time
/// ("at"), the record's number.
enum class Clock { kVirtualSeconds, kSeconds, kRecordNumber };

/// A validation the searcher was told: the length trained, the searcher metric, and when.
struct ValidationPoint {
  std::uint64_t length = 0;
  double metric = 0;  ///< NaN for a metric that was not a number
  double at = 0;
};

struct TrialView {
  std::uint32_t index = 0;  ///< 1-based creation order (the run's trial number)
  std::string request_id;
  nlohmann::json hparams = nlohmann::json::object();
  std::vector<ValidationPoint> validations;
  std::string state = "ACTIVE";  ///< Determined's trial states: ACTIVE, COMPLETED, CANCELED, ERROR
  std::string exit_reason;       ///< trial_exited_early's reason, if any
  std::uint64_t target = 0;      ///< the latest validate_after length
  double created_at = 0;
  std::optional<double> ended_at;
  std::optional<std::size_t> best;     ///< index into validations of the best one
  std::optional<std::size_t> running;  ///< index into launches() of its launch still open
  double last_heard = 0;               ///< the time of its latest event or launch in the log
  // From the runner's experiment.json (absent for a simulation):
  std::uint64_t restarts = 0;
  std::string outcome;  ///< the runner's word: running, paused, completed, stopped, errored
  nlohmann::json checkpoints = nlohmann::json::array();  ///< its stored checkpoints
  nlohmann::json last_failure = nullptr;
};

/// One launch of a trial (its first start, a restart, a resume, a promotion after a pause):
/// where it ran (the runner's slot, the simulator's worker) and from when to when.
struct Launch {
  std::uint32_t trial = 0;  ///< index
  std::uint64_t place = 0;
  double start = 0;
  std::optional<double> end;  ///< none while it runs (or a run was interrupted under it)
  bool crashed = false;       ///< the simulator's: the launch ended in a crash
};

/// Places (slots, workers) a view draws lanes for: a launch recorded in a place beyond them (a
/// damaged log; no run has that many slots) counts as unplaced, so a page never draws millions
/// of lanes.
inline constexpr std::uint64_t kMaxPlaces = 4096;

/// A point of the best-so-far series: when the best validation improved, and to what.
struct BestPoint {
  double at = 0;
  double metric = 0;
  std::uint32_t trial = 0;  ///< index
};

class ExperimentView {
 public:
  /// `log`: the journal or trace to follow; `experiment_json`: the runner's experiment.json
  /// (empty for a simulation). The searcher metric's direction comes from the config.
  ExperimentView(std::filesystem::path log, std::filesystem::path experiment_json,
                 bool smaller_is_better);

  /// Takes in what the log gained since the last refresh (everything again if it shrank: it
  /// was replaced), and experiment.json if it changed. A damaged log record stops the reading
  /// at it: error() names it, what was read before stays.
  void refresh();

  [[nodiscard]] const std::vector<TrialView>& trials() const { return trials_; }
  [[nodiscard]] const TrialView* trial(std::uint32_t index) const;
  [[nodiscard]] const std::vector<BestPoint>& best_so_far() const { return best_so_far_; }
  [[nodiscard]] std::optional<std::uint32_t> best_trial() const { return best_trial_; }
  [[nodiscard]] bool smaller_is_better() const { return smaller_is_better_; }
  /// True if `a` is a better metric than `b` (NaN is the worst).
  [[nodiscard]] bool better(double a, double b) const;
  /// The searcher said shutdown: {"cancel", "failure"}, else null.
  [[nodiscard]] const nlohmann::json& shutdown() const { return shutdown_; }
  /// Validations at each length (the rungs of ASHA), and how many distinct trials reached it.
  [[nodiscard]] const std::map<std::uint64_t, std::uint64_t>& trials_at_length() const {
    return trials_at_length_;
  }
  /// The runner's experiment.json as last read, without its trials (null if none or damaged).
  [[nodiscard]] const nlohmann::json& run_record() const { return run_record_; }
  /// Changes with every refresh that took something in: a client that has seen a version
  /// needs nothing new until it changes.
  [[nodiscard]] std::uint64_t version() const { return version_; }
  /// Why the log or experiment.json could not be read (empty if they could).
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] std::uint64_t records() const { return records_; }
  [[nodiscard]] double last_at() const { return last_at_; }
  [[nodiscard]] Clock clock() const { return clock_; }
  /// Every launch the log placed, in the order they began.
  [[nodiscard]] const std::vector<Launch>& launches() const { return launches_; }
  /// Slots or workers: the highest place a launch ran in, plus one.
  [[nodiscard]] std::uint64_t places() const { return places_; }
  /// Launches recorded without a place (a journal written before launches named their slot).
  [[nodiscard]] std::uint64_t unplaced_launches() const { return unplaced_launches_; }

 private:
  void reset();
  // The log (open as `fd`) still holds taken_tail_ just before offset_.
  bool still_taken(int fd) const;
  // `taken`, the bytes just taken in, ends where taken_tail_ must now end.
  void remember_tail(std::string_view taken);
  void apply(const nlohmann::json& record);
  // The record's time in the view's clock (set by the first record), or none.
  [[nodiscard]] std::optional<double> time_of(const nlohmann::json& record,
                                              const nlohmann::json* body);
  void take_launch(const std::string& kind, const nlohmann::json& body, double at);
  void take_validation(std::uint32_t index, std::uint64_t length, double metric, double at);
  void take_experiment_json();

  std::filesystem::path log_;
  std::filesystem::path experiment_json_;
  bool smaller_is_better_;
  std::uint64_t offset_ = 0;  // bytes of the log taken in (complete records only)
  // Their last bytes (up to 64): a refresh that finds others there reads a replaced log again,
  // whatever its size (a new run's journal with spare space is longer than the old records).
  std::string taken_tail_;
  // The log's file (device, inode) when last read: another one is a replaced log.
  using FileId = std::pair<std::uint64_t, std::uint64_t>;
  std::optional<FileId> log_id_;
  std::uint64_t records_ = 0;
  std::filesystem::file_time_type experiment_json_time_{};
  std::uintmax_t experiment_json_size_ = 0;
  std::vector<TrialView> trials_;
  std::unordered_map<std::string, std::uint32_t> by_request_;  // request id -> index - 1
  std::vector<BestPoint> best_so_far_;
  std::optional<std::uint32_t> best_trial_;
  std::optional<double> best_metric_;
  std::map<std::uint64_t, std::uint64_t> trials_at_length_;
  nlohmann::json shutdown_ = nullptr;
  nlohmann::json run_record_ = nullptr;
  std::uint64_t version_ = 0;
  std::string error_;
  std::string log_error_;
  double last_at_ = 0;
  Clock clock_ = Clock::kRecordNumber;
  double origin_ = 0;  // a run's first journal time: its times count from there
  std::vector<Launch> launches_;
  std::uint64_t places_ = 0;
  std::uint64_t unplaced_launches_ = 0;
};

}  // namespace hpsearch::ui
