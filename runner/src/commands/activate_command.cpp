// `searcher-run activate ID`: a PAUSED experiment (paused, or its runner was killed) resumes,
// detached, from its journal.
#include <ostream>

#include "commands/cli_args.hpp"
#include "commands/store_commands.hpp"
#include "hpsearch/config/command_line.hpp"
#include "store/store.hpp"
#include "store/store_run.hpp"

namespace hpsearch::store {

namespace fs = std::filesystem;

namespace {

int activate_experiment(const cli::Args& parsed, std::ostream& out, std::ostream& err,
                        bool terminal) {
  using namespace runner_cli;
  const RunnerOptions options = runner_options(parsed, terminal);
  Store store(default_root());
  const std::uint64_t id = parse_experiment_id(parsed.argument("ID"));
  const Status status = store.status(id);
  if (status.alive) {
    out << "experiment " << id << " is already " << status.state << '\n';
    return 0;
  }
  if (status.state != "PAUSED") {
    throw StoreError("experiment " + std::to_string(id) + " is " + status.state +
                     ": only a PAUSED experiment can be activated");
  }
  const fs::path run = store.directory(id) / "run";
  if (!fs::exists(run / "run.json")) {
    throw StoreError("experiment " + std::to_string(id) +
                     " stopped before its first trial was started: nothing to resume "
                     "(see its experiment.log)");
  }
  const RunBody body = [&](const RunnerOptions& run_options, std::ostream& run_out,
                           std::ostream& run_err) {
    return report_errors("activate", run_err, [&] {
      const std::unique_ptr<Launcher> launcher = make_local_launcher();
      return exit_code(resume_experiment(run, run_options, *launcher, run_out, run_err));
    });
  };
  const auto announce = [&] { out << "experiment " << id << " is ACTIVE" << std::endl; };
  return run_in_store(store, id, !parsed.flag("--attached"), options, body, announce, out, err);
}

}  // namespace

const runner_cli::Command& activate_command() {
  static const runner_cli::Command command{
      "activate ID [--attached] [run options]",
      "a PAUSED experiment (or one whose runner was killed) resumes",
      "Resumes a PAUSED experiment (paused, or its runner was killed) from its journal, in the\n"
      "background (output appended to its experiment.log), unless --attached.\n",
      runner_cli::with_run_options(
          cli::OptionSet("activate")
              .add(runner_cli::experiment_id_argument())
              .flag("--attached", "run it here and exit as `searcher-run resume` does"),
          false),
      activate_experiment};
  return command;
}

}  // namespace hpsearch::store
