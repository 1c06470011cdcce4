// `searcher-run status --dir DIR [--json]`: how a `run --dir` experiment stands, read-only.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

#include "commands/cli_args.hpp"
#include "engine/run_directory.hpp"
#include "hpsearch/config/config.hpp"
#include "hpsearch/searcher/json_lines.hpp"
#include "hpsearch/searcher/json_number.hpp"
#include "ui/experiment_view.hpp"

namespace hpsearch::runner_cli {
namespace {

namespace fs = std::filesystem;

// What the run directory says now. The trials come from the journal as it stands (the web UI's
// reading of it, ui::ExperimentView), so a live run is seen up to its last synced record, not
// as of its last snapshot; experiment.json adds how an ended run ended.
nlohmann::json status_json(const fs::path& directory) {
  if (!fs::is_regular_file(directory / "run.json"))
    throw runner_detail::no_experiment_in(directory);
  const ExperimentConfig config = load_config(directory / "config.yaml");
  ui::ExperimentView view(directory / "journal.jsonl", directory / "experiment.json",
                          config.searcher.smaller_is_better);
  view.refresh();
  const std::optional<long> holder = runner_detail::runner_lock_holder(directory);
  const nlohmann::json& record = view.run_record();
  const std::string recorded =
      record.is_object() ? record.value("state", std::string()) : std::string();

  std::string state;
  if (holder) {
    state = "running";
  } else if (recorded == "completed" || recorded == "failed") {
    state = recorded;
  } else if (const nlohmann::json& shutdown = view.shutdown(); !shutdown.is_null()) {
    state = shutdown.value("failure", false) ? "failed" : "completed";
  } else {
    state = "paused";  // no runner holds it: resume continues it
  }

  // In the words of the run's own summary: completed (closed after a validation at
  // max_length), stopped early (closed before, by the searcher or by its script), failed
  // (errored), ...
  std::uint64_t completed = 0, stopped = 0, running = 0, waiting = 0, failed = 0, invalid = 0,
                canceled = 0;
  const std::uint64_t max_length = config.searcher.max_length.units;
  for (const ui::TrialView& t : view.trials()) {
    if (t.state == "ERROR") {
      ++failed;
    } else if (t.state == "CANCELED") {
      ++canceled;
    } else if (t.state == "COMPLETED") {
      const bool full = !t.validations.empty() && t.validations.back().length >= max_length;
      if (t.exit_reason == "invalid_hp") {
        ++invalid;
      } else {
        ++(full && t.exit_reason.empty() ? completed : stopped);
      }
    } else if (holder && t.running) {
      ++running;
    } else {
      ++waiting;
    }
  }
  nlohmann::json j{{"directory", fs::absolute(directory).string()},
                   {"state", state},
                   {"runner_pid", holder ? nlohmann::json(*holder) : nlohmann::json(nullptr)},
                   {"metric", config.searcher.metric},
                   {"smaller_is_better", config.searcher.smaller_is_better},
                   {"trials",
                    {{"total", view.trials().size()},
                     {"completed", completed},
                     {"stopped", stopped},
                     {"running", running},
                     {"waiting", waiting},
                     {"failed", failed},
                     {"invalid_hp", invalid},
                     {"canceled", canceled}}},
                   {"best", nullptr}};
  if (const std::optional<std::uint32_t> best = view.best_trial()) {
    const ui::TrialView& t = *view.trial(*best);
    const ui::ValidationPoint& v = t.validations[*t.best];
    j["best"] = {{"trial", t.index},
                 {"request_id", t.request_id},
                 {"metric", metric_to_json(v.metric)},
                 {"length", v.length},
                 {"hparams", t.hparams}};
  }
  if (state == "failed" && record.contains("failure")) j["failure"] = record["failure"];
  if (!view.error().empty()) j["unreadable"] = view.error();
  return j;
}

void print_status(const nlohmann::json& j, std::ostream& out) {
  const std::string& state = j["state"].get_ref<const std::string&>();
  const std::string directory = j["directory"].get<std::string>();
  out << "experiment in " << directory << ": " << state;
  if (state == "running") {
    out << " (runner pid " << j["runner_pid"] << ")";
  } else if (state == "paused") {
    out << " (no runner holds it; continue it with: searcher-run resume " << directory << ")";
  }
  out << '\n';
  const nlohmann::json& t = j["trials"];
  out << "trials: " << t["total"] << " (" << t["completed"] << " completed, " << t["stopped"]
      << " stopped early, " << t["running"] << " running, " << t["waiting"] << " waiting, "
      << t["failed"] << " failed";
  if (t["invalid_hp"] != 0) out << ", " << t["invalid_hp"] << " with invalid hyperparameters";
  if (t["canceled"] != 0) out << ", " << t["canceled"] << " canceled";
  out << ")\n";
  if (const nlohmann::json& b = j["best"]; b.is_object()) {
    out << "best so far: trial " << b["trial"] << " (" << b["request_id"].get<std::string>()
        << "): " << j["metric"].get<std::string>() << ' ' << json_line(b["metric"]) << " at length "
        << b["length"] << "\n  hyperparameters " << json_line(b["hparams"]) << '\n';
  } else {
    out << "best so far: none (no validation yet)\n";
  }
  if (j.contains("failure")) out << j["failure"].get<std::string>() << '\n';
  if (j.contains("unreadable"))
    out << "the journal could not be read to its end: " << j["unreadable"].get<std::string>()
        << '\n';
}

int status(const cli::Args& args, std::ostream& out, std::ostream&, bool) {
  const nlohmann::json j = status_json(fs::path(args.required("--dir")));
  if (args.flag("--json")) {
    out << json_line(j) << '\n';
  } else {
    print_status(j, out);
  }
  return cli::kExitOk;
}

}  // namespace

const Command& status_command() {
  static const Command command{
      "status --dir DIR [--json]", "how a `run --dir` experiment stands (read-only)",
      "Shows the experiment in DIR (a `searcher-run run --dir` experiment): its state (running:\n"
      "a runner holds it; paused: none does and `resume` continues it; completed; failed), its\n"
      "trials (completed, running, waiting, failed) as its journal stands now, and the best\n"
      "searcher metric any validation has reported so far, with its trial and hyperparameters.\n"
      "It only reads: it never takes the runner's lock (it looks the lock up in /proc/locks)\n"
      "and writes nothing, so it is safe beside a live run.\n",
      cli::OptionSet("status")
          .value("--dir", "DIR", "the experiment directory `run` was given, required")
          .flag("--json", "print it as one JSON object")
          .flag("--help", "this text"),
      status};
  return command;
}

}  // namespace hpsearch::runner_cli
