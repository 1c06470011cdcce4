// The process side of the loop (engine/experiment_impl.hpp): what each trial's process is told,
// the launch queue and its journaled order, the trial's environment, --trial-timeout.
#include "engine/experiment_impl.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>

#include "hpsearch/runner/trial_environment.hpp"
#include "hpsearch/searcher/json_lines.hpp"

namespace hpsearch::runner_detail {
namespace env = trial_environment;

// The directory of the Python client (`determined`) trials import: the installed copy when
// this program runs installed (<prefix>/bin/searcher-run, the client under
// <prefix>/HPSEARCH_INSTALLED_PYTHON_DIR, wherever the prefix was moved), else the source tree's.
fs::path python_client_dir() {
  std::error_code error;  // no /proc, or nothing installed there: the source tree's
  const fs::path program = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    const fs::path installed = program.parent_path().parent_path() / HPSEARCH_INSTALLED_PYTHON_DIR;
    if (fs::is_regular_file(installed / "determined" / "__init__.py", error)) return installed;
  }
  return HPSEARCH_SOURCE_PYTHON_DIR;
}

// The supervisor's queue order ("queued", "launched", "exited") is journaled so that a resumed
// run launches trials in the order the old one would have. "launched" also counts a launch
// (a resumed trial's next trial_run_id), so it is synced; losing the last of the others in a
// machine crash changes only that order, and the next synced record syncs them.
// A launch and an exit also say where and when (its slot, journal_time): records for the web
// UI's worker timeline (docs/store.md), which replay and resume ignore.
void Experiment::append_order_record(const char* kind, std::uint32_t i) {
  note_order(kind, i);
  const bool launched = std::strcmp(kind, "launched") == 0;
  nlohmann::json body{{"request_id", trials_[i].id.to_string()}};
  if (launched || std::strcmp(kind, "exited") == 0) {
    body["slot"] = launches_[i].slot;
    body["at"] = journal_time();
  }
  append_runner_record(kind, std::move(body), launched);
}

// The order trials wait and run in, as those records say (live, and when replayed).
// O(1) for the usual moves (a trial launched from the front of the queue, one of `slots`
// running trials exiting): the list a trial is in is known, and it is searched from the front.
void Experiment::note_order(const std::string& kind, std::uint32_t i) {
  if (order_place_.size() <= i)
    order_place_.resize(std::max<std::size_t>(trials_.size(), i + 1), kNowhere);
  if (order_place_[i] == kWaiting)
    order_waiting_.erase(std::find(order_waiting_.begin(), order_waiting_.end(), i));
  if (order_place_[i] == kRunning)
    order_running_.erase(std::find(order_running_.begin(), order_running_.end(), i));
  order_place_[i] = kNowhere;
  if (kind == "queued") {
    order_waiting_.push_back(i);
    order_place_[i] = kWaiting;
  }
  if (kind == "launched") {
    order_running_.push_back(i);
    order_place_[i] = kRunning;
  }
}

// Brings a trial's process in line with what the searcher wants of it.
void Experiment::reconcile(std::uint32_t i) {
  if (replaying_) return;
  TrialRecord& t = trials_[i];
  LaunchState& l = launches_[i];
  if (t.closed) return;
  if (supervisor_.is_running(i)) {
    // Stopping, pausing or closing: it gets nothing more; a pausing trial that is promoted
    // meanwhile is relaunched once it has exited.
    if (!l.broke_protocol.empty() || l.invalid_reported || l.close_sent) return;
    if (l.pause_sent) return;
    if (interrupted_) {
      send(i, PauseCommand{});
      return;
    }
    if (t.target && l.sent_target != t.target) {
      if (send(i, TrainCommand{*t.target})) l.sent_target = t.target;
    } else if (!t.target && t.close_requested && !l.close_sent) {
      send(i, CloseCommand{});
    } else if (!t.target && !t.close_requested && !l.pause_sent) {
      send(i, PauseCommand{});  // nothing to do for now: checkpoint and free the slot
    }
    return;
  }
  if (l.held) return;  // its failure is handled when a trial reports (first_report)
  if (t.exit_reason || (t.close_requested && !t.target)) {
    feed(TrialClosed{t.id});
  } else if (t.target && !interrupted_) {
    if (supervisor_.enqueue(i)) append_order_record("queued", i);
  }
}

// --trial-timeout as a duration.
std::chrono::steady_clock::duration Experiment::silence_limit() const {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(trial_timeout()));
}

// --trial-timeout as the user wrote it: 600, 1.5.
std::string Experiment::timeout_text() const {
  std::ostringstream text;
  text << trial_timeout();
  return text.str();
}

// How long the loop may wait: at most `longest`, and not past the next trial's silence limit.
int Experiment::wait_ms(int longest) const {
  if (trial_timeout() <= 0) return longest;
  const auto next = supervisor_.next_silence(silence_limit());
  if (!next) return longest;
  const auto left =
      std::chrono::ceil<std::chrono::milliseconds>(*next - std::chrono::steady_clock::now())
          .count() +
      1;
  return static_cast<int>(std::clamp<long long>(left, 0, longest));
}

// A trial that has said nothing for --trial-timeout is hung (or too quiet to tell): its whole
// tree is killed and it is restarted from its latest checkpoint, as for a crash (on_exited).
void Experiment::stop_silent_trials() {
  if (trial_timeout() <= 0) return;
  for (const std::uint32_t i :
       supervisor_.silent(silence_limit(), std::chrono::steady_clock::now())) {
    LaunchState& l = launches_[i];
    if (l.silent || !l.broke_protocol.empty()) continue;  // already being killed
    l.silent = true;
    report_.log(name(i) + " sent nothing for " + timeout_text() +
                " s (--trial-timeout): killing it and every "
                "process it started");
    supervisor_.terminate(i, true);
  }
}

bool Experiment::send(std::uint32_t i, const TrialCommand& command) {
  LaunchState& l = launches_[i];
  if (std::holds_alternative<PauseCommand>(command)) l.pause_sent = true;
  if (std::holds_alternative<CloseCommand>(command)) l.close_sent = true;
  return write_to_trial(i, command_line(command), false);
}

void Experiment::launch_waiting() {
  // Held failures (fail fast, held_before_any_report): nothing starts until a report.
  if (interrupted_ || !held_failures_.empty()) return;
  supervisor_.launch_waiting(
      [this](std::uint32_t i) { return prepare_launch(i); },
      [this](std::uint32_t i, long) {
        TrialRecord& t = trials_[i];
        ++t.launches;
        launches_[i].slot = supervisor_.slot(i);
        append_order_record("launched", i);
        const TrialProcess& process = supervisor_.process(i);
        if (!process.handle().empty()) {  // it may outlive us: journaled, so resume reattaches
          t.job = process.handle();
          t.job_token = supervisor_.token(i);
          append_runner_record(
              "job", {{"request_id", t.id.to_string()}, {"job", t.job}, {"token", t.job_token}});
        }
        report_.log(
            name(i) + " started (" + process.describe() + ", " +
            (config_.searcher.trial_decides_length ? "train until its script ends"
                                                   : "train to " + report_.length_text(*t.target)) +
            (t.checkpoint   ? ", from " + report_.checkpoint_text("its", *t.checkpoint)
             : t.warm_start ? ", from " + report_.checkpoint_text("its parent's", *t.warm_start)
                            : "") +
            ")");
        reconcile(i);
      },
      [this](std::uint32_t i, const std::string& why) {
        report_.log(name(i) + " could not be started: " + why);
        failed(i, "it could not be started: " + why, {});
      });
}

std::optional<LaunchSpec> Experiment::prepare_launch(std::uint32_t i) {
  // A process is told what the journal decided (its request id, hyperparameters, length):
  // the records a batch left unsynced go to disk first (deliver_batch).
  searcher_.sync_held();
  const TrialRecord& t = trials_[i];
  fs::create_directories(storage_);
  if (t.closed || !t.target) return std::nullopt;
  const fs::path dir = report_.trial_directory(i, t);
  fs::create_directories(dir / "checkpoints");
  // It trains again from its checkpoint (or from scratch): what earlier runs reported past
  // that point is rolled back, as Determined does, so that each step is reported once.
  metrics_.rollback(i, dir / "metrics.jsonl", t.checkpoint ? t.checkpoint->length : 0);
  LaunchSpec spec;
  spec.command = command_;
  spec.working_directory = settings_.context;
  spec.log = dir / "output.log";
  spec.slots = slots_per_trial_;
  spec.marker = marker();
  spec.environment = {
      {env::kRequestId, t.id.to_string()},
      {env::kTrialId, std::to_string(trial_id(i))},
      {env::kTrialSeed, std::to_string(t.trial_seed)},
      {env::kHparams, json_line(t.hparams)},
      {env::kTrialDir, dir.string()},
      {env::kCheckpointDir, (dir / "checkpoints").string()},
      {env::kMetric, config_.searcher.metric},
      {env::kSmallerIsBetter, config_.searcher.smaller_is_better ? "1" : "0"},
      {env::kMaxLength, configured_length()},
      {env::kCmdFd, "3"},
      {env::kReportFd, "4"},
      {env::kExperimentKey, settings_.key},
      {env::kCheckpointStorage, storage_.string()},
      {env::kSearchMode, trains_on_its_own() ? "metrics" : "operations"},
      {env::kTimeMetric, config_.searcher.time_metric},
      {env::kSearcherMaxLength, configured_length()},
      {env::kMaxLengthUnit, config_.searcher.max_length.unit},
      {env::kSlotsPerTrial, std::to_string(slots_per_trial_)},
      {env::kConfigJson, (directory_ / "config.json").string()},
      {env::kTrialRunId, std::to_string(trials_[i].launches + 1)},  // counted once started
      {env::kTrialRestarts, std::to_string(t.restarts)},
  };
  if (t.checkpoint) {
    spec.environment[env::kLatestCheckpoint] = t.checkpoint->path;
    spec.environment[env::kLatestCheckpointLength] = std::to_string(t.checkpoint->length);
    if (!t.checkpoint->storage_id.empty())
      spec.environment[env::kLatestCheckpointId] = t.checkpoint->storage_id;
  } else if (t.warm_start) {
    // A clone before its own first checkpoint: its parent's, with the clone's own length
    // trained so far (0), as Determined's warm start (docs/runner.md).
    spec.environment[env::kLatestCheckpoint] = t.warm_start->path;
    spec.environment[env::kLatestCheckpointLength] = "0";
    if (!t.warm_start->storage_id.empty())
      spec.environment[env::kLatestCheckpointId] = t.warm_start->storage_id;
    spec.environment[env::kWarmStartParent] = t.parent->to_string();
  }
  // The config's environment.environment_variables, in order (a later entry wins); the
  // HPSEARCH_* names above are refused by the config check, so these cannot hide them.
  std::optional<std::string> config_python_path;
  for (const auto& [variable, value] : config_.environment_variables) {
    if (variable == "PYTHONPATH") {
      config_python_path = value;
    } else {
      spec.environment[variable] = value;
    }
  }
  // The Python client ships with hpsearch: `import determined` works without installing it.
  // It comes first on the config's PYTHONPATH if it sets one, else on the runner's.
  const char* inherited = std::getenv("PYTHONPATH");
  const std::string python_path =
      config_python_path.value_or(inherited != nullptr ? inherited : "");
  spec.environment["PYTHONPATH"] =
      python_client_dir().string() + (python_path.empty() ? "" : ":" + python_path);
  for (const auto& [name, value] : options_.trial_environment) spec.environment[name] = value;
  launches_[i] = LaunchState{};
  return spec;
}

}  // namespace hpsearch::runner_detail
