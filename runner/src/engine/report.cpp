#include "engine/report.hpp"

#include <sys/resource.h>

#include <cmath>
#include <ctime>
#include <ostream>
#include <sstream>

#include "hpsearch/searcher/json_lines.hpp"
#include "hpsearch/searcher/json_number.hpp"

namespace hpsearch::runner_detail {
namespace {

namespace fs = std::filesystem;

// The process's CPU time so far (user and system): the runner's whole cost, launches and
// snapshots included, which bench/runner/run.sh divides by the validations handled.
double process_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// experiment.json's "runner": the cost per validation handled (docs/runner.md).
nlohmann::json runner_costs(const DecisionStats& d) {
  const auto per_operation_ms = [&](double seconds) {
    return d.count > 0 ? 1000 * seconds / static_cast<double>(d.count) : 0.0;
  };
  return {{"validations_handled", d.count},
          {"batches", d.batches},
          {"mean_decision_ms", per_operation_ms(d.seconds)},
          {"mean_answer_ms", per_operation_ms(d.answer_seconds)},
          {"mean_decision_cpu_ms", per_operation_ms(d.cpu_seconds)},
          {"mean_decision_sync_ms", per_operation_ms(d.sync_seconds)},
          {"batch_syncs", d.batch_syncs},
          {"journal_syncs", d.run_syncs},
          {"process_cpu_seconds", process_cpu_seconds()}};
}

std::string wall_clock_stamp() {
  // For log lines only: nothing the searcher decides reads it. localtime_r, not localtime,
  // which looks at /etc/localtime again (a stat) for every line.
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm local{};
  char text[32];
  std::strftime(text, sizeof text, "%H:%M:%S", ::localtime_r(&now, &local));
  return text;
}

}  // namespace

std::string shown_output_tail(const std::vector<std::string>& tail) {
  if (tail.empty()) return "; it wrote no output";
  std::string shown = "; its last lines of output:";
  for (const std::string& line : tail) shown += "\n  | " + line;
  return shown;
}

Report::Report(const ExperimentConfig& config, fs::path directory, std::uint32_t seed,
               bool terminal, std::ostream& out, std::ostream& err,
               std::function<bool(std::uint32_t)> running,
               std::function<std::uint64_t(std::uint32_t)> trial_id)
    : config_(config),
      directory_(std::move(directory)),
      seed_(seed),
      terminal_(terminal),
      out_(out),
      err_(err),
      running_(std::move(running)),
      trial_id_(std::move(trial_id)),
      log_(directory_ / "runner.log", std::ios::app) {}

Report::~Report() {
  release_log();
}

void Report::log(const std::string& line) {
  log_ << wall_clock_stamp() << ' ' << line << '\n';
  if (terminal_) {
    if (status_drawn_) held_err_ += "\r\033[K";
    status_drawn_ = false;
  }
  held_err_ += "searcher-run: ";
  held_err_ += line;
  held_err_ += '\n';
  if (!held_) release_log();
}

void Report::note(const std::string& line) {
  log_ << wall_clock_stamp() << ' ' << line << '\n';
  if (!held_) log_.flush();
}

void Report::release_log() {
  held_ = false;
  log_.flush();
  if (held_err_.empty()) return;
  err_.write(held_err_.data(), static_cast<std::streamsize>(held_err_.size()));
  err_.flush();
  held_err_.clear();
}

std::string Report::outcome(std::uint32_t index, const TrialRecord& t) const {
  if (t.exit_reason == ExitedReason::kErrored) return "errored";
  if (t.exit_reason) return std::string(to_string(*t.exit_reason));
  const bool full =
      !t.validations.empty() && t.validations.back().length >= config_.searcher.max_length.units;
  if (t.closed) return full ? "completed" : "stopped";
  if (running_(index)) return "running";
  return t.target ? "waiting" : "paused";
}

OutcomeCounts Report::counts(const std::deque<TrialRecord>& trials) const {
  OutcomeCounts c;
  for (std::uint32_t i = 0; i < trials.size(); ++i) {
    const std::string o = outcome(i, trials[i]);
    if (o == "running")
      ++c.running;
    else if (o == "waiting")
      ++c.waiting;
    else if (o == "paused")
      ++c.paused;
    else if (o == "completed")
      ++c.completed;
    else if (o == "stopped" || o == "user_requested_stop")
      ++c.stopped;  // by the searcher or the script
    else if (o == "errored")
      ++c.errored;
    else if (o == "user_canceled")
      ++c.canceled;  // killed on request (searcher-run trial ID --kill)
    else
      ++c.invalid;
  }
  return c;
}

std::optional<BestValidation> Report::best(const std::deque<TrialRecord>& trials) const {
  std::optional<BestValidation> found;
  bool found_full = false;
  double best_value = 0;
  const double sign = config_.searcher.smaller_is_better ? 1 : -1;
  for (std::uint32_t i = 0; i < trials.size(); ++i) {
    for (std::size_t k = 0; k < trials[i].validations.size(); ++k) {
      const Validation& v = trials[i].validations[k];
      if (std::isnan(v.metric)) continue;
      const bool full = v.length >= config_.searcher.max_length.units;
      if (found && found_full && !full) continue;
      if (!found || (full && !found_full) || sign * v.metric < sign * best_value) {
        found = BestValidation{i, k};
        found_full = full;
        best_value = v.metric;
      }
    }
  }
  return found;
}

fs::path Report::trial_directory(std::uint32_t index, const TrialRecord& trial) const {
  return directory_ / "trials" /
         (std::to_string(index + 1) + "-" + trial.id.to_string().substr(0, 8));
}

std::string Report::trial_name(std::uint32_t index, const TrialRecord& trial) const {
  return "trial " + std::to_string(trial_id_(index)) + " (" + trial.id.to_string() + ")";
}

std::string Report::failure_text(std::uint32_t index, const TrialRecord& trial) const {
  const nlohmann::json& failure = trial.last_failure;
  std::vector<std::string> tail;
  if (failure.contains("output_tail"))
    tail = failure["output_tail"].get<std::vector<std::string>>();
  return trial_name(index, trial) + ": " + failure.value("status", std::string("failed")) +
         shown_output_tail(tail);
}

std::string Report::length_text(std::uint64_t units) const {
  const std::string& unit = config_.searcher.max_length.unit;
  if (unit.empty()) return std::to_string(units);
  // batches, records, epochs: one batch, one record, one epoch.
  const bool one = units == 1 && unit.size() > 1 && unit.back() == 's';
  const std::string name = !one                ? unit
                           : unit == "batches" ? std::string("batch")
                                               : unit.substr(0, unit.size() - 1);
  return std::to_string(units) + " " + name;
}

std::string Report::checkpoint_text(const char* whose, const Checkpoint& checkpoint) const {
  return std::string(whose) + " checkpoint at " +
         (checkpoint.storage_id.empty() ? length_text(checkpoint.length)
                                        : "steps_completed " + std::to_string(checkpoint.length));
}

nlohmann::json Report::experiment_json(const char* state, const std::deque<TrialRecord>& trials,
                                       double progress, const DecisionStats& decisions) const {
  nlohmann::json list = nlohmann::json::array();
  for (std::uint32_t i = 0; i < trials.size(); ++i) {
    nlohmann::json t = to_json(trials[i]);
    t["trial"] = i + 1;
    t["outcome"] = outcome(i, trials[i]);
    t["directory"] = trial_directory(i, trials[i]).string();
    t.erase("target");
    t.erase("close_requested");
    t.erase("created");
    if (t.contains("job")) t["job"].erase("token");  // the channel's secret stays in the journal
    list.push_back(std::move(t));
  }
  nlohmann::json j{
      {"state", state},
      {"metric", config_.searcher.metric},
      {"smaller_is_better", config_.searcher.smaller_is_better},
      {"seed", seed_},
      {"progress", std::string_view(state) == "failed" ? reported_progress_ : progress},
      {"runner", runner_costs(decisions)},
      {"trials", std::move(list)}};
  if (const auto b = best(trials)) {
    const TrialRecord& t = trials[b->trial];
    const Validation& v = t.validations[b->validation];
    j["best"] = {{"trial", b->trial + 1},
                 {"trial_id", trial_id_(b->trial)},
                 {"request_id", t.id.to_string()},
                 {"hparams", t.hparams},
                 {"length", v.length},
                 {"metric", metric_to_json(v.metric)},
                 {"metrics", v.metrics},
                 {"checkpoint",
                  t.checkpoint ? nlohmann::json(t.checkpoint->path) : nlohmann::json(nullptr)}};
  }
  return j;
}

void Report::status(const std::deque<TrialRecord>& trials, double progress) {
  if (!terminal_) return;
  const auto now = std::chrono::steady_clock::now();
  if (status_drawn_ && now - last_status_ < std::chrono::milliseconds(500)) return;
  last_status_ = now;
  const OutcomeCounts c = counts(trials);
  std::ostringstream line;
  line << "running " << c.running << ", waiting " << c.waiting << ", paused " << c.paused
       << ", completed " << c.completed << ", stopped " << c.stopped << ", errored " << c.errored
       << "; progress " << static_cast<int>(progress * 100) << "%";
  if (const auto b = best(trials)) {
    line << "; best "
         << json_line(metric_to_json(trials[b->trial].validations[b->validation].metric))
         << " (trial " << trial_id_(b->trial) << ")";
  }
  err_ << "\r\033[K" << line.str() << std::flush;
  status_drawn_ = true;
}

void Report::clear_status() {
  if (terminal_ && status_drawn_) err_ << "\r\033[K" << std::flush;
  status_drawn_ = false;
}

void Report::summary(bool interrupted, bool failed, const std::deque<TrialRecord>& trials,
                     const std::string& continue_command, const std::string& error) {
  const OutcomeCounts c = counts(trials);
  // Trials killed on request (searcher-run trial ID --kill), in every form of the summary; said
  // only when there are some, so that every other summary reads as it did.
  const std::string killed_on_request =
      c.canceled > 0 ? ", " + std::to_string(c.canceled) + " killed on request" : std::string();
  std::ostringstream text;
  if (interrupted && killed_) {
    text << "killed: " << trials.size() << " trials (" << c.completed << " completed, " << c.stopped
         << " stopped, " << c.errored << " errored" << killed_on_request
         << "); the experiment is canceled and cannot be continued\n";
  } else if (interrupted) {
    text << "paused: " << trials.size() << " trials so far (" << c.completed << " completed, "
         << c.stopped << " stopped, " << c.errored << " errored" << killed_on_request
         << "); the state is saved in " << directory_.string() << "\ncontinue with: "
         << (continue_command.empty() ? "searcher-run resume " + directory_.string()
                                      : continue_command)
         << '\n';
  } else {
    text << "search " << (failed ? "failed" : "completed") << ": " << trials.size() << " trials ("
         << c.completed << " completed, " << c.stopped << " stopped early, " << c.errored
         << " errored, " << c.invalid << " with invalid hyperparameters" << killed_on_request
         << (c.waiting + c.paused > 0 ? ", " + std::to_string(c.waiting + c.paused) + " unfinished"
                                      : std::string())
         << ")\n";
    if (const auto b = best(trials)) {
      const TrialRecord& t = trials[b->trial];
      const Validation& v = t.validations[b->validation];
      text << "best " << trial_name(b->trial, t) << ": " << config_.searcher.metric << ' '
           << json_line(metric_to_json(v.metric)) << " at length " << v.length
           << "\n  hyperparameters " << json_line(t.hparams) << "\n  checkpoint "
           << (t.checkpoint ? t.checkpoint->path : std::string("(none)")) << '\n';
    }
    if (failed && !error.empty()) text << error << '\n';
    text << "details: " << (directory_ / "experiment.json").string() << '\n';
  }
  out_ << text.str();
  // The same in runner.log: the log alone tells how the run ended.
  std::istringstream lines(text.str());
  for (std::string line; std::getline(lines, line);) note(line);
  log_.flush();
}

}  // namespace hpsearch::runner_detail
