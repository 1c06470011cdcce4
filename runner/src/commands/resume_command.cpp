// `searcher-run resume DIR`: continue an experiment after a crash, a kill or Ctrl-C.
#include <memory>
#include <optional>
#include <string>

#include "commands/cli_args.hpp"
#include "hpsearch/config/command_line.hpp"
#include "store/store.hpp"

namespace hpsearch::runner_cli {
namespace {

int resume(const cli::Args& args, std::ostream& out, std::ostream& err, bool terminal) {
  const std::string dir = args.argument("DIR");
  if (const std::optional<std::uint64_t> id = store::experiment_of_run_directory(dir)) {
    const std::string n = std::to_string(*id);
    throw UsageError("'" + dir + "' is the run of experiment " + n +
                     " in the experiment store: continue it with `searcher-run activate " + n +
                     "` (resume would run it outside the store: without global trial ids, and "
                     "with its state unrecorded)");
  }
  RunnerOptions options = runner_options(args, terminal);
  options.launch = launch_settings(args, saved_launch_settings(dir));
  const std::unique_ptr<Launcher> launcher = launcher_for(options.launch);
  return exit_code(resume_experiment(dir, options, *launcher, out, err));
}

}  // namespace

const Command& resume_command() {
  static const Command command{
      "resume DIR [options]", "continue one after a crash or Ctrl-C",
      "Continues the experiment in DIR from its journal and snapshot, with nothing lost: after a\n"
      "crash, a kill -9, Ctrl-C or SIGTERM. Where trials run is what `run` was given, unless\n"
      "told otherwise here.\n",
      with_run_options(
          cli::OptionSet("resume").argument("DIR", "the experiment directory `run` was given"),
          true),
      resume};
  return command;
}

}  // namespace hpsearch::runner_cli
