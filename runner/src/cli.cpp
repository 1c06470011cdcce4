#include "hpsearch/runner/cli.hpp"

#include <signal.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <stdexcept>
#include <thread>

#include "hpsearch/config/command_line.hpp"
#include "hpsearch/config/config.hpp"
#include "hpsearch/runner/experiment.hpp"
#include "hpsearch/runner/trial_channel.hpp"

namespace hpsearch {
namespace {

constexpr const char* kHelp = R"(searcher-run: run a hyperparameter search with real training processes, on this machine or
as Slurm jobs (--launcher slurm).

Usage:
  searcher-run run --config FILE --dir DIR [options]   start an experiment in DIR
  searcher-run resume DIR [options]                     continue one after a crash or Ctrl-C
  searcher-run help                                     this text
  searcher-run --version

Each trial runs the config's `entrypoint` (e.g. `entrypoint: python3 train.py`) through
/bin/sh, in the context directory (where the config is, unless --context), with its own
directory DIR/trials/N-ID/ for its log (output.log) and checkpoints. It learns its request
id, trial seed, hyperparameters and latest checkpoint from environment variables, and talks
with the runner in JSON lines on descriptors 3 (commands in) and 4 (reports out); the Python
client `import hpsearch` (python/, found automatically) does that for a script. See
docs/runner.md.

A trial whose operation is done and which has no next one is paused: it checkpoints and
exits, freeing its slot, and is relaunched from its checkpoint if the searcher wants more. A
trial that exits non-zero or breaks the protocol is restarted from its latest checkpoint, up
to the config's max_restarts (default 5), then reported to the searcher as errored.

Every event and the operations it caused are appended to DIR/journal.jsonl (synced to disk
each time) and the state is snapshotted to DIR/snapshot.json, so `resume` continues a run that
was killed, with nothing lost. Ctrl-C (SIGINT) or SIGTERM pauses every trial and exits; a
second one stops the trials at once. DIR/experiment.json lists every trial, its operations,
metrics and outcome; DIR/runner.log has the log.

Options of run:
  --config FILE        experiment config (YAML or JSON), required
  --dir DIR            experiment directory (created; must be new or empty), required
  --context DIR        the trials' working directory (default: the config's directory)
  --seed N             search seed; overrides reproducibility.experiment_seed (default 0)
Options of run and resume:
  --slots N            trials running at once (default: the number of CPUs)
  --snapshot-every N   journal records between snapshots (default 64; at least one per
                       trial, so large experiments snapshot less often)
  --pause-seconds X    how long trials get to pause after Ctrl-C before they are killed (30)
Where trials run (options of run and resume; resume keeps what run was given unless told):
  --launcher KIND      local (default): processes on this machine; slurm: one Slurm job per
                       trial launch (sbatch), so --slots may exceed this machine's CPUs
  --partition P, --account A, --time T
                       the jobs' Slurm partition, account and time limit
  --sbatch-arg ARG     one more sbatch option for every job (repeat it: --sbatch-arg=--mem=4G)
  --channel-address HOST[:PORT]
                       trials reach the runner over TCP there (an address of the interface
                       the jobs' nodes reach; default with slurm: this host's name, any port)
  --shared-dir DIR     checkpoint storage: DIR/checkpoints (default: the experiment directory);
                       with slurm, DIR and the experiment directory must be seen by every node

Exit codes: 0 the search completed, 1 it failed (every trial errored) or the runner could not
go on, 2 bad command line or config, 130 (SIGINT) or 143 (SIGTERM) paused: resume continues.
)";



struct Parsed {
  std::map<std::string, std::string> values;
  std::map<std::string, std::vector<std::string>> repeated;  // options that may be given again
  std::vector<std::string> positional;
};

const std::set<std::string> kRepeatable{"--sbatch-arg"};
// Where trials run: options of both run and resume.
const std::set<std::string> kLaunchOptions{"--launcher", "--partition", "--account", "--time",
                                           "--sbatch-arg", "--channel-address", "--shared-dir"};

std::set<std::string> with_launch_options(std::set<std::string> options) {
  options.insert(kLaunchOptions.begin(), kLaunchOptions.end());
  return options;
}

Parsed parse(const std::vector<std::string>& args, const std::set<std::string>& options) {
  Parsed parsed;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    std::optional<std::string> value;
    if (!name.starts_with("--")) {
      parsed.positional.push_back(name);
      continue;
    }
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (!options.contains(name)) {
      std::string list;
      for (const std::string& o : options) list += (list.empty() ? "" : ", ") + o;
      throw UsageError("unknown option '" + args[i] + "' (options: " + list + ")");
    }
    if (!value) {
      if (i + 1 >= args.size()) throw UsageError(name + ": missing value");
      value = args[++i];
    }
    if (kRepeatable.contains(name)) {
      parsed.repeated[name].push_back(*value);
      continue;
    }
    if (parsed.values.contains(name)) throw UsageError(name + ": given twice");
    parsed.values[name] = *value;
  }
  return parsed;
}

RunnerOptions runner_options(const Parsed& parsed, bool terminal) {
  RunnerOptions options;
  options.terminal = terminal;
  options.slots = std::max(1U, std::thread::hardware_concurrency());
  if (parsed.values.contains("--slots")) {
    options.slots = parse_count("--slots", parsed.values.at("--slots"), 1, 4096);
  }
  if (parsed.values.contains("--snapshot-every")) {
    options.snapshot_every = parse_count("--snapshot-every", parsed.values.at("--snapshot-every"), 1, 1'000'000);
  }
  if (parsed.values.contains("--pause-seconds")) {
    options.pause_seconds = parse_nonnegative("--pause-seconds", parsed.values.at("--pause-seconds"));
  }
  return options;
}

// The launch settings: `settings` (the defaults, or what the experiment was started with),
// overridden by the options given.
LaunchSettings launch_settings(const Parsed& parsed, LaunchSettings settings) {
  const auto given = [&](const char* option) { return parsed.values.contains(option); };
  if (given("--launcher")) {
    settings.launcher = parsed.values.at("--launcher");
    if (settings.launcher != "local" && settings.launcher != "slurm") {
      throw UsageError("--launcher: expected local or slurm, got '" + settings.launcher + "'");
    }
  }
  for (const char* option : {"--partition", "--account", "--time", "--sbatch-arg"}) {
    if ((given(option) || parsed.repeated.contains(option)) && settings.launcher != "slurm") {
      throw UsageError(std::string(option) + ": only with --launcher slurm");
    }
  }
  if (given("--partition")) settings.slurm.partition = parsed.values.at("--partition");
  if (given("--account")) settings.slurm.account = parsed.values.at("--account");
  if (given("--time")) settings.slurm.time = parsed.values.at("--time");
  if (parsed.repeated.contains("--sbatch-arg")) settings.slurm.sbatch_args = parsed.repeated.at("--sbatch-arg");
  if (given("--shared-dir")) settings.shared_dir = parsed.values.at("--shared-dir");
  if (given("--channel-address")) settings.channel_address = parsed.values.at("--channel-address");
  if (settings.launcher == "slurm" && settings.channel_address.empty()) {
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

std::unique_ptr<Launcher> launcher_for(const LaunchSettings& settings) {
  try {
    return make_launcher(settings);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

int exit_code(const RunOutcome& outcome) {
  switch (outcome.end) {
    case RunEnd::kCompleted: return 0;
    case RunEnd::kFailed: return 1;
    case RunEnd::kInterrupted: return 128 + outcome.signal;
  }
  return 1;
}

}  // namespace

int run_searcher_run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                     bool err_is_terminal) {
  if (args.empty()) {
    err << kHelp;
    return 2;
  }
  const std::string command = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    if (command == "help" || command == "--help" || command == "-h") {
      out << kHelp;
      return 0;
    }
    if (command == "--version") {
      out << "searcher-run " HPSEARCH_VERSION "\n";
      return 0;
    }
    if (command == "run") {
      const Parsed parsed = parse(rest, with_launch_options({"--config", "--dir", "--context", "--seed", "--slots",
                                                             "--snapshot-every", "--pause-seconds"}));
      if (!parsed.positional.empty()) throw UsageError("unexpected argument '" + parsed.positional.front() + "'");
      if (!parsed.values.contains("--config")) throw UsageError("--config FILE is required");
      if (!parsed.values.contains("--dir")) throw UsageError("--dir DIR is required");
      RunnerOptions options = runner_options(parsed, err_is_terminal);
      options.launch = launch_settings(parsed, LaunchSettings{});
      const std::unique_ptr<Launcher> launcher = launcher_for(options.launch);
      std::optional<std::uint32_t> seed;
      if (parsed.values.contains("--seed")) {
        seed = static_cast<std::uint32_t>(parse_count("--seed", parsed.values.at("--seed"), 0, 4294967295U));
      }
      const std::filesystem::path config = parsed.values.at("--config");
      const std::filesystem::path context = parsed.values.contains("--context")
                                                ? std::filesystem::path(parsed.values.at("--context"))
                                                : std::filesystem::absolute(config).parent_path();
      if (!std::filesystem::is_directory(context)) {
        throw UsageError("--context: '" + context.string() + "' is not a directory");
      }
      return exit_code(start_experiment(config, parsed.values.at("--dir"), context, seed, options,
                                        *launcher, out, err));
    }
    if (command == "resume") {
      const Parsed parsed = parse(rest, with_launch_options({"--slots", "--snapshot-every", "--pause-seconds"}));
      if (parsed.positional.size() != 1) throw UsageError("resume takes one experiment directory");
      RunnerOptions options = runner_options(parsed, err_is_terminal);
      options.launch = launch_settings(parsed, saved_launch_settings(parsed.positional.front()));
      const std::unique_ptr<Launcher> launcher = launcher_for(options.launch);
      return exit_code(resume_experiment(parsed.positional.front(), options, *launcher, out, err));
    }
    throw UsageError("unknown command '" + command + "' (commands: run, resume, help)");
  } catch (const UsageError& e) {
    err << "searcher-run" << (command.starts_with("-") ? "" : " " + command) << ": " << e.what()
        << "\n(see 'searcher-run help')\n";
    return 2;
  } catch (const ConfigError& e) {
    err << e.what() << '\n';
    return 2;
  } catch (const RunnerSetupError& e) {
    err << "searcher-run " << command << ": " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    err << "searcher-run " << command << ": " << e.what() << '\n';
    return 1;
  }
}

}  // namespace hpsearch
