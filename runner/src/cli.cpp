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
#include "cli_args.hpp"
#include "store.hpp"
#include "store_commands.hpp"

namespace hpsearch {
namespace {

constexpr const char* kHelp = R"(searcher-run: run a hyperparameter search with real training processes, on this machine or
as Slurm jobs (--launcher slurm).

Usage:
  searcher-run run --config FILE --dir DIR [options]   start an experiment in DIR
  searcher-run resume DIR [options]                     continue one after a crash or Ctrl-C
  searcher-run help                                     this text

The experiment store ($HPSEARCH_HOME, default ${XDG_DATA_HOME:-~/.local/share}/hpsearch),
which the Python SDK (determined.experimental.client) uses; see docs/sdk.md:
  searcher-run create --config FILE [--model-dir DIR] [--include PATH]... [--seed N]
                      [--detach] [--json] [run options]
                                   a new experiment: the config, a snapshot of the model
                                   directory (default: the config's; .detignore honoured) and
                                   the run; prints its id; --detach returns at once, the run
                                   going on in the background (output in experiment.log)
  searcher-run ls [--json]         every experiment: id, state, trials, best metric
  searcher-run describe ID [--json]
                                   its state, trials (with global trial ids) and best
  searcher-run pause ID [--timeout S]
                                   its trials checkpoint and stop; it ends PAUSED
  searcher-run activate ID [--attached] [run options]
                                   a PAUSED experiment (or one whose runner was killed) resumes
  searcher-run kill ID [--timeout S]
                                   its trials are stopped; it ends CANCELED
  searcher-run delete ID           removes an experiment that is not running
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
Options of run, resume, create and activate (the run options):
  --slots N            trials running at once (default: the number of CPUs)
  --snapshot-every N   journal records between snapshots (default 64; at least one per
                       trial, so large experiments snapshot less often)
  --pause-seconds X    how long trials get to pause after Ctrl-C before they are killed (30)
  --trial-timeout X    a trial that reports nothing for X seconds is killed and restarted from
                       its checkpoint, counting against max_restarts (default 0: never)
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



}  // namespace

int run_searcher_run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                     bool err_is_terminal) {
  using namespace runner_cli;
  if (args.empty()) {
    err << kHelp;
    return 2;
  }
  const std::string command = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  // The experiment store's commands (store_commands.hpp), one source file each.
  using StoreCommand = int (*)(const std::vector<std::string>&, std::ostream&, std::ostream&, bool);
  static const std::map<std::string, StoreCommand> store_commands{
      {"create", store::create_command}, {"ls", store::ls_command},           {"describe", store::describe_command},
      {"pause", store::pause_command},   {"activate", store::activate_command}, {"kill", store::kill_command},
      {"delete", store::delete_command}};
  return report_errors(command, err, [&]() -> int {
    if (command == "help" || command == "--help" || command == "-h") {
      out << kHelp;
      return 0;
    }
    if (command == "--version") {
      out << "searcher-run " HPSEARCH_VERSION "\n";
      return 0;
    }
    if (const auto store_command = store_commands.find(command); store_command != store_commands.end()) {
      return store_command->second(rest, out, err, err_is_terminal);
    }
    if (command == "run") {
      const Parsed parsed = parse(rest, with_launch_options({"--config", "--dir", "--context", "--seed", "--slots",
                                                             "--snapshot-every", "--pause-seconds", "--trial-timeout"}),
                                  {}, "--sbatch-arg");
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
      const Parsed parsed = parse(rest, with_launch_options({"--slots", "--snapshot-every", "--pause-seconds", "--trial-timeout"}), {}, "--sbatch-arg");
      if (parsed.positional.size() != 1) throw UsageError("resume takes one experiment directory");
      if (const auto id = store::experiment_of_run_directory(parsed.positional.front())) {
        const std::string n = std::to_string(*id);
        throw UsageError("'" + parsed.positional.front() + "' is the run of experiment " + n +
                         " in the experiment store: continue it with `searcher-run activate " + n +
                         "` (resume would run it outside the store: without global trial ids, and "
                         "with its state unrecorded)");
      }
      RunnerOptions options = runner_options(parsed, err_is_terminal);
      options.launch = launch_settings(parsed, saved_launch_settings(parsed.positional.front()));
      const std::unique_ptr<Launcher> launcher = launcher_for(options.launch);
      return exit_code(resume_experiment(parsed.positional.front(), options, *launcher, out, err));
    }
    throw UsageError("unknown command '" + command +
                     "' (commands: run, resume, create, ls, describe, pause, activate, kill, delete, help)");
  });
}

}  // namespace hpsearch
