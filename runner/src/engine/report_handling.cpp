// A trial's report lines and exits (engine/experiment_impl.hpp): progress, metrics,
// validations, checkpoints, protocol errors, failures and restarts.
#include "engine/experiment_impl.hpp"

#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

#include "hpsearch/searcher/json_lines.hpp"
#include "hpsearch/searcher/json_number.hpp"

namespace hpsearch::runner_detail {

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

void Experiment::on_report(std::uint32_t i, const std::string& line) {
  if (launches_[i].broke_protocol.empty()) handle_report(i, line);
  if (!reported_) first_report();
}

void Experiment::on_oversized_report(std::uint32_t i, const std::string& head) {
  broke_protocol(i, head, "a line longer than 1 MiB");
  if (!reported_) first_report();
}

void Experiment::handle_report(std::uint32_t i, const std::string& line) {
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
    report_.note_reported_progress(searcher_.progress());
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
                                ", but it was asked to train to " + std::to_string(*l.sent_target));
    }
    l.sent_target.reset();
    t.target.reset();
    report_.log(name(i) + " validated at " + std::to_string(v->length) + ": " +
                config_.searcher.metric + " " + json_line(metric_to_json(v->metric)));
    dirty_.push_back(i);
    ++validations_handled_;  // the runner's cost per operation: deliver_batch measures it
    metrics_.note_searcher_value(v->metric);
    // The operation carries the searcher metric; the validation metrics the trial reported
    // at the same length complete it.
    nlohmann::json all = metrics_.validation_metrics_at(i, v->length);
    all.update(v->metrics);
    feed(ValidationCompleted{t.id, v->metric, v->length}, all);
    reconcile(i);
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
    write_to_trial(i, json_line(answer) + '\n', true);
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
void Experiment::validated_by_metrics(std::uint32_t i, const std::string& line,
                                      const MetricsReport& m) {
  TrialRecord& t = trials_[i];
  const std::string& time_metric = config_.searcher.time_metric;
  double time = static_cast<double>(m.steps_completed);
  if (m.metrics.contains(time_metric)) {
    const std::optional<double> value = metric_from_json(m.metrics.at(time_metric));
    if (!value || !std::isfinite(*value)) {
      return broke_protocol(i, line,
                            "its time_metric '" + time_metric + "' must be a finite number, got " +
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

// Determined 0.38's single/random/grid without max_length: the trial's run is its one
// validate_after, completed when the script ends (exit 0) with the last searcher metric it
// reported. False when it reported none.
bool Experiment::validated_by_its_end(std::uint32_t i) {
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
void Experiment::checkpointed(std::uint32_t i, const std::string& line, const CheckpointReport& c) {
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
  append_runner_record_text("checkpoint", checkpoint_record_json(*t.checkpoint, t.id));
}

// A checkpoint in storage is gone: the trial's latest becomes the one before it.
void Experiment::forget_checkpoint(std::uint32_t i, const std::string& storage_id) {
  TrialRecord& t = trials_[i];
  std::erase_if(t.stored, [&](const Checkpoint& c) { return c.storage_id == storage_id; });
  if (t.checkpoint && t.checkpoint->storage_id == storage_id) {
    t.checkpoint.reset();
    if (!t.stored.empty()) t.checkpoint = t.stored.back();
  }
}

void Experiment::broke_protocol(std::uint32_t i, const std::string& line, const std::string& why) {
  LaunchState& l = launches_[i];
  if (!l.broke_protocol.empty()) return;
  l.broke_protocol = why;
  report_.log(name(i) + " broke the trial protocol: it sent '" + line.substr(0, 200) + "': " + why +
              "; stopping it");
  supervisor_.terminate(i, true);
}

void Experiment::on_refused(const std::string& who) {
  report_.log("refused a connection from " + who +
              ": its first line was not a hello with the token of a running trial");
}

void Experiment::on_notice(const std::string& text) {
  report_.log(text);
}

void Experiment::take_trial_kills() {
  std::error_code error;
  for (const fs::directory_entry& entry :
       fs::directory_iterator(directory_ / "kill_trials", error)) {
    const std::optional<RequestId> id = RequestId::parse(entry.path().filename().string());
    const std::optional<std::uint32_t> found = id ? index_.find(*id) : std::nullopt;
    if (!found) continue;  // not a trial of this experiment: nothing to do
    const std::uint32_t i = *found;
    TrialRecord& t = trials_[i];
    LaunchState& l = launches_[i];
    if (!t.created || t.closed || t.exit_reason || l.kill_requested) continue;
    l.kill_requested = true;
    if (supervisor_.is_running(i)) {
      report_.log(name(i) + " is killed on request: stopping it now");
      supervisor_.terminate(i, true);
    } else {
      report_.log(name(i) + " is killed on request; it is reported to the searcher as canceled");
      feed(TrialExitedEarly{t.id, ExitedReason::kUserCanceled});
      if (!t.closed) feed(TrialClosed{t.id});
    }
  }
}

void Experiment::on_exited(std::uint32_t i, const ExitStatus& status) {
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
  // A kill wins over anything else that ended it (a preemption would relaunch it).
  if (l.kill_requested && !t.closed && !t.exit_reason) {
    report_.log(name(i) + " was killed on request (" + status.describe() +
                "); it is reported to the searcher as canceled, not restarted");
    feed(TrialExitedEarly{t.id, ExitedReason::kUserCanceled});
    if (!t.closed) feed(TrialClosed{t.id});
    return;
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
  const fs::path log = report_.trial_directory(i, t) / "output.log";
  if (!l.broke_protocol.empty()) {
    failed(i, "it broke the trial protocol (" + l.broke_protocol + ")", output_tail(log, 10));
    return;
  }
  if (interrupted_ && l.pause_sent) {
    report_.log(name(i) + " paused (" + status.describe() + ")");
    return;  // its work, if any, is relaunched on resume
  }
  if (l.silent) {
    failed(i, "it sent nothing for " + timeout_text() + " s (--trial-timeout)",
           output_tail(log, 10));
    return;
  }
  if (!status.success()) {
    const std::vector<std::string> tail = output_tail(log, 10);
    report_.log(name(i) + " ended with " + status.describe() + shown_output_tail(tail));
    failed(i, status.describe(), tail);
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
// experiment.json keeps why and its last lines of output (`last_failure`).
void Experiment::failed(std::uint32_t i, const std::string& why,
                        const std::vector<std::string>& tail) {
  TrialRecord& t = trials_[i];
  t.last_failure = {{"status", why}, {"output_tail", tail}};
  if (!t.target) {
    report_.log(name(i) + " failed after its operation was done (" + why + "); nothing is lost");
    reconcile(i);
    return;
  }
  if (!reported_ && held_before_any_report(i, why)) return;
  if (t.restarts < config_.max_restarts) {
    ++t.restarts;
    append_runner_record("restart", {{"request_id", t.id.to_string()}, {"why", why}});
    report_.log(
        name(i) + " failed: " + why + "; restarting from " +
        (t.checkpoint ? report_.checkpoint_text("its", *t.checkpoint) : std::string("scratch")) +
        " (restart " + std::to_string(t.restarts) + " of " + std::to_string(config_.max_restarts) +
        ")");
    reconcile(i);
    return;
  }
  report_.log(name(i) + " failed: " + why + "; it has used its " +
              std::to_string(config_.max_restarts) + " restarts, so it is reported as errored");
  feed(TrialExitedEarly{t.id, ExitedReason::kErrored});
  if (!t.closed) feed(TrialClosed{t.id});
}

bool Experiment::held_before_any_report(std::uint32_t i, const std::string& why) {
  if (!first_failure_) first_failure_ = i;
  unreported_failed_.insert(i);
  if (unreported_failed_.size() < kFailedTrialsBeforeHold) return false;
  launches_[i].held = true;
  held_failures_.push_back(HeldFailure{i, why});
  report_.log(name(i) + " failed: " + why + "; " + std::to_string(unreported_failed_.size()) +
              " trials have failed and no trial has reported anything yet, so it is held, not "
              "restarted, and no trial is launched until one still running reports (if none "
              "does, the run stops)");
  return true;
}

void Experiment::first_report() {
  reported_ = true;
  if (held_failures_.empty()) return;
  report_.log("a trial has reported: the " + std::to_string(held_failures_.size()) +
              " held failure(s) are handled as any failure, and launches go on");
  const std::vector<HeldFailure> held = std::exchange(held_failures_, {});
  for (const HeldFailure& h : held) {
    launches_[h.trial].held = false;
    failed(h.trial, h.why,
           trials_[h.trial].last_failure.at("output_tail").get<std::vector<std::string>>());
  }
}

}  // namespace hpsearch::runner_detail
