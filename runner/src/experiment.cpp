// The experiment: glue between the journaled searcher (events in, operations out), the process
// supervisor (trial processes) and the report. It decides what each trial's process is told.
#include "hpsearch/runner/experiment.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <iterator>
#include <ostream>
#include <set>
#include <sstream>

#include "checkpoint_storage.hpp"
#include "hpsearch/config/catalog.hpp"
#include "hpsearch/config/config.hpp"
#include "hpsearch/runner/supervisor.hpp"
#include "hpsearch/runner/trial_channel.hpp"
#include "hpsearch/runner/trial_protocol.hpp"
#include "hpsearch/searcher/bounded_json.hpp"
#include "hpsearch/searcher/json_lines.hpp"
#include "hpsearch/searcher/json_number.hpp"
#include "hpsearch/searcher/request_id_index.hpp"
#include "journaled_searcher.hpp"
#include "metric_plots.hpp"
#include "report.hpp"
#include "signals.hpp"
#include "trial_metrics.hpp"
#include "trial_record.hpp"

namespace hpsearch {
namespace {

namespace fs = std::filesystem;
using namespace runner_detail;

constexpr int kFormatVersion = 1;

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

// What the runner knows of a trial's current process; starts afresh at every launch.
struct LaunchState {
  std::optional<std::uint64_t> sent_target;  // the validate_after the process was given
  bool pause_sent = false;
  bool close_sent = false;
  bool invalid_reported = false;
  std::string broke_protocol;  // why it was stopped for a protocol error, if it was
  bool silent = false;         // killed for saying nothing for --trial-timeout
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
  explicit ExperimentLock(const fs::path& directory)
      : fd_(::open((directory / "runner.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0)
      throw RunnerSetupError("cannot open " + (directory / "runner.lock").string() + ": " +
                             std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw RunnerSetupError("another searcher-run is running the experiment in '" +
                             directory.string() + "' (it holds runner.lock); stop it first");
    }
  }
  ~ExperimentLock() { ::close(fd_); }
  ExperimentLock(const ExperimentLock&) = delete;
  ExperimentLock& operator=(const ExperimentLock&) = delete;

 private:
  int fd_;
};

// The last lines of a trial's output (at most `lines`, from its last 8 KiB), for a failure.
// A trial's output is bytes, not always UTF-8 (a Latin-1 file name, a binary dump), and the
// lines go into snapshot.json and experiment.json, which must be: bytes that are not UTF-8
// become U+FFFD, as json_line writes them (the strict dump of those files threw before).
std::vector<std::string> output_tail(const fs::path& log, std::size_t lines) {
  std::ifstream in(log, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff start = std::max<std::streamoff>(0, size - 8192);
  in.seekg(start);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> all;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) all.push_back(line);
  if (start > 0 && !all.empty()) all.erase(all.begin());  // cut in the middle
  while (!all.empty() && all.back().find_first_not_of(" \t\r") == std::string::npos) all.pop_back();
  if (all.size() > lines) all.erase(all.begin(), all.end() - static_cast<long>(lines));
  for (std::string& line : all) line = nlohmann::json::parse(json_line(line)).get<std::string>();
  return all;
}

std::string shell_quote(const std::string& word) {
  if (!word.empty() &&
      word.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+") ==
          std::string::npos) {
    return word;
  }
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

class Experiment final : private SupervisorListener {
 public:
  Experiment(const fs::path& directory, ExperimentConfig config, RunSettings settings,
             const RunnerOptions& options, Launcher& launcher, std::ostream& out, std::ostream& err)
      : directory_(directory),
        lock_(directory),
        config_(std::move(config)),
        settings_(std::move(settings)),
        options_(options),
        launcher_(launcher),
        searcher_(make_searcher(config_.searcher, config_.hyperparameters, settings_.seed)),
        // The config's shared_fs checkpoint_storage, else --shared-dir's, else the experiment's.
        storage_(checkpoint_storage_directory(
            config_.document,
            (options.launch.shared_dir.empty() ? directory
                                               : fs::absolute(options.launch.shared_dir)) /
                "checkpoints")),
        metrics_(config_.searcher.metric, config_.searcher.smaller_is_better),
        channel_(options.launch.channel_address.empty()
                     ? std::make_unique<TrialChannel>(directory / "channel.sock")
                     : std::make_unique<TrialChannel>(
                           parse_tcp_endpoint(options.launch.channel_address))),
        supervisor_(launcher, options.slots, *this, channel_.get()),
        report_(config_, directory, settings_.seed, options.terminal, out, err,
                [this](std::uint32_t i) { return supervisor_.is_running(i); }) {
    if (!config_.entrypoint) {
      throw RunnerSetupError(
          "the config has no entrypoint: searcher-run needs the command that trains "
          "a trial (e.g. entrypoint: python3 train.py)");
    }
    read_run_settings_from_document();
    const nlohmann::json& entry = *config_.entrypoint;
    if (entry.is_string()) {
      command_ = entry.get<std::string>();
    } else {
      for (const nlohmann::json& part : entry) {
        if (!command_.empty()) command_ += ' ';
        command_ += shell_quote(part.get<std::string>());
      }
    }
  }

  // What only the runner reads of the config: resources.slots_per_trial and
  // checkpoint_storage's save policy. The whole config goes to the trials as JSON
  // (det.get_cluster_info().trial._config).
  void read_run_settings_from_document() {
    const nlohmann::json& doc = config_.document;
    const auto count = [&](const char* section, const char* field, std::uint64_t minimum,
                           std::uint64_t fallback) -> std::uint64_t {
      if (!doc.is_object() || !doc.contains(section) || !doc[section].is_object() ||
          !doc[section].contains(field) || doc[section][field].is_null()) {
        return fallback;
      }
      const nlohmann::json& value = doc[section][field];
      if (!value.is_number_integer() ||
          value.get<std::int64_t>() < static_cast<std::int64_t>(minimum)) {
        throw RunnerSetupError(std::string(section) + "." + field + ": must be an integer >= " +
                               std::to_string(minimum) + ", got " + value.dump());
      }
      return value.get<std::uint64_t>();
    };
    slots_per_trial_ = count("resources", "slots_per_trial", 1, 1);
    save_policy_.experiment_best =
        count("checkpoint_storage", "save_experiment_best", 0, save_policy_.experiment_best);
    save_policy_.trial_best =
        count("checkpoint_storage", "save_trial_best", 0, save_policy_.trial_best);
    save_policy_.trial_latest =
        count("checkpoint_storage", "save_trial_latest", 0, save_policy_.trial_latest);
    // The config the trials see is the one the run uses: the experiment seed filled in (the
    // given one, --seed's, or the store's pick), as Determined's master fills it in.
    // (A config with no JSON form, e.g. YAML's .inf somewhere, stays null.)
    nlohmann::json used = doc;
    if (used.is_object()) {
      if (!used.contains("reproducibility") || !used["reproducibility"].is_object())
        used["reproducibility"] = nlohmann::json::object();
      used["reproducibility"]["experiment_seed"] = settings_.seed;
    }
    write_file_atomically(directory_ / "config.json", used.dump(2) + '\n');
  }

  // A new experiment: the initial operations.
  void begin() {
    searcher_.open(directory_ / "journal.jsonl");
    feed_initial();
  }

  // Resuming: what the old run left is killed; then snapshot, then the journal's tail, each
  // answer checked.
  void recover() {
    const fs::path snapshot_path = directory_ / "snapshot.json";
    if (fs::exists(snapshot_path)) {
      std::ifstream in(snapshot_path);
      const nlohmann::json snapshot = parse_json(in);
      if (snapshot.at("format_version") != kFormatVersion) {
        throw RunnerError("snapshot.json: unknown format_version " +
                          snapshot.at("format_version").dump());
      }
      searcher_.restore(snapshot.at("searcher"), snapshot.at("seq").get<std::uint64_t>());
      for (const nlohmann::json& t : snapshot.at("trials")) add_trial(trial_record_from_json(t));
      for (const nlohmann::json& id : snapshot.value("running", nlohmann::json::array())) {
        note_order("launched", index_of(parse_id(id)));
      }
      for (const nlohmann::json& id : snapshot.value("waiting", nlohmann::json::array())) {
        note_order("queued", index_of(parse_id(id)));
      }
      if (const nlohmann::json& shutdown = snapshot.at("shutdown"); !shutdown.is_null()) {
        shut_down_ = true;
        shutdown_ = Shutdown{shutdown.at("cancel").get<bool>(), shutdown.at("failure").get<bool>()};
      }
      started_ = true;
    }
    const JournalContents journal = read_journal(directory_ / "journal.jsonl");
    if (journal.torn_tail) {
      report_.log(
          "the journal ends in a record cut short by the crash; it was never acted on and is "
          "dropped");
      truncate_journal(directory_ / "journal.jsonl", journal.valid_bytes);
    }
    replaying_ = true;
    const std::uint64_t replayed =
        searcher_.replay_journal(journal, (directory_ / "journal.jsonl").string(),
                                 [this](const ReplayedRecord& r) { replay(r); });
    replaying_ = false;
    searcher_.open(directory_ / "journal.jsonl");
    for (std::uint32_t i = 0; i < trials_.size(); ++i) {
      metrics_.load(i, report_.trial_directory(i, trials_[i]) / "metrics.jsonl");
    }
    report_.log("resumed: " + std::to_string(trials_.size()) + " trials, " +
                std::to_string(replayed) + " journal records replayed after the snapshot (record " +
                std::to_string(searcher_.snapshot_seq()) + "), every answer identical");
    if (!started_) feed_initial();
    // A crash between journaling a create and its trial_created leaves a trial the searcher
    // has not heard of yet: tell it now, as the live run would have.
    for (std::uint32_t i = 0; i < trials_.size(); ++i) {
      if (!trials_[i].created) feed(TrialCreated{trials_[i].id});
    }
    // Jobs that outlived the old runner are taken back; what else it left is killed.
    for (std::uint32_t i = 0; i < trials_.size(); ++i) reattach(i);
    if (const std::size_t killed = launcher_.kill_leftovers(marker()); killed > 0) {
      report_.log("killed " + std::to_string(killed) +
                  " trial processes left over from the previous run");
    }
    // Processes died with the old runner: trials with work are relaunched from their latest
    // checkpoint, and those that were closing are closed; reattached ones get their commands.
    // In the order the old run had them: those it was running (in launch order), then its
    // queue, then the rest; with one slot, the trials then run in the order they would have.
    std::vector<std::uint32_t> order(order_running_.begin(), order_running_.end());
    order.insert(order.end(), order_waiting_.begin(), order_waiting_.end());
    for (std::uint32_t i = 0; i < trials_.size(); ++i) order.push_back(i);
    std::vector<bool> done(trials_.size(), false);
    for (const std::uint32_t i : order) {
      if (done[i]) continue;
      done[i] = true;
      reconcile(i);
    }
  }

  // A trial whose launch may have outlived the old runner (a Slurm job): reattached if it is
  // still queued or running, or read from its final state if it ended meanwhile.
  void reattach(std::uint32_t i) {
    TrialRecord& t = trials_[i];
    if (t.job.empty()) return;
    std::unique_ptr<TrialProcess> process = launcher_.reattach(t.job);
    if (!process) {
      report_.log(name(i) + ": its job " + t.job +
                  " is no longer known to the launcher; it is launched again if it has work");
      append_runner_record("job_ended", {{"request_id", t.id.to_string()}, {"job", t.job}});
      t.job.clear();
      t.job_token.clear();
      return;
    }
    report_.log(name(i) + ": reattached to " + process->describe());
    supervisor_.adopt(i, std::move(process), t.job_token);
  }

  std::string channel_address() const { return channel_->address(); }
  const fs::path& checkpoint_storage() const { return storage_; }

  RunOutcome run() {
    const SignalPipe signals;
    bool pausing = false;
    std::chrono::steady_clock::time_point pause_deadline{};
    write_state();
    while (true) {
      launch_waiting();
      if (supervisor_.running() == 0) {
        if (shut_down_ || interrupted_) break;
        if (!supervisor_.waiting()) {
          throw RunnerError(
              "the search stalled: no trial is running or waiting and the searcher "
              "has not shut down (see runner.log)");
        }
      }
      supervisor_.wait(wait_ms(options_.terminal ? 500 : 1000), signals.fd());
      for (const int s : signals.drain()) {
        if (s != SIGINT && s != SIGTERM) continue;
        if (!interrupted_) {
          interrupted_ = s;
          pausing = true;
          pause_deadline =
              std::chrono::steady_clock::now() +
              std::chrono::milliseconds(static_cast<long>(options_.pause_seconds * 1000));
          report_.log(std::string("received ") + (s == SIGINT ? "SIGINT" : "SIGTERM") +
                      ": pausing every trial (they checkpoint and exit); send it again to stop "
                      "them at once");
          for (const std::uint32_t i : supervisor_.running_trials()) reconcile(i);
        } else {
          report_.log("stopping every trial now");
          for (const std::uint32_t i : supervisor_.running_trials()) supervisor_.terminate(i, true);
        }
      }
      supervisor_.deliver();
      stop_silent_trials();
      retry_deferred_garbage();
      if (pausing && std::chrono::steady_clock::now() > pause_deadline) {
        for (const std::uint32_t i : supervisor_.running_trials()) supervisor_.terminate(i, true);
        pausing = false;
      }
      // A snapshot costs O(trials): taking one at most every `trials` records keeps the
      // amortised cost per event constant however large the experiment grows.
      if (searcher_.seq() - searcher_.snapshot_seq() >=
          std::max<std::uint64_t>(options_.snapshot_every, trials_.size())) {
        write_state();
      }
      report_.status(trials_, searcher_.progress());
    }
    if (shut_down_) {
      // The experiment's best checkpoints are known only now: the last pass of the policy.
      const std::set<std::string> best = experiment_best_checkpoints();
      for (std::uint32_t i = 0; i < trials_.size(); ++i) {
        (void)collect_garbage(
            i, [&](const std::string& id) { return best.contains(id); }, true);
      }
    }
    // Drawn once, when the run ends: reading every report is O(reports), too much per event.
    std::vector<fs::path> files;
    for (std::uint32_t i = 0; i < trials_.size(); ++i)
      files.push_back(report_.trial_directory(i, trials_[i]) / "metrics.jsonl");
    plots_ = write_metric_plots(directory_ / "plots", files, config_.searcher.metric,
                                config_.searcher.smaller_is_better);
    write_state();
    report_.clear_status();
    const bool paused = interrupted_ && !shut_down_;
    report_.summary(paused, shutdown_.failure, trials_, options_.continue_command);
    return {paused              ? RunEnd::kInterrupted
            : shutdown_.failure ? RunEnd::kFailed
                                : RunEnd::kCompleted,
            interrupted_};
  }

 private:
  // ---- the searcher side: events in, operations out, all journaled -------------------------

  void feed_initial() {
    started_ = true;
    apply(searcher_.initial_operations());
  }

  void feed(const Event& event, const nlohmann::json& metrics = {}) {
    const std::vector<Operation> ops = searcher_.handle(event, metrics);
    note_event(event, metrics);
    apply(ops);
  }

  void append_runner_record(const char* kind, nlohmann::json body, bool sync = true) {
    if (!replaying_) searcher_.append_runner_record(kind, std::move(body), sync);
  }

  // The supervisor's queue order ("queued", "launched", "exited") is journaled so that a resumed
  // run launches trials in the order the old one would have. "launched" also counts a launch
  // (a resumed trial's next trial_run_id), so it is synced; losing the last of the others in a
  // machine crash changes only that order, and the next synced record syncs them.
  void append_order_record(const char* kind, std::uint32_t i) {
    note_order(kind, i);
    append_runner_record(kind, {{"request_id", trials_[i].id.to_string()}},
                         std::strcmp(kind, "launched") == 0);
  }

  // The order trials wait and run in, as those records say (live, and when replayed).
  // O(1) for the usual moves (a trial launched from the front of the queue, one of `slots`
  // running trials exiting): the list a trial is in is known, and it is searched from the front.
  void note_order(const std::string& kind, std::uint32_t i) {
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

  // What the runner keeps of an event besides the searcher's own state.
  void note_event(const Event& event, const nlohmann::json& metrics) {
    if (const auto* created = std::get_if<TrialCreated>(&event)) {
      trials_[index_of(created->request_id)].created = true;
    } else if (const auto* v = std::get_if<ValidationCompleted>(&event)) {
      TrialRecord& t = trials_[index_of(v->request_id)];
      t.validations.push_back({v->length, v->metric, metrics});
      t.target.reset();  // done; the operations that follow may set the next one
    } else if (const auto* e = std::get_if<TrialExitedEarly>(&event)) {
      TrialRecord& t = trials_[index_of(e->request_id)];
      t.exit_reason = e->reason;
      t.target.reset();
    } else if (const auto* c = std::get_if<TrialClosed>(&event)) {
      const std::uint32_t i = index_of(c->request_id);
      TrialRecord& t = trials_[i];
      t.closed = true;
      t.target.reset();
      if (!replaying_ && save_policy_.experiment_best == 0) collect_garbage_of_closed(i);
    }
  }

  void apply(const std::vector<Operation>& ops) {
    std::vector<RequestId> created;
    for (const Operation& op : ops) {
      if (const auto* create = std::get_if<Create>(&op)) {
        TrialRecord t;
        t.id = create->request_id;
        t.trial_seed = create->trial_seed;
        t.hparams = create->hparams;
        add_trial(std::move(t));
        // In the experiment store: the trial's global id, given now so ids follow creation.
        if (options_.trial_id)
          (void)options_.trial_id(create->request_id.to_string(),
                                  static_cast<std::uint32_t>(trials_.size()));
        created.push_back(create->request_id);
      } else if (const auto* validate = std::get_if<ValidateAfter>(&op)) {
        trials_[index_of(validate->request_id)].target = validate->length;
        dirty_.push_back(index_of(validate->request_id));
      } else if (const auto* close = std::get_if<Close>(&op)) {
        trials_[index_of(close->request_id)].close_requested = true;
        dirty_.push_back(index_of(close->request_id));
      } else if (const auto* shutdown = std::get_if<Shutdown>(&op)) {
        shut_down_ = true;
        shutdown_ = *shutdown;
      }
    }
    if (replaying_) return;  // the journal holds the trial_created records that followed
    // A created trial exists at once (its directory is made when it first launches).
    for (const RequestId& id : created) feed(TrialCreated{id});
    while (!dirty_.empty()) {
      const std::uint32_t i = dirty_.front();
      dirty_.pop_front();
      reconcile(i);
    }
  }

  void replay(const ReplayedRecord& record) {
    if (record.runner_kind == "checkpoint") {
      const nlohmann::json& c = record.runner_body;
      TrialRecord& t = trials_[index_of(parse_id(c.at("request_id")))];
      t.checkpoint = checkpoint_from_json(c);
      if (!t.checkpoint->storage_id.empty()) t.stored.push_back(*t.checkpoint);
      return;
    }
    if (record.runner_kind == "checkpoint_deleted") {
      const nlohmann::json& c = record.runner_body;
      forget_checkpoint(index_of(parse_id(c.at("request_id"))),
                        c.at("storage_id").get<std::string>());
      return;
    }
    if (record.runner_kind == "job" || record.runner_kind == "job_ended") {
      TrialRecord& t = trials_[index_of(parse_id(record.runner_body.at("request_id")))];
      t.job = record.runner_kind == "job" ? record.runner_body.at("job").get<std::string>() : "";
      t.job_token =
          record.runner_kind == "job" ? record.runner_body.at("token").get<std::string>() : "";
      return;
    }
    // The supervisor's queue and launches, replayed so that resume keeps the old run's order.
    // A launch's record also counts it: a resumed run goes on with the next trial_run_id.
    if (record.runner_kind == "queued" || record.runner_kind == "launched" ||
        record.runner_kind == "exited") {
      const std::uint32_t i = index_of(parse_id(record.runner_body.at("request_id")));
      if (record.runner_kind == "launched") ++trials_[i].launches;
      note_order(record.runner_kind, i);
      return;
    }
    if (record.runner_kind == "restart") {
      ++trials_[index_of(parse_id(record.runner_body.at("request_id")))].restarts;
      return;
    }
    if (!record.runner_kind.empty()) {
      throw RunnerError("journal: unknown record kind '" + record.runner_kind + "'");
    }
    if (!record.event) started_ = true;
    if (record.event) note_event(*record.event, record.metrics);
    apply(record.operations);
    dirty_.clear();
  }

  // ---- the process side ----------------------------------------------------------------------

  // Brings a trial's process in line with what the searcher wants of it.
  void reconcile(std::uint32_t i) {
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
    if (t.exit_reason || (t.close_requested && !t.target)) {
      feed(TrialClosed{t.id});
    } else if (t.target && !interrupted_) {
      if (supervisor_.enqueue(i)) append_order_record("queued", i);
    }
  }

  // --trial-timeout in seconds; zero: trials are not timed.
  double trial_timeout() const { return options_.trial_timeout.value_or(0); }

  // --trial-timeout as a duration.
  std::chrono::steady_clock::duration silence_limit() const {
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(trial_timeout()));
  }

  // --trial-timeout as the user wrote it: 600, 1.5.
  std::string timeout_text() const {
    std::ostringstream text;
    text << trial_timeout();
    return text.str();
  }

  // How long the loop may wait: at most `longest`, and not past the next trial's silence limit.
  int wait_ms(int longest) const {
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
  void stop_silent_trials() {
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

  bool send(std::uint32_t i, const TrialCommand& command) {
    LaunchState& l = launches_[i];
    if (std::holds_alternative<PauseCommand>(command)) l.pause_sent = true;
    if (std::holds_alternative<CloseCommand>(command)) l.close_sent = true;
    return supervisor_.send(i, command_line(command));
  }

  void launch_waiting() {
    if (interrupted_) return;
    supervisor_.launch_waiting(
        [this](std::uint32_t i) { return prepare_launch(i); },
        [this](std::uint32_t i, long) {
          TrialRecord& t = trials_[i];
          ++t.launches;
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
                                                     : "train to " + std::to_string(*t.target)) +
              (t.checkpoint ? ", from its checkpoint at " + std::to_string(t.checkpoint->length)
                            : "") +
              ")");
          reconcile(i);
        },
        [this](std::uint32_t i, const std::string& why) {
          report_.log(name(i) + " could not be started: " + why);
          failed(i, "could not be started");
        });
  }

  std::optional<LaunchSpec> prepare_launch(std::uint32_t i) {
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
        {"HPSEARCH_REQUEST_ID", t.id.to_string()},
        {"HPSEARCH_TRIAL_ID",
         std::to_string(options_.trial_id ? options_.trial_id(t.id.to_string(), i + 1) : i + 1)},
        {"HPSEARCH_TRIAL_SEED", std::to_string(t.trial_seed)},
        {"HPSEARCH_HPARAMS", json_line(t.hparams)},
        {"HPSEARCH_TRIAL_DIR", dir.string()},
        {"HPSEARCH_CHECKPOINT_DIR", (dir / "checkpoints").string()},
        {"HPSEARCH_METRIC", config_.searcher.metric},
        {"HPSEARCH_SMALLER_IS_BETTER", config_.searcher.smaller_is_better ? "1" : "0"},
        {"HPSEARCH_MAX_LENGTH", configured_length()},
        {"HPSEARCH_CMD_FD", "3"},
        {"HPSEARCH_REPORT_FD", "4"},
        {"HPSEARCH_EXPERIMENT_KEY", settings_.key},
        {"HPSEARCH_CHECKPOINT_STORAGE", storage_.string()},
        {"HPSEARCH_SEARCH_MODE", trains_on_its_own() ? "metrics" : "operations"},
        {"HPSEARCH_TIME_METRIC", config_.searcher.time_metric},
        {"HPSEARCH_SEARCHER_MAX_LENGTH", configured_length()},
        {"HPSEARCH_MAX_LENGTH_UNIT", config_.searcher.max_length.unit},
        {"HPSEARCH_SLOTS_PER_TRIAL", std::to_string(slots_per_trial_)},
        {"HPSEARCH_CONFIG_JSON", (directory_ / "config.json").string()},
        {"HPSEARCH_TRIAL_RUN_ID", std::to_string(trials_[i].launches + 1)},  // counted once started
        {"HPSEARCH_TRIAL_RESTARTS", std::to_string(t.restarts)},
    };
    if (t.checkpoint) {
      spec.environment["HPSEARCH_LATEST_CHECKPOINT"] = t.checkpoint->path;
      spec.environment["HPSEARCH_LATEST_CHECKPOINT_LENGTH"] = std::to_string(t.checkpoint->length);
      if (!t.checkpoint->storage_id.empty())
        spec.environment["HPSEARCH_LATEST_CHECKPOINT_ID"] = t.checkpoint->storage_id;
    }
    // The Python client ships with hpsearch: make `import hpsearch` work without installing it.
    const char* python_path = std::getenv("PYTHONPATH");
    spec.environment["PYTHONPATH"] =
        python_client_dir().string() +
        (python_path && *python_path ? std::string(":") + python_path : "");
    for (const auto& [name, value] : options_.trial_environment) spec.environment[name] = value;
    launches_[i] = LaunchState{};
    return spec;
  }

  void on_report(std::uint32_t i, const std::string& line) override {
    if (launches_[i].broke_protocol.empty()) handle_report(i, line);
  }

  void on_oversized_report(std::uint32_t i, const std::string& head) override {
    broke_protocol(i, head, "a line longer than 1 MiB");
  }

  void handle_report(std::uint32_t i, const std::string& line) {
    TrialRecord& t = trials_[i];
    LaunchState& l = launches_[i];
    TrialReport report;
    try {
      report = parse_trial_report(line, config_.searcher.metric);
    } catch (const TrialProtocolError& e) {
      broke_protocol(i, line, e.what());
      return;
    }
    if (l.invalid_reported) return broke_protocol(i, line, "a report after invalid_hp");
    if (const auto* progress = std::get_if<ProgressReport>(&report)) {
      const double units =
          progress->units
              ? *progress->units
              : *progress->fraction * static_cast<double>(config_.searcher.max_length.units);
      feed(TrialProgress{t.id, units});
    } else if (const auto* m = std::get_if<MetricsReport>(&report)) {
      metrics_.record(i, report_.trial_directory(i, t) / "metrics.jsonl", m->group,
                      m->steps_completed, m->metrics, wall_seconds());
      if (driven_by_time_metric() && m->group == "validation") validated_by_metrics(i, line, *m);
    } else if (const auto* v = std::get_if<ValidationReport>(&report)) {
      if (!l.sent_target)
        return broke_protocol(i, line, "a validation while no validate_after was outstanding");
      if (v->length != *l.sent_target) {
        return broke_protocol(i, line,
                              "a validation at length " + std::to_string(v->length) +
                                  ", but it was asked to train to " +
                                  std::to_string(*l.sent_target));
      }
      l.sent_target.reset();
      t.target.reset();
      report_.log(name(i) + " validated at " + std::to_string(v->length) + ": " +
                  config_.searcher.metric + " " + json_line(metric_to_json(v->metric)));
      dirty_.push_back(i);
      // The runner's own cost per operation: from the report to the next commands sent,
      // journal syncs included.
      const auto started = std::chrono::steady_clock::now();
      metrics_.note_searcher_value(v->metric);
      // The operation carries the searcher metric; the validation metrics the trial reported
      // at the same length complete it.
      nlohmann::json all = metrics_.validation_metrics_at(i, v->length);
      all.update(v->metrics);
      feed(ValidationCompleted{t.id, v->metric, v->length}, all);
      reconcile(i);
      decisions_.seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      ++decisions_.count;
    } else if (const auto* c = std::get_if<CheckpointReport>(&report)) {
      checkpointed(i, line, *c);
    } else if (const auto* invalid = std::get_if<InvalidHpReport>(&report)) {
      l.invalid_reported = true;
      report_.log(name(i) + " reported invalid hyperparameters" +
                  (invalid->reason.empty() ? "" : ": " + invalid->reason));
      feed(TrialExitedEarly{t.id, ExitedReason::kInvalidHp});
    } else if (const auto* e = std::get_if<EarlyExitReport>(&report)) {
      if (e->reason == ExitedReason::kInvalidHp) {
        l.invalid_reported = true;
        report_.log(name(i) + " reported invalid hyperparameters");
        feed(TrialExitedEarly{t.id, ExitedReason::kInvalidHp});
      }  // a user-requested stop is what exiting 0 before the operation is done means anyway
    } else if (const auto* status = std::get_if<StatusReport>(&report)) {
      report_.log(name(i) + ": " + status->text.substr(0, 200));
    } else if (const auto* request = std::get_if<RequestReport>(&report)) {
      nlohmann::json answer{{"reply", request->id}};
      if (request->what == "best_validation") {
        const std::optional<double> best = metrics_.best();
        answer["value"] = best ? metric_to_json(*best) : nlohmann::json(nullptr);
      }
      supervisor_.reply(i, json_line(answer) + '\n');
    } else if (const auto* deleted = std::get_if<CheckpointDeletedReport>(&report)) {
      forget_checkpoint(i, deleted->storage_id);
      append_runner_record("checkpoint_deleted",
                           {{"request_id", t.id.to_string()}, {"storage_id", deleted->storage_id}});
    }
  }

  // Determined 0.38's form: the trial trains on its own and reports validation metrics; each
  // report whose time_metric value reaches the outstanding validate_after completes it with
  // the searcher metric. The searcher's answer reaches the trial as before: another length
  // (nothing to tell it), or a close or pause, which its should_preempt() sees.
  void validated_by_metrics(std::uint32_t i, const std::string& line, const MetricsReport& m) {
    TrialRecord& t = trials_[i];
    const std::string& time_metric = config_.searcher.time_metric;
    double time = static_cast<double>(m.steps_completed);
    if (m.metrics.contains(time_metric)) {
      const std::optional<double> value = metric_from_json(m.metrics.at(time_metric));
      if (!value || !std::isfinite(*value)) {
        return broke_protocol(i, line,
                              "its time_metric '" + time_metric +
                                  "' must be a finite number, got " +
                                  m.metrics.at(time_metric).dump());
      }
      time = *value;
    }
    if (!m.metrics.contains(config_.searcher.metric)) {
      return broke_protocol(
          i, line,
          "validation metrics without the searcher metric '" + config_.searcher.metric + "'");
    }
    const std::optional<double> metric = metric_from_json(m.metrics.at(config_.searcher.metric));
    if (!metric) {
      return broke_protocol(i, line,
                            "the searcher metric '" + config_.searcher.metric +
                                "' must be a number, got " +
                                m.metrics.at(config_.searcher.metric).dump());
    }
    // Several rungs may be passed at once: each gets this value, as the searcher sees it.
    while (t.target && !launches_[i].close_sent && !launches_[i].pause_sent &&
           time >= static_cast<double>(*t.target)) {
      const std::uint64_t length = *t.target;
      t.target.reset();
      launches_[i].sent_target.reset();
      report_.log(name(i) + " validated at " + time_metric + " " + json_line(metric_to_json(time)) +
                  " (rung " + std::to_string(length) + "): " + config_.searcher.metric + " " +
                  json_line(metric_to_json(*metric)));
      metrics_.note_searcher_value(*metric);
      feed(ValidationCompleted{t.id, *metric, length}, m.metrics);
      reconcile(i);
    }
  }

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
  bool validated_by_its_end(std::uint32_t i) {
    TrialRecord& t = trials_[i];
    const std::vector<MetricPoint>& curve = metrics_.curve(i);
    if (curve.empty()) return false;
    const std::uint64_t length = *t.target;
    t.target.reset();
    launches_[i].sent_target.reset();
    report_.log(name(i) + " ended; its last " + config_.searcher.metric + " (at " +
                std::to_string(curve.back().steps) +
                " steps) is its validation: " + json_line(metric_to_json(curve.back().value)));
    metrics_.note_searcher_value(curve.back().value);
    feed(ValidationCompleted{t.id, curve.back().value, length},
         metrics_.validation_metrics_at(i, curve.back().steps));
    reconcile(i);
    return true;
  }

  // A checkpoint is stored: in checkpoint storage (a storage id), or anywhere (a path).
  void checkpointed(std::uint32_t i, const std::string& line, const CheckpointReport& c) {
    TrialRecord& t = trials_[i];
    fs::path path = c.storage_id.empty() ? fs::path(c.path) : storage_ / c.storage_id;
    if (path.is_relative()) path = report_.trial_directory(i, t) / "checkpoints" / path;
    std::error_code error;
    if (!fs::exists(path, error)) {
      return broke_protocol(i, line,
                            c.storage_id.empty()
                                ? "the checkpoint path does not exist"
                                : "no checkpoint " + c.storage_id + " in " + storage_.string());
    }
    t.checkpoint = Checkpoint{path.string(), c.length, c.storage_id};
    if (!c.storage_id.empty()) t.stored.push_back(*t.checkpoint);
    nlohmann::json record = to_json(*t.checkpoint);
    record["request_id"] = t.id.to_string();
    append_runner_record("checkpoint", std::move(record));
  }

  // A checkpoint in storage is gone: the trial's latest becomes the one before it.
  void forget_checkpoint(std::uint32_t i, const std::string& storage_id) {
    TrialRecord& t = trials_[i];
    std::erase_if(t.stored, [&](const Checkpoint& c) { return c.storage_id == storage_id; });
    if (t.checkpoint && t.checkpoint->storage_id == storage_id) {
      t.checkpoint.reset();
      if (!t.stored.empty()) t.checkpoint = t.stored.back();
    }
  }

  // The config's save policy for a finished trial: its latest `save_trial_latest` and best
  // `save_trial_best` checkpoints stay (best by the searcher metric reported at the
  // checkpoint's steps), the rest are deleted unless `protect` says they are among the
  // experiment's best, or they are model versions in the store's registry. False when the
  // registry is locked elsewhere and `wait` is false: nothing was done, try again later.
  bool collect_garbage(std::uint32_t i, const std::function<bool(const std::string&)>& protect,
                       bool wait) {
    TrialRecord& t = trials_[i];
    const std::size_t n = t.stored.size();
    std::vector<bool> keep(n, false);
    for (std::size_t k = n - std::min<std::size_t>(n, save_policy_.trial_latest); k < n; ++k)
      keep[k] = true;
    std::vector<std::pair<double, std::size_t>> ranked;
    const double sign = config_.searcher.smaller_is_better ? 1 : -1;
    for (std::size_t k = 0; k < n; ++k) {
      if (const auto metric = metrics_.searcher_metric_at(i, t.stored[k].length);
          metric && !std::isnan(*metric)) {
        ranked.emplace_back(sign * *metric, k);
      }
    }
    std::stable_sort(ranked.begin(), ranked.end());
    for (std::size_t r = 0; r < std::min<std::size_t>(ranked.size(), save_policy_.trial_best); ++r)
      keep[ranked[r].second] = true;
    std::vector<std::string> doomed;
    for (std::size_t k = 0; k < n; ++k) {
      if (!keep[k] && !protect(t.stored[k].storage_id)) doomed.push_back(t.stored[k].storage_id);
    }
    if (doomed.empty()) return true;
    // The registry stays locked from its reading to the last deletion: a version registered
    // meanwhile would name a checkpoint about to go (registering checks that it exists).
    std::optional<RunnerOptions::LockedRegistry> registry;
    if (options_.lock_registry) {
      try {
        registry = options_.lock_registry(wait);
      } catch (const std::exception& e) {
        report_.log(name(i) +
                    ": its checkpoints are kept, the model registry cannot be read: " + e.what());
        return true;
      }
      if (!registry) return false;
      std::erase_if(doomed, [&](const std::string& id) {
        return registry->registered_checkpoints.contains(id);
      });
    }
    for (const std::string& id : doomed) {
      std::error_code ignored;
      append_runner_record("checkpoint_deleted",
                           {{"request_id", t.id.to_string()}, {"storage_id", id}});
      fs::remove_all(storage_ / id, ignored);
      forget_checkpoint(i, id);
    }
    if (!doomed.empty()) {
      report_.log(name(i) + ": deleted " + std::to_string(doomed.size()) +
                  (doomed.size() == 1 ? " checkpoint" : " checkpoints") +
                  " its save policy does not keep");
    }
    return true;
  }

  // A closed trial's save policy without waiting for the model registry's lock; false: another
  // process holds it, and retry_deferred_garbage applies the policy on a later pass.
  bool try_closed_garbage(std::uint32_t i) {
    return collect_garbage(
        i, [](const std::string&) { return false; }, false);
  }

  void collect_garbage_of_closed(std::uint32_t i) {
    if (!try_closed_garbage(i)) deferred_garbage_.push_back(i);
  }

  void retry_deferred_garbage() {
    while (!deferred_garbage_.empty() && try_closed_garbage(deferred_garbage_.front()))
      deferred_garbage_.pop_front();
  }

  // The experiment's best `save_experiment_best` checkpoints, by their searcher metric.
  std::set<std::string> experiment_best_checkpoints() const {
    std::vector<std::pair<double, std::string>> ranked;
    const double sign = config_.searcher.smaller_is_better ? 1 : -1;
    for (std::uint32_t i = 0; i < trials_.size(); ++i) {
      for (const Checkpoint& c : trials_[i].stored) {
        if (const auto metric = metrics_.searcher_metric_at(i, c.length);
            metric && !std::isnan(*metric)) {
          ranked.emplace_back(sign * *metric, c.storage_id);
        }
      }
    }
    std::sort(ranked.begin(), ranked.end());
    std::set<std::string> best;
    for (std::size_t r = 0; r < std::min<std::size_t>(ranked.size(), save_policy_.experiment_best);
         ++r)
      best.insert(ranked[r].second);
    return best;
  }

  static double wall_seconds() {
    // For plots only: nothing the searcher decides reads it.
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  void broke_protocol(std::uint32_t i, const std::string& line, const std::string& why) {
    LaunchState& l = launches_[i];
    if (!l.broke_protocol.empty()) return;
    l.broke_protocol = why;
    report_.log(name(i) + " broke the trial protocol: it sent '" + line.substr(0, 200) +
                "': " + why + "; stopping it");
    supervisor_.terminate(i, true);
  }

  void on_refused(const std::string& who) override {
    report_.log("refused a connection from " + who +
                ": its first line was not a hello with the token of a running trial");
  }

  void on_exited(std::uint32_t i, const ExitStatus& status) override {
    // Paused by Ctrl-C/SIGTERM, it was running: resume relaunches it before the queue.
    if (!(interrupted_ && launches_[i].pause_sent)) append_order_record("exited", i);
    metrics_.release(i);
    TrialRecord& t = trials_[i];
    const LaunchState& l = launches_[i];
    if (!t.job.empty()) {
      append_runner_record("job_ended", {{"request_id", t.id.to_string()}, {"job", t.job}});
      t.job.clear();
      t.job_token.clear();
    }
    if (status.cause == EndCause::kPreempted) {
      report_.log(name(i) + ": " + status.describe() +
                  "; it is launched again from its latest checkpoint "
                  "(a preemption does not count against max_restarts)");
      reconcile(i);
      return;
    }
    if (status.cause == EndCause::kCancelled && t.target && !(interrupted_ && l.pause_sent)) {
      report_.log(name(i) + ": " + status.describe() +
                  "; it is reported to the searcher as errored, not restarted");
      t.last_failure = {{"status", status.describe()}, {"output_tail", nlohmann::json::array()}};
      feed(TrialExitedEarly{t.id, ExitedReason::kErrored});
      if (!t.closed) feed(TrialClosed{t.id});
      return;
    }
    if (l.invalid_reported) {
      feed(TrialClosed{t.id});
      return;
    }
    if (!l.broke_protocol.empty()) {
      failed(i, "it broke the trial protocol (" + l.broke_protocol + ")");
      return;
    }
    if (interrupted_ && l.pause_sent) {
      report_.log(name(i) + " paused (" + status.describe() + ")");
      return;  // its work, if any, is relaunched on resume
    }
    if (l.silent) {
      failed(i, "it sent nothing for " + timeout_text() + " s (--trial-timeout)");
      return;
    }
    if (!status.success()) {
      const std::vector<std::string> tail =
          output_tail(report_.trial_directory(i, t) / "output.log", 10);
      std::string shown;
      for (const std::string& line : tail) shown += "\n  | " + line;
      t.last_failure = {{"status", status.describe()}, {"output_tail", tail}};
      report_.log(name(i) + " ended with " + status.describe() +
                  (tail.empty() ? std::string("; it wrote no output")
                                : "; its last lines of output:" + shown));
      failed(i, status.describe());
      return;
    }
    if (t.target && !l.pause_sent) {
      if (config_.searcher.trial_decides_length && validated_by_its_end(i)) return;
      // As Determined takes it: the script chose to end before its operation was done.
      report_.log(name(i) + " exited (exit code 0) " +
                  (config_.searcher.trial_decides_length
                       ? "without reporting " + config_.searcher.metric + " in validation metrics"
                       : "before reporting its validation at " + std::to_string(*t.target)) +
                  ": a user-requested stop");
      feed(TrialExitedEarly{t.id, ExitedReason::kUserRequestedStop});
      if (!t.closed) feed(TrialClosed{t.id});
      return;
    }
    if (l.close_sent) {
      report_.log(name(i) + " closed");
      feed(TrialClosed{t.id});
      return;
    }
    report_.log(name(i) + " paused");
    reconcile(i);  // promoted while it paused: relaunch
  }

  // A trial process failed: restart from its checkpoint, or give up after max_restarts.
  void failed(std::uint32_t i, const std::string& why) {
    TrialRecord& t = trials_[i];
    if (!t.target) {
      report_.log(name(i) + " failed after its operation was done (" + why + "); nothing is lost");
      reconcile(i);
      return;
    }
    if (t.restarts < config_.max_restarts) {
      ++t.restarts;
      append_runner_record("restart", {{"request_id", t.id.to_string()}, {"why", why}});
      report_.log(name(i) + " failed: " + why + "; restarting from " +
                  (t.checkpoint ? "its checkpoint at " + std::to_string(t.checkpoint->length)
                                : std::string("scratch")) +
                  " (restart " + std::to_string(t.restarts) + " of " +
                  std::to_string(config_.max_restarts) + ")");
      reconcile(i);
      return;
    }
    report_.log(name(i) + " failed: " + why + "; it has used its " +
                std::to_string(config_.max_restarts) + " restarts, so it is reported as errored");
    feed(TrialExitedEarly{t.id, ExitedReason::kErrored});
    if (!t.closed) feed(TrialClosed{t.id});
  }

  // ---- bookkeeping and output ----------------------------------------------------------------

  void add_trial(TrialRecord t) {
    index_.insert(t.id, static_cast<std::uint32_t>(trials_.size()));
    trials_.push_back(std::move(t));
    launches_.emplace_back();
  }

  std::uint32_t index_of(const RequestId& id) const {
    const std::optional<std::uint32_t> i = index_.find(id);
    if (!i) throw RunnerError("an operation or record for unknown trial " + id.to_string());
    return *i;
  }

  static RequestId parse_id(const nlohmann::json& j) {
    const std::optional<RequestId> id = RequestId::parse(j.get<std::string>());
    if (!id) throw RunnerError("journal: bad request id " + j.dump());
    return *id;
  }

  template <typename Indices>
  nlohmann::json ids(const Indices& indices) const {
    nlohmann::json list = nlohmann::json::array();
    for (const std::uint32_t i : indices) list.push_back(trials_[i].id.to_string());
    return list;
  }

  std::string marker() const { return "HPSEARCH_EXPERIMENT_KEY=" + settings_.key; }

  std::string name(std::uint32_t i) const {
    return "trial " + std::to_string(i + 1) + " (" + trials_[i].id.to_string() + ")";
  }

  void write_state() {
    nlohmann::json trials = nlohmann::json::array();
    for (const TrialRecord& t : trials_) trials.push_back(to_json(t));
    const nlohmann::json snapshot{
        {"format_version", kFormatVersion},
        {"seq", searcher_.seq()},
        {"searcher", searcher_.snapshot()},
        {"trials", std::move(trials)},
        {"running", ids(order_running_)},
        {"waiting", ids(order_waiting_)},
        {"shutdown",
         shut_down_ ? nlohmann::json{{"cancel", shutdown_.cancel}, {"failure", shutdown_.failure}}
                    : nlohmann::json(nullptr)}};
    write_file_atomically(directory_ / "snapshot.json", snapshot.dump() + '\n');
    searcher_.snapshot_taken();
    const char* state = shut_down_ ? (shutdown_.failure ? "failed" : "completed")
                        : interrupted_ && supervisor_.running() == 0 ? "paused"
                                                                     : "running";
    nlohmann::json experiment =
        report_.experiment_json(state, trials_, searcher_.progress(), decisions_);
    for (std::uint32_t i = 0; i < trials_.size(); ++i)
      experiment["trials"][i]["metrics"] = metrics_.summary(i);
    experiment["checkpoint_storage"] = storage_.string();
    if (!plots_.is_null()) experiment["plots"] = plots_;
    write_file_atomically(directory_ / "experiment.json", experiment.dump(2) + '\n');
  }

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
  Shutdown shutdown_;
  int interrupted_ = 0;
  DecisionStats decisions_;
  SavePolicy save_policy_;
  std::deque<std::uint32_t>
      deferred_garbage_;  // closed trials whose save policy waits for the registry
  nlohmann::json plots_;  // the SVG files drawn when the run ended
  std::uint64_t slots_per_trial_ =
      1;  // processes per trial: the launcher in the entrypoint starts them
};

// Writes the launch settings and --trial-timeout into run.json (what resume keeps unless told
// otherwise), the channel's address with the port it bound, and where checkpoints are stored
// (what the SDK looks in for a checkpoint's uuid).
void save_run_settings(const fs::path& directory, const RunnerOptions& options,
                       const std::string& channel, const fs::path& checkpoint_storage) {
  const LaunchSettings& launch = options.launch;
  std::string channel_address;
  if (channel.starts_with("tcp:")) {
    const std::string host_port = channel.substr(4);
    const std::string host = host_port.substr(0, host_port.rfind(':'));
    channel_address = (host.find(':') != std::string::npos ? "[" + host + "]" : host) +
                      host_port.substr(host_port.rfind(':'));
  }
  const fs::path run_path = directory / "run.json";
  std::ifstream in(run_path);
  nlohmann::json run = parse_json(in);
  run["launch"] = {
      {"launcher", launch.launcher},
      {"partition", launch.slurm.partition},
      {"account", launch.slurm.account},
      {"time", launch.slurm.time},
      {"sbatch_args", launch.slurm.sbatch_args},
      {"channel_address", channel_address},
      {"shared_dir", launch.shared_dir.empty() ? "" : fs::absolute(launch.shared_dir).string()}};
  run["trial_timeout"] = options.trial_timeout.value_or(0);
  run["checkpoint_storage"] = checkpoint_storage.string();
  write_file_atomically(run_path, run.dump(2) + '\n');
}

// The experiment's files cannot be written (a full or read-only disk): nothing more can be
// recorded, so the run stops. By the time the caller prints this, the Experiment is destroyed,
// and with it every local trial (each shepherd kills its tree); Slurm jobs keep running, as
// after a kill -9, for resume to reattach. The message says which file, what failed and what
// to do; what was recorded before is in the journal (a record cut short is dropped on resume).
RunOutcome stopping_on_disk_errors(const fs::path& directory, const RunnerOptions& options,
                                   const std::function<RunOutcome()>& body) {
  try {
    return body();
  } catch (const DiskError& e) {
    std::string cause;
    std::string fix;
    switch (e.errno_value()) {
      case ENOSPC:
        cause = "the filesystem is full";
        fix = "free space on it";
        break;
      case EDQUOT:
        cause = "the disk quota is exceeded";
        fix = "free space or raise the quota";
        break;
      case EROFS:
        cause = "the filesystem is read-only";
        fix = "make it writable again (remount it read-write)";
        break;
      case EACCES:
      case EPERM:
        cause = "searcher-run may not write there";
        fix = "give it write permission";
        break;
      default:
        cause = "the file cannot be written";
        fix = "fix the cause";
        break;
    }
    const std::string resume = options.continue_command.empty()
                                   ? "searcher-run resume " + directory.string()
                                   : options.continue_command;
    throw RunnerError(std::string(e.what()) + "\n  " + cause +
                      ", so the run stopped and its trials were killed; " +
                      "everything recorded before is kept (a journal record cut short is dropped "
                      "on resume).\n  To go " +
                      "on, " + fix + ", then: " + resume);
  }
}

}  // namespace

LaunchSettings saved_launch_settings(const fs::path& directory) {
  std::ifstream in(directory / "run.json");
  if (!in)
    throw RunnerSetupError("'" + directory.string() +
                           "' is not an experiment directory (no run.json)");
  LaunchSettings settings;
  try {
    const nlohmann::json run = parse_json(in);
    if (!run.contains("launch")) return settings;  // from before launchers were saved: local
    const nlohmann::json& l = run.at("launch");
    settings.launcher = l.at("launcher").get<std::string>();
    settings.slurm.partition = l.at("partition").get<std::string>();
    settings.slurm.account = l.at("account").get<std::string>();
    settings.slurm.time = l.at("time").get<std::string>();
    settings.slurm.sbatch_args = l.at("sbatch_args").get<std::vector<std::string>>();
    settings.channel_address = l.at("channel_address").get<std::string>();
    settings.shared_dir = l.at("shared_dir").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw RunnerSetupError((directory / "run.json").string() + " is damaged: " + e.what());
  }
  return settings;
}

std::unique_ptr<Launcher> make_launcher(const LaunchSettings& settings) {
  if (settings.launcher == "slurm") return make_slurm_launcher(settings.slurm);
  return make_local_launcher();
}

RunOutcome start_experiment(const fs::path& config_path, const fs::path& directory,
                            const fs::path& context, std::optional<std::uint32_t> seed,
                            const RunnerOptions& options, Launcher& launcher, std::ostream& out,
                            std::ostream& err) {
  ExperimentConfig config = load_config(config_path);
  std::error_code error;
  if (fs::exists(directory, error) && !fs::is_empty(directory, error)) {
    throw RunnerSetupError("the experiment directory '" + directory.string() +
                           "' is not empty; continue it with 'searcher-run resume " +
                           directory.string() + "' or choose a new one");
  }
  fs::create_directories(directory, error);
  if (error)
    throw RunnerSetupError("cannot create '" + directory.string() + "': " + error.message());
  return stopping_on_disk_errors(directory, options, [&] {
    RunSettings settings{seed.value_or(config.experiment_seed.value_or(0)), fs::absolute(context),
                         random_token()};
    fs::copy_file(config_path, directory / "config.yaml");
    write_file_atomically(directory / "run.json",
                          nlohmann::json{{"seed", settings.seed},
                                         {"context", settings.context.string()},
                                         {"config", fs::absolute(config_path).string()},
                                         {"key", settings.key}}
                                  .dump(2) +
                              '\n');
    Experiment experiment(fs::absolute(directory), std::move(config), settings, options, launcher,
                          out, err);
    save_run_settings(directory, options, experiment.channel_address(),
                      experiment.checkpoint_storage());
    experiment.begin();
    return experiment.run();
  });
}

RunOutcome resume_experiment(const fs::path& directory, const RunnerOptions& options,
                             Launcher& launcher, std::ostream& out, std::ostream& err) {
  const fs::path run_path = directory / "run.json";
  std::ifstream run_file(run_path);
  if (!run_file) {
    throw RunnerSetupError("'" + directory.string() +
                           "' is not an experiment directory (no run.json)");
  }
  nlohmann::json run = parse_json(run_file);
  ExperimentConfig config = load_config(directory / "config.yaml");
  if (!run.contains("key")) {  // an experiment from before keys: give it one now
    run["key"] = random_token();
    write_file_atomically(run_path, run.dump(2) + '\n');
  }
  RunSettings settings{run.at("seed").get<std::uint32_t>(), run.at("context").get<std::string>(),
                       run.at("key").get<std::string>()};
  RunnerOptions resumed = options;
  if (!resumed.trial_timeout) {
    const nlohmann::json& saved =
        run.contains("trial_timeout") ? run.at("trial_timeout") : nlohmann::json(0);
    if (!saved.is_number() || saved.get<double>() < 0) {
      throw RunnerSetupError(run_path.string() +
                             " is damaged: 'trial_timeout' must be a number of seconds >= 0, got " +
                             saved.dump());
    }
    resumed.trial_timeout = saved.get<double>();
  }
  return stopping_on_disk_errors(directory, resumed, [&] {
    Experiment experiment(fs::absolute(directory), std::move(config), settings, resumed, launcher,
                          out, err);
    save_run_settings(directory, resumed, experiment.channel_address(),
                      experiment.checkpoint_storage());
    experiment.recover();
    return experiment.run();
  });
}

}  // namespace hpsearch
