// `searcher-run activate ID`: a PAUSED experiment (paused, or its runner was killed) resumes,
// detached, from its journal.
#include <ostream>

#include "cli_args.hpp"
#include "hpsearch/config/command_line.hpp"
#include "store.hpp"
#include "store_commands.hpp"
#include "store_run.hpp"

namespace hpsearch::store {

namespace fs = std::filesystem;

int activate_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, bool terminal) {
  using namespace runner_cli;
  const Parsed parsed = parse(args, {"--slots", "--snapshot-every", "--pause-seconds", "--trial-timeout"}, {"--attached"});
  if (parsed.positional.size() != 1) throw UsageError("activate takes one experiment id");
  const RunnerOptions options = runner_options(parsed, terminal);
  Store store(default_root());
  const std::uint64_t id = parse_experiment_id(parsed.positional.front());
  const Status status = store.status(id);
  if (status.alive) {
    out << "experiment " << id << " is already " << status.state << '\n';
    return 0;
  }
  if (status.state != "PAUSED") {
    throw StoreError("experiment " + std::to_string(id) + " is " + status.state + ": only a PAUSED experiment can be activated");
  }
  const fs::path run = store.directory(id) / "run";
  if (!fs::exists(run / "run.json")) {
    throw StoreError("experiment " + std::to_string(id) + " stopped before its first trial was started: nothing to resume "
                     "(see its experiment.log)");
  }
  const RunBody body = [&](const RunnerOptions& run_options, std::ostream& run_out, std::ostream& run_err) {
    return report_errors("activate", run_err, [&] {
      const std::unique_ptr<Launcher> launcher = make_local_launcher();
      return exit_code(resume_experiment(run, run_options, *launcher, run_out, run_err));
    });
  };
  const auto announce = [&] { out << "experiment " << id << " is ACTIVE" << std::endl; };
  return run_in_store(store, id, !parsed.values.contains("--attached"), options, body, announce, out, err);
}

}  // namespace hpsearch::store
