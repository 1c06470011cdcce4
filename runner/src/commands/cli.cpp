// searcher-run's dispatcher: the main help (made from the commands' declarations), the choice
// of subcommand, `help` and `--help`. Each subcommand is a file (run_command.cpp,
// create_command.cpp, ...) declaring its options over the CLI library; what they share is in
// cli_args.cpp.
#include "hpsearch/runner/cli.hpp"

#include <algorithm>
#include <ostream>
#include <utility>

#include "commands/cli_args.hpp"
#include "commands/store_commands.hpp"
#include "hpsearch/config/command_line.hpp"
#include "hpsearch/runner/trial_environment.hpp"

namespace hpsearch {
namespace runner_cli {

const std::vector<const Command*>& commands() {
  static const std::vector<const Command*> all{
      &run_command(),           &resume_command(),          &status_command(),
      &store::create_command(), &store::ls_command(),       &store::describe_command(),
      &store::pause_command(),  &store::activate_command(), &store::kill_command(),
      &store::delete_command(), &store::trial_command(),    &store::checkpoint_command(),
      &store::model_command(),  &store::ui_command(),       &store::searcher_command()};
  return all;
}

}  // namespace runner_cli
namespace {

using runner_cli::Command;

// The synopsis and summary of `commands` as the main help's aligned list; a longer synopsis
// has its summary below.
constexpr std::size_t kSynopsisWidth = 31;

std::string command_list(const std::vector<const Command*>& commands) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const Command* c : commands) rows.emplace_back("searcher-run " + c->synopsis, c->summary);
  return cli::columns(rows, kSynopsisWidth, kSynopsisWidth);
}

std::string main_help() {
  const std::vector<const Command*>& all = runner_cli::commands();
  const std::vector<const Command*> runs(all.begin(), all.begin() + 3);  // run, resume, status
  const std::vector<const Command*> store(all.begin() + 3, all.end());
  return "searcher-run: run a hyperparameter search with real training processes, on this machine "
         "or\n"
         "as Slurm jobs (--launcher slurm).\n"
         "\n"
         "Usage:\n" +
         command_list(runs) +
         cli::columns({{"searcher-run help [COMMAND]",
                        "this text, or a command's options (also: COMMAND --help)"},
                       {"searcher-run help environment",
                        "the HPSEARCH_* variables a trial is given (a Markdown table)"},
                       {"searcher-run --version", ""}},
                      kSynopsisWidth, kSynopsisWidth) +
         "\n"
         "The experiment store ($HPSEARCH_HOME, default "
         "${XDG_DATA_HOME:-~/.local/share}/hpsearch),\n"
         "which the Python SDK (determined.experimental.client) uses; see docs/sdk.md:\n" +
         command_list(store) +
         R"(
Each trial runs the config's `entrypoint` (e.g. `entrypoint: python3 train.py`) through
/bin/sh, in the context directory (where the config is, unless --context), with its own
directory DIR/trials/N-ID/ for its log (output.log) and checkpoints. It learns its request
id, trial seed, hyperparameters and latest checkpoint from environment variables, and talks
with the runner in JSON lines on descriptors 3 (commands in) and 4 (reports out); a Python
script uses Determined's Core API, `import determined as det` (python/determined, put on the
trial's PYTHONPATH automatically), which does that for it. See docs/runner.md.

A trial whose operation is done and which has no next one is paused: it checkpoints and
exits, freeing its slot, and is relaunched from its checkpoint if the searcher wants more. A
trial that exits non-zero or breaks the protocol is restarted from its latest checkpoint, up
to the config's max_restarts (default 5), then reported to the searcher as errored. Until a
trial has reported anything, the third failed launch stops the run once nothing running is
left to report (a misspelled entrypoint fails fast): it names the trial, its exit status and
its last lines of output; correct DIR/config.yaml and `resume` continues.

Every event and the operations it caused are appended to DIR/journal.jsonl (synced to disk
each time) and the state is snapshotted to DIR/snapshot.json, so `resume` continues a run that
was killed, with nothing lost. Ctrl-C (SIGINT) or SIGTERM pauses every trial and exits; a
second one stops the trials at once. DIR/experiment.json lists every trial, its operations,
metrics and outcome; DIR/runner.log has the log.

)" + runner_cli::run_option_group().help("Run options (of run, resume, create and activate):") +
         "\n" +
         runner_cli::launch_option_group().help(
             "Where trials run (options of run and resume; resume keeps what run was given unless "
             "told):") +
         "\n"
         "Exit codes: " +
         std::to_string(cli::kExitOk) + " the search completed, " +
         std::to_string(cli::kExitFailure) +
         " it failed (every trial errored, or the trial command\n"
         "failed before any report) or the runner could not go on, " +
         std::to_string(cli::kExitUsage) +
         " bad command line or config,\n"
         "130 (SIGINT) or 143 (SIGTERM) paused: resume continues.\n";
}

const Command* find_command(const std::string& name) {
  const std::vector<const Command*>& all = runner_cli::commands();
  const auto it =
      std::find_if(all.begin(), all.end(), [&](const Command* c) { return c->name() == name; });
  return it == all.end() ? nullptr : *it;
}

std::string command_names() {
  std::string names;
  for (const Command* c : runner_cli::commands()) names += c->name() + ", ";
  return names + "help";
}

}  // namespace

int run_searcher_run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                     bool err_is_terminal) {
  if (args.empty()) {
    err << main_help();
    return cli::kExitUsage;
  }
  const std::string& name = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  return runner_cli::report_errors(name, err, [&]() -> int {
    if (name == "help" || name == "--help" || name == "-h") {
      if (rest.empty()) {
        out << main_help();
        return cli::kExitOk;
      }
      if (rest.size() == 1 && rest.front() == "environment") {
        out << trial_environment::markdown_table();
        return cli::kExitOk;
      }
      const Command* command = find_command(rest.front());
      if (command == nullptr || rest.size() > 1) {
        throw UsageError("help takes one command name (commands: " + command_names() +
                         ") or 'environment', got '" + rest.back() + "'");
      }
      out << command->help();
      return cli::kExitOk;
    }
    if (name == "--version") {
      out << "searcher-run " HPSEARCH_VERSION "\n";
      return cli::kExitOk;
    }
    const Command* command = find_command(name);
    if (command == nullptr)
      throw UsageError("unknown command '" + name + "' (commands: " + command_names() + ")");
    const cli::Args parsed = command->options.parse(rest);
    if (parsed.flag("--help")) {
      out << command->help();
      return cli::kExitOk;
    }
    return command->run(parsed, out, err, err_is_terminal);
  });
}

}  // namespace hpsearch
