// `searcher-run trial TRIAL_ID [--json | --metrics [--group G] | --logs [--from-byte N]]`: where a
// global trial id belongs (its experiment, its request id and index), from the store's trial
// index, and what its runner recorded of it (metrics.jsonl, output.log), for the SDK's
// get_trial() and any other client: none of them reads trials.jsonl or a trial's files itself
// (docs/store.md).
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <ostream>
#include <string>

#include "commands/cli_args.hpp"
#include "commands/store_commands.hpp"
#include "hpsearch/config/command_line.hpp"
#include "hpsearch/searcher/bounded_json.hpp"
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
          static_cast<int>(parsed.flag("--logs")) >
      1)
    throw UsageError("trial: --json, --metrics and --logs exclude each other");
  if (parsed.has("--group") && !parsed.flag("--metrics"))
    throw UsageError("trial: --group is for --metrics");
  if (parsed.has("--from-byte") && !parsed.flag("--logs"))
    throw UsageError("trial: --from-byte is for --logs");
  const nlohmann::json entry = store.find_trial(trial_id);
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
      "trial TRIAL_ID [--json | --metrics [--group G] | --logs [--from-byte N]]",
      "a global trial id's experiment, request id and index; its metrics and output",
      "Shows where global trial id TRIAL_ID belongs: its experiment, its request id and its\n"
      "index, from the store's trial index (trials.jsonl). A trial of a deleted experiment is\n"
      "not found. --metrics prints the trial's metric reports (a JSON array, in the order\n"
      "reported: {\"group\", \"steps_completed\", \"metrics\", \"time\"}); --logs its output\n"
      "(stdout and stderr of every launch) as it is, from byte N on with --from-byte.\n",
      cli::OptionSet("trial")
          .argument("TRIAL_ID", "the trial's global id, as `searcher-run describe` shows it")
          .flag("--json", "print {\"trial_id\", \"experiment_id\", \"request_id\", \"index\"}")
          .flag("--metrics", "print the trial's metric reports as a JSON array")
          .value("--group", "G", "--metrics: only the reports of group G (training, validation)")
          .flag("--logs", "print the trial's output")
          .value("--from-byte", "N", "--logs: from byte N of the output on (default 0)")
          .flag("--help", "this text"),
      show_trial};
  return command;
}

}  // namespace hpsearch::store
