#pragma once
// Private to runner/: what a person sees of an experiment: runner.log and the log lines on
// stderr, the live status line on a terminal, experiment.json, and the summary at the end.

#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/trial_record.hpp"
#include "hpsearch/config/config.hpp"

namespace hpsearch::runner_detail {

/// A trial's best validation: trial index and validation index.
struct BestValidation {
  std::uint32_t trial = 0;
  std::size_t validation = 0;
};

/// The runner's own cost per validation it answered: the batches that journaled something or
/// handled a validation (Experiment::deliver_batch), their wall time, the CPU time the runner
/// spent in them and the part of the wall time spent in the journal's fdatasync.
struct DecisionStats {
  std::uint64_t count = 0;    ///< validations handled
  std::uint64_t batches = 0;  ///< batches counted
  double seconds = 0;
  /// The same batches up to their answers: the wall time until the commands are written, plus
  /// the CPU time of writing them. A command wakes its trial, which may run in the runner's
  /// place before the write returns: that time is the trial's, and `seconds` counts it.
  double answer_seconds = 0;
  double cpu_seconds = 0;
  double sync_seconds = 0;
  std::uint64_t batch_syncs = 0;  ///< fdatasync calls in those batches
  std::uint64_t run_syncs = 0;    ///< every fdatasync of the journal in this run (launches too)
};

/// How many trials are in each outcome.
struct OutcomeCounts {
  std::uint64_t running = 0, waiting = 0, paused = 0, completed = 0, stopped = 0, errored = 0,
                invalid = 0, canceled = 0;
};

/// A trial's last lines of output as the log and the summary show them: `; its last lines of
/// output:` and each line after `\n  | `, or `; it wrote no output`.
std::string shown_output_tail(const std::vector<std::string>& tail);

class Report {
 public:
  /// `running(i)` says whether trial i has a process; `trial_id(i)` is its id (in the
  /// experiment store the global one the SDK and `det` use, else i + 1).
  Report(const ExperimentConfig& config, std::filesystem::path directory, std::uint32_t seed,
         bool terminal, std::ostream& out, std::ostream& err,
         std::function<bool(std::uint32_t)> running,
         std::function<std::uint64_t(std::uint32_t)> trial_id);

  /// How the log names trial i: `trial ID (REQUEST_ID)`.
  [[nodiscard]] std::string trial_name(std::uint32_t index, const TrialRecord& trial) const;
  /// How trial i last failed, from its last_failure: `trial ID (REQUEST_ID): exit code 2; its
  /// last lines of output:` and the lines, each on its own line after `  | `.
  [[nodiscard]] std::string failure_text(std::uint32_t index, const TrialRecord& trial) const;

  /// A length in the searcher's unit (max_length's), as the log says it: `60 epochs`, `1 batch`,
  /// or the bare count when max_length was a bare integer.
  [[nodiscard]] std::string length_text(std::uint64_t units) const;
  /// How the log names a checkpoint a trial is relaunched from: `its checkpoint at
  /// steps_completed 1700` for one in checkpoint storage (it holds the steps_completed the trial
  /// reported, its own count, often batches), `its checkpoint at 60 epochs` for one reported by
  /// path (its length is in the searcher's unit). `whose`: "its", "its parent's".
  [[nodiscard]] std::string checkpoint_text(const char* whose, const Checkpoint& checkpoint) const;

  /// A line in runner.log (with the time) and on stderr.
  void log(const std::string& line);
  /// A line in runner.log only (with the time): what stdout already says (the summary), or
  /// what only the log needs (the run's settings at its start).
  void note(const std::string& line);
  /// While held, log lines wait (in order, with the time they were logged) until release_log
  /// writes them all at once: a batch's lines are written after the trials have their answers
  /// (Experiment::deliver_batch). The destructor writes any still held.
  void hold_log() { held_ = true; }
  void release_log();
  /// The run is being killed (`searcher-run kill`): the summary says so and advises nothing.
  void mark_killed() { killed_ = true; }
  ~Report();
  Report(const Report&) = delete;
  Report& operator=(const Report&) = delete;

  /// completed, stopped, errored, invalid_hp, ...; while running: running, waiting, paused.
  [[nodiscard]] std::string outcome(std::uint32_t index, const TrialRecord& trial) const;
  [[nodiscard]] OutcomeCounts counts(const std::deque<TrialRecord>& trials) const;
  /// The best metric among validations at max_length, else at any length.
  [[nodiscard]] std::optional<BestValidation> best(const std::deque<TrialRecord>& trials) const;

  /// `progress` is the searcher's now; a failed run records instead the progress of its last
  /// progress report (note_reported_progress), as Determined's master does: it saves the
  /// experiment's progress only when a trial reports progress (100% only when it completes), so
  /// the trials that errored since, which the searcher counts as done, do not make an
  /// unfinished search read 100%.
  [[nodiscard]] nlohmann::json experiment_json(const char* state,
                                               const std::deque<TrialRecord>& trials,
                                               double progress,
                                               const DecisionStats& decisions) const;
  /// The searcher's progress right after a trial's progress report (or, on resume, after the
  /// replay): what a failed run records (experiment_json).
  void note_reported_progress(double progress) { reported_progress_ = progress; }
  /// The trial's directory: DIR/trials/N-XXXXXXXX.
  [[nodiscard]] std::filesystem::path trial_directory(std::uint32_t index,
                                                      const TrialRecord& trial) const;

  /// Redraws the status line on a terminal (at most twice a second).
  void status(const std::deque<TrialRecord>& trials, double progress);
  /// Clears the status line.
  void clear_status();

  /// Prints how the search ended (or that it was paused) on stdout.
  /// The end of a run; a paused one names `continue_command` (empty: `searcher-run resume DIR`);
  /// a failed one says `error` (why it failed) before where the details are.
  void summary(bool interrupted, bool failed, const std::deque<TrialRecord>& trials,
               const std::string& continue_command, const std::string& error);

 private:
  const ExperimentConfig& config_;
  std::filesystem::path directory_;
  std::uint32_t seed_;
  bool terminal_;
  std::ostream& out_;
  std::ostream& err_;
  std::function<bool(std::uint32_t)> running_;
  std::function<std::uint64_t(std::uint32_t)> trial_id_;
  std::ofstream log_;
  bool held_ = false;
  std::string held_err_;  // the held lines for stderr (runner.log's wait in log_'s buffer)
  bool status_drawn_ = false;
  std::chrono::steady_clock::time_point last_status_{};
  bool killed_ = false;
  double reported_progress_ = 0.0;  // the searcher's progress is 0 until a trial reports any
};

}  // namespace hpsearch::runner_detail
