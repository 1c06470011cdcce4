#include "hpsearch/runner/experiment.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <fstream>
#include <ostream>
#include <sstream>

#include "hpsearch/config/config.hpp"
#include "hpsearch/config/catalog.hpp"
#include "hpsearch/runner/journal.hpp"
#include "hpsearch/runner/trial_protocol.hpp"
#include "hpsearch/searcher/json_lines.hpp"
#include "hpsearch/searcher/json_number.hpp"
#include "hpsearch/searcher/request_id_index.hpp"

namespace hpsearch {
namespace {

namespace fs = std::filesystem;

constexpr int kFormatVersion = 1;
constexpr std::size_t kMaxReportLine = 1 << 20;

// ---------------------------------------------------------------------------------------------
// Signals reach the loop through a self-pipe, so poll() wakes up for them.

int g_signal_pipe[2] = {-1, -1};

extern "C" void on_signal(int signal) {
  const int saved = errno;
  const auto byte = static_cast<unsigned char>(signal);
  (void)!::write(g_signal_pipe[1], &byte, 1);
  errno = saved;
}

class SignalGuard {
 public:
  SignalGuard() {
    if (::pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
      throw RunnerError(std::string("cannot create a pipe: ") + std::strerror(errno));
    }
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    for (std::size_t k = 0; k < kSignals.size(); ++k) {
      ::sigaction(kSignals[k], kSignals[k] == SIGPIPE ? &ignore : &action, &saved_[k]);
    }
  }
  ~SignalGuard() {
    for (std::size_t k = 0; k < kSignals.size(); ++k) ::sigaction(kSignals[k], &saved_[k], nullptr);
    ::close(g_signal_pipe[0]);
    ::close(g_signal_pipe[1]);
    g_signal_pipe[0] = g_signal_pipe[1] = -1;
  }
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;

  // The signals that arrived since the last call.
  static std::vector<int> drain() {
    std::vector<int> signals;
    unsigned char bytes[64];
    ssize_t n;
    while ((n = ::read(g_signal_pipe[0], bytes, sizeof bytes)) > 0) {
      for (ssize_t i = 0; i < n; ++i) signals.push_back(bytes[i]);
    }
    return signals;
  }

 private:
  // Caught (through the pipe), except SIGPIPE, ignored: a trial that closed its end must
  // not kill the runner.
  static constexpr std::array<int, 4> kSignals{SIGINT, SIGTERM, SIGCHLD, SIGPIPE};
  std::array<struct sigaction, 4> saved_{};
};

// ---------------------------------------------------------------------------------------------

struct Validation {
  std::uint64_t length = 0;
  double metric = 0;
  nlohmann::json metrics;
};

struct Checkpoint {
  std::string path;
  std::uint64_t length = 0;
};

// What the runner knows of a trial. The first block is saved in snapshots; the rest describes
// a live process and starts afresh on resume.
struct RunnerTrial {
  RequestId id;
  std::uint64_t trial_seed = 0;
  nlohmann::json hparams;
  bool created = false;                 // the searcher has been told trial_created
  std::optional<std::uint64_t> target;  // the outstanding validate_after length
  bool close_requested = false;
  bool closed = false;
  std::optional<ExitedReason> exit_reason;
  std::uint64_t restarts = 0;
  std::optional<Checkpoint> checkpoint;
  std::vector<Validation> validations;

  std::unique_ptr<TrialProcess> process;
  std::string buffer;
  std::optional<std::uint64_t> sent_target;  // the validate_after the process was given
  bool pause_sent = false;
  bool close_sent = false;
  bool report_eof = false;
  bool queued = false;
  bool invalid_reported = false;
  std::string broke_protocol;  // why it was stopped for a protocol error, if it was
};

nlohmann::json trial_to_json(const RunnerTrial& t) {
  nlohmann::json validations = nlohmann::json::array();
  for (const Validation& v : t.validations) {
    validations.push_back({{"length", v.length}, {"metric", metric_to_json(v.metric)}, {"metrics", v.metrics}});
  }
  return {{"request_id", t.id.to_string()},
          {"trial_seed", t.trial_seed},
          {"hparams", t.hparams},
          {"created", t.created},
          {"target", t.target ? nlohmann::json(*t.target) : nullptr},
          {"close_requested", t.close_requested},
          {"closed", t.closed},
          {"exit_reason", t.exit_reason ? nlohmann::json(std::string(to_string(*t.exit_reason))) : nullptr},
          {"restarts", t.restarts},
          {"checkpoint", t.checkpoint ? nlohmann::json{{"path", t.checkpoint->path}, {"length", t.checkpoint->length}}
                                      : nlohmann::json(nullptr)},
          {"validations", std::move(validations)}};
}

RunnerTrial trial_from_json(const nlohmann::json& j) {
  RunnerTrial t;
  const std::optional<RequestId> id = RequestId::parse(j.at("request_id").get<std::string>());
  if (!id) throw RunnerError("snapshot: bad request id " + j.at("request_id").dump());
  t.id = *id;
  t.trial_seed = j.at("trial_seed").get<std::uint64_t>();
  t.hparams = j.at("hparams");
  t.created = j.at("created").get<bool>();
  if (!j.at("target").is_null()) t.target = j.at("target").get<std::uint64_t>();
  t.close_requested = j.at("close_requested").get<bool>();
  t.closed = j.at("closed").get<bool>();
  if (!j.at("exit_reason").is_null()) t.exit_reason = parse_exited_reason(j.at("exit_reason").get<std::string>());
  t.restarts = j.at("restarts").get<std::uint64_t>();
  if (!j.at("checkpoint").is_null()) {
    t.checkpoint = Checkpoint{j.at("checkpoint").at("path").get<std::string>(),
                              j.at("checkpoint").at("length").get<std::uint64_t>()};
  }
  for (const nlohmann::json& v : j.at("validations")) {
    t.validations.push_back({v.at("length").get<std::uint64_t>(),
                             metric_from_json(v.at("metric")).value_or(std::nan("")), v.at("metrics")});
  }
  return t;
}

std::string wall_clock_stamp() {
  // For log lines only: nothing the searcher decides reads it.
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char text[32];
  std::strftime(text, sizeof text, "%H:%M:%S", std::localtime(&now));
  return text;
}

// The settings a run was started with, kept in DIR/run.json for resume.
struct RunSettings {
  std::uint32_t seed = 0;
  fs::path context;
};

class Experiment {
 public:
  Experiment(const fs::path& directory, ExperimentConfig config, RunSettings settings,
             const RunnerOptions& options, Launcher& launcher, std::ostream& out, std::ostream& err)
      : directory_(directory), config_(std::move(config)), settings_(std::move(settings)),
        options_(options), launcher_(launcher), out_(out), err_(err),
        searcher_(make_searcher(config_.searcher, config_.hyperparameters, settings_.seed)),
        log_(directory / "runner.log", std::ios::app) {
    if (!config_.entrypoint) {
      throw RunnerSetupError("the config has no entrypoint: searcher-run needs the command that trains "
                        "a trial (e.g. entrypoint: python3 train.py)");
    }
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

  // A new experiment: the initial operations.
  void begin() {
    journal_.emplace(directory_ / "journal.jsonl");
    feed_initial();
  }

  // Resuming: snapshot, then the journal's tail, each answer checked.
  void recover() {
    const fs::path snapshot_path = directory_ / "snapshot.json";
    if (fs::exists(snapshot_path)) {
      std::ifstream in(snapshot_path);
      const nlohmann::json snapshot = nlohmann::json::parse(in);
      if (snapshot.at("format_version") != kFormatVersion) {
        throw RunnerError("snapshot.json: unknown format_version " + snapshot.at("format_version").dump());
      }
      searcher_.restore(snapshot.at("searcher"));
      for (const nlohmann::json& t : snapshot.at("trials")) add_trial(trial_from_json(t));
      seq_ = snapshot.at("seq").get<std::uint64_t>();
      if (const nlohmann::json& shutdown = snapshot.at("shutdown"); !shutdown.is_null()) {
        shut_down_ = true;
        shutdown_ = Shutdown{shutdown.at("cancel").get<bool>(), shutdown.at("failure").get<bool>()};
      }
      snapshot_seq_ = seq_;
      started_ = true;
    }
    const JournalContents journal = read_journal(directory_ / "journal.jsonl");
    if (journal.torn_tail) {
      log("the journal ends in a record cut short by the crash; it was never acted on and is dropped");
      truncate_journal(directory_ / "journal.jsonl", journal.valid_bytes);
    }
    replaying_ = true;
    std::uint64_t replayed = 0;
    for (const nlohmann::json& record : journal.records) {
      if (record.at("seq").get<std::uint64_t>() < seq_) continue;
      replay(record);
      ++replayed;
    }
    replaying_ = false;
    journal_.emplace(directory_ / "journal.jsonl");
    log("resumed: " + std::to_string(trials_.size()) + " trials, " + std::to_string(replayed) +
        " journal records replayed after the snapshot (record " + std::to_string(snapshot_seq_) +
        "), every answer identical");
    if (!started_) feed_initial();
    // A crash between journaling a create and its trial_created leaves a trial the searcher
    // has not heard of yet: tell it now, as the live run would have.
    for (std::uint32_t i = 0; i < trials_.size(); ++i) {
      if (!trials_[i].created) feed(TrialCreated{trials_[i].id});
    }
    // Processes died with the old runner: trials with work are relaunched from their latest
    // checkpoint, and those that were closing are closed.
    for (std::uint32_t i = 0; i < trials_.size(); ++i) reconcile(i);
  }

  RunOutcome run() {
    const SignalGuard signals;
    bool pausing = false;
    std::chrono::steady_clock::time_point pause_deadline{};
    write_state();
    while (true) {
      launch_queued();
      if (running_ == 0) {
        if (shut_down_ || interrupted_) break;
        if (waiting_.empty()) {
          throw RunnerError("the search stalled: no trial is running or waiting and the searcher "
                            "has not shut down (see runner.log)");
        }
      }
      std::vector<pollfd> fds{{g_signal_pipe[0], POLLIN, 0}};
      std::vector<std::uint32_t> owners{0};
      for (const std::uint32_t i : live_) {
        if (trials_[i].process && trials_[i].process->report_fd() >= 0) {
          fds.push_back({trials_[i].process->report_fd(), POLLIN, 0});
          owners.push_back(i);
        }
      }
      const int ready = ::poll(fds.data(), fds.size(), options_.terminal ? 500 : 1000);
      if (ready < 0 && errno != EINTR) throw RunnerError(std::string("poll: ") + std::strerror(errno));
      for (const int s : SignalGuard::drain()) {
        if (s == SIGINT || s == SIGTERM) {
          if (!interrupted_) {
            interrupted_ = s;
            pausing = true;
            pause_deadline = std::chrono::steady_clock::now() +
                             std::chrono::milliseconds(static_cast<long>(options_.pause_seconds * 1000));
            log(std::string("received ") + (s == SIGINT ? "SIGINT" : "SIGTERM") +
                ": pausing every trial (they checkpoint and exit); send it again to stop them at once");
            for (const std::uint32_t i : live_) reconcile(i);
          } else {
            log("stopping every trial now");
            for (const std::uint32_t i : live_) trials_[i].process->terminate(true);
          }
        }
      }
      for (std::size_t k = 1; k < fds.size(); ++k) {
        if (fds[k].revents != 0) read_reports(owners[k]);
      }
      reap();
      if (pausing && std::chrono::steady_clock::now() > pause_deadline) {
        for (const std::uint32_t i : live_) trials_[i].process->terminate(true);
        pausing = false;
      }
      // A snapshot costs O(trials): taking one at most every `trials` records keeps the
      // amortised cost per event constant however large the experiment grows.
      if (seq_ - snapshot_seq_ >= std::max<std::uint64_t>(options_.snapshot_every, trials_.size())) {
        write_state();
      }
      status();
    }
    write_state();
    if (options_.terminal && status_drawn_) err_ << "\r\033[K" << std::flush;
    return {finish(), interrupted_};
  }

 private:
  // ---- the searcher side: events in, operations out, all journaled -------------------------

  void feed_initial() {
    started_ = true;
    const std::vector<Operation> ops = searcher_.initial_operations();
    record({{"event", "initial_operations"}}, ops, {});
    apply(ops);
  }

  void feed(const Event& event, const nlohmann::json& metrics = {}) {
    const std::vector<Operation> ops = searcher_.handle(event);
    record(nlohmann::json(event), ops, metrics);
    note_event(event, metrics);
    apply(ops);
  }

  void record(const nlohmann::json& in, const std::vector<Operation>& ops, const nlohmann::json& metrics) {
    nlohmann::json entry{{"seq", seq_++}, {"in", in}, {"out", operations_answer(ops)}};
    if (!metrics.is_null()) entry["metrics"] = metrics;
    journal_->append(entry);
  }

  void append_runner_record(const char* kind, nlohmann::json body) {
    if (replaying_) return;
    journal_->append({{"seq", seq_++}, {kind, std::move(body)}});
  }

  // What the runner keeps of an event besides the searcher's own state.
  void note_event(const Event& event, const nlohmann::json& metrics) {
    if (const auto* created = std::get_if<TrialCreated>(&event)) {
      trials_[index_of(created->request_id)].created = true;
    } else if (const auto* v = std::get_if<ValidationCompleted>(&event)) {
      RunnerTrial& t = trials_[index_of(v->request_id)];
      t.validations.push_back({v->length, v->metric, metrics});
      t.target.reset();  // done; the operations that follow may set the next one
    } else if (const auto* e = std::get_if<TrialExitedEarly>(&event)) {
      RunnerTrial& t = trials_[index_of(e->request_id)];
      t.exit_reason = e->reason;
      t.target.reset();
    } else if (const auto* c = std::get_if<TrialClosed>(&event)) {
      RunnerTrial& t = trials_[index_of(c->request_id)];
      t.closed = true;
      t.target.reset();
    }
  }

  void apply(const std::vector<Operation>& ops) {
    std::vector<RequestId> created;
    for (const Operation& op : ops) {
      if (const auto* create = std::get_if<Create>(&op)) {
        RunnerTrial t;
        t.id = create->request_id;
        t.trial_seed = create->trial_seed;
        t.hparams = create->hparams;
        add_trial(std::move(t));
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

  void replay(const nlohmann::json& record) {
    const std::uint64_t seq = record.at("seq").get<std::uint64_t>();
    if (seq != seq_) {
      throw RunnerError("journal record " + std::to_string(seq) + " follows record " +
                        std::to_string(seq_ - 1) + ": records are missing");
    }
    ++seq_;
    if (record.contains("checkpoint")) {
      const nlohmann::json& c = record.at("checkpoint");
      trials_[index_of(parse_id(c.at("request_id")))].checkpoint =
          Checkpoint{c.at("path").get<std::string>(), c.at("length").get<std::uint64_t>()};
      return;
    }
    if (record.contains("restart")) {
      ++trials_[index_of(parse_id(record.at("restart").at("request_id")))].restarts;
      return;
    }
    const nlohmann::json& in = record.at("in");
    std::vector<Operation> ops;
    std::optional<Event> event;
    if (in.at("event") == "initial_operations") {
      started_ = true;
      ops = searcher_.initial_operations();
    } else {
      event = event_from_json(in);
      ops = searcher_.handle(*event);
    }
    const nlohmann::json answer = operations_answer(ops);
    if (answer != record.at("out")) {
      throw RunnerError("journal record " + std::to_string(seq) + " (" + json_line(in) +
                        "): the searcher now answers " + json_line(answer) +
                        " but the journal recorded " + json_line(record.at("out")) +
                        "; the config, seed or hpsearch version differ from the run's, so it "
                        "cannot be resumed");
    }
    if (event) note_event(*event, record.value("metrics", nlohmann::json()));
    apply(ops);
    dirty_.clear();
  }

  // ---- the process side ----------------------------------------------------------------------

  // Brings a trial's process in line with what the searcher wants of it.
  void reconcile(std::uint32_t i) {
    if (replaying_) return;
    RunnerTrial& t = trials_[i];
    if (t.closed) return;
    if (t.process) {
      // Stopping, pausing or closing: it gets nothing more; a pausing trial that is promoted
      // meanwhile is relaunched once it has exited.
      if (!t.broke_protocol.empty() || t.invalid_reported || t.close_sent) return;
      if (t.pause_sent) return;
      if (interrupted_) {
        send(i, PauseCommand{});
        return;
      }
      if (t.target && t.sent_target != t.target) {
        if (send(i, TrainCommand{*t.target})) t.sent_target = t.target;
      } else if (!t.target && t.close_requested && !t.close_sent) {
        send(i, CloseCommand{});
      } else if (!t.target && !t.close_requested && !t.pause_sent) {
        send(i, PauseCommand{});  // nothing to do for now: checkpoint and free the slot
      }
      return;
    }
    if (t.exit_reason || (t.close_requested && !t.target)) {
      feed(TrialClosed{t.id});
    } else if (t.target && !t.queued && !interrupted_) {
      t.queued = true;
      waiting_.push_back(i);
    }
  }

  bool send(std::uint32_t i, const TrialCommand& command) {
    RunnerTrial& t = trials_[i];
    if (std::holds_alternative<PauseCommand>(command)) t.pause_sent = true;
    if (std::holds_alternative<CloseCommand>(command)) t.close_sent = true;
    return t.process->send(command_line(command));
  }

  void launch_queued() {
    while (running_ < options_.slots && !waiting_.empty() && !interrupted_) {
      const std::uint32_t i = waiting_.front();
      waiting_.pop_front();
      RunnerTrial& t = trials_[i];
      t.queued = false;
      if (t.closed || !t.target || t.process) continue;
      launch(i);
    }
  }

  fs::path trial_directory(std::uint32_t i) const {
    return directory_ / "trials" / (std::to_string(i + 1) + "-" + trials_[i].id.to_string().substr(0, 8));
  }

  void launch(std::uint32_t i) {
    RunnerTrial& t = trials_[i];
    const fs::path dir = trial_directory(i);
    fs::create_directories(dir / "checkpoints");
    LaunchSpec spec;
    spec.command = command_;
    spec.working_directory = settings_.context;
    spec.log = dir / "output.log";
    spec.environment = {
        {"HPSEARCH_REQUEST_ID", t.id.to_string()},
        {"HPSEARCH_TRIAL_ID", std::to_string(i + 1)},
        {"HPSEARCH_TRIAL_SEED", std::to_string(t.trial_seed)},
        {"HPSEARCH_HPARAMS", json_line(t.hparams)},
        {"HPSEARCH_TRIAL_DIR", dir.string()},
        {"HPSEARCH_CHECKPOINT_DIR", (dir / "checkpoints").string()},
        {"HPSEARCH_METRIC", config_.searcher.metric},
        {"HPSEARCH_SMALLER_IS_BETTER", config_.searcher.smaller_is_better ? "1" : "0"},
        {"HPSEARCH_MAX_LENGTH", std::to_string(config_.searcher.max_length.units)},
        {"HPSEARCH_CMD_FD", "3"},
        {"HPSEARCH_REPORT_FD", "4"},
    };
    if (t.checkpoint) {
      spec.environment["HPSEARCH_LATEST_CHECKPOINT"] = t.checkpoint->path;
      spec.environment["HPSEARCH_LATEST_CHECKPOINT_LENGTH"] = std::to_string(t.checkpoint->length);
    }
    // The Python client ships with hpsearch: make `import hpsearch` work without installing it.
    const char* python_path = std::getenv("PYTHONPATH");
    spec.environment["PYTHONPATH"] =
        std::string(HPSEARCH_PYTHON_DIR) + (python_path && *python_path ? std::string(":") + python_path : "");
    t.buffer.clear();
    t.sent_target.reset();
    t.pause_sent = t.close_sent = t.report_eof = t.invalid_reported = false;
    t.broke_protocol.clear();
    try {
      t.process = launcher_.launch(spec);
    } catch (const std::runtime_error& e) {
      log(name(i) + " could not be started: " + e.what());
      failed(i, "could not be started");
      return;
    }
    ++running_;
    live_.push_back(i);
    log(name(i) + " started (pid " + std::to_string(t.process->pid()) + ", train to " +
        std::to_string(*t.target) +
        (t.checkpoint ? ", from its checkpoint at " + std::to_string(t.checkpoint->length) : "") + ")");
    reconcile(i);
  }

  void read_reports(std::uint32_t i) {
    RunnerTrial& t = trials_[i];
    const bool open = t.process->read_reports(t.buffer);
    std::size_t newline;
    while ((newline = t.buffer.find('\n')) != std::string::npos) {
      const std::string line = t.buffer.substr(0, newline);
      t.buffer.erase(0, newline + 1);
      if (t.broke_protocol.empty()) handle_report(i, line);
    }
    if (t.buffer.size() > kMaxReportLine) broke_protocol(i, t.buffer.substr(0, 200), "a line longer than 1 MiB");
    if (!open) t.report_eof = true;
  }

  void handle_report(std::uint32_t i, const std::string& line) {
    RunnerTrial& t = trials_[i];
    TrialReport report;
    try {
      report = parse_trial_report(line, config_.searcher.metric);
    } catch (const TrialProtocolError& e) {
      broke_protocol(i, line, e.what());
      return;
    }
    if (t.invalid_reported) return broke_protocol(i, line, "a report after invalid_hp");
    if (const auto* progress = std::get_if<ProgressReport>(&report)) {
      feed(TrialProgress{t.id, progress->units});
    } else if (const auto* v = std::get_if<ValidationReport>(&report)) {
      if (!t.sent_target) return broke_protocol(i, line, "a validation while no validate_after was outstanding");
      if (v->length != *t.sent_target) {
        return broke_protocol(i, line, "a validation at length " + std::to_string(v->length) +
                                           ", but it was asked to train to " + std::to_string(*t.sent_target));
      }
      t.sent_target.reset();
      t.target.reset();
      log(name(i) + " validated at " + std::to_string(v->length) + ": " + config_.searcher.metric +
          " " + json_line(metric_to_json(v->metric)));
      dirty_.push_back(i);
      // The runner's own cost per operation: from the report to the next commands sent,
      // journal syncs included.
      const auto started = std::chrono::steady_clock::now();
      feed(ValidationCompleted{t.id, v->metric, v->length}, v->metrics);
      reconcile(i);
      decision_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      ++decisions_;
    } else if (const auto* c = std::get_if<CheckpointReport>(&report)) {
      fs::path path = c->path;
      if (path.is_relative()) path = trial_directory(i) / "checkpoints" / path;
      std::error_code error;
      if (!fs::exists(path, error)) return broke_protocol(i, line, "the checkpoint path does not exist");
      t.checkpoint = Checkpoint{path.string(), c->length};
      append_runner_record("checkpoint", {{"request_id", t.id.to_string()}, {"path", path.string()}, {"length", c->length}});
    } else if (const auto* invalid = std::get_if<InvalidHpReport>(&report)) {
      t.invalid_reported = true;
      log(name(i) + " reported invalid hyperparameters" + (invalid->reason.empty() ? "" : ": " + invalid->reason));
      feed(TrialExitedEarly{t.id, ExitedReason::kInvalidHp});
    }
  }

  void broke_protocol(std::uint32_t i, const std::string& line, const std::string& why) {
    RunnerTrial& t = trials_[i];
    if (!t.broke_protocol.empty()) return;
    t.broke_protocol = why;
    log(name(i) + " broke the trial protocol: it sent '" + line.substr(0, 200) + "': " + why +
        "; stopping it");
    t.process->terminate(true);
  }

  void reap() {
    for (std::size_t k = 0; k < live_.size();) {
      const std::uint32_t i = live_[k];
      RunnerTrial& t = trials_[i];
      const std::optional<ExitStatus> status = t.process->poll_exit();
      if (status && !t.report_eof) read_reports(i);  // drain what it wrote before exiting
      if (!status || !t.report_eof) {
        ++k;
        continue;
      }
      live_.erase(live_.begin() + static_cast<long>(k));
      --running_;
      t.process.reset();
      exited(i, *status);
    }
  }

  void exited(std::uint32_t i, const ExitStatus& status) {
    RunnerTrial& t = trials_[i];
    if (t.invalid_reported) {
      feed(TrialClosed{t.id});
      return;
    }
    if (!t.broke_protocol.empty()) {
      failed(i, "it broke the trial protocol (" + t.broke_protocol + ")");
      return;
    }
    if (interrupted_ && t.pause_sent) {
      log(name(i) + " paused (" + status.describe() + ")");
      return;  // its work, if any, is relaunched on resume
    }
    if (!status.success()) {
      failed(i, status.describe());
      return;
    }
    if (t.target && !t.pause_sent) {
      failed(i, "it exited (exit code 0) before reporting its validation at " + std::to_string(*t.target));
      return;
    }
    if (t.close_sent) {
      log(name(i) + " closed");
      feed(TrialClosed{t.id});
      return;
    }
    log(name(i) + " paused");
    reconcile(i);  // promoted while it paused: relaunch
  }

  // A trial process failed: restart from its checkpoint, or give up after max_restarts.
  void failed(std::uint32_t i, const std::string& why) {
    RunnerTrial& t = trials_[i];
    if (!t.target) {
      log(name(i) + " failed after its operation was done (" + why + "); nothing is lost");
      reconcile(i);
      return;
    }
    if (t.restarts < config_.max_restarts) {
      ++t.restarts;
      append_runner_record("restart", {{"request_id", t.id.to_string()}, {"why", why}});
      log(name(i) + " failed: " + why + "; restarting from " +
          (t.checkpoint ? "its checkpoint at " + std::to_string(t.checkpoint->length) : std::string("scratch")) +
          " (restart " + std::to_string(t.restarts) + " of " + std::to_string(config_.max_restarts) + ")");
      reconcile(i);
      return;
    }
    log(name(i) + " failed: " + why + "; it has used its " + std::to_string(config_.max_restarts) +
        " restarts, so it is reported as errored");
    feed(TrialExitedEarly{t.id, ExitedReason::kErrored});
    if (!t.closed) feed(TrialClosed{t.id});
  }

  // ---- bookkeeping and output ----------------------------------------------------------------

  void add_trial(RunnerTrial t) {
    index_.insert(t.id, static_cast<std::uint32_t>(trials_.size()));
    trials_.push_back(std::move(t));
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

  std::string name(std::uint32_t i) const {
    return "trial " + std::to_string(i + 1) + " (" + trials_[i].id.to_string() + ")";
  }

  static std::string shell_quote(const std::string& word) {
    if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+") == std::string::npos) {
      return word;
    }
    std::string quoted = "'";
    for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
  }

  void log(const std::string& line) {
    log_ << wall_clock_stamp() << ' ' << line << std::endl;
    if (options_.terminal) {
      if (status_drawn_) err_ << "\r\033[K";
      status_drawn_ = false;
    }
    err_ << "searcher-run: " << line << '\n' << std::flush;
  }

  std::string outcome(const RunnerTrial& t) const {
    if (t.exit_reason == ExitedReason::kErrored) return "errored";
    if (t.exit_reason) return std::string(to_string(*t.exit_reason));
    const bool full = !t.validations.empty() && t.validations.back().length >= config_.searcher.max_length.units;
    if (t.closed) return full ? "completed" : "stopped";
    if (t.process) return "running";
    return t.target ? "waiting" : "paused";
  }

  // The best trial: the best metric among validations at max_length, else at any length.
  std::optional<std::pair<std::uint32_t, std::size_t>> best() const {
    std::optional<std::pair<std::uint32_t, std::size_t>> found;
    bool found_full = false;
    double best_value = 0;
    const double sign = config_.searcher.smaller_is_better ? 1 : -1;
    for (std::uint32_t i = 0; i < trials_.size(); ++i) {
      for (std::size_t k = 0; k < trials_[i].validations.size(); ++k) {
        const Validation& v = trials_[i].validations[k];
        if (std::isnan(v.metric)) continue;
        const bool full = v.length >= config_.searcher.max_length.units;
        if (found && found_full && !full) continue;
        if (!found || (full && !found_full) || sign * v.metric < sign * best_value) {
          found = std::make_pair(i, k);
          found_full = full;
          best_value = v.metric;
        }
      }
    }
    return found;
  }

  nlohmann::json experiment_json(const char* state) const {
    nlohmann::json trials = nlohmann::json::array();
    for (std::uint32_t i = 0; i < trials_.size(); ++i) {
      nlohmann::json t = trial_to_json(trials_[i]);
      t["trial"] = i + 1;
      t["outcome"] = outcome(trials_[i]);
      t["directory"] = trial_directory(i).string();
      t.erase("target");
      t.erase("close_requested");
      t.erase("created");
      trials.push_back(std::move(t));
    }
    nlohmann::json j{{"state", state},
                     {"metric", config_.searcher.metric},
                     {"smaller_is_better", config_.searcher.smaller_is_better},
                     {"seed", settings_.seed},
                     {"progress", searcher_.progress()},
                     {"runner", {{"validations_handled", decisions_},
                                 {"mean_decision_ms", decisions_ > 0 ? 1000 * decision_seconds_ / static_cast<double>(decisions_) : 0.0}}},
                     {"trials", std::move(trials)}};
    if (const auto b = best()) {
      const RunnerTrial& t = trials_[b->first];
      const Validation& v = t.validations[b->second];
      j["best"] = {{"trial", b->first + 1}, {"request_id", t.id.to_string()}, {"hparams", t.hparams},
                   {"length", v.length}, {"metric", metric_to_json(v.metric)}, {"metrics", v.metrics},
                   {"checkpoint", t.checkpoint ? nlohmann::json(t.checkpoint->path) : nlohmann::json(nullptr)}};
    }
    return j;
  }

  void write_state() {
    nlohmann::json trials = nlohmann::json::array();
    for (const RunnerTrial& t : trials_) trials.push_back(trial_to_json(t));
    const nlohmann::json snapshot{
        {"format_version", kFormatVersion}, {"seq", seq_}, {"searcher", searcher_.snapshot()},
        {"trials", std::move(trials)},
        {"shutdown", shut_down_ ? nlohmann::json{{"cancel", shutdown_.cancel}, {"failure", shutdown_.failure}}
                                : nlohmann::json(nullptr)}};
    write_file_atomically(directory_ / "snapshot.json", snapshot.dump() + '\n');
    snapshot_seq_ = seq_;
    const char* state = shut_down_ ? (shutdown_.failure ? "failed" : "completed")
                        : interrupted_ && running_ == 0 ? "paused" : "running";
    write_file_atomically(directory_ / "experiment.json", experiment_json(state).dump(2) + '\n');
  }

  struct Counts {
    std::uint64_t running = 0, waiting = 0, paused = 0, completed = 0, stopped = 0, errored = 0, invalid = 0;
  };
  Counts counts() const {
    Counts c;
    for (const RunnerTrial& t : trials_) {
      const std::string o = outcome(t);
      if (o == "running") ++c.running;
      else if (o == "waiting") ++c.waiting;
      else if (o == "paused") ++c.paused;
      else if (o == "completed") ++c.completed;
      else if (o == "stopped") ++c.stopped;
      else if (o == "errored") ++c.errored;
      else ++c.invalid;
    }
    return c;
  }

  void status() {
    if (!options_.terminal) return;
    const auto now = std::chrono::steady_clock::now();
    if (status_drawn_ && now - last_status_ < std::chrono::milliseconds(500)) return;
    last_status_ = now;
    const Counts c = counts();
    std::ostringstream line;
    line << "running " << c.running << ", waiting " << c.waiting << ", paused " << c.paused
         << ", completed " << c.completed << ", stopped " << c.stopped << ", errored " << c.errored
         << "; progress " << static_cast<int>(searcher_.progress() * 100) << "%";
    if (const auto b = best()) {
      line << "; best " << json_line(metric_to_json(trials_[b->first].validations[b->second].metric))
           << " (trial " << b->first + 1 << ")";
    }
    err_ << "\r\033[K" << line.str() << std::flush;
    status_drawn_ = true;
  }

  RunEnd finish() {
    const Counts c = counts();
    if (interrupted_ && !shut_down_) {
      out_ << "paused: " << trials_.size() << " trials so far (" << c.completed << " completed, "
           << c.stopped << " stopped, " << c.errored << " errored); the state is saved in "
           << directory_.string() << "\ncontinue with: searcher-run resume " << directory_.string() << '\n';
      return RunEnd::kInterrupted;
    }
    out_ << "search " << (shutdown_.failure ? "failed" : "completed") << ": " << trials_.size()
         << " trials (" << c.completed << " completed, " << c.stopped << " stopped early, "
         << c.errored << " errored, " << c.invalid << " with invalid hyperparameters)\n";
    if (const auto b = best()) {
      const RunnerTrial& t = trials_[b->first];
      const Validation& v = t.validations[b->second];
      out_ << "best trial " << b->first + 1 << " (" << t.id.to_string() << "): "
           << config_.searcher.metric << ' ' << json_line(metric_to_json(v.metric)) << " at length "
           << v.length << "\n  hyperparameters " << json_line(t.hparams) << "\n  checkpoint "
           << (t.checkpoint ? t.checkpoint->path : std::string("(none)")) << '\n';
    }
    out_ << "details: " << (directory_ / "experiment.json").string() << '\n';
    return shutdown_.failure ? RunEnd::kFailed : RunEnd::kCompleted;
  }

  fs::path directory_;
  ExperimentConfig config_;
  RunSettings settings_;
  const RunnerOptions& options_;
  Launcher& launcher_;
  std::ostream& out_;
  std::ostream& err_;
  Searcher searcher_;
  std::ofstream log_;
  std::optional<Journal> journal_;
  std::string command_;

  // A deque: trials are only appended, and references to them stay valid while feeding the
  // searcher creates more (a vector would move them).
  std::deque<RunnerTrial> trials_;
  RequestIdIndex index_;
  std::deque<std::uint32_t> waiting_;
  std::deque<std::uint32_t> dirty_;
  std::vector<std::uint32_t> live_;  // trials with a process
  std::uint64_t running_ = 0;
  std::uint64_t seq_ = 0;
  std::uint64_t snapshot_seq_ = 0;
  bool started_ = false;
  bool replaying_ = false;
  bool shut_down_ = false;
  Shutdown shutdown_;
  int interrupted_ = 0;
  bool status_drawn_ = false;
  std::chrono::steady_clock::time_point last_status_{};
  double decision_seconds_ = 0;
  std::uint64_t decisions_ = 0;
};

}  // namespace

RunOutcome start_experiment(const fs::path& config_path, const fs::path& directory,
                        const fs::path& context, std::optional<std::uint32_t> seed,
                        const RunnerOptions& options, Launcher& launcher, std::ostream& out,
                        std::ostream& err) {
  ExperimentConfig config = load_config(config_path);
  std::error_code error;
  if (fs::exists(directory, error) && !fs::is_empty(directory, error)) {
    throw RunnerSetupError("the experiment directory '" + directory.string() +
                      "' is not empty; continue it with 'searcher-run resume " + directory.string() +
                      "' or choose a new one");
  }
  fs::create_directories(directory, error);
  if (error) throw RunnerSetupError("cannot create '" + directory.string() + "': " + error.message());
  RunSettings settings{seed.value_or(config.experiment_seed.value_or(0)), fs::absolute(context)};
  fs::copy_file(config_path, directory / "config.yaml");
  write_file_atomically(directory / "run.json",
                        nlohmann::json{{"seed", settings.seed}, {"context", settings.context.string()},
                                       {"config", fs::absolute(config_path).string()}}
                                .dump(2) + '\n');
  Experiment experiment(fs::absolute(directory), std::move(config), settings, options, launcher, out, err);
  experiment.begin();
  return experiment.run();
}

RunOutcome resume_experiment(const fs::path& directory, const RunnerOptions& options, Launcher& launcher,
                         std::ostream& out, std::ostream& err) {
  const fs::path run_path = directory / "run.json";
  std::ifstream run_file(run_path);
  if (!run_file) {
    throw RunnerSetupError("'" + directory.string() + "' is not an experiment directory (no run.json)");
  }
  const nlohmann::json run = nlohmann::json::parse(run_file);
  ExperimentConfig config = load_config(directory / "config.yaml");
  RunSettings settings{run.at("seed").get<std::uint32_t>(), run.at("context").get<std::string>()};
  Experiment experiment(fs::absolute(directory), std::move(config), settings, options, launcher, out, err);
  experiment.recover();
  return experiment.run();
}

}  // namespace hpsearch
