#pragma once
// Private to runner/: what every `searcher-run` subcommand shares, over the CLI library
// (hpsearch/cli/cli.hpp): the Command each subcommand file declares, the option groups
// several commands take (run options, launch options) with the functions that read them, the
// exit codes and the error report.

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "hpsearch/cli/cli.hpp"
#include "hpsearch/runner/experiment.hpp"
#include "hpsearch/runner/launcher.hpp"

namespace hpsearch::runner_cli {

/// One `searcher-run` subcommand, declared in its own file (run_command.cpp, create_command.cpp,
/// ...): how it is called, its line in the main help, its help text and its options (each with
/// its help; `--help` included), and the function that runs it on the parsed arguments.
struct Command {
  std::string synopsis;  ///< after "searcher-run ": "delete ID"
  std::string summary;   ///< its line(s) in `searcher-run help`
  std::string about;     ///< `searcher-run help CMD`: between the usage line and the options
  cli::OptionSet options;
  std::function<int(const cli::Args& args, std::ostream& out, std::ostream& err, bool terminal)>
      run;

  [[nodiscard]] const std::string& name() const { return options.command(); }
  /// "Usage: searcher-run SYNOPSIS", the about text, the arguments and options.
  [[nodiscard]] std::string help() const;
};

const Command& run_command();     // run_command.cpp
const Command& resume_command();  // resume_command.cpp
const Command& status_command();  // status_command.cpp

/// Every subcommand, in the order the main help lists them (cli.cpp).
[[nodiscard]] const std::vector<const Command*>& commands();

/// The run options: --slots, --snapshot-every, --pause-seconds, --trial-timeout. Declared
/// once; run, resume, create and activate add them.
[[nodiscard]] const cli::OptionSet& run_option_group();
/// What the run options say (the defaults for those not given).
[[nodiscard]] RunnerOptions runner_options(const cli::Args& args, bool terminal);

/// `options` then --help and, under their headings, the run options and (with `launch`) the
/// launch options: how run and resume (launch) and create and activate (no launch) end.
[[nodiscard]] cli::OptionSet with_run_options(cli::OptionSet options, bool launch);

/// Where trials run: --launcher, --partition, --account, --time, --sbatch-arg (repeatable),
/// --channel-address, --shared-dir. Declared once; run and resume add them.
[[nodiscard]] const cli::OptionSet& launch_option_group();
/// The launch settings: `settings` (the defaults, or what the experiment was started with),
/// overridden by the launch options given. Throws UsageError naming a bad one.
[[nodiscard]] LaunchSettings launch_settings(const cli::Args& args, LaunchSettings settings);

/// The experiment store's commands' ID argument (describe, pause, activate, kill, delete).
[[nodiscard]] const cli::OptionSet& experiment_id_argument();

/// The launcher `settings` name; a launcher that cannot be made is a UsageError.
[[nodiscard]] std::unique_ptr<Launcher> launcher_for(const LaunchSettings& settings);

/// cli::kExitOk completed, cli::kExitFailure failed, 128 + signal paused.
[[nodiscard]] int exit_code(const RunOutcome& outcome);

/// Runs `body`, turning its exceptions into the messages and exit codes of `searcher-run`
/// (cli::kExitUsage for a bad command line, config or setup; cli::kExitFailure otherwise).
int report_errors(const std::string& command, std::ostream& err, const std::function<int()>& body);

}  // namespace hpsearch::runner_cli
