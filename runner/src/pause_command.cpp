// `searcher-run pause ID`: the runner gets SIGTERM, as on Ctrl-C: its trials checkpoint and
// exit, it saves its state and ends PAUSED (`activate` resumes it).
#include <csignal>
#include <ostream>

#include "cli_args.hpp"
#include "hpsearch/config/command_line.hpp"
#include "store.hpp"
#include "store_commands.hpp"

namespace hpsearch::store {

StopRequest parse_stop_request(const std::vector<std::string>& args, const std::string& command) {
  const runner_cli::Parsed parsed = runner_cli::parse(args, {"--timeout"});
  if (parsed.positional.size() != 1) throw UsageError(command + " takes one experiment id");
  return {parse_experiment_id(parsed.positional.front()),
          parsed.values.contains("--timeout") ? parse_nonnegative("--timeout", parsed.values.at("--timeout")) : 120.0};
}

int pause_command(const std::vector<std::string>& args, std::ostream& out, std::ostream&, bool) {
  const StopRequest request = parse_stop_request(args, "pause");
  const std::uint64_t id = request.id;
  const double timeout = request.timeout;
  const Store store(default_root());
  if (!store.signal_runner(id, SIGTERM)) {
    const Status status = store.status(id);
    if (status.state == "PAUSED") {
      out << "experiment " << id << " is already PAUSED\n";
      return 0;
    }
    throw StoreError("experiment " + std::to_string(id) + " is " + status.state + ": only an ACTIVE experiment can be paused");
  }
  // Its trials get --pause-seconds (30 by default) to checkpoint before they are killed.
  if (!wait_until([&] { return !store.status(id).alive; }, timeout)) {
    throw StoreError("experiment " + std::to_string(id) + " did not pause within " + std::to_string(static_cast<int>(timeout)) +
                     " s (it is still running: see its experiment.log)");
  }
  out << "experiment " << id << " is " << store.status(id).state << '\n';
  return 0;
}

}  // namespace hpsearch::store
