// `searcher-run kill ID`: the experiment ends CANCELED. A running one is marked, then its runner
// gets SIGTERM and, finding the mark, stops its trials at once; a paused one is marked so.
#include <ostream>

#include "commands/store_commands.hpp"
#include "store/store.hpp"
#include "store/store_control.hpp"

namespace hpsearch::store {

namespace {

int kill_experiment(const cli::Args& args, std::ostream& out, std::ostream&, bool) {
  const StopRequest request = stop_request(args);
  const std::uint64_t id = request.id;
  const double timeout = request.timeout;
  const Store store(default_root());
  const KillStart start = request_kill(store, id);
  if (start == KillStart::kAlreadyEnded) {
    out << "experiment " << id << " has already ended: " << store.status(id).state << '\n';
    return 0;
  }
  if (start == KillStart::kSignalled) {
    if (!wait_until([&] { return !store.status(id).alive; }, timeout)) {
      throw StoreError("experiment " + std::to_string(id) + " did not stop within " +
                       std::to_string(static_cast<int>(timeout)) + " s (see its experiment.log)");
    }
    finish_kill(store, id);
  }
  out << "experiment " << id << " is " << store.status(id).state << '\n';
  return cli::kExitOk;
}

}  // namespace

const runner_cli::Command& kill_command() {
  static const runner_cli::Command command{
      "kill ID [--timeout S]", "its trials are stopped; it ends CANCELED",
      "Cancels an experiment: a running one is marked killed and its runner gets SIGTERM (its\n"
      "trials are stopped at once, with no checkpoint); a paused one is marked so. It ends\n"
      "CANCELED and cannot be activated.\n",
      cli::OptionSet("kill").add(stop_option_group()).flag("--help", "this text"), kill_experiment};
  return command;
}

}  // namespace hpsearch::store
