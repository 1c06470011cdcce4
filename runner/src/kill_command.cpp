// `searcher-run kill ID`: the experiment ends CANCELED. A running one gets SIGTERM twice (its
// trials are stopped at once); a paused one is marked so.
#include <csignal>
#include <fstream>
#include <ostream>

#include "cli_args.hpp"
#include "hpsearch/config/command_line.hpp"
#include "store.hpp"
#include "store_commands.hpp"

namespace hpsearch::store {

int kill_command(const std::vector<std::string>& args, std::ostream& out, std::ostream&, bool) {
  const runner_cli::Parsed parsed = runner_cli::parse(args, {"--timeout"});
  if (parsed.positional.size() != 1) throw UsageError("kill takes one experiment id");
  const double timeout = parsed.values.contains("--timeout") ? parse_nonnegative("--timeout", parsed.values.at("--timeout")) : 120;
  const Store store(default_root());
  const std::uint64_t id = parse_experiment_id(parsed.positional.front());
  const Status before = store.status(id);
  if (before.state == "COMPLETED" || before.state == "ERROR" || before.state == "CANCELED") {
    out << "experiment " << id << " has already ended: " << before.state << '\n';
    return 0;
  }
  // The mark first: whatever way the runner ends from here, the end is CANCELED.
  std::ofstream(store.directory(id) / "kill_requested") << utc_now() << '\n';
  if (store.signal_runner(id, SIGTERM)) {
    store.signal_runner(id, SIGTERM);  // the second stops the trials at once
    if (!wait_until([&] { return !store.status(id).alive; }, timeout)) {
      throw StoreError("experiment " + std::to_string(id) + " did not stop within " + std::to_string(static_cast<int>(timeout)) +
                       " s (see its experiment.log)");
    }
  }
  // Paused, or its runner died: nothing records the end but this (CANCELED: it is marked).
  if (const Status after = store.status(id); !after.record.contains("ended") || after.record.value("state", "") == "PAUSED") {
    store.record_end(id, -1);
  }
  out << "experiment " << id << " is " << store.status(id).state << '\n';
  return 0;
}

}  // namespace hpsearch::store
