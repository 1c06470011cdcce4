// The experiment loop (engine/experiment_impl.hpp): events in, operations out, the state
// files; and the library's entry points, start_experiment and resume_experiment.
#include "engine/experiment_impl.hpp"
#include "engine/run_directory.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <fstream>
#include <string_view>

#include "engine/checkpoint_storage.hpp"
#include "engine/custom_exchange.hpp"
#include "engine/metric_plots.hpp"
#include "engine/signals.hpp"
#include "hpsearch/runner/journal.hpp"
#include "hpsearch/searcher/bounded_json.hpp"
#include "hpsearch/searcher/errors.hpp"
#include "hpsearch/searcher/json_lines.hpp"

namespace hpsearch::runner_detail {

namespace {

// Determined's legacy entrypoint names a Trial class, `<module>:<object reference>`: a dotted
// module path (possibly empty: the context directory's package), a colon, a dotted name; no
// spaces. Such an entrypoint runs Determined's Trial harness on that class (docs/trial-api.md).
bool names_trial_class(const std::string& entrypoint) {
  const auto dotted_identifiers = [](const std::string& text, bool may_be_empty) {
    if (text.empty()) return may_be_empty;
    bool at_start = true;  // of an identifier
    for (const char c : text) {
      const bool letter = std::isalpha(static_cast<unsigned char>(c)) || c == '_';
      const bool digit = std::isdigit(static_cast<unsigned char>(c));
      if (c == '.') {
        if (at_start) return false;
        at_start = true;
      } else if (letter || (digit && !at_start)) {
        at_start = false;
      } else {
        return false;
      }
    }
    return !at_start;
  };
  const std::size_t colon = entrypoint.find(':');
  return colon != std::string::npos && dotted_identifiers(entrypoint.substr(0, colon), true) &&
         dotted_identifiers(entrypoint.substr(colon + 1), false);
}

// The CPU time this thread has used (the runner's loop is one thread): for the cost per
// operation only, nothing decides on it.
double thread_cpu_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// How long the loop waits for more reports before it pays a sync a batch left owed.
constexpr int kIdleSyncMs = 5;

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

// The searcher the config names, or a custom search's queue.
JournaledSearcher journaled_searcher(const ExperimentConfig& config, std::uint32_t seed) {
  if (config.searcher.custom) return JournaledSearcher(CustomSearch{});
  return JournaledSearcher(make_searcher(config.searcher, config.hyperparameters, seed));
}

}  // namespace

Experiment::Experiment(const fs::path& directory, ExperimentConfig config, RunSettings settings,
                       const RunnerOptions& options, Launcher& launcher, std::ostream& out,
                       std::ostream& err)
    : directory_(directory),
      lock_(directory),
      config_(std::move(config)),
      settings_(std::move(settings)),
      options_(options),
      launcher_(launcher),
      searcher_(journaled_searcher(config_, settings_.seed)),
      // The config's shared_fs checkpoint_storage, else --shared-dir's, else the experiment's.
      storage_(checkpoint_storage_directory(
          config_.document,
          (options.launch.shared_dir.empty() ? directory
                                             : fs::absolute(options.launch.shared_dir)) /
              "checkpoints")),
      metrics_(config_.searcher.metric, config_.searcher.smaller_is_better),
      channel_(
          options.launch.channel_address.empty()
              ? std::make_unique<TrialChannel>(directory / "channel.sock")
              : std::make_unique<TrialChannel>(parse_tcp_endpoint(options.launch.channel_address))),
      supervisor_(launcher, options.slots, *this, channel_.get()),
      report_(
          config_, directory, settings_.seed, options.terminal, out, err,
          [this](std::uint32_t i) { return supervisor_.is_running(i); },
          [this](std::uint32_t i) { return trial_id(i); }) {
  if (!config_.entrypoint) {
    throw RunnerSetupError(
        "the config has no entrypoint: searcher-run needs the command that trains "
        "a trial (e.g. entrypoint: python3 train.py)");
  }
  read_run_settings_from_document();
  if (!custom()) {
    sampler_choice_ =
        choose_sampler(config_.searcher.sampler, config_.searcher.method, config_.hyperparameters);
  }
  const nlohmann::json& entry = *config_.entrypoint;
  if (entry.is_string()) {
    command_ = entry.get<std::string>();
    if (names_trial_class(command_)) command_ = "python3 -m determined.exec.harness " + command_;
  } else {
    for (const nlohmann::json& part : entry) {
      if (!command_.empty()) command_ += ' ';
      command_ += shell_quote(part.get<std::string>());
    }
  }
}

// Group commit: what the trials reported since the last pass is handled as one batch. Every
// journal record of the batch is written, then synced once, and only then does anything the
// batch decided reach a trial (commands, answers), so durability is that of a sync per record
// at the cost of one sync per batch. A batch that decided nothing a trial is told (a
// checkpoint record alone, say) leaves its sync owed: the next line for a trial, launch,
// deletion or state file pays it first, and so does the loop once it has been idle for
// kIdleSyncMs (run), so a record is never left unsynced while the runner waits. The runner's time
// per operation is the time of the batches that journaled something or handled a validation (report
// lines read, decisions, journal writes, the sync and the commands written) over the validations
// handled; its CPU time and its time in fdatasync are counted apart (experiment.json's
// "runner"). The same span up to the answers is counted apart too (answer_seconds): a command
// wakes its trial, and on a busy machine the trial may run before the runner's write returns,
// which the first span counts as the runner's. The log lines the batch wrote go out after
// that, while the trials work (Report::hold_log).
void Experiment::deliver_batch() {
  const auto started = std::chrono::steady_clock::now();
  const double cpu_started = thread_cpu_seconds();
  const std::uint64_t validations = validations_handled_;
  const std::uint64_t seq = searcher_.seq();
  const std::uint64_t syncs = searcher_.syncs();
  const double sync_seconds = searcher_.sync_seconds();
  searcher_.hold_syncs();
  report_.hold_log();
  batch_open_ = true;
  supervisor_.deliver();
  batch_open_ = false;
  if (held_lines_.empty()) {
    searcher_.stop_holding();  // nothing decided reaches anyone yet: the sync stays owed
  } else {
    searcher_.release_syncs();
  }
  const auto answering = std::chrono::steady_clock::now();
  const double cpu_answering = thread_cpu_seconds();
  for (const HeldLine& held : held_lines_) {
    if (held.reply) {
      supervisor_.reply(held.trial, held.line);
    } else {
      (void)supervisor_.send(held.trial, held.line);
    }
  }
  held_lines_.clear();
  if (validations_handled_ > validations || searcher_.seq() > seq) {
    const auto ended = std::chrono::steady_clock::now();
    const double cpu_ended = thread_cpu_seconds();
    decisions_.seconds += std::chrono::duration<double>(ended - started).count();
    decisions_.answer_seconds +=
        std::chrono::duration<double>(answering - started).count() + (cpu_ended - cpu_answering);
    decisions_.cpu_seconds += cpu_ended - cpu_started;
    decisions_.sync_seconds += searcher_.sync_seconds() - sync_seconds;
    decisions_.batch_syncs += searcher_.syncs() - syncs;
    decisions_.count += validations_handled_ - validations;
    ++decisions_.batches;
  }
  // The batch's log lines, now that the trials have what it decided: runner.log and stderr are
  // not durable records, and a trial need not wait for them.
  report_.release_log();
}

// A command or an answer for a trial: at once, or after the batch's sync.
bool Experiment::write_to_trial(std::uint32_t i, std::string line, bool reply) {
  if (batch_open_) {
    held_lines_.push_back(HeldLine{i, std::move(line), reply});
    return supervisor_.is_running(i);
  }
  searcher_.sync_held();  // what decided the line is on disk before the line goes
  if (reply) {
    supervisor_.reply(i, line);
    return true;
  }
  return supervisor_.send(i, line);
}

// A new experiment: the initial operations.
void Experiment::begin() {
  const SearcherSettings& searcher = config_.searcher;
  report_.note("started: searcher '" + method_name(searcher.method) + "', sampler '" +
               sampler_name(searcher.sampler) + "'" +
               (sampler_choice_.reason.empty() ? std::string()
                                               : " (chose " + chosen_sampler_text(sampler_choice_) +
                                                     ": " + sampler_choice_.reason + ")") +
               ", metric '" + searcher.metric + "', max_length " +
               std::to_string(searcher.max_length.units) + ", seed " +
               std::to_string(settings_.seed) + ", " + std::to_string(options_.slots) +
               " slot(s), trials run as: " + command_);
  if (const std::string caution = sampler_caution(sampler_choice_, searcher.method);
      !caution.empty()) {
    report_.log(caution);
  }
  searcher_.open(directory_ / "journal.jsonl");
  feed_initial();
}

RunOutcome Experiment::run() {
  const SignalPipe signals;
  supervisor_.watch_child_signals();  // SIGCHLD comes through `signals`: told below
  bool pausing = false;
  std::chrono::steady_clock::time_point pause_deadline{};
  take_trial_kills();  // asked for while no runner ran, or before this one caught SIGUSR1
  write_state();
  if (custom()) {
    open_custom_exchange(directory_);
    publish_custom_events("running");
  }
  while (true) {
    launch_waiting();
    if (supervisor_.running() == 0) {
      if (shut_down_ || interrupted_) break;
      if (!held_failures_.empty()) {  // fail fast: nothing running is left to report
        stopped_before_reports_ = true;
        break;
      }
      // A custom search waits for its method's client, which may take its time.
      if (!supervisor_.waiting() && !custom()) {
        throw RunnerError(
            "the search stalled: no trial is running or waiting and the searcher "
            "has not shut down (see runner.log)");
      }
    }
    // A custom search's client posts through the inbox, read every pass: passes 100 ms apart
    // at most keep its round trips short.
    const int timeout = wait_ms(custom() ? 100 : options_.terminal ? 500 : 1000);
    if (searcher_.sync_owed()) {
      // A batch left its sync owed: more reports arriving soon share it; if none come within
      // kIdleSyncMs it is paid before the loop waits longer.
      supervisor_.wait(std::min(timeout, kIdleSyncMs), signals.fd());
      if (!supervisor_.readable()) {
        searcher_.sync_held();
        continue;
      }
    } else {
      supervisor_.wait(timeout, signals.fd());
    }
    for (const int s : supervisor_.woken() ? signals.drain() : std::vector<int>{}) {
      if (s == SIGCHLD) supervisor_.child_exited();
      if (s == SIGUSR1) take_trial_kills();
      if (s != SIGINT && s != SIGTERM) continue;
      // A kill (the store marks it before it signals) is final: nothing waits for checkpoints
      // that no one will resume from, as if the second signal had come with the first (two
      // sent at once may arrive as one).
      const bool killed = options_.kill_requested && options_.kill_requested();
      if (killed) report_.mark_killed();
      const std::string stopping = killed ? "the experiment is killed: stopping every trial now"
                                          : "stopping every trial now";
      if (!interrupted_) {
        interrupted_ = s;
        pausing = !killed;
        pause_deadline =
            std::chrono::steady_clock::now() +
            std::chrono::milliseconds(static_cast<long>(options_.pause_seconds * 1000));
        report_.log(std::string("received ") + (s == SIGINT ? "SIGINT" : "SIGTERM") + ": " +
                    (killed ? stopping
                            : "pausing every trial (they checkpoint and exit); send it again to "
                              "stop them at once"));
        for (const std::uint32_t i : supervisor_.running_trials()) reconcile(i);
        if (!killed) continue;
      } else {
        report_.log(stopping);
      }
      for (const std::uint32_t i : supervisor_.running_trials()) supervisor_.terminate(i, true);
    }
    deliver_batch();
    if (custom()) {
      take_custom_posts();
      if (custom_events_changed_) publish_custom_events("running");
    }
    stop_silent_trials();
    retry_deferred_garbage();
    if (pausing && std::chrono::steady_clock::now() > pause_deadline) {
      for (const std::uint32_t i : supervisor_.running_trials()) supervisor_.terminate(i, true);
      pausing = false;
    }
    // A snapshot (and experiment.json) costs O(trials + validations recorded): taking one at
    // most every that many records keeps the amortised cost per event constant however large
    // the experiment grows and however many validations each trial makes.
    if (searcher_.seq() - searcher_.snapshot_seq() >=
        std::max<std::uint64_t>(options_.snapshot_every, trials_.size() + validations_recorded_)) {
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
  const bool failed = shutdown_.failure || stopped_before_reports_;
  if (custom()) publish_custom_events(paused ? "paused" : failed ? "failed" : "completed");
  report_.summary(paused, failed, trials_, options_.continue_command,
                  failed ? failure_cause() : "");
  return {paused   ? RunEnd::kInterrupted
          : failed ? RunEnd::kFailed
                   : RunEnd::kCompleted,
          interrupted_};
}

std::string Experiment::failure_cause() const {
  if (stopped_before_reports_) {
    const std::uint32_t i = *first_failure_;
    return "stopped early: " + std::to_string(unreported_failed_.size()) +
           " trials failed and no trial has reported anything: the trial command itself "
           "is likely at fault (docs/runner.md, \"A trial command that fails before its first "
           "report\")\nthe first to fail, " +
           report_.failure_text(i, trials_[i]) + "\ntrials run as: " + command_ + " (in " +
           settings_.context.string() + ")\n" +
           (options_.continue_command.empty()
                ? "nothing recorded is lost: correct the entrypoint (or what it needs) in " +
                      (directory_ / "config.yaml").string() +
                      ", the run's copy of the config, then continue with: searcher-run resume " +
                      directory_.string()
                : "nothing recorded is lost: correct the entrypoint (or what it needs) and "
                  "create the experiment again");
  }
  for (std::uint32_t i = static_cast<std::uint32_t>(trials_.size()); i-- > 0;) {
    const TrialRecord& t = trials_[i];
    if (t.exit_reason == ExitedReason::kErrored && t.last_failure.is_object())
      return "the last errored trial, " + report_.failure_text(i, t);
  }
  return "";
}

void Experiment::feed_initial() {
  started_ = true;
  custom_events_changed_ = custom();
  apply(searcher_.initial_operations());
}

void Experiment::feed(const Event& event, const nlohmann::json& metrics) {
  const std::vector<Operation> ops = searcher_.handle(event, metrics);
  if (custom()) custom_events_changed_ = true;
  note_event(event, metrics);
  apply(ops);
}

void Experiment::take_custom_posts() {
  for (const InboxPost& inbox : read_custom_inbox(directory_)) {
    nlohmann::json result{{"ok", true}};
    try {
      if (!inbox.body.is_object() || inbox.body.value("post", "") != inbox.name) {
        throw ProtocolError("the post '" + inbox.name +
                            "' is not a JSON object naming itself (\"post\": its file name)");
      }
      // Journaled before a crash that came before its answer: answered now, not applied again.
      if (inbox.name != searcher_.custom()->last_post()) {
        const std::vector<Operation> ops = searcher_.post(
            custom_post_from_json(inbox.body, searcher_.custom()->trials_requested()));
        custom_events_changed_ = true;
        apply(ops);
      }
    } catch (const ProtocolError& e) {
      result = {{"error", e.what()}};
      report_.log(std::string("refused the custom search method's operations: ") + e.what());
    }
    answer_custom_post(directory_, inbox.name, result);
  }
}

void Experiment::publish_custom_events(const char* state) {
  runner_detail::publish_custom_events(directory_, searcher_.custom()->events(), state);
  custom_events_changed_ = false;
}

void Experiment::append_runner_record(const char* kind, nlohmann::json body, bool sync) {
  if (!replaying_) searcher_.append_runner_record(kind, std::move(body), sync);
}

void Experiment::append_runner_record_text(const char* kind, const std::string& body) {
  if (!replaying_) searcher_.append_runner_record_text(kind, body);
}

// What the runner keeps of an event besides the searcher's own state.
void Experiment::note_event(const Event& event, const nlohmann::json& metrics) {
  if (const auto* created = std::get_if<TrialCreated>(&event)) {
    trials_[index_of(created->request_id)].created = true;
  } else if (const auto* v = std::get_if<ValidationCompleted>(&event)) {
    TrialRecord& t = trials_[index_of(v->request_id)];
    t.validations.push_back({v->length, v->metric, metrics});
    ++validations_recorded_;
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

void Experiment::apply(const std::vector<Operation>& ops) {
  std::vector<RequestId> created;
  for (const Operation& op : ops) {
    if (const auto* create = std::get_if<Create>(&op)) {
      TrialRecord t;
      t.id = create->request_id;
      t.trial_seed = create->trial_seed;
      t.hparams = create->hparams;
      if (create->checkpoint) start_from_parent(t, *create->checkpoint);
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
  if (!created.empty()) note_sampler_switch();
  // A created trial exists at once (its directory is made when it first launches).
  for (const RequestId& id : created) feed(TrialCreated{id});
  while (!dirty_.empty()) {
    const std::uint32_t i = dirty_.front();
    dirty_.pop_front();
    reconcile(i);
  }
}

double Experiment::wall_seconds() {
  // For plots only: nothing the searcher decides reads it.
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A clone starts from its parent's latest checkpoint as it is now (the parent trains on and
// checkpoints again); a parent without one yet gives a fresh start, said in runner.log.
void Experiment::start_from_parent(TrialRecord& t, const RequestId& parent_id) {
  const std::uint32_t parent = index_of(parent_id);
  t.parent = parent_id;
  t.warm_start = trials_[parent].checkpoint;
  if (replaying_) return;
  const std::string who = "trial " + t.id.to_string() + " (a clone of " + name(parent) + ")";
  if (t.warm_start) {
    report_.log(
        who + " starts from " + report_.checkpoint_text("its parent's", *t.warm_start) + " (" +
        (t.warm_start->storage_id.empty() ? t.warm_start->path : t.warm_start->storage_id) + ")");
  } else {
    report_.log(who + " starts fresh: its parent has no checkpoint yet");
  }
}

// Checkpoints that clones still start from: their parents' save policy keeps them.
std::set<std::string> Experiment::warm_start_holds() const {
  std::set<std::string> held;
  for (const std::uint32_t i : clones_) {
    const TrialRecord& t = trials_[i];
    if (!t.closed && !t.checkpoint && t.warm_start && !t.warm_start->storage_id.empty())
      held.insert(t.warm_start->storage_id);
  }
  return held;
}

void Experiment::add_trial(TrialRecord t) {
  validations_recorded_ += t.validations.size();  // a trial restored from a snapshot has some
  if (t.parent) clones_.push_back(static_cast<std::uint32_t>(trials_.size()));
  index_.insert(t.id, static_cast<std::uint32_t>(trials_.size()));
  trials_.push_back(std::move(t));
  launches_.emplace_back();
}

std::uint32_t Experiment::index_of(const RequestId& id) const {
  const std::optional<std::uint32_t> i = index_.find(id);
  if (!i) throw RunnerError("an operation or record for unknown trial " + id.to_string());
  return *i;
}

RequestId Experiment::parse_id(const nlohmann::json& j) {
  const std::optional<RequestId> id = RequestId::parse(j.get<std::string>());
  if (!id) throw RunnerError("journal: bad request id " + j.dump());
  return *id;
}

std::optional<std::uint64_t> Experiment::sampler_switch() const {
  if (sampler_choice_.then.empty()) return std::nullopt;
  return sampler_switch_trial(sampler_choice_, searcher_.searcher().sampler());
}

void Experiment::note_sampler_switch() {
  if (sampler_switch_noted_) return;
  const std::optional<std::uint64_t> trial = sampler_switch();
  if (!trial) return;
  sampler_switch_noted_ = true;
  report_.log("sampler 'auto': " +
              sampler_switch_text(sampler_choice_, trial_id(static_cast<std::uint32_t>(*trial - 1)),
                                  false));
}

void Experiment::write_state() {
  searcher_.sync_written();  // the snapshot's seq counts records: they are on disk first
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
  const char* state = shut_down_                ? (shutdown_.failure ? "failed" : "completed")
                      : stopped_before_reports_ ? "failed"
                      : interrupted_ && supervisor_.running() == 0 ? "paused"
                                                                   : "running";
  decisions_.run_syncs = searcher_.syncs();
  nlohmann::json experiment =
      report_.experiment_json(state, trials_, searcher_.progress(), decisions_);
  for (std::uint32_t i = 0; i < trials_.size(); ++i)
    experiment["trials"][i]["metrics"] = metrics_.summary(i);
  experiment["checkpoint_storage"] = storage_.string();
  if (!sampler_choice_.reason.empty())
    experiment["sampler_choice"] = sampler_choice_json(sampler_choice_, sampler_switch());
  if (!plots_.is_null()) experiment["plots"] = plots_;
  if (std::string_view(state) == "failed")
    experiment["failure"] = failure_cause();  // not "error": the web UI reads that as damage
  write_file_atomically(directory_ / "experiment.json", experiment.dump(2) + '\n');
}

}  // namespace hpsearch::runner_detail

namespace hpsearch {

using runner_detail::Experiment;
using runner_detail::RunSettings;
using runner_detail::save_run_settings;
using runner_detail::stopping_on_disk_errors;
namespace fs = std::filesystem;

namespace {

// The files a run writes before it begins (start_experiment), removed when it is refused then;
// the directory too if this run created it (and nothing else came into it).
void forget_unstarted(const fs::path& directory, bool created) {
  std::error_code ignored;
  for (const char* name :
       {"config.yaml", "run.json", "run.json.tmp", "runner.lock", "runner.log", "channel.sock"}) {
    fs::remove(directory / name, ignored);
  }
  if (created) fs::remove(directory, ignored);  // only if empty
}

}  // namespace

RunOutcome start_experiment(const fs::path& config_path, const fs::path& directory,
                            const fs::path& context, std::optional<std::uint32_t> seed,
                            const RunnerOptions& options, Launcher& launcher, std::ostream& out,
                            std::ostream& err) {
  ExperimentConfig config = load_config(config_path);
  std::error_code error;
  const bool created = !fs::exists(directory, error);
  if (!created && !fs::is_directory(directory, error)) {
    throw RunnerSetupError("the experiment directory '" + directory.string() +
                           "' exists and is not a directory; choose a new one");
  }
  if (const std::optional<long> pid =
          created ? std::nullopt : runner_detail::runner_lock_holder(directory)) {
    throw RunnerSetupError("an experiment is running in '" + directory.string() +
                           "' (searcher-run, pid " + std::to_string(*pid) +
                           "): follow it with 'searcher-run status --dir " + directory.string() +
                           "', or choose a new directory");
  }
  if (!created && !fs::is_empty(directory, error)) {
    throw RunnerSetupError("the experiment directory '" + directory.string() +
                           "' is not empty; continue it with 'searcher-run resume " +
                           directory.string() + "' or choose a new one");
  }
  fs::create_directories(directory, error);
  if (error)
    throw RunnerSetupError("cannot create '" + directory.string() + "': " + error.message());
  RunSettings settings{seed.value_or(config.experiment_seed.value_or(0)), fs::absolute(context),
                       random_token()};
  std::optional<Experiment> experiment;
  try {
    fs::copy_file(config_path, directory / "config.yaml");
    write_file_atomically(directory / "run.json",
                          nlohmann::json{{"seed", settings.seed},
                                         {"context", settings.context.string()},
                                         {"config", fs::absolute(config_path).string()},
                                         {"key", settings.key}}
                                  .dump(2) +
                              '\n');
    experiment.emplace(fs::absolute(directory), std::move(config), settings, options, launcher, out,
                       err);
    save_run_settings(directory, options, experiment->channel_address(),
                      experiment->checkpoint_storage());
  } catch (...) {
    // Refused before it began (no entrypoint, a bad setting): it recorded nothing, and what
    // it wrote would only make the corrected command fail ("not empty"). The directory was
    // empty or absent, so these files are this call's own.
    experiment.reset();
    forget_unstarted(directory, created);
    throw;  // a disk error too: with nothing kept, "resume" is not the advice for it
  }
  // From here on the run records what it does: a disk error says how to go on (resume).
  return stopping_on_disk_errors(directory, options, [&] {
    experiment->begin();
    return experiment->run();
  });
}

RunOutcome resume_experiment(const fs::path& directory, const RunnerOptions& options,
                             Launcher& launcher, std::ostream& out, std::ostream& err) {
  const fs::path run_path = directory / "run.json";
  std::ifstream run_file(run_path);
  if (!run_file) throw runner_detail::no_experiment_in(directory);
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
