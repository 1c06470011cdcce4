"""`det trial`, `det checkpoint`, `det model` and `det preview-search`, over the SDK
(determined.experimental.client) and `searcher-sim preview`."""

import sys

from determined.cli import _render
from determined.cli._programs import CliError, run
from determined.experimental import client


# ---- trials --------------------------------------------------------------------------------------

def _trial_checkpoints(trial):
    """The trial's kept checkpoints (best and latest), by their steps."""
    found = {}
    for select in ({"latest": True}, {"best": True}):
        try:
            c = trial.select_checkpoint(**select)
        except client.NotFoundException:
            continue
        found[c.steps_completed] = c
    return found


def describe_trial(args):
    trial = client.get_trial(args.trial_id)
    reports = list(trial.get_metrics())
    checkpoints = _trial_checkpoints(trial)
    steps = sorted({m.steps_completed for m in reports if m.steps_completed is not None} | set(checkpoints))
    by_steps = {}
    for m in reports:
        by_steps.setdefault(m.steps_completed, {})[m.group] = m
    if args.json:
        _render.print_json({
            "trial": {"id": trial.id, "experimentId": trial.experiment_id, "state": trial.state.value,
                      "hparams": trial.hparams, "summaryMetrics": trial.summary_metrics},
            "workloads": [{"group": m.group, "stepsCompleted": m.steps_completed, "metrics": m.metrics,
                           "endTime": _render.format_time(m.end_time)} for m in reports]
            + [{"group": "checkpoint", "stepsCompleted": c.steps_completed, "uuid": c.uuid,
                "state": c.state.value, "metadata": c.metadata} for c in checkpoints.values()]})
        return 0
    _render.table_or_csv(["Experiment ID", "State", "H-Params", "Summary Metrics", "Started", "Ended"],
                         [[trial.experiment_id, trial.state.value, trial.hparams, trial.summary_metrics,
                           None, None]], args.csv)
    headers = ["# of Batches", "Report Time", "Checkpoint", "Checkpoint UUID", "Checkpoint Metadata",
               "Validation Metrics"] + (["Workload Metrics"] if args.metrics else [])
    rows = []
    for s in steps:
        groups = by_steps.get(s, {})
        c = checkpoints.get(s)
        report = groups.get("validation") or groups.get("training") or next(iter(groups.values()), None)
        validation = groups.get("validation")
        rows.append([s, _render.format_time(report.end_time) if report else None,
                     c.state.value if c else None, c.uuid if c else None, c.metadata if c else None,
                     validation.metrics if validation else None]
                    + ([groups["training"].metrics if "training" in groups else None] if args.metrics else []))
    print()
    print("Workloads:")
    _render.table_or_csv(headers, rows, args.csv)
    if args.metrics_summary:
        _render.print_json(trial.summary_metrics)
    return 0


def trial_logs(args):
    trial = client.get_trial(args.trial_id)
    if args.follow and (args.head is not None or args.tail is not None):
        raise CliError("--follow cannot be combined with --head or --tail")
    try:
        for line in trial.logs(follow=args.follow, head=args.head, tail=args.tail, rank_ids=args.rank_ids):
            sys.stdout.write(line)
            sys.stdout.flush()
    finally:
        print(f"Trial log stream ended. To reopen log stream, run: det trial logs -f {args.trial_id}")
    return 0


def kill_trial(args):
    """``det trial kill``: the trial is stopped and reported to its searcher as canceled."""
    print(client.get_trial(args.trial_id).kill())
    return 0


def download_trial_checkpoint(args):
    if args.sort_by is not None and not args.best:
        raise CliError("--sort-by goes with --best")
    if (args.sort_by is None) != (args.smaller_is_better is None):
        raise CliError("--sort-by and --smaller-is-better go together: give both (e.g. --sort-by accuracy "
                       "--smaller-is-better false) or neither (the searcher's metric and order)")
    checkpoint = client.get_trial(args.trial_id).select_checkpoint(
        latest=args.latest, best=args.best, uuid=args.uuid, sort_by=args.sort_by,
        smaller_is_better=args.smaller_is_better)
    _download(checkpoint, args)
    return 0


def print_version():
    """`det 0.37.0 (hpsearch VERSION)`: Determined's form first (scripts read `det X.Y.Z`)."""
    import determined
    hpsearch = run("searcher-run", "HPSEARCH_SEARCHER_RUN", ["--version"]).split()[-1]
    print(f"det {determined.__version__} (hpsearch {hpsearch})")
    return 0


# ---- checkpoints ---------------------------------------------------------------------------------

def render_checkpoint(checkpoint, path=None):
    if path:
        print("Local checkpoint path:")
        print(path, "\n")
    _render.table(["Experiment ID", "Trial ID", "Steps Completed", "Report Time", "Checkpoint UUID",
                   "Validation Metrics", "Metadata"],
                  [[checkpoint.training.experiment_id, checkpoint.training.trial_id, checkpoint.steps_completed,
                    _render.format_time(checkpoint.report_time), checkpoint.uuid,
                    checkpoint.training.validation_metrics, checkpoint.metadata or {}]])


def describe_checkpoint(args):
    render_checkpoint(client.get_checkpoint(args.uuid))
    return 0


def _download(checkpoint, args):
    path = checkpoint.download(path=args.output_dir)
    if args.quiet:
        print(path)
    else:
        render_checkpoint(checkpoint, path)


def download_checkpoint(args):
    _download(client.get_checkpoint(args.uuid), args)
    return 0


# ---- the model registry --------------------------------------------------------------------------

def _model(identifier):
    """A model by name, or by id when the name is a number no model is called."""
    try:
        return client.get_model(identifier)
    except client.NotFoundException:
        if identifier.isdigit():
            return client.get_model(int(identifier))
        raise


def _model_json(m):
    return {"id": m.model_id, "name": m.name, "description": m.description,
            "creationTime": _render.format_time(m.creation_time),
            "lastUpdatedTime": _render.format_time(m.last_updated_time), "metadata": m.metadata,
            "labels": m.labels, "archived": m.archived, "username": m.username}


def _version_json(v):
    c = v.checkpoint
    return {"version": v.model_version, "modelName": v.model_name, "checkpointUuid": c.uuid,
            "trialId": c.training.trial_id, "stepsCompleted": c.steps_completed,
            "validationMetrics": c.training.validation_metrics, "metadata": c.metadata,
            "creationTime": _render.format_time(v.creation_time)}


def render_model(m):
    _render.table(["ID", "Name", "Description", "Creation Time", "Last Updated Time", "Metadata"],
                  [[m.model_id, m.name, m.description, m.creation_time, m.last_updated_time, m.metadata or {}]])


def render_versions(versions):
    _render.table(["Version #", "Trial ID", "Batch #", "Checkpoint UUID", "Validation Metrics", "Metadata"],
                  [[v.model_version, v.checkpoint.training.trial_id, v.checkpoint.steps_completed, v.checkpoint.uuid,
                    v.checkpoint.training.validation_metrics, v.checkpoint.metadata] for v in versions])


def create_model(args):
    m = client.create_model(args.name, args.description or "")
    if args.json:
        _render.print_json(_model_json(m))
    else:
        render_model(m)
    return 0


def list_models(args):
    models = client.get_models(sort_by=client.ModelSortBy[args.sort_by.upper()],
                               order_by=client.ModelOrderBy[args.order_by.upper()])
    if args.json:
        _render.print_json([_model_json(m) for m in models])
        return 0
    _render.table(["ID", "Name", "Creation Time", "Last Updated Time", "Metadata"],
                  [[m.model_id, m.name, m.creation_time, m.last_updated_time, m.metadata or {}] for m in models])
    return 0


def describe_model(args):
    m = _model(args.name)
    version = m.get_version(args.version)
    if args.json:
        _render.print_json({"model": _model_json(m), "modelVersion": _version_json(version) if version else None})
        return 0
    render_model(m)
    if version is not None:
        print()
        render_versions([version])
    return 0


def list_versions(args):
    m = _model(args.name)
    versions = m.get_versions()
    if args.json:
        _render.print_json({"model": _model_json(m), "modelVersions": [_version_json(v) for v in versions]})
        return 0
    render_model(m)
    print()
    render_versions(versions)
    return 0


def register_version(args):
    m = _model(args.name)
    version = m.register_version(args.uuid)
    if args.json:
        _render.print_json(_version_json(version))
        return 0
    render_model(m)
    print()
    render_versions([version])
    return 0


# ---- preview-search ------------------------------------------------------------------------------

def preview_search(args):
    options = ["preview", "--config", args.config_file] + (["--json"] if args.json else [])
    sys.stdout.write(run("searcher-sim", "HPSEARCH_SEARCHER_SIM", options))
    return 0
