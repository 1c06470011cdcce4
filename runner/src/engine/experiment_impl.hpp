#pragma once
// Private to runner/engine: the experiment loop. One class, Experiment, glue between the
// journaled searcher (events in, operations out), the process supervisor (trial processes) and
// the report; it decides what each trial's process is told. Its parts live in a file each:
//   experiment.cpp    the loop: events in, operations out, the state files, start and resume
//   run_settings.cpp  run.json, what the runner reads of the config, the directory's lock,
//                     disk errors
//   recovery.cpp      resume: the snapshot, the journal's tail replayed, jobs reattached
//   launch_queue.cpp  what each trial's process is told, the queue and its journaled order,
//                     the trial's environment, --trial-timeout
//   report_handling.cpp  a trial's report lines and exits: validations, checkpoints, failures
//   save_policy.cpp   checkpoint_storage's save policy under the model registry's lock

#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/journaled_searcher.hpp"
#include "engine/report.hpp"
#include "engine/run_directory.hpp"
#include "engine/trial_metrics.hpp"
#include "engine/trial_record.hpp"
#include "hpsearch/config/config.hpp"
#include "hpsearch/runner/experiment.hpp"
#include "hpsearch/runner/supervisor.hpp"
#include "hpsearch/runner/trial_channel.hpp"
#include "hpsearch/runner/trial_environment.hpp"
#include "hpsearch/runner/trial_protocol.hpp"
#include "hpsearch/searcher/request_id_index.hpp"

namespace hpsearch::runner_detail {

namespace fs = std::filesystem;

inline constexpr int kFormatVersion = 1;  ///< snapshot.json's

// What the runner knows of a trial's current process; starts afresh at every launch.
struct LaunchState {
  std::optional<std::uint64_t> sent_target;  // the validate_after the process was given
  bool pause_sent = false;
  bool close_sent = false;
  bool invalid_reported = false;
  std::string broke_protocol;   // why it was stopped for a protocol error, if it was
  bool silent = false;          // killed for saying nothing for --trial-timeout
  bool kill_requested = false;  // killed on request (kill_trials/): canceled, not restarted
  bool held = false;       // its failure waits for a report from another trial (fail fast: failed)
  std::uint64_t slot = 0;  // the supervisor's slot it runs in (journaled, for the web UI)
};

// checkpoint_storage's save policy (Determined's defaults).
struct SavePolicy {
  std::uint64_t experiment_best = 0;
  std::uint64_t trial_best = 1;
  std::uint64_t trial_latest = 1;
};

// The settings a run was started with, kept in DIR/run.json for resume.
struct RunSettings {
  std::uint32_t seed = 0;
  fs::path context;
  // Marks every trial process of this experiment (HPSEARCH_EXPERIMENT_KEY in its environment),
  // so that resume can find what a killed run left.
  std::string key;
};

// Holds DIR/runner.lock for the run: two runners on one experiment would corrupt it, and
// resume must not kill a live run's trials as leftovers.
class ExperimentLock {
 public:
  explicit ExperimentLock(const fs::path& directory);
  ~ExperimentLock() { ::close(fd_); }
  ExperimentLock(const ExperimentLock&) = delete;
  ExperimentLock& operator=(const ExperimentLock&) = delete;

 private:
  int fd_;
};

// The directory of the `determined` package trials import (launch_queue.cpp).
fs::path python_client_dir();

// The last lines of a trial's output, for a failure (report_handling.cpp).
std::vector<std::string> output_tail(const fs::path& log, std::size_t lines);

// run.json's launch settings, --trial-timeout and checkpoint storage (run_settings.cpp).
void save_run_settings(const fs::path& directory, const RunnerOptions& options,
                       const std::string& channel, const fs::path& checkpoint_storage);

// `body`, with a DiskError turned into the RunnerError that says what to do (run_settings.cpp).

RunOutcome stopping_on_disk_errors(const fs::path& directory, const RunnerOptions& options,
                                   const std::function<RunOutcome()>& body);

class Experiment final : private SupervisorListener {
 public:
  Experiment(const fs::path& directory, ExperimentConfig config, RunSettings settings,
             const RunnerOptions& options, Launcher& launcher, std::ostream& out,
             std::ostream& err);

  // What only the runner reads of the config: resources.slots_per_trial and
  // checkpoint_storage's save policy. The whole config goes to the trials as JSON
  // (det.get_cluster_info().trial._config).
  void read_run_settings_from_document();

  // A new experiment: the initial operations.
  void begin();

  // Resuming: what the old run left is killed; then snapshot, then the journal's tail, each
  // answer checked.
  void recover();

  // A trial whose launch may have outlived the old runner (a Slurm job): reattached if it is
  // still queued or running, or read from its final state if it ended meanwhile.
  void reattach(std::uint32_t i);

  std::string channel_address() const { return channel_->address(); }
  const fs::path& checkpoint_storage() const { return storage_; }

  RunOutcome run();

 private:
  // ---- the searcher side: events in, operations out, all journaled -------------------------

  void feed_initial();

  void feed(const Event& event, const nlohmann::json& metrics = {});

  void append_runner_record(const char* kind, nlohmann::json body, bool sync = true);
  // The same with the body written as JSON text already (a record per operation: checkpoint).
  void append_runner_record_text(const char* kind, const std::string& body);

  // ---- a custom search (searcher: {name: custom}): its client's side, custom_exchange.hpp ----

  bool custom() const { return searcher_.custom() != nullptr; }
  // The posts in the inbox, each journaled and applied (or refused), then answered.
  void take_custom_posts();
  // events.json: the queue as it is now (all of it journaled and synced), and the run's state.
  void publish_custom_events(const char* state);

  // The supervisor's queue order ("queued", "launched", "exited") is journaled so that a resumed
  // run launches trials in the order the old one would have. "launched" also counts a launch
  // (a resumed trial's next trial_run_id), so it is synced; losing the last of the others in a
  // machine crash changes only that order, and the next synced record syncs them.
  void append_order_record(const char* kind, std::uint32_t i);

  // The order trials wait and run in, as those records say (live, and when replayed).
  // O(1) for the usual moves (a trial launched from the front of the queue, one of `slots`
  // running trials exiting): the list a trial is in is known, and it is searched from the front.
  void note_order(const std::string& kind, std::uint32_t i);

  // What the runner keeps of an event besides the searcher's own state.
  void note_event(const Event& event, const nlohmann::json& metrics);

  void apply(const std::vector<Operation>& ops);

  void replay(const ReplayedRecord& record);

  // ---- the process side ----------------------------------------------------------------------

  // Brings a trial's process in line with what the searcher wants of it.
  void reconcile(std::uint32_t i);

  // --trial-timeout in seconds; zero: trials are not timed.
  double trial_timeout() const { return options_.trial_timeout.value_or(0); }

  // --trial-timeout as a duration.
  std::chrono::steady_clock::duration silence_limit() const;

  // --trial-timeout as the user wrote it: 600, 1.5.
  std::string timeout_text() const;

  // How long the loop may wait: at most `longest`, and not past the next trial's silence limit.
  int wait_ms(int longest) const;

  // A trial that has said nothing for --trial-timeout is hung (or too quiet to tell): its whole
  // tree is killed and it is restarted from its latest checkpoint, as for a crash (on_exited).
  void stop_silent_trials();

  bool send(std::uint32_t i, const TrialCommand& command);

  // Group commit: the reports delivered together are one batch, their records synced once
  // before what they decided reaches the trials (experiment.cpp).
  void deliver_batch();
  // A line for trial i's process (a command, or with `reply` an answer to a request): written
  // now, or held until the batch's sync. False if the trial is not running.
  bool write_to_trial(std::uint32_t i, std::string line, bool reply);

  void launch_waiting();

  std::optional<LaunchSpec> prepare_launch(std::uint32_t i);

  void on_report(std::uint32_t i, const std::string& line) override;

  void on_oversized_report(std::uint32_t i, const std::string& head) override;

  void handle_report(std::uint32_t i, const std::string& line);

  // Determined 0.38's form: the trial trains on its own and reports validation metrics; each
  // report whose time_metric value reaches the outstanding validate_after completes it with
  // the searcher metric. The searcher's answer reaches the trial as before: another length
  // (nothing to tell it), or a close or pause, which its should_preempt() sees.
  void validated_by_metrics(std::uint32_t i, const std::string& line, const MetricsReport& m);

  // Determined 0.38's forms: validation metrics at time_metric values drive the search, or
  // (single/random/grid without max_length) each trial trains until its script ends.
  bool driven_by_time_metric() const { return !config_.searcher.time_metric.empty(); }
  bool trains_on_its_own() const {
    return driven_by_time_metric() || config_.searcher.trial_decides_length;
  }
  // What the trial is told of max_length: nothing when its script decides.
  std::string configured_length() const {
    return config_.searcher.trial_decides_length
               ? ""
               : std::to_string(config_.searcher.max_length.units);
  }

  // Determined 0.38's single/random/grid without max_length: the trial's run is its one
  // validate_after, completed when the script ends (exit 0) with the last searcher metric it
  // reported. False when it reported none.
  bool validated_by_its_end(std::uint32_t i);

  // A checkpoint is stored: in checkpoint storage (a storage id), or anywhere (a path).
  void checkpointed(std::uint32_t i, const std::string& line, const CheckpointReport& c);

  // A checkpoint in storage is gone: the trial's latest becomes the one before it.
  void forget_checkpoint(std::uint32_t i, const std::string& storage_id);

  // The config's save policy for a finished trial: its latest `save_trial_latest` and best
  // `save_trial_best` checkpoints stay (best by the searcher metric reported at the
  // checkpoint's steps), the rest are deleted unless `protect` says they are among the
  // experiment's best, or they are model versions in the store's registry. False when the
  // registry is locked elsewhere and `wait` is false: nothing was done, try again later.
  bool collect_garbage(std::uint32_t i, const std::function<bool(const std::string&)>& protect,
                       bool wait);

  // A closed trial's save policy without waiting for the model registry's lock; false: another
  // process holds it, and retry_deferred_garbage applies the policy on a later pass.
  bool try_closed_garbage(std::uint32_t i);

  void collect_garbage_of_closed(std::uint32_t i);

  void retry_deferred_garbage();

  // The experiment's best `save_experiment_best` checkpoints, by their searcher metric.
  std::set<std::string> experiment_best_checkpoints() const;

  static double wall_seconds();

  void broke_protocol(std::uint32_t i, const std::string& line, const std::string& why);
  // The trials whose kill was requested (DIR/kill_trials/REQUEST_ID, `searcher-run trial ID
  // --kill`): a running one is killed, and reported to the searcher as user_canceled when it
  // has exited; one not running is reported so at once. Read at the start of a run and on
  // SIGUSR1; a trial that has ended already is left as it is.
  void take_trial_kills();

  void on_refused(const std::string& who) override;
  void on_notice(const std::string& text) override;

  void on_exited(std::uint32_t i, const ExitStatus& status) override;

  // A trial process failed: restart from its checkpoint, or give up after max_restarts.
  // `tail`: its last lines of output, kept with `why` in its record (last_failure).
  void failed(std::uint32_t i, const std::string& why, const std::vector<std::string>& tail);

  // Fail fast (docs/runner.md, "A trial command that fails before its first report"): while no
  // trial of the experiment has reported anything, once kFailedTrialsBeforeHold different
  // trials of this run have failed, that failure and every one after it is held rather than
  // restarted, and nothing more is launched. A report from a trial still running releases them
  // (each handled as failed() handles any failure); when nothing is left running, the run stops
  // (run()). True: held.
  bool held_before_any_report(std::uint32_t i, const std::string& why);
  // The first report of the experiment: the rule no longer applies; held failures go on.
  void first_report();
  // The error a failed run ends with: why it stopped before any report, or how the last
  // trial to fail failed (its status and last lines of output). Empty if none failed.
  std::string failure_cause() const;

  // ---- bookkeeping and output ----------------------------------------------------------------

  void add_trial(TrialRecord t);
  void start_from_parent(TrialRecord& t, const RequestId& parent);
  [[nodiscard]] std::set<std::string> warm_start_holds() const;

  std::uint32_t index_of(const RequestId& id) const;

  static RequestId parse_id(const nlohmann::json& j);

  template <typename Indices>
  nlohmann::json ids(const Indices& indices) const {
    nlohmann::json list = nlohmann::json::array();
    for (const std::uint32_t i : indices) list.push_back(trials_[i].id.to_string());
    return list;
  }

  std::string marker() const {
    return std::string(trial_environment::kExperimentKey) + "=" + settings_.key;
  }

  std::string name(std::uint32_t i) const { return report_.trial_name(i, trials_[i]); }

  // Trial i's id: in the experiment store its global id (given when it was created), else its
  // 1-based creation order.
  std::uint64_t trial_id(std::uint32_t i) const {
    return options_.trial_id ? options_.trial_id(trials_[i].id.to_string(), i + 1) : i + 1;
  }

  void write_state();

  fs::path directory_;
  ExperimentLock lock_;
  ExperimentConfig config_;
  RunSettings settings_;
  const RunnerOptions& options_;
  Launcher& launcher_;
  JournaledSearcher searcher_;
  fs::path storage_;  // checkpoint storage: one directory per storage id
  TrialMetrics metrics_;
  std::unique_ptr<TrialChannel> channel_;
  Supervisor supervisor_;
  Report report_;
  std::string command_;

  // Deques: trials are only appended, and references to them stay valid while feeding the
  // searcher creates more (a vector would move them).
  std::deque<TrialRecord> trials_;
  std::deque<LaunchState> launches_;
  RequestIdIndex index_;
  std::deque<std::uint32_t> dirty_;
  bool started_ = false;
  bool replaying_ = false;
  std::deque<std::uint32_t> order_waiting_;   // the queue and the running trials (launch order),
  std::vector<std::uint32_t> order_running_;  // as the journal's order records say
  enum OrderPlace : std::uint8_t { kNowhere, kWaiting, kRunning };
  std::vector<OrderPlace> order_place_;  // which of the two lists each trial is in
  bool shut_down_ = false;
  bool custom_events_changed_ = false;  // the queue changed since events.json was written
  Shutdown shutdown_;
  int interrupted_ = 0;
  DecisionStats decisions_;
  std::uint64_t validations_handled_ = 0;   // validation reports fed to the searcher
  std::uint64_t validations_recorded_ = 0;  // in trials_: what a snapshot's size grows with
  // Group commit: a batch is open while the supervisor delivers; the lines it decided wait
  // for its sync.
  struct HeldLine {
    std::uint32_t trial;
    std::string line;
    bool reply;
  };
  bool batch_open_ = false;
  std::vector<HeldLine> held_lines_;
  SavePolicy save_policy_;
  // Closed trials whose save policy waits for the model registry's lock.
  std::deque<std::uint32_t> deferred_garbage_;
  std::vector<std::uint32_t> clones_;  ///< trials created from a parent's checkpoint (PBT)
  nlohmann::json plots_;               // the SVG files drawn when the run ended
  // Processes per trial: the launcher in the entrypoint starts them.
  std::uint64_t slots_per_trial_ = 1;
  // Fail fast (held_before_any_report). Trials, not launches: one trial failing again and again
  // may be its own configuration (too large to fit, say), while three different trials failing
  // with not one report is the command itself.
  static constexpr std::size_t kFailedTrialsBeforeHold = 3;
  bool reported_ = false;                       // a trial of the experiment has reported something
  std::set<std::uint32_t> unreported_failed_;   // trials of this run that failed before any report
  std::optional<std::uint32_t> first_failure_;  // the first of them
  struct HeldFailure {
    std::uint32_t trial;
    std::string why;
  };
  std::vector<HeldFailure> held_failures_;
  bool stopped_before_reports_ = false;  // the run ended by that rule
  // `sampler: auto`: what it chose (empty reason for a sampler named outright or a custom
  // search), and whether runner.log has said from which trial TPE took over.
  SamplerChoice sampler_choice_;
  bool sampler_switch_noted_ = false;
  // The trial (1-based creation number) from which auto's TPE proposed, if it took over.
  std::optional<std::uint64_t> sampler_switch() const;
  // Says in runner.log when auto's TPE has just taken over (after a create).
  void note_sampler_switch();
};

}  // namespace hpsearch::runner_detail
