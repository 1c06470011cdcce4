// `searcher-run kill ID`: the experiment ends CANCELED. A running one gets SIGTERM twice (its
// trials are stopped at once); a paused one is marked so.
#include <csignal>
#include <fstream>
#include <ostream>

#include "commands/store_commands.hpp"
#include "store/store.hpp"

namespace hpsearch::store {

namespace {

int kill_experiment(const cli::Args& args, std::ostream& out, std::ostream&, bool) {
  const StopRequest request = stop_request(args);
  const std::uint64_t id = request.id;
  const double timeout = request.timeout;
  const Store store(default_root());
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
      throw StoreError("experiment " + std::to_string(id) + " did not stop within " +
                       std::to_string(static_cast<int>(timeout)) + " s (see its experiment.log)");
    }
  }
  // Paused, or its runner died: nothing records the end but this (CANCELED: it is marked).
  if (const Status after = store.status(id);
      !after.record.contains("ended") || after.record.value("state", "") == "PAUSED") {
    (void)store.record_end(id, -1);
  }
  out << "experiment " << id << " is " << store.status(id).state << '\n';
  return cli::kExitOk;
}

}  // namespace

const runner_cli::Command& kill_command() {
  static const runner_cli::Command command{
      "kill ID [--timeout S]", "its trials are stopped; it ends CANCELED",
      "Cancels an experiment: a running one's runner gets SIGTERM twice (its trials are stopped\n"
      "at once); a paused one is marked so. It ends CANCELED.\n",
      cli::OptionSet("kill").add(stop_option_group()).flag("--help", "this text"), kill_experiment};
  return command;
}

}  // namespace hpsearch::store
