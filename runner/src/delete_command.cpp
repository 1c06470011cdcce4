// `searcher-run delete ID`: removes an experiment that is not running, with its checkpoints
// and its trial ids.
#include <ostream>

#include "cli_args.hpp"
#include "hpsearch/config/command_line.hpp"
#include "store.hpp"
#include "store_commands.hpp"

namespace hpsearch::store {

int delete_command(const std::vector<std::string>& args, std::ostream& out, std::ostream&, bool) {
  const runner_cli::Parsed parsed = runner_cli::parse(args, {});
  if (parsed.positional.size() != 1) throw UsageError("delete takes one experiment id");
  const Store store(default_root());
  const std::uint64_t id = parse_experiment_id(parsed.positional.front());
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
  return 0;
}

}  // namespace hpsearch::store
