// `searcher-run delete ID`: removes an experiment that is not running, with its checkpoints
// and its trial ids.
#include <ostream>

#include "cli_args.hpp"
#include "hpsearch/config/command_line.hpp"
#include "store.hpp"
#include "store_commands.hpp"

namespace hpsearch::store {

namespace {

int delete_experiment(const cli::Args& parsed, std::ostream& out, std::ostream&, bool) {
  const Store store(default_root());
  const std::uint64_t id = parse_experiment_id(parsed.argument("ID"));
  const std::filesystem::path dir = store.directory(id);
  if (const Status status = store.status(id); status.alive) {
    throw StoreError("experiment " + std::to_string(id) + " is " + status.state +
                     ": pause or kill it before deleting it");
  }
  // Renamed away first, so a half-finished removal never looks like an experiment.
  const std::filesystem::path doomed = store.root() / "experiments" / (".deleting-" + std::to_string(id));
  std::filesystem::rename(dir, doomed);
  store.forget_trials(id);
  std::filesystem::remove_all(doomed);
  out << "experiment " << id << " deleted\n";
  return cli::kExitOk;
}

}  // namespace

const runner_cli::Command& delete_command() {
  static const runner_cli::Command command{
      "delete ID", "removes an experiment that is not running",
      "Removes experiment ID from the store: its directory, checkpoints and trial ids. A running\n"
      "(ACTIVE) experiment is refused: pause or kill it first.\n",
      cli::OptionSet("delete").add(runner_cli::experiment_id_argument()).flag("--help", "this text"),
      delete_experiment};
  return command;
}

}  // namespace hpsearch::store
