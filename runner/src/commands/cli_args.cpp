#include "commands/cli_args.hpp"

#include <unistd.h>

#include <algorithm>
#include <optional>
#include <ostream>
#include <thread>

#include "hpsearch/config/command_line.hpp"
#include "hpsearch/config/config.hpp"
#include "hpsearch/runner/trial_channel.hpp"
#include "launchers/launcher_table.hpp"
#include "store/store.hpp"

namespace hpsearch::runner_cli {

std::string Command::help() const {
  return "Usage: searcher-run " + synopsis + "\n\n" + about + (about.empty() ? "" : "\n") +
         options.help();
}

const cli::OptionSet& run_option_group() {
  static const cli::OptionSet group = [] {
    cli::OptionSet o("run options");
    o.value("--slots", "N", "trials running at once (default: the number of CPUs)")
        .value("--snapshot-every", "N",
               "journal records between snapshots (default 64; at least one per\n"
               "trial and validation recorded, so large experiments snapshot less\n"
               "often)")
        .value("--pause-seconds", "X",
               "how long trials get to pause after Ctrl-C before they are killed (30)")
        .value("--trial-timeout", "X",
               "a trial that reports nothing for X seconds is killed and restarted from\n"
               "its checkpoint, counting against max_restarts (default 0: never;\n"
               "resume and activate keep what the run was given)");
    return o;
  }();
  return group;
}

RunnerOptions runner_options(const cli::Args& args, bool terminal) {
  RunnerOptions options;
  options.terminal = terminal;
  options.slots =
      args.count("--slots", 1, 4096).value_or(std::max(1U, std::thread::hardware_concurrency()));
  options.snapshot_every =
      args.count("--snapshot-every", 1, 1'000'000).value_or(options.snapshot_every);
  options.pause_seconds = args.nonnegative("--pause-seconds").value_or(options.pause_seconds);
  options.trial_timeout = args.nonnegative("--trial-timeout");
  return options;
}

cli::OptionSet with_run_options(cli::OptionSet options, bool launch) {
  options.flag("--help", "this text").heading("Run options:").add(run_option_group());
  if (launch) options.heading("Where trials run:").add(launch_option_group());
  return options;
}

const cli::OptionSet& launch_option_group() {
  static const cli::OptionSet group = [] {
    // --launcher's help names every row of the launcher table; each row's options follow.
    std::string kinds;
    for (const LauncherKind& kind : launcher_kinds()) {
      kinds += (kinds.empty() ? "" : ";\n") + kind.name +
               (&kind == &launcher_kinds().front() ? " (default)" : "") + ": " + kind.help;
    }
    cli::OptionSet o("launch options");
    o.value("--launcher", "KIND", kinds);
    for (const LauncherKind& kind : launcher_kinds()) o.add(kind.options);
    o.value("--channel-address", "HOST[:PORT]",
            "trials reach the runner over TCP there (an address of the interface\n"
            "the jobs' nodes reach; default with slurm: this host's name, any port)")
        .value("--shared-dir", "DIR",
               "checkpoint storage: DIR/checkpoints (default: the experiment directory;\n"
               "the config's checkpoint_storage {type: shared_fs, host_path,\n"
               "storage_path} wins); with slurm, DIR and the experiment directory must\n"
               "be seen by every node");
    return o;
  }();
  return group;
}

LaunchSettings launch_settings(const cli::Args& args, LaunchSettings settings) {
  if (const std::optional<std::string> launcher = args.value("--launcher")) {
    try {
      (void)launcher_kind(*launcher);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--launcher: ") + e.what());
    }
    settings.launcher = *launcher;
  }
  const LauncherKind& chosen = launcher_kind(settings.launcher);
  for (const LauncherKind& kind : launcher_kinds()) {
    if (&kind == &chosen) continue;
    for (const cli::Option& option : kind.options.options()) {
      if (args.has(option.name) || (option.placeholder.empty() && args.flag(option.name))) {
        throw UsageError(option.name + ": only with --launcher " + kind.name);
      }
    }
  }
  settings.options = chosen.read_options(args, settings.options);
  if (const std::optional<std::string> dir = args.value("--shared-dir")) settings.shared_dir = *dir;
  settings.channel_address = args.value("--channel-address").value_or(settings.channel_address);
  if (chosen.remote && settings.channel_address.empty()) {
    // Jobs run on other nodes: they reach this one by its name, unless told another interface.
    char host[256] = "";
    ::gethostname(host, sizeof host - 1);
    settings.channel_address = host;
  }
  if (!settings.channel_address.empty()) {
    try {
      (void)parse_tcp_endpoint(settings.channel_address);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--channel-address: ") + e.what());
    }
  }
  return settings;
}

const cli::OptionSet& experiment_id_argument() {
  static const cli::OptionSet group =
      cli::OptionSet("experiment id")
          .argument("ID", "the experiment's id, as `searcher-run ls` shows it");
  return group;
}

std::unique_ptr<Launcher> launcher_for(const LaunchSettings& settings) {
  try {
    return make_launcher(settings);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

int exit_code(const RunOutcome& outcome) {
  switch (outcome.end) {
    case RunEnd::kCompleted:
      return cli::kExitOk;
    case RunEnd::kFailed:
      return cli::kExitFailure;
    case RunEnd::kInterrupted:
      return 128 + outcome.signal;
  }
  return cli::kExitFailure;
}

int report_errors(const std::string& command, std::ostream& err, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    // The hint names the command's own help when there is one: its options are there.
    const bool known = std::any_of(commands().begin(), commands().end(),
                                   [&](const Command* c) { return c->name() == command; });
    err << "searcher-run" << (command.starts_with("-") ? "" : " " + command) << ": " << e.what()
        << "\n(see 'searcher-run help" << (known ? " " + command : "") << "')\n";
    return cli::kExitUsage;
  } catch (const ConfigError& e) {
    err << e.what() << '\n';
    return cli::kExitUsage;
  } catch (const RunnerSetupError& e) {
    err << "searcher-run " << command << ": " << e.what() << '\n';
    return cli::kExitUsage;
  } catch (const store::StoreError& e) {
    err << "searcher-run " << command << ": " << e.what() << '\n';
    return cli::kExitUsage;
  } catch (const std::exception& e) {
    err << "searcher-run " << command << ": " << e.what() << '\n';
    return cli::kExitFailure;
  }
}

}  // namespace hpsearch::runner_cli
