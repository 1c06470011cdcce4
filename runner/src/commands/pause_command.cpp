// `searcher-run pause ID`: the runner gets SIGTERM, as on Ctrl-C: its trials checkpoint and
// exit, it saves its state and ends PAUSED (`activate` resumes it).
#include <ostream>

#include "commands/cli_args.hpp"
#include "commands/store_commands.hpp"
#include "hpsearch/config/command_line.hpp"
#include "store/store.hpp"
#include "store/store_control.hpp"

namespace hpsearch::store {

const cli::OptionSet& stop_option_group() {
  static const cli::OptionSet group = [] {
    cli::OptionSet o("stop");
    o.add(runner_cli::experiment_id_argument())
        .value("--timeout", "S", "seconds to wait for its runner to exit (default 120)");
    return o;
  }();
  return group;
}

StopRequest stop_request(const cli::Args& args) {
  return {parse_experiment_id(args.argument("ID")), args.nonnegative("--timeout").value_or(120.0)};
}

namespace {

int pause_experiment(const cli::Args& args, std::ostream& out, std::ostream&, bool) {
  const StopRequest request = stop_request(args);
  const std::uint64_t id = request.id;
  const double timeout = request.timeout;
  const Store store(default_root());
  if (!request_pause(store, id)) {
    out << "experiment " << id << " is already PAUSED\n";
    return 0;
  }
  // Its trials get --pause-seconds (30 by default) to checkpoint before they are killed.
  if (!wait_until([&] { return !store.status(id).alive; }, timeout)) {
    throw StoreError("experiment " + std::to_string(id) + " did not pause within " +
                     std::to_string(static_cast<int>(timeout)) +
                     " s (it is still running: see its experiment.log)");
  }
  out << "experiment " << id << " is " << store.status(id).state << '\n';
  return cli::kExitOk;
}

}  // namespace

const runner_cli::Command& pause_command() {
  static const runner_cli::Command command{
      "pause ID [--timeout S]", "its trials checkpoint and stop; it ends PAUSED",
      "Pauses an ACTIVE experiment as Ctrl-C would: its runner gets SIGTERM, its trials get the\n"
      "run's --pause-seconds to checkpoint and exit, and it ends PAUSED; `activate` resumes it.\n",
      cli::OptionSet("pause").add(stop_option_group()).flag("--help", "this text"),
      pause_experiment};
  return command;
}

}  // namespace hpsearch::store
