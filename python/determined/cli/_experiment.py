"""`det experiment ...` over the SDK (determined.experimental.client) and `searcher-run ls`."""

import getpass
import importlib
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tarfile

from determined.cli import _render
from determined.cli._programs import CliError, apply_overrides, list_experiments, load_config
from determined.experimental import client

# Determined's `entrypoint: model_def:TrialClass` (module path, colon, dotted object name).
_TRIAL_ENTRYPOINT = re.compile(r"^[\w.]+:[\w.]+$")


def _experiment(experiment_id):
    return client.get_experiment(experiment_id)  # NotFoundException names the id


def test_config(config):
    """Determined's test-mode experiment (`det e create --test`): one trial, one batch, no
    restarts, no checkpoint kept at the end."""
    test = dict(config)
    searcher = dict(config.get("searcher") or {})
    test.update({
        "description": f"[test-mode] {config.get('description') or config.get('name') or 'experiment'}",
        "scheduling_unit": 1,
        "min_validation_period": {"batches": 1},
        "checkpoint_storage": {**(config.get("checkpoint_storage") or {}),
                               "save_experiment_best": 0, "save_trial_best": 0, "save_trial_latest": 0},
        "searcher": {"name": "single", "metric": searcher.get("metric"),
                     "smaller_is_better": searcher.get("smaller_is_better", True),
                     "max_length": {"batches": 1}},
        "max_restarts": 0,
    })
    return test


def _entrypoint_text(entrypoint):
    if isinstance(entrypoint, list):
        return " ".join(shlex.quote(str(part)) for part in entrypoint)
    return str(entrypoint)


def _local(args):
    """--local: a Trial class through determined.experimental.create(..., local=True), a script
    run here as a plain process (det.core.init() then gives its off-cluster stand-ins)."""
    config = apply_overrides(load_config(args.config_file), args.config)
    entrypoint = config.get("entrypoint")
    if not entrypoint:
        raise CliError(f"{args.config_file}: the config has no entrypoint")
    context = pathlib.Path(args.model_def).resolve()
    text = _entrypoint_text(entrypoint)
    if _TRIAL_ENTRYPOINT.match(text):
        from determined import experimental
        create = getattr(experimental, "create", None)
        if create is None:
            raise CliError(f"--local: the entrypoint {text!r} names a Trial class, which needs "
                           "determined.experimental.create(); this installation does not have it. "
                           "Run the experiment without --local (det experiment create CONFIG CONTEXT)")
        # As Determined's local mode: the context is the working directory and first on sys.path.
        module_name, _, object_path = text.partition(":")
        previous = os.getcwd()
        sys.path.insert(0, str(context))
        os.chdir(context)
        try:
            trial_def = importlib.import_module(module_name)
            for part in object_path.split("."):
                trial_def = getattr(trial_def, part)
            create(trial_def=trial_def, config=config, context_dir=str(context), local=True, test=args.test)
        finally:
            os.chdir(previous)
        return 0
    mode = "test mode, " if args.test else ""
    print(f"Running the entrypoint locally ({mode}outside the experiment store) in {context}: {text}",
          flush=True)
    return subprocess.run(["/bin/sh", "-c", text], cwd=context).returncode


def _create_in_store(args, config_file, context):
    if not (args.config or args.test):
        return client.create_experiment(config=config_file, model_dir=str(context), includes=args.include)
    config = apply_overrides(load_config(config_file), args.config)
    if args.test:
        config = test_config(config)
    try:
        return client.create_experiment(config=config, model_dir=str(context), includes=args.include)
    except client.APIException as e:
        # The SDK names a dict config "<config dict>": here it is the file, rewritten.
        raise type(e)(str(e).replace("<config dict>", f"{config_file} (as --config/--test rewrote it)")) from None


def create(args):
    if args.local:
        return _local(args)
    context = pathlib.Path(args.model_def)
    if not context.is_dir():
        raise CliError(f"CONTEXT {args.model_def!r}: not a directory (the model definition directory "
                       "whose snapshot the trials run in)")
    if not pathlib.Path(args.config_file).is_file():
        raise CliError(f"CONFIG {args.config_file!r}: no such file")
    exp = _create_in_store(args, args.config_file, context)
    if args.test:
        print(f"Created test experiment {exp.id}", flush=True)
        state = _wait(exp, 0.5)
        if state == client.ExperimentState.COMPLETED:
            print("Model definition test succeeded!")
            return 0
        print(f"Model definition test (ID: {exp.id}) failed: the experiment ended {state.value}")
        for trial in exp.get_trials():
            sys.stdout.writelines(trial.logs())
        return 1
    print(f"Created experiment {exp.id}", flush=True)
    if not args.follow:
        return 0
    print("Waiting for first trial to begin...", flush=True)
    trial = exp.await_first_trial(interval=0.2)
    print(f"Following first trial with ID {trial.id}", flush=True)
    try:
        for line in trial.logs(follow=True):
            sys.stdout.write(line)
            sys.stdout.flush()
    finally:
        print(f"Trial log stream ended. To reopen log stream, run: det trial logs -f {trial.id}", flush=True)
    return _report_end(exp, _wait(exp, 0.5))


def _wait(exp, interval):
    try:
        return exp.wait(interval=interval)
    except ValueError as e:  # PAUSED: it would never end on its own
        raise CliError(str(e)) from None


def _report_end(exp, state):
    print(f"Experiment {exp.id} terminated with state {state.value}")
    return 0 if state == client.ExperimentState.COMPLETED else 1


def wait(args):
    exp = _experiment(args.experiment_id)
    return _report_end(exp, _wait(exp, args.polling_interval))


def list_(args):
    experiments = list_experiments()
    if args.json:
        _render.print_json(experiments)
        return 0
    owner = getpass.getuser()
    headers = ["ID", "Owner", "Name", "Parent ID", "State", "Progress", "Start Time", "End Time",
               "Resource Pool"]
    rows = [[e["id"], owner, e.get("name"), None, e["state"], _render.format_percent(e.get("progress")),
             _render.format_time(e.get("started")), _render.format_time(e.get("ended")), None]
            for e in experiments]
    _render.table_or_csv(headers, rows, args.csv)
    return 0


def _trial_rows(exp):
    rows = []
    for trial in exp.get_trials():
        steps = [m.steps_completed for m in trial.get_metrics() if m.steps_completed is not None]
        rows.append((trial, max(steps) if steps else 0))
    return rows


def _ids(text):
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise CliError(f"experiment_ids {text!r}: expected comma-separated experiment IDs, e.g. 1,3") from None


def describe(args):
    exps = [_experiment(i) for i in _ids(args.experiment_ids)]
    docs = [exp.describe() for exp in exps]
    if args.json:
        _render.print_json(docs)
        return 0
    print("Experiment:")
    _render.table_or_csv(
        ["Experiment ID", "State", "Progress", "Started", "Ended", "Name", "Description", "Archived",
         "Resource Pool", "Labels"],
        [[d["id"], d["state"], _render.format_percent((d.get("experiment") or {}).get("progress", 0.0)),
          _render.format_time(d.get("started")), _render.format_time(d.get("ended")), d.get("name"), d.get("description"),
          False, None, None] for d in docs], args.csv)
    trials = [(exp, trial, batches) for exp in exps for trial, batches in _trial_rows(exp)]
    print("\nTrials:")
    _render.table_or_csv(["Trial ID", "Experiment ID", "State", "Started", "Ended", "H-Params"],
                         [[t.id, exp.id, t.state.value, None, None, t.hparams] for exp, t, _ in trials], args.csv)
    print("\nWorkloads:")
    metric_names = set()
    reports = []
    for _, trial, _ in trials:
        for m in trial.get_metrics():
            if m.group in ("training", "validation"):
                reports.append((trial.id, m))
                if args.metrics:
                    metric_names.update(f"{m.group}:{k}" for k in m.metrics)
    names = sorted(metric_names)
    headers = (["Trial ID", "# of Batches", "State", "Report Time"]
               + [("Training Metric: " if n.startswith("training:") else "Validation Metric: ") + n.split(":", 1)[1]
                  for n in names] + ["Validation State", "Validation Report Time"])
    rows = []
    for trial_id, m in reports:
        validation = m.group == "validation"
        rows.append([trial_id, m.steps_completed, "COMPLETED", _render.format_time(m.end_time)]
                    + [m.metrics.get(n.split(":", 1)[1]) if n.startswith(m.group + ":") else None for n in names]
                    + ["COMPLETED" if validation else None,
                       _render.format_time(m.end_time) if validation else None])
    _render.table_or_csv(headers, rows, args.csv)
    return 0


def list_trials(args):
    exp = _experiment(args.experiment_id)
    rows = _trial_rows(exp)
    if args.json:
        _render.print_json([{"id": t.id, "experimentId": exp.id, "state": t.state.value, "hparams": t.hparams,
                             "totalBatchesProcessed": batches} for t, batches in rows])
        return 0
    _render.table_or_csv(["Trial ID", "State", "H-Params", "Start Time", "End Time", "# of Batches"],
                         [[t.id, t.state.value, t.hparams, None, None, batches] for t, batches in rows], args.csv)
    return 0


def list_checkpoints(args):
    exp = _experiment(args.experiment_id)
    metric = exp.describe().get("metric")
    if args.best is not None:
        if args.best < 1:
            raise CliError(f"--best {args.best}: expected a number of checkpoints >= 1")
        checkpoints = exp.top_n_checkpoints(args.best)
    else:
        # What the store keeps of each trial (the save policy's best and latest), oldest first.
        found = {}
        for trial in exp.get_trials():
            for select in ({"latest": True}, {"best": True}):
                try:
                    c = trial.select_checkpoint(**select)
                except client.NotFoundException:
                    continue
                found.setdefault(c.uuid, c)
        checkpoints = sorted(found.values(), key=lambda c: (c.training.trial_id, c.steps_completed or 0))
    rows = [[c.training.trial_id, c.steps_completed, c.state.value,
             c.training.validation_metrics.get("avgMetrics", {}).get(metric), c.uuid, None, None]
            for c in checkpoints]
    if args.json:
        _render.print_json([{"uuid": c.uuid, "trialId": c.training.trial_id, "experimentId": exp.id,
                             "stepsCompleted": c.steps_completed, "state": c.state.value,
                             "validationMetrics": c.training.validation_metrics, "metadata": c.metadata}
                            for c in checkpoints])
        return 0
    _render.table_or_csv(["Trial ID", "# of Batches", "State", "Validation Metric", "UUID", "Resources", "Size"],
                         rows, args.csv)
    return 0


def download_model_def(args):
    """experiment_ID_model_def.tgz in --output-dir, as Determined's: the experiment's model
    snapshot (the context directory as stored, .detignore honoured), paths relative to it."""
    exp = _experiment(args.experiment_id)
    source = pathlib.Path(exp.describe()["model_dir"])
    output = pathlib.Path(args.output_dir)
    if not output.is_dir():
        raise CliError(f"--output-dir {output}: not a directory")
    if not source.is_dir():
        raise CliError(f"experiment {exp.id} has no model definition in the store ({source} is missing)")
    target = output / f"experiment_{exp.id}_model_def.tgz"
    with tarfile.open(target, "w:gz") as tar:
        for path in sorted(source.rglob("*")):
            tar.add(path, arcname=path.relative_to(source).as_posix(), recursive=False)
    return 0


def _lifecycle(verb, past):
    def command(args):
        getattr(_experiment(args.experiment_id), verb)()
        print(f"{past} experiment {args.experiment_id}")
        return 0
    return command


pause = _lifecycle("pause", "Paused")
activate = _lifecycle("activate", "Activated")
kill = _lifecycle("kill", "Killed")
cancel = _lifecycle("kill", "Canceled")  # the store has one way to stop an experiment: kill


def delete(args):
    exp = _experiment(args.experiment_id)
    if not args.yes:
        if not sys.stdin.isatty():
            raise CliError(f"delete {args.experiment_id}: deleting removes its checkpoints and logs for good; "
                           "pass --yes to confirm without a prompt")
        answer = input("Deleting an experiment will result in the unrecoverable deletion of all associated "
                       "logs, checkpoints, and other metadata associated with the experiment. Do you still "
                       "wish to proceed? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("Aborting experiment deletion.")
            return 0
    exp.delete()
    print(f"Successfully deleted experiment {args.experiment_id}")
    return 0
