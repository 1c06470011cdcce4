"""The `det` command line: Determined's commands, arguments, short forms and exit codes, over
hpsearch's local experiment store (docs/cli.md)."""

import argparse
import os
import sys

from determined.cli import _experiment, _records
from determined.cli._programs import CliError

DESCRIPTION = """\
Determined's `det` command over hpsearch's local experiment store.

Experiments live in $HPSEARCH_HOME (default ${XDG_DATA_HOME:-~/.local/share}/hpsearch) and run
on this machine through searcher-run; there is no master to connect to, so -m/--master and
-u/--user are accepted and ignored. Each command also has a short form (det e, det t, det c,
det m); `det COMMAND --help` describes one.

exit codes: 0 done; 1 an error, or a followed/awaited experiment (create -f, wait, create
--test) that ended other than COMPLETED; 2 a bad command line; 130 interrupted."""

CREATE_DESCRIPTION = """\
Stores CONFIG and a snapshot of CONTEXT (.detignore honoured) as a new experiment, starts it in
the background and prints `Created experiment ID`. The experiment outlives this command.

  -f/--follow    follow the logs of the first trial, then wait for the experiment to end:
                 exit 0 if it COMPLETED, 1 if it ended ERROR or CANCELED (or was paused)
  -t/--test      Determined's test mode: a one-trial, one-batch copy of the experiment with no
                 restarts and no checkpoint kept, followed to its end (exit 0 if it completed)
  --local        run here, outside the store: a Core API script's entrypoint runs as a plain
                 process in CONTEXT (det.core.init() gives its local stand-ins); a
                 `model_def:TrialClass` entrypoint goes to determined.experimental.create(...,
                 local=True, test=--test)
  --config K=V   override a config field by its dotted path (repeatable), e.g.
                 --config searcher.max_trials=4 --config resources.slots_per_trial=2

CONFIG is YAML or JSON; a bad config is refused with its file:line:col and nothing is stored.
--config, --test and --local read YAML through PyYAML (python3-yaml) when it is installed;
without it they take JSON configs only."""


def _positive(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text!r}")
    return value


def _count(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text!r}")
    return value


def _boolean(text):
    """A yes/no value as Determined's CLI reads one (distutils' strtobool)."""
    lowered = text.lower()
    if lowered in ("y", "yes", "t", "true", "on", "1"):
        return True
    if lowered in ("n", "no", "f", "false", "off", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false (yes/no, 1/0), got {text!r}")


def _group(subparsers, name, short, help_text, default=None):
    parser = subparsers.add_parser(name, aliases=[short], help=help_text, description=help_text)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.set_defaults(run=default, parser=parser)
    return commands


def _command(commands, name, run, help_text, aliases=(), description=None):
    parser = commands.add_parser(name, aliases=list(aliases), help=help_text, description=description or help_text,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.set_defaults(run=run)
    return parser


def _output(parser, json_flag=True, csv_flag=True):
    group = parser.add_mutually_exclusive_group()
    if csv_flag:
        group.add_argument("--csv", action="store_true", help="print as CSV")
    if json_flag:
        group.add_argument("--json", action="store_true", help="print as JSON")


def _experiment_id(parser, help_text="experiment ID"):
    parser.add_argument("experiment_id", type=int, help=help_text)


def _experiment_commands(subparsers):
    commands = _group(subparsers, "experiment", "e", "manage experiments", default=_experiment.list_)
    p = _command(commands, "create", _experiment.create, "create experiment", description=CREATE_DESCRIPTION)
    p.add_argument("config_file", metavar="CONFIG", help="experiment config file (.yaml or .json)")
    p.add_argument("model_def", metavar="CONTEXT", help="directory containing the model definition")
    p.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config field (dotted path), repeatable")
    p.add_argument("-i", "--include", action="append", default=[], metavar="PATH",
                   help="also copy PATH into the model snapshot, repeatable")
    p.add_argument("--local", action="store_true", help="run locally instead of in the store (see above)")
    p.add_argument("-t", "--test", "--test-mode", dest="test", action="store_true",
                   help="test mode: one trial, one batch (see above)")
    p.add_argument("-f", "--follow", "--follow-first-trial", dest="follow", action="store_true",
                   help="follow the first trial's logs, then wait for the experiment's end")
    p = _command(commands, "list", _experiment.list_, "list experiments", aliases=["ls"])
    p.add_argument("-a", "--all", action="store_true", help="accepted: every experiment of the store is listed")
    _output(p)
    p = _command(commands, "describe", _experiment.describe, "describe experiments")
    p.add_argument("experiment_ids", help="comma-separated list of experiment IDs to describe")
    p.add_argument("--metrics", action="store_true", help="display full metrics")
    _output(p)
    p = _command(commands, "list-trials", _experiment.list_trials, "list trials of experiment", aliases=["lt"])
    _experiment_id(p)
    _output(p)
    p = _command(commands, "list-checkpoints", _experiment.list_checkpoints, "list checkpoints of experiment",
                 aliases=["lc"])
    _experiment_id(p)
    p.add_argument("--best", type=int, metavar="N",
                   help="the best checkpoint of each of the N best trials, by the searcher metric")
    _output(p)
    for name, run, text in (("pause", _experiment.pause, "pause experiment"),
                            ("activate", _experiment.activate, "activate (resume) a paused experiment"),
                            ("kill", _experiment.kill, "kill experiment"),
                            ("cancel", _experiment.cancel, "cancel experiment (as kill)")):
        _experiment_id(_command(commands, name, run, text))
    p = _command(commands, "delete", _experiment.delete, "delete experiment")
    _experiment_id(p)
    p.add_argument("--yes", action="store_true", help="automatically answer yes to prompts")
    p = _command(commands, "download-model-def", _experiment.download_model_def,
                 "download model definition (experiment_ID_model_def.tgz)")
    _experiment_id(p)
    p.add_argument("--output-dir", default=".", help="the directory to write it in (default: the current one)")
    p = _command(commands, "wait", _experiment.wait, "wait for experiment to reach terminal state")
    _experiment_id(p)
    p.add_argument("--polling-interval", type=_positive, default=5.0, metavar="SECONDS",
                   help="seconds between polls (default 5)")


def _trial_commands(subparsers):
    commands = _group(subparsers, "trial", "t", "manage trials")
    p = _command(commands, "describe", _records.describe_trial, "describe trial")
    p.add_argument("trial_id", type=int, help="trial ID")
    p.add_argument("--metrics-summary", action="store_true", help="display summary of metrics")
    p.add_argument("--metrics", action="store_true", help="display full metrics")
    _output(p)
    p = _command(commands, "logs", _records.trial_logs, "fetch trial logs")
    p.add_argument("trial_id", type=int, help="trial ID")
    p.add_argument("-f", "--follow", action="store_true",
                   help="follow the logs of a running trial, similar to tail -f")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--head", type=_count, help="number of lines to show, counting from the beginning")
    group.add_argument("--tail", type=_count, help="number of lines to show, counting from the end")
    p.add_argument("--rank-id", dest="rank_ids", type=int, action="append",
                   help="ranks to show logs from (repeat for multiple values)")
    p = _command(commands, "kill", _records.kill_trial, "forcibly terminate a trial")
    p.add_argument("trial_id", type=int, help="trial ID")
    p = _command(commands, "download", _records.download_trial_checkpoint, "download checkpoint for trial")
    p.add_argument("trial_id", type=int, help="trial ID")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--best", action="store_true", help="download the checkpoint with the best validation metric")
    which.add_argument("--latest", action="store_true", help="download the most recent checkpoint")
    which.add_argument("--uuid", help="download a checkpoint by specifying its UUID")
    p.add_argument("-o", "--output-dir", help="output directory for the checkpoint (default checkpoints/UUID)")
    p.add_argument("--sort-by", metavar="METRIC",
                   help="with --best: the validation metric to sort on (default the searcher's); needs "
                        "--smaller-is-better")
    p.add_argument("--smaller-is-better", type=_boolean, metavar="BOOL",
                   help="with --best --sort-by: the sort order (e.g. 'false' for accuracy)")
    p.add_argument("-q", "--quiet", action="store_true", help="only print the path to the checkpoint")


def _checkpoint_commands(subparsers):
    commands = _group(subparsers, "checkpoint", "c", "manage checkpoints")
    p = _command(commands, "describe", _records.describe_checkpoint, "describe checkpoint")
    p.add_argument("uuid", help="checkpoint UUID to describe")
    p = _command(commands, "download", _records.download_checkpoint, "download checkpoint from storage")
    p.add_argument("uuid", help="checkpoint UUID")
    p.add_argument("-o", "--output-dir", help="output directory for the checkpoint (default checkpoints/UUID)")
    p.add_argument("-q", "--quiet", action="store_true", help="only print the path to the checkpoint")


def _model_commands(subparsers):
    commands = _group(subparsers, "model", "m", "manage models", default=_records.list_models)
    p = _command(commands, "list", _records.list_models, "list all models in the registry", aliases=["ls"])
    p.add_argument("--sort-by", choices=["name", "description", "creation_time", "last_updated_time"],
                   default="last_updated_time", help="sort models by the given field")
    p.add_argument("--order-by", choices=["asc", "desc"], default="asc", help="ascending or descending order")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p = _command(commands, "create", _records.create_model, "create model")
    p.add_argument("name", help="name for the model")
    p.add_argument("--description", help="description of the model")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p = _command(commands, "describe", _records.describe_model, "describe model")
    p.add_argument("name", help="model name (or ID)")
    p.add_argument("--version", type=int, default=-1, help="version to show (default: the latest)")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p = _command(commands, "list-versions", _records.list_versions, "list the versions of a model")
    p.add_argument("name", help="model name (or ID)")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p = _command(commands, "register-version", _records.register_version, "register a new version of a model")
    p.add_argument("name", help="model name (or ID)")
    p.add_argument("uuid", help="checkpoint UUID to register as the next version")
    p.add_argument("--json", action="store_true", help="print as JSON")


def parser():
    top = argparse.ArgumentParser(prog="det", description=DESCRIPTION,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    top.add_argument("-m", "--master", metavar="ADDRESS",
                     help="accepted and ignored: the store is local (default $DET_MASTER)")
    top.add_argument("-u", "--user", help="accepted and ignored: one user, one machine")
    top.add_argument("-v", "--version", dest="show_version", action="store_true",
                     help="print the Determined version whose commands this is, and hpsearch's")
    subparsers = top.add_subparsers(dest="group", metavar="COMMAND")
    _experiment_commands(subparsers)
    _trial_commands(subparsers)
    _checkpoint_commands(subparsers)
    _model_commands(subparsers)
    p = subparsers.add_parser("preview-search", help="preview search (searcher-sim preview)",
                              description="How many trials the search creates and how long each trains, "
                                          "played with instant trials by `searcher-sim preview`.")
    p.add_argument("config_file", metavar="CONFIG", help="experiment config file (.yaml or .json)")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.set_defaults(run=_records.preview_search)
    return top


def main(argv=None):
    top = parser()
    args = top.parse_args(argv)
    if args.master:
        print(f"det: note: --master {args.master} ignored: hpsearch's experiment store is local "
              f"({os.environ.get('HPSEARCH_HOME') or 'HPSEARCH_HOME unset: ~/.local/share/hpsearch'})",
              file=sys.stderr)
    if args.show_version:  # its own name: `det m describe --version N` is another option
        return _records.print_version()
    run = getattr(args, "run", None)
    if args.group is None or run is None:
        (getattr(args, "parser", None) or top).print_help(sys.stderr)
        return 2
    if run in (_experiment.list_, _records.list_models) and not hasattr(args, "json"):
        # `det e` / `det m` alone: list, as Determined does.
        args = top.parse_args((argv if argv is not None else sys.argv[1:]) + ["list"])
    from determined.experimental import client
    try:
        return run(args)
    except (CliError, client.APIException, ValueError) as e:
        print(f"Error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        sys.stderr.close()  # the reader (head, less) went away
        return 0
