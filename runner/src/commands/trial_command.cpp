// `searcher-run trial TRIAL_ID [--json | --metrics [--group G] | --logs [--from-byte N]]`: where a
// global trial id belongs (its experiment, its request id and index), from the store's trial
// index, and what its runner recorded of it (metrics.jsonl, output.log), for the SDK's
// get_trial() and any other client: none of them reads trials.jsonl or a trial's files itself
// (docs/store.md).
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
#include "store/store.hpp"

namespace hpsearch::store {
namespace {

namespace fs = std::filesystem;

/// The trial's directory in its run (run/trials/N-REQUEST8, as the runner names it: its
/// request id's first 8 characters), or empty before the runner made it.
fs::path trial_directory(const Store& store, const nlohmann::json& entry) {
  const fs::path trials =
      store.directory(entry["experiment_id"].get<std::uint64_t>()) / "run" / "trials";
  std::string suffix = "-";  // appended, not "-" + ...: GCC 12 warns wrongly (-Wrestrict) on that
  suffix += entry["request_id"].get<std::string>().substr(0, 8);
  std::error_code error;
  for (const fs::directory_entry& d : fs::directory_iterator(trials, error)) {
    if (d.is_directory(error) && d.path().filename().string().ends_with(suffix)) return d.path();
  }
  return {};
}

/// The trial's metric reports (its metrics.jsonl, a line cut short by a crash skipped), those
/// of `group` only if given, as a JSON array in the order reported.
nlohmann::json metrics_of(const fs::path& directory, const std::optional<std::string>& group) {
  nlohmann::json reports = nlohmann::json::array();
  if (directory.empty()) return reports;
  std::ifstream in(directory / "metrics.jsonl");
  for (std::string line; std::getline(in, line);) {
    nlohmann::json report = parse_json_or_discarded(line);
    if (report.is_discarded() || !report.is_object()) continue;
    if (group && report.value("group", std::string()) != *group) continue;
    reports.push_back(std::move(report));
  }
  return reports;
}

/// output.log from byte `from` on, as it is (bytes; a follower asks again from where it ended).
void print_logs(const fs::path& directory, std::uint64_t from, std::ostream& out) {
  if (directory.empty()) return;
  std::ifstream in(directory / "output.log", std::ios::binary);
  if (!in) return;
  in.seekg(static_cast<std::streamoff>(from));
  if (in) out << in.rdbuf();
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
    out << metrics_of(trial_directory(store, entry), parsed.value("--group")).dump() << '\n';
  } else if (parsed.flag("--logs")) {
    print_logs(trial_directory(store, entry),
               parsed.count("--from-byte", 0, std::numeric_limits<std::int64_t>::max()).value_or(0),
               out);
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
