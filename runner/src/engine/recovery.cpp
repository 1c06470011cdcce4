// Resume (engine/experiment_impl.hpp): what the old run left is killed; the snapshot is
// restored and the journal's tail replayed, every answer checked; jobs are reattached.
#include "engine/experiment_impl.hpp"

#include <fstream>

#include "hpsearch/runner/journal.hpp"
#include "hpsearch/searcher/bounded_json.hpp"

namespace hpsearch::runner_detail {

// Resuming: what the old run left is killed; then snapshot, then the journal's tail, each
// answer checked.
void Experiment::recover() {
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
  const std::filesystem::path journal_path = directory_ / "journal.jsonl";
  const JournalContents journal = read_journal(journal_path);
  replaying_ = true;
  const std::uint64_t replayed = searcher_.replay_journal(
      journal, journal_path.string(), [this](const ReplayedRecord& r) { replay(r); });
  replaying_ = false;
  // Replayed, so the records before the first zero byte are the run's (a journal missing
  // records the snapshot counts was refused above, untouched): cut back to them, a torn
  // tail or the spare space of a run that did not close the journal.
  if (journal.after_zero) {
    // Writes never synced that a crash left after the zeros: nothing acted on them, but they
    // are kept aside, not deleted (docs/store.md, "Spare space").
    // A name of its own: an earlier crash's remnants at the same place are not replaced.
    const std::string name = "journal.jsonl.after-zero-" + std::to_string(journal.spare_from);
    std::filesystem::path aside = directory_ / name;
    for (int n = 2; std::filesystem::exists(aside); ++n) {
      aside = directory_ / (name + "." + std::to_string(n));
    }
    keep_after_zero(journal_path, journal.spare_from, aside);
    report_.log(
        "the journal holds bytes after its first zero byte, written and never synced "
        "before the crash; nothing acted on them; kept in " +
        aside.string());
  } else if (journal.torn_tail) {
    report_.log(
        "the journal ends in a record cut short by the crash; it was never acted on and is "
        "dropped");
  }
  if (journal.torn_tail || journal.spare_space) truncate_journal(journal_path, journal.valid_bytes);
  searcher_.open(directory_ / "journal.jsonl");
  for (std::uint32_t i = 0; i < trials_.size(); ++i) {
    metrics_.load(i, report_.trial_directory(i, trials_[i]) / "metrics.jsonl");
    // What the experiment recorded says whether a trial has ever reported (fail fast).
    const TrialRecord& t = trials_[i];
    if (!t.validations.empty() || t.checkpoint || !metrics_.curve(i).empty() ||
        t.exit_reason == ExitedReason::kInvalidHp)
      reported_ = true;
  }
  report_.log("resumed: " + std::to_string(trials_.size()) + " trials, " +
              std::to_string(replayed) + " journal records replayed after the snapshot (record " +
              std::to_string(searcher_.snapshot_seq()) + "), every answer identical");
  // Said when it happened, in the run that saw it.
  sampler_switch_noted_ = sampler_switch().has_value();
  // The progress recorded before the pause is not journaled: the searcher's after the replay
  // stands for it (a failed run records the last reported one: Report::experiment_json).
  report_.note_reported_progress(searcher_.progress());
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
void Experiment::reattach(std::uint32_t i) {
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
  launches_[i].slot = supervisor_.slot(i);
}

void Experiment::replay(const ReplayedRecord& record) {
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

}  // namespace hpsearch::runner_detail
