#pragma once
// Private to runner/: the option parsing every `searcher-run` subcommand shares.

#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "hpsearch/runner/experiment.hpp"
#include "hpsearch/runner/launcher.hpp"

namespace hpsearch::runner_cli {

struct Parsed {
  std::map<std::string, std::string> values;
  std::vector<std::string> positional;
  std::vector<std::string> repeated;  ///< every value of the one repeatable option, in order
};

/// `--name value` and `--name=value` among `options`; `flags` take no value (their value is
/// "1"); `repeatable` may be given many times (Parsed::repeated). Throws UsageError.
[[nodiscard]] Parsed parse(const std::vector<std::string>& args, const std::set<std::string>& options,
                           const std::set<std::string>& flags = {}, const std::string& repeatable = {});

/// --slots, --snapshot-every, --pause-seconds, --trial-timeout.
[[nodiscard]] RunnerOptions runner_options(const Parsed& parsed, bool terminal);

/// `options` plus where trials run (--launcher, --partition, --account, --time, --sbatch-arg,
/// --channel-address, --shared-dir): the options of run and resume. --sbatch-arg is the
/// repeatable one.
[[nodiscard]] std::set<std::string> with_launch_options(std::set<std::string> options);

/// The launch settings: `settings` (the defaults, or what the experiment was started with),
/// overridden by the launch options given. Throws UsageError naming a bad one.
[[nodiscard]] LaunchSettings launch_settings(const Parsed& parsed, LaunchSettings settings);

/// The launcher `settings` name; a launcher that cannot be made is a UsageError.
[[nodiscard]] std::unique_ptr<Launcher> launcher_for(const LaunchSettings& settings);

/// 0 completed, 1 failed, 128 + signal paused.
[[nodiscard]] int exit_code(const RunOutcome& outcome);

/// Runs `body`, turning its exceptions into the messages and exit codes of `searcher-run`
/// (2 for a bad command line, config or setup; 1 otherwise).
int report_errors(const std::string& command, std::ostream& err, const std::function<int()>& body);

}  // namespace hpsearch::runner_cli
