// `searcher-run run`: start an experiment in a new directory.
#include <filesystem>
#include <memory>
#include <optional>

#include "commands/cli_args.hpp"
#include "hpsearch/config/command_line.hpp"
#include "hpsearch/config/config.hpp"
#include "hpsearch/runner/errors.hpp"

namespace hpsearch::runner_cli {
namespace {

int start(const cli::Args& args, std::ostream& out, std::ostream& err, bool terminal) {
  const std::filesystem::path config = args.required("--config");
  const std::filesystem::path dir = args.required("--dir");
  RunnerOptions options = runner_options(args, terminal);
  options.launch = launch_settings(args, LaunchSettings{});
  const std::unique_ptr<Launcher> launcher = launcher_for(options.launch);
  const std::optional<std::uint32_t> seed = args.seed("--seed");
  const std::filesystem::path context =
      args.value("--context").value_or(std::filesystem::absolute(config).parent_path());
  if (!std::filesystem::is_directory(context)) {
    throw UsageError("--context: '" + context.string() + "' is not a directory");
  }
  // A custom search's method reaches its experiment by the store's id (searcher-run searcher
  // ID): outside the store nothing could ever answer its events.
  if (load_config(config).searcher.custom) {
    throw RunnerSetupError(
        "the 'custom' searcher's method reaches its experiment through the experiment store: "
        "create it with determined.searcher's LocalSearchRunner or RemoteSearchRunner, or with "
        "'searcher-run create --config " +
        config.string() +
        " --detach' and drive it with 'searcher-run searcher ID' "
        "(docs/custom-searcher.md)");
  }
  return exit_code(start_experiment(config, dir, context, seed, options, *launcher, out, err));
}

}  // namespace

const Command& run_command() {
  static const Command command{
      "run --config FILE --dir DIR [options]", "start an experiment in DIR",
      "Starts the config's search in DIR (created; must be new or empty) and runs its trials\n"
      "until the search ends. Ctrl-C or SIGTERM pauses it: `searcher-run resume DIR` continues.\n",
      with_run_options(
          cli::OptionSet("run")
              .value("--config", "FILE", "experiment config (YAML or JSON), required")
              .value("--dir", "DIR",
                     "experiment directory (created; must be new or empty), required")
              .value("--context", "DIR",
                     "the trials' working directory (default: the config's directory)")
              .value("--seed", "N",
                     "search seed; overrides reproducibility.experiment_seed (default 0)"),
          true),
      start};
  return command;
}

}  // namespace hpsearch::runner_cli
