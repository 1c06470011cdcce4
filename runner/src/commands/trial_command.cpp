// `searcher-run trial TRIAL_ID [--json]`: where a global trial id belongs (its experiment, its
// request id and index), from the store's trial index, for the SDK's get_trial() and any other
// client: none of them reads trials.jsonl itself (docs/store.md).
#include <ostream>

#include "commands/cli_args.hpp"
#include "commands/store_commands.hpp"
#include "hpsearch/config/command_line.hpp"
#include "store/store.hpp"

namespace hpsearch::store {
namespace {

int show_trial(const cli::Args& parsed, std::ostream& out, std::ostream&, bool) {
  const Store store(default_root());
  const std::string text = parsed.argument("TRIAL_ID");
  std::uint64_t trial_id = 0;
  try {
    trial_id = parse_experiment_id(text);  // the same form: a positive integer
  } catch (const StoreError&) {
    throw StoreError("'" + text + "' is not a trial id (a positive integer)");
  }
  const nlohmann::json entry = store.find_trial(trial_id);
  if (parsed.flag("--json")) {
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
      "trial TRIAL_ID [--json]", "a global trial id's experiment, request id and index",
      "Shows where global trial id TRIAL_ID belongs: its experiment, its request id and its\n"
      "index, from the store's trial index (trials.jsonl). A trial of a deleted experiment is\n"
      "not found.\n",
      cli::OptionSet("trial")
          .argument("TRIAL_ID", "the trial's global id, as `searcher-run describe` shows it")
          .flag("--json", "print {\"trial_id\", \"experiment_id\", \"request_id\", \"index\"}")
          .flag("--help", "this text"),
      show_trial};
  return command;
}

}  // namespace hpsearch::store
