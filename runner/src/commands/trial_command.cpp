// `searcher-run trial TRIAL_ID [--json | --metrics [--group G] | --logs [--from-byte N]]`: where a
// global trial id belongs (its experiment, its request id and index), from the store's trial
// index, and what its runner recorded of it (metrics.jsonl, output.log), for the SDK's
// get_trial() and any other client: none of them reads trials.jsonl or a trial's files itself
// (docs/store.md).
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <ostream>
#include <string>

#include "commands/cli_args.hpp"
#include "commands/store_commands.hpp"
#include "hpsearch/config/command_line.hpp"
#include "hpsearch/searcher/bounded_json.hpp"
#include "hpsearch/searcher/request_id.hpp"
#include "store/store.hpp"
#include "store/store_reads.hpp"

namespace hpsearch::store {
namespace {

namespace fs = std::filesystem;

/// The directory of the trial `entry` (the trial index's) names, in its experiment's run.
fs::path directory_of(const Store& store, const nlohmann::json& entry) {
  return trial_directory(store.directory(entry["experiment_id"].get<std::uint64_t>()) / "run",
                         entry["request_id"].get<std::string>());
}

// Marks the trial killed (RUN/kill_trials/REQUEST_ID: the runner reads the directory at its
// start and on SIGUSR1) and tells a running runner, which stops the trial and reports it to the
// searcher as user_canceled; a paused experiment's runner does so when it is activated.
int kill_trial(const Store& store, std::uint64_t trial_id, const nlohmann::json& entry,
               std::ostream& out) {
  const auto experiment_id = entry["experiment_id"].get<std::uint64_t>();
  // From the store's own index, but still a file name here: only a request id's form passes.
  const std::optional<RequestId> request = RequestId::parse(text_of(entry["request_id"]));
  if (!request) throw StoreError("trial " + std::to_string(trial_id) + " has no valid request id");
  const Status status = store.status(experiment_id);
  const std::string prefix =
      "trial " + std::to_string(trial_id) + " (experiment " + std::to_string(experiment_id) + ")";
  if (status.state == "COMPLETED" || status.state == "ERROR" || status.state == "CANCELED") {
    out << prefix << ": its experiment has already ended: " << status.state << '\n';
    return cli::kExitOk;
  }
  const fs::path marks = store.directory(experiment_id) / "run" / "kill_trials";
  // Not create_directories: an experiment deleted meanwhile (its run/ gone) is not made again.
  std::error_code error;
  fs::create_directory(marks, error);
  std::ofstream mark(marks / request->to_string());
  mark << utc_now() << '\n';
  mark.close();
  if (error || !mark) {
    throw StoreError("trial " + std::to_string(trial_id) + ": cannot write " +
                     (marks / request->to_string()).string() +
                     (error ? ": " + error.message() : std::string()));
  }
  // Signalled only once its runner catches SIGUSR1 (whose default would end it): a runner that
  // has not yet installed its handler reads the marks right after installing it, so the mark,
  // written first, is seen either way.
  if (store.signal_runner(experiment_id, SIGUSR1, true)) {
    out << prefix << " is killed: its runner stops it now\n";
  } else if (store.status(experiment_id).alive) {
    out << prefix << " is marked killed: its runner stops it once it has started\n";
  } else {
    out << prefix << " will be killed when the experiment is activated\n";
  }
  return cli::kExitOk;
}

int show_trial(const cli::Args& parsed, std::ostream& out, std::ostream&, bool) {
  const Store store(default_root());
  const std::string text = parsed.argument("TRIAL_ID");
  std::uint64_t trial_id = 0;
  try {
    trial_id = parse_experiment_id(text);  // the same form: a positive integer
  } catch (const StoreError&) {
    throw StoreError("'" + text + "' is not a trial id (a positive integer)");
  }
  if (static_cast<int>(parsed.flag("--json")) + static_cast<int>(parsed.flag("--metrics")) +
          static_cast<int>(parsed.flag("--logs")) + static_cast<int>(parsed.flag("--kill")) >
      1)
    throw UsageError("trial: --json, --metrics, --logs and --kill exclude each other");
  if (parsed.has("--group") && !parsed.flag("--metrics"))
    throw UsageError("trial: --group is for --metrics");
  if (parsed.has("--from-byte") && !parsed.flag("--logs"))
    throw UsageError("trial: --from-byte is for --logs");
  const nlohmann::json entry = store.find_trial(trial_id);
  if (parsed.flag("--kill")) return kill_trial(store, trial_id, entry, out);
  if (parsed.flag("--metrics")) {
    out << trial_metrics(directory_of(store, entry), parsed.value("--group")).dump() << '\n';
  } else if (parsed.flag("--logs")) {
    copy_trial_log(
        directory_of(store, entry),
        parsed.count("--from-byte", 0, std::numeric_limits<std::int64_t>::max()).value_or(0),
        std::numeric_limits<std::uint64_t>::max(), out);
  } else if (parsed.flag("--json")) {
    out << entry.dump() << '\n';
  } else {
    out << "trial " << trial_id << ": experiment " << entry["experiment_id"].dump() << ", request "
        << text_of(entry["request_id"]) << ", index " << entry["index"].dump() << '\n';
  }
  return cli::kExitOk;
}

}  // namespace

const runner_cli::Command& trial_command() {
  static const runner_cli::Command command{
      "trial TRIAL_ID [--json | --metrics [--group G] | --logs [--from-byte N] | --kill]",
      "a global trial id's experiment, request id and index; its metrics and output",
      "Shows where global trial id TRIAL_ID belongs: its experiment, its request id and its\n"
      "index, from the store's trial index (trials.jsonl). A trial of a deleted experiment is\n"
      "not found. --metrics prints the trial's metric reports (a JSON array, in the order\n"
      "reported: {\"group\", \"steps_completed\", \"metrics\", \"time\"}); --logs its output\n"
      "(stdout and stderr of every launch) as it is, from byte N on with --from-byte.\n"
      "--kill stops the trial (Determined's `det trial kill`); a paused experiment's trial\n"
      "is canceled when the experiment is activated.\n",
      cli::OptionSet("trial")
          .argument("TRIAL_ID", "the trial's global id, as `searcher-run describe` shows it")
          .flag("--json", "print {\"trial_id\", \"experiment_id\", \"request_id\", \"index\"}")
          .flag("--metrics", "print the trial's metric reports as a JSON array")
          .value("--group", "G", "--metrics: only the reports of group G (training, validation)")
          .flag("--logs", "print the trial's output")
          .value("--from-byte", "N", "--logs: from byte N of the output on (default 0)")
          .flag("--kill",
                "kill the trial: it is stopped at once and reported to the searcher as\n"
                "canceled (user_canceled); the search goes on")
          .flag("--help", "this text"),
      show_trial};
  return command;
}

}  // namespace hpsearch::store
