"""Determined's ``determined.experimental.client`` on one machine, over hpsearch's experiment store.

The reference workflow runs unchanged::

    from determined.experimental import client
    exp = client.create_experiment(config="my_config.yaml", model_dir=".")
    exit_status = exp.wait()
    path = exp.top_checkpoint().download()

Experiments live in the store ``$HPSEARCH_HOME`` (default
``${XDG_DATA_HOME:-~/.local/share}/hpsearch``; its format: docs/store.md), which ``searcher-run``
owns: this module reads and changes it only through its subcommands (``_store.py``): describe,
trial (its index entry, metrics and output), checkpoint, model (the registry), create, pause,
activate, kill, delete. It opens no file of the store; ``Checkpoint.download`` copies a
checkpoint's files from the directory ``searcher-run checkpoint UUID --json`` names. Standard
library only.

``searcher-run`` is found in ``$HPSEARCH_SEARCHER_RUN``, else on ``PATH``, else in the source
tree's ``build/release``. See docs/sdk.md for what is supported.
"""

import json
import math
import pathlib
import re
import shutil
import subprocess
import tempfile
import time
from typing import Any, Dict, Iterable, Iterator, List, Optional, Union

from determined.experimental._enums import (CheckpointSortBy, CheckpointState, DownloadMode, ExperimentSortBy,
                                            ExperimentState, ModelOrderBy, ModelSortBy, OrderBy, TrialOrderBy,
                                            TrialSortBy, TrialState, _TERMINAL, _TRIAL_STATES,
                                            _UNFINISHED_TRIAL_STATES)
# The store through searcher-run (and the exceptions it raises, part of this module's API).
from determined.experimental._store import (APIException, NotFoundException, _call, _checkpoint_arg, _describe,
                                            _experiment_arg, _id_arg, _number, _root, _searcher_run, _time,
                                            _trial_entry, _trial_metrics)


# ---- checkpoints ---------------------------------------------------------------------------------

class CheckpointTrainingMetadata:
    """Where a checkpoint came from (Determined's ``Checkpoint.training``)."""

    def __init__(self, experiment_config: Optional[str], experiment_id: int, trial_id: Optional[int],
                 hparams: Optional[Dict[str, Any]], validation_metrics: Dict[str, Any]):
        self.experiment_config = experiment_config  # the path of experiment.yaml
        self.experiment_id = experiment_id
        self.trial_id = trial_id
        self.hparams = hparams
        self.validation_metrics = validation_metrics


class Checkpoint:
    """A checkpoint in an experiment's checkpoint storage, read and changed through
    ``searcher-run checkpoint UUID``."""

    def __init__(self, uuid: str, experiment_id: int, trial_id: Optional[int] = None,
                 hparams: Optional[Dict[str, Any]] = None, validation_metrics: Optional[Dict[str, Any]] = None,
                 steps_completed: Optional[int] = None):
        self.uuid = uuid
        self.task_id = f"trial-{trial_id}" if trial_id is not None else None
        self.allocation_id = None
        self.resources: Dict[str, Any] = {}
        self.training = CheckpointTrainingMetadata(
            str(_root() / "experiments" / str(experiment_id) / "experiment.yaml"), experiment_id, trial_id,
            hparams, {"avgMetrics": validation_metrics or {}})
        self._steps_completed = steps_completed
        self._record: Optional[Dict[str, Any]] = None  # searcher-run checkpoint UUID --json, once read

    def _stored(self) -> Optional[Dict[str, Any]]:
        """The checkpoint as searcher-run finds it now; None once deleted."""
        try:
            self._record = json.loads(_call("checkpoint", _checkpoint_arg(self.uuid), "--json"))
        except NotFoundException:
            return None
        return self._record

    def _read(self) -> Dict[str, Any]:
        if self._record is None and self._stored() is None:
            self._record = {"metadata": {}, "report_time": None}
        return self._record or {}

    @property
    def metadata(self) -> Dict[str, Any]:
        return self._read()["metadata"]

    @property
    def steps_completed(self) -> Optional[int]:
        return self._steps_completed if self._steps_completed is not None else self.metadata.get("steps_completed")

    @property
    def report_time(self) -> Optional[str]:
        return self._read().get("report_time") or None

    @property
    def state(self) -> CheckpointState:
        return CheckpointState.COMPLETED if self._stored() is not None else CheckpointState.DELETED

    def __repr__(self) -> str:
        return f"Checkpoint(uuid={self.uuid}, trial_id={self.training.trial_id})"

    def download(self, path: Optional[str] = None, mode: DownloadMode = DownloadMode.AUTO) -> str:
        """Copies every file of the checkpoint to ``path`` (default ``checkpoints/UUID`` under the
        current directory) with its ``metadata.json``; returns the path. Into an existing
        directory the checkpoint's files overwrite those of the same name, as Determined's
        shared_fs download does (other files there stay)."""
        stored = self._stored()
        if stored is None:
            raise NotFoundException(f"checkpoint {self.uuid} was deleted")
        target = pathlib.Path(path) if path is not None else pathlib.Path("checkpoints") / self.uuid
        if target.exists() and not target.is_dir():
            raise APIException(f"download(): {target} exists and is not a directory")
        shutil.copytree(stored["directory"], target, dirs_exist_ok=True)
        self.write_metadata_file(str(target / "metadata.json"))
        return str(target)

    def write_metadata_file(self, path: str) -> None:
        with open(path, "w") as f:
            json.dump(self.metadata, f, indent=2, sort_keys=True)

    def add_metadata(self, metadata: Dict[str, Any]) -> None:
        """Merges ``metadata`` into the checkpoint's (its metadata.json in storage)."""
        self._record = json.loads(_call("checkpoint", _checkpoint_arg(self.uuid), "--add-metadata",
                                        json.dumps(metadata)))

    def remove_metadata(self, keys: List[str]) -> None:
        self._record = json.loads(_call("checkpoint", _checkpoint_arg(self.uuid), "--remove-metadata",
                                        json.dumps(list(keys))))

    def delete(self) -> None:
        """Deletes the checkpoint's files; refused while its experiment runs (the runner may be
        about to relaunch a trial from it)."""
        # searcher-run checks, under the registry's lock, that no model version is this checkpoint,
        # and deletes only a checkpoint's own directory in a checkpoint storage.
        _call("checkpoint", _checkpoint_arg(self.uuid), "--delete")

    def load(self, path: Optional[str] = None, tags: Optional[List[str]] = None, **kwargs: Any) -> Any:
        raise NotImplementedError("Checkpoint.load() loads PyTorchTrial/TensorFlow checkpoints, which hpsearch "
                                  "does not run (deprecated in Determined too): use download() and load the files")

    @staticmethod
    def load_from_path(path: str, tags: Optional[List[str]] = None, **kwargs: Any) -> Any:
        raise NotImplementedError("Checkpoint.load_from_path() loads PyTorchTrial/TensorFlow checkpoints, which "
                                  "hpsearch does not run (deprecated in Determined too)")


def _validations(trial: Dict[str, Any]) -> Dict[int, Dict[str, Any]]:
    """Every validation of a trial by its steps: the searcher's (experiment.json) and every
    report_validation_metrics (``searcher-run trial ID --metrics``)."""
    by_steps: Dict[int, Dict[str, Any]] = {}
    for v in trial.get("validations", []):
        by_steps.setdefault(int(v["length"]), {}).update(v.get("metrics") or {})
    for m in _trial_metrics(trial["trial_id"], "validation") if trial.get("trial_id") else []:
        if m.get("steps_completed") is not None:
            by_steps.setdefault(int(m["steps_completed"]), {}).update(m.get("metrics") or {})
    return by_steps


def _trial_checkpoints(experiment_id: int, trial: Dict[str, Any]) -> List[Checkpoint]:
    """A trial's checkpoints in storage, oldest first, each with the validation at its steps."""
    validations = _validations(trial)
    stored = list(trial.get("stored_checkpoints") or [])
    latest = trial.get("checkpoint")
    if latest and latest.get("storage_id") and all(c.get("storage_id") != latest["storage_id"] for c in stored):
        stored.append(latest)
    return [Checkpoint(c["storage_id"], experiment_id, trial.get("trial_id"), trial.get("hparams"),
                       validations.get(int(c["length"]), {}), int(c["length"]))
            for c in stored if c.get("storage_id")]


def _score(c: Checkpoint, metric: str, smaller_is_better: bool) -> Optional[float]:
    """The checkpoint's validation of ``metric``, smaller better; None without a number."""
    value = _number(c.training.validation_metrics["avgMetrics"].get(metric))
    if value is None or math.isnan(value):
        return None
    return value if smaller_is_better else -value


def _rank(checkpoints: List[Checkpoint], metric: str, smaller_is_better: bool) -> List[Checkpoint]:
    """Those with a number for ``metric``, best first (ties in the given order)."""
    scored = [(_score(c, metric, smaller_is_better), c) for c in checkpoints]
    scored = sorted(((key, c) for key, c in scored if key is not None), key=lambda pair: pair[0])
    return [c for _, c in scored]


def _first_stored(checkpoints: Iterable[Checkpoint]) -> Optional[Checkpoint]:
    """The first that is still in storage (COMPLETED, not DELETED): experiment.json keeps listing
    a deleted one. Each is asked of searcher-run only when reached."""
    return next((c for c in checkpoints if c._stored() is not None), None)


def _best_of_trials(per_trial: List[List[Checkpoint]], metric: str, smaller_is_better: bool,
                    limit: int) -> List[Checkpoint]:
    """The best stored checkpoint of each of the ``limit`` best trials (each trial's checkpoints
    given ranked, best first). Checked best first, over all trials: a trial is taken at its
    best checkpoint still stored, and storage is asked only about the candidates reached."""
    candidates = sorted(((_score(c, metric, smaller_is_better), t, c) for t, ranked in enumerate(per_trial)
                         for c in ranked), key=lambda candidate: candidate[0])
    taken: Dict[int, Checkpoint] = {}
    for _, trial, c in candidates:
        if len(taken) == limit:
            break
        if trial not in taken and c._stored() is not None:
            taken[trial] = c
    return list(taken.values())


def _list_checkpoints(checkpoints: List[Checkpoint], sort_by: Any, order_by: Optional[OrderBy],
                      max_results: Optional[int], experiment: Dict[str, Any]) -> List[Checkpoint]:
    """Determined's ``list_checkpoints``: sort_by and order_by both or neither (neither: the
    searcher metric in its order); only checkpoints still stored; by a metric (the searcher's or a
    name), only those with a validation of it."""
    if (sort_by is None) != (order_by is None):
        raise AssertionError("sort_by and order_by must be either both set, or neither.")
    if sort_by is not None and not isinstance(sort_by, (CheckpointSortBy, str)):
        raise ValueError("sort_by must be of type CheckpointSortBy or str")
    if max_results is not None and (isinstance(max_results, bool) or not isinstance(max_results, int)
                                    or max_results < 1):
        raise ValueError(f"max_results must be a positive integer, got {max_results!r}")
    descending = order_by in (OrderBy.DESCENDING,)
    if sort_by is None or sort_by == CheckpointSortBy.SEARCHER_METRIC:
        if order_by is None:
            descending = not experiment["smaller_is_better"]
        sort_by = experiment["metric"]
    if isinstance(sort_by, str):
        ordered = _rank(checkpoints, sort_by, not descending)
    else:
        key = {CheckpointSortBy.UUID: lambda c: c.uuid,
               CheckpointSortBy.TRIAL_ID: lambda c: (c.training.trial_id or 0, c.steps_completed or 0),
               CheckpointSortBy.BATCH_NUMBER: lambda c: c.steps_completed or 0,
               CheckpointSortBy.END_TIME: lambda c: c.report_time or "",
               CheckpointSortBy.STATE: lambda c: 0}[sort_by]  # every one listed is COMPLETED
        ordered = sorted(checkpoints, key=key, reverse=descending)
    stored = []
    for c in ordered:  # storage is asked in order, until max_results are found
        if max_results is not None and len(stored) == max_results:
            break
        if c._stored() is not None:
            stored.append(c)
    return stored


# ---- trials ----------------------------------------------------------------------------------------

class TrialMetrics:
    """One report of a trial's metrics (a line of its metrics.jsonl)."""

    def __init__(self, trial_id: int, group: str, steps_completed: Optional[int], metrics: Dict[str, Any],
                 end_time: Optional[float]):
        self.trial_id = trial_id
        self.trial_run_id = None
        self.group = group
        self.steps_completed = steps_completed
        self.metrics = metrics
        self.batch_metrics = None
        self.end_time = end_time

    def __repr__(self) -> str:
        return f"TrialMetrics(trial_id={self.trial_id}, group={self.group!r}, steps_completed={self.steps_completed})"


class TrialReference:
    """A trial by its global id (``trial_id``), as ``get_trial`` and ``get_trials`` give it."""

    def __init__(self, trial_id: int, _entry: Optional[Dict[str, Any]] = None):
        entry = _entry or _trial_entry(trial_id)
        self.id = trial_id
        self.experiment_id = int(entry["experiment_id"])
        self._request_id = entry["request_id"]

    def __repr__(self) -> str:
        return f"TrialReference(id={self.id}, experiment_id={self.experiment_id})"

    def _record(self, described: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """The trial in experiment.json (empty until the runner's first snapshot lists it)."""
        experiment = (described or _describe(self.experiment_id)).get("experiment") or {}
        for t in experiment.get("trials", []):
            if t.get("request_id") == self._request_id:
                return t
        return {}

    @property
    def hparams(self) -> Dict[str, Any]:
        return self._record().get("hparams") or {}

    def kill(self) -> str:
        """Stops the trial at once; its searcher is told it was canceled (Determined's
        ``USER_CANCELED``) and the search goes on. A paused experiment's trial is canceled when the
        experiment is activated. Returns what the store said."""
        return _call("trial", _id_arg(self.id, "trial"), "--kill").strip()

    @property
    def state(self) -> TrialState:
        described = _describe(self.experiment_id)
        state = _TRIAL_STATES.get(self._record(described).get("outcome", "waiting"), TrialState.ACTIVE)
        # A trial that has not ended stops with its experiment, as Determined's do: PAUSED with
        # a paused experiment, CANCELED with a killed one, ERROR with one that failed.
        if state in (TrialState.ACTIVE, TrialState.PAUSED):
            state = _UNFINISHED_TRIAL_STATES.get(described.get("state"), state)
        return state

    @property
    def summary_metrics(self) -> Dict[str, Any]:
        return self._record().get("metrics") or {}

    def logs(self, follow: bool = False, *, head: Optional[int] = None, tail: Optional[int] = None,
             container_ids: Optional[List[str]] = None, rank_ids: Optional[List[int]] = None,
             stdtypes: Optional[List[str]] = None, min_level: Any = None) -> Iterable[str]:
        """The trial's output (stdout and stderr, every launch), line by line. ``follow`` keeps
        reading until the experiment's runner has stopped."""
        if sum([bool(follow), head is not None, tail is not None]) > 1:
            raise ValueError("logs(): follow, head and tail are mutually exclusive")
        return self._logs(follow, head, tail, rank_ids)

    def _logs(self, follow: bool, head: Optional[int], tail: Optional[int],
              rank_ids: Optional[List[int]]) -> Iterator[str]:
        def wanted(line: str) -> bool:
            return rank_ids is None or any(line.startswith(f"[rank={r}]") for r in rank_ids)

        def read(offset: int) -> bytes:  # the output from byte offset on
            done = subprocess.run([_searcher_run(), "trial", _id_arg(self.id, "trial"), "--logs",
                                   f"--from-byte={offset}"], stdin=subprocess.DEVNULL, capture_output=True)
            if done.returncode != 0:
                raise APIException(done.stderr.decode(errors="replace").strip())
            return done.stdout

        if not follow:
            lines = [line for line in read(0).decode(errors="replace").splitlines(keepends=True) if wanted(line)]
            if head is not None:
                lines = lines[:head]
            if tail is not None:
                lines = lines[-tail:] if tail > 0 else []
            yield from lines
            return
        offset, pending = 0, b""
        while True:
            alive = _describe(self.experiment_id)["alive"]  # before reading: nothing written after is missed
            chunk = read(offset)
            offset += len(chunk)
            *complete, pending = (pending + chunk).split(b"\n")
            for line in complete:
                text = line.decode(errors="replace") + "\n"
                if wanted(text):
                    yield text
            if not alive:
                if pending and wanted(pending.decode(errors="replace")):
                    yield pending.decode(errors="replace")
                return
            time.sleep(0.2)

    def _checkpoints(self) -> List[Checkpoint]:
        record = self._record()
        record.setdefault("trial_id", self.id)
        return _trial_checkpoints(self.experiment_id, record)

    def _searcher(self) -> Dict[str, Any]:
        return _describe(self.experiment_id)

    def top_checkpoint(self, sort_by: Optional[str] = None, smaller_is_better: Optional[bool] = None) -> Checkpoint:
        return self.select_checkpoint(best=True, sort_by=sort_by, smaller_is_better=smaller_is_better)

    def select_checkpoint(self, latest: bool = False, best: bool = False, uuid: Optional[str] = None,
                          sort_by: Optional[str] = None, smaller_is_better: Optional[bool] = None) -> Checkpoint:
        if sum([bool(latest), bool(best), uuid is not None]) != 1:
            raise ValueError("select_checkpoint(): exactly one of latest, best or uuid must be given")
        checkpoints = self._checkpoints()
        if uuid is not None:
            for c in checkpoints:
                if c.uuid == uuid:
                    return c
            raise NotFoundException(f"checkpoint {uuid} not found in trial {self.id}")
        # Only checkpoints still in storage, as Determined considers only COMPLETED ones.
        if not checkpoints:
            raise NotFoundException(f"trial {self.id} has no checkpoint")
        if latest:
            found = _first_stored(sorted(checkpoints, key=lambda c: -(c.steps_completed or 0)))
            if found is None:
                raise NotFoundException(f"trial {self.id} has no checkpoint: all were deleted")
            return found
        experiment = self._searcher()
        metric = sort_by or experiment["metric"]
        sib = experiment["smaller_is_better"] if sort_by is None or smaller_is_better is None else smaller_is_better
        ranked = _rank(checkpoints, metric, sib)
        best = _first_stored(ranked)
        if best is None and ranked:
            raise NotFoundException(f"trial {self.id}'s checkpoints with a validation of '{metric}' were all deleted")
        if best is None:
            raise NotFoundException(f"trial {self.id} has no checkpoint with a validation of '{metric}'")
        return best

    def list_checkpoints(self, sort_by: Optional[Union[str, CheckpointSortBy]] = None,
                         order_by: Optional[OrderBy] = None, max_results: Optional[int] = None) -> List[Checkpoint]:
        """The trial's checkpoints still stored, sorted (``_list_checkpoints``)."""
        return _list_checkpoints(self._checkpoints(), sort_by, order_by, max_results, self._searcher())

    def get_metrics(self, group: Optional[str] = None) -> Iterator[TrialMetrics]:
        """Every metrics report of the trial (``group``: "training", "validation", or any), in order."""
        return (TrialMetrics(self.id, m.get("group"), m.get("steps_completed"), m.get("metrics") or {}, m.get("time"))
                for m in _trial_metrics(self.id, group))

    def iter_metrics(self, group: str) -> Iterator[TrialMetrics]:
        return self.get_metrics(group)


# ---- experiments ------------------------------------------------------------------------------------

class ExperimentReference:
    """An experiment of the store by its id."""

    def __init__(self, experiment_id: int):
        self._id = int(experiment_id)

    @property
    def id(self) -> int:
        return self._id

    def __repr__(self) -> str:
        return f"ExperimentReference(id={self._id})"

    @property
    def state(self) -> ExperimentState:
        return ExperimentState(_describe(self._id)["state"])

    @property
    def name(self) -> Optional[str]:
        return _describe(self._id)["name"]

    @property
    def description(self) -> Optional[str]:
        return _describe(self._id).get("description")

    @property
    def config(self) -> Optional[Dict[str, Any]]:
        """The config as given (experiment.yaml, parsed by searcher-run); None if it does not parse."""
        return _describe(self._id).get("experiment_config")

    @property
    def progress(self) -> Optional[float]:
        """The searcher's progress, 0 to 1; None until the runner has recorded the experiment. An
        experiment that ended ERROR keeps the progress of its last trial progress report, as
        Determined's (the errored trials did not finish the search)."""
        experiment = _describe(self._id).get("experiment")
        return experiment.get("progress") if isinstance(experiment, dict) else None

    def describe(self) -> Dict[str, Any]:
        """What ``searcher-run describe ID --json`` says (state, paths, the runner's experiment.json)."""
        return _describe(self._id)

    def wait(self, interval: float = 5.0) -> ExperimentState:
        """Polls every ``interval`` seconds until the experiment is COMPLETED, CANCELED, ERROR or
        DELETED and returns that state. A PAUSED experiment (paused, or its runner was killed)
        raises ValueError, as Determined's wait() does: it would never end on its own."""
        while True:
            described = _describe(self._id)
            state = ExperimentState(described["state"])
            if state in _TERMINAL:
                return state
            if state == ExperimentState.PAUSED:
                raise ValueError(f"Experiment {self._id} is in paused state. Make sure the experiment is active. "
                                 f"({described.get('reason') or 'paused'})")
            time.sleep(interval)

    def get_trials(self, sort_by: TrialSortBy = TrialSortBy.ID,
                   order_by: TrialOrderBy = TrialOrderBy.ASCENDING) -> List[TrialReference]:
        trials = [TrialReference(e["trial_id"], e) for e in _describe(self._id)["trial_index"]]
        trials.sort(key=lambda t: t.id, reverse=order_by == TrialOrderBy.DESCENDING)
        if sort_by not in (TrialSortBy.ID, TrialSortBy.UNSPECIFIED):
            raise ValueError(f"get_trials(): sorting by {sort_by} is not supported (by ID only)")
        return trials

    def list_trials(self, sort_by: Optional[TrialSortBy] = None, order_by: Optional[OrderBy] = None,
                    limit: Optional[int] = None) -> List[TrialReference]:
        """The experiment's trials by id (the store's only order), at most ``limit``."""
        trials = self.get_trials(sort_by or TrialSortBy.ID, order_by or OrderBy.ASCENDING)
        return trials if limit is None else trials[:limit]

    def list_checkpoints(self, sort_by: Optional[Union[str, CheckpointSortBy]] = None,
                         order_by: Optional[OrderBy] = None, max_results: Optional[int] = None) -> List[Checkpoint]:
        """Every trial's checkpoints still stored, sorted (``_list_checkpoints``); Determined's
        ``exp.list_checkpoints()[0]`` is the best."""
        experiment = _describe(self._id)
        checkpoints = [c for trial in (experiment.get("experiment") or {}).get("trials", [])
                       for c in _trial_checkpoints(self._id, trial)]
        return _list_checkpoints(checkpoints, sort_by, order_by, max_results, experiment)

    def await_first_trial(self, interval: float = 0.1) -> TrialReference:
        while True:
            trials = self.get_trials()
            if trials:
                return trials[0]
            if not _describe(self._id)["alive"]:
                raise APIException(f"experiment {self._id} ended ({self.state.value}) without creating a trial")
            time.sleep(interval)

    def top_n_checkpoints(self, limit: int, sort_by: Optional[str] = None,
                          smaller_is_better: Optional[bool] = None) -> List[Checkpoint]:
        """The best checkpoint of each of the ``limit`` best trials, by the validation at the
        checkpoint's steps (the searcher metric unless ``sort_by``); only checkpoints still in
        storage count (Determined: "Only checkpoints in a COMPLETED state with a matching
        COMPLETED validation are considered")."""
        experiment = _describe(self._id)
        metric = sort_by or experiment["metric"]
        sib = experiment["smaller_is_better"] if sort_by is None or smaller_is_better is None else smaller_is_better
        per_trial = [_rank(_trial_checkpoints(self._id, trial), metric, sib)
                     for trial in (experiment.get("experiment") or {}).get("trials", [])]
        return _best_of_trials(per_trial, metric, sib, limit)

    def top_checkpoint(self, sort_by: Optional[str] = None, smaller_is_better: Optional[bool] = None) -> Checkpoint:
        top = self.top_n_checkpoints(1, sort_by, smaller_is_better)
        if not top:
            raise NotFoundException(f"experiment {self._id} has no checkpoint with a validation of "
                                    f"'{sort_by or _describe(self._id)['metric']}'")
        return top[0]

    def pause(self) -> None:
        _call("pause", _experiment_arg(self._id))

    def activate(self) -> None:
        _call("activate", _experiment_arg(self._id))

    def kill(self) -> None:
        _call("kill", _experiment_arg(self._id))

    def delete(self) -> None:
        _call("delete", _experiment_arg(self._id))


# Determined's newer names for the same objects (its ExperimentReference and TrialReference remain
# as older names).
Experiment = ExperimentReference
Trial = TrialReference


# ---- the model registry (``searcher-run model``: the store's C++ code keeps it) ------------------------

def _model_ref(identifier: Union[str, int]) -> List[str]:
    """``--id N`` for an int, ``--name NAME`` for a string, as ``searcher-run model`` takes them."""
    if isinstance(identifier, int) and not isinstance(identifier, bool):
        return ["--id", _id_arg(identifier, "model")]
    if isinstance(identifier, str):
        return [f"--name={identifier}"]  # "=": a name may start with "-"
    raise APIException(f"{identifier!r} is not a model id (a positive integer) or name (a string)")


def _model(action: str, identifier: Union[str, int], *args: str) -> Dict[str, Any]:
    return json.loads(_call("model", action, *_model_ref(identifier), *args, "--json"))


class ModelVersion:
    """A registered version of a model: a checkpoint."""

    def __init__(self, model: "Model", record: Dict[str, Any]):
        self.model = model
        self.model_name = model.name
        self.model_version = record["version"]
        self.model_id = model.model_id
        self.name = record.get("name")
        self.comment = record.get("comment")
        self.notes = record.get("notes")
        self.creation_time = _time(record.get("creation_time"))
        self.checkpoint = get_checkpoint(record["checkpoint_uuid"])

    def __repr__(self) -> str:
        return f"ModelVersion(model={self.model_name!r}, version={self.model_version})"


class Model:
    """A model of the registry; every change is saved at once."""

    def __init__(self, record: Dict[str, Any]):
        self._load(record)

    def _load(self, record: Dict[str, Any]) -> None:
        self.model_id = record["id"]
        self.name = record["name"]
        self.description = record.get("description", "")
        self.creation_time = _time(record["creation_time"])
        self.last_updated_time = _time(record.get("last_updated_time"))
        self.metadata = dict(record.get("metadata") or {})
        self.labels = list(record.get("labels") or [])
        self.username = record.get("username", "")
        self.archived = bool(record.get("archived"))

    def __repr__(self) -> str:
        return f"Model(id={self.model_id}, name={self.name!r})"

    def _update(self, *args: str) -> None:
        self._load(_model("update", self.model_id, *args))

    def _versions(self) -> List[Dict[str, Any]]:
        return _model("describe", self.model_id).get("versions", [])

    def register_version(self, checkpoint_uuid: str) -> ModelVersion:
        # searcher-run checks, under the registry's lock, that the checkpoint is in the store.
        version = _model("register-version", self.model_id, "--checkpoint", _checkpoint_arg(checkpoint_uuid))
        return ModelVersion(self, version)

    def get_version(self, version: int = -1) -> Optional[ModelVersion]:
        versions = self._versions()
        if version == -1:
            return ModelVersion(self, versions[-1]) if versions else None
        for v in versions:
            if v["version"] == version:
                return ModelVersion(self, v)
        raise NotFoundException(f"model {self.name!r} has no version {version}")

    def get_versions(self, order_by: ModelOrderBy = ModelOrderBy.DESCENDING) -> List[ModelVersion]:
        versions = sorted(self._versions(), key=lambda v: v["version"],
                          reverse=order_by in (ModelOrderBy.DESCENDING, ModelOrderBy.UNSPECIFIED))
        return [ModelVersion(self, v) for v in versions]

    def add_metadata(self, metadata: Dict[str, Any]) -> None:
        self._update("--add-metadata", json.dumps(metadata))

    def remove_metadata(self, keys: List[str]) -> None:
        self._update("--remove-metadata", json.dumps(list(keys)))

    def set_labels(self, labels: List[str]) -> None:
        self._update("--labels", json.dumps(list(labels)))

    def archive(self) -> None:
        self._update("--archive")

    def unarchive(self) -> None:
        self._update("--unarchive")

    def delete(self) -> None:
        _call("model", "delete", *_model_ref(self.model_id))


# ---- the client ----------------------------------------------------------------------------------------

class Determined:
    """Access to the local store. The connection arguments are accepted and unused: there is no
    master to log in to."""

    def __init__(self, master: Optional[str] = None, user: Optional[str] = None, password: Optional[str] = None,
                 cert_path: Optional[str] = None, cert_name: Optional[str] = None, noverify: bool = False):
        self.master = master
        self.user = user or "determined"

    def create_experiment(self, config: Union[str, pathlib.Path, Dict[str, Any]],
                          model_dir: Optional[Union[str, pathlib.Path]] = None,
                          includes: Optional[Iterable[Union[str, pathlib.Path]]] = None) -> ExperimentReference:
        """Stores the config and a snapshot of ``model_dir`` (``.detignore`` honoured) and starts
        the experiment in the background; a bad config raises with its file:line:col."""
        if isinstance(config, dict) and model_dir is None:
            raise ValueError("create_experiment(): a config given as a dict needs model_dir (the default is the "
                             "config file's directory)")
        given_as_dict = isinstance(config, dict)
        with tempfile.TemporaryDirectory() as tmp:
            if isinstance(config, dict):
                path = pathlib.Path(tmp) / "config.yaml"
                path.write_text(json.dumps(config, indent=2) + "\n")  # JSON is YAML
                config = path
            args = ["create", "--config", str(config), "--detach", "--json"]
            if model_dir is not None:
                args += ["--model-dir", str(model_dir)]
            for include in includes or []:
                args += ["--include", str(include)]
            try:
                created = json.loads(_call(*args))
            except APIException as e:
                if not given_as_dict:
                    raise
                # The temporary file means nothing to the caller (and is gone): name the dict;
                # the message goes on with the field path and what was expected.
                message = re.sub(re.escape(str(config)) + r"(:\d+:\d+)?", "<config dict>", str(e))
                raise type(e)(message) from None
        return ExperimentReference(created["id"])

    def get_experiment(self, experiment_id: int) -> ExperimentReference:
        _describe(experiment_id)  # raises NotFoundException naming it
        return ExperimentReference(experiment_id)

    def list_experiments(self, sort_by: Optional[ExperimentSortBy] = None, order_by: Optional[OrderBy] = None,
                         experiment_ids: Optional[List[int]] = None, labels: Optional[List[str]] = None,
                         users: Optional[List[str]] = None, states: Optional[List[ExperimentState]] = None,
                         name: Optional[str] = None, project_id: Optional[int] = None) -> List[ExperimentReference]:
        """The store's experiments (``searcher-run ls --json``), filtered by id, state and name
        (a part of it). The store has no labels (given any, none matches), one user and no
        projects (users and project_id are accepted and filter nothing)."""
        records = json.loads(_call("ls", "--json"))
        wanted_states = {s.value for s in states} if states else None
        records = [e for e in records if (experiment_ids is None or e["id"] in experiment_ids)
                   and (wanted_states is None or e["state"] in wanted_states)
                   and (not name or name in (e.get("name") or "")) and not labels]
        key = {ExperimentSortBy.NAME: lambda e: e.get("name") or "",
               ExperimentSortBy.DESCRIPTION: lambda e: e.get("description") or "",
               ExperimentSortBy.START_TIME: lambda e: e.get("started") or "",
               ExperimentSortBy.END_TIME: lambda e: e.get("ended") or "",
               ExperimentSortBy.STATE: lambda e: e["state"],
               ExperimentSortBy.NUM_TRIALS: lambda e: e.get("trials") or 0,
               ExperimentSortBy.PROGRESS: lambda e: e.get("progress") or 0.0}.get(sort_by, lambda e: e["id"])
        records.sort(key=lambda e: (key(e), e["id"]), reverse=order_by in (OrderBy.DESCENDING,))
        return [ExperimentReference(e["id"]) for e in records]

    def get_trial(self, trial_id: int) -> TrialReference:
        return TrialReference(trial_id)

    def get_checkpoint(self, uuid: str) -> Checkpoint:
        """A checkpoint by its uuid, in any experiment of the store (wherever its checkpoint
        storage is). Only an id is accepted, never a path: a malformed one raises APIException
        (Determined's master refuses it too), an unknown one NotFoundException."""
        # searcher-run finds it in the store (the first experiment whose storage holds it).
        experiment_id = json.loads(_call("checkpoint", _checkpoint_arg(uuid), "--json"))["experiment_id"]
        try:
            experiment = _describe(experiment_id)
        except NotFoundException:
            raise NotFoundException(f"checkpoint {uuid} not found in {_root()}") from None  # deleted meanwhile
        for trial in (experiment.get("experiment") or {}).get("trials", []):
            listed = list(trial.get("stored_checkpoints") or []) + [trial.get("checkpoint") or {}]
            if any(c.get("storage_id") == uuid for c in listed):  # only its trial's metrics are read
                for c in _trial_checkpoints(experiment_id, trial):
                    if c.uuid == uuid:
                        return c
        # Stored, not yet in its runner's report (experiment.json lags by a snapshot).
        return Checkpoint(uuid, experiment_id)

    def create_model(self, name: str, description: Optional[str] = "", metadata: Optional[Dict[str, Any]] = None,
                     labels: Optional[List[str]] = None) -> Model:
        record = json.loads(_call("model", "create", f"--name={name}", f"--description={description or ''}",
                                  "--metadata", json.dumps(metadata or {}), "--labels", json.dumps(list(labels or [])),
                                  f"--user={self.user}", "--json"))
        return Model(record)

    def get_model(self, identifier: Union[str, int]) -> Model:
        return Model(_model("describe", identifier))

    def get_model_by_id(self, model_id: int) -> Model:
        return self.get_model(int(model_id))

    def get_models(self, sort_by: ModelSortBy = ModelSortBy.NAME, order_by: ModelOrderBy = ModelOrderBy.ASCENDING,
                   name: Optional[str] = None, description: Optional[str] = None,
                   model_id: Optional[int] = None) -> List[Model]:
        records = json.loads(_call("model", "list", "--json"))
        records = [m for m in records if (not name or name in m["name"])
                   and (not description or description in m.get("description", ""))
                   and (model_id is None or m["id"] == model_id)]
        key = {ModelSortBy.NAME: lambda m: m["name"], ModelSortBy.DESCRIPTION: lambda m: m.get("description", ""),
               ModelSortBy.CREATION_TIME: lambda m: m["creation_time"],
               ModelSortBy.LAST_UPDATED_TIME: lambda m: m.get("last_updated_time", ""),
               ModelSortBy.NUM_VERSIONS: lambda m: len(m.get("versions", []))}.get(sort_by, lambda m: m["id"])
        records.sort(key=key, reverse=order_by in (ModelOrderBy.DESCENDING,))
        return [Model(m) for m in records]

    def get_model_labels(self) -> List[str]:
        counts: Dict[str, int] = {}
        for m in json.loads(_call("model", "list", "--json")):
            for label in m.get("labels", []):
                counts[label] = counts.get(label, 0) + 1
        return sorted(counts, key=lambda label: (-counts[label], label))


_default: Optional[Determined] = None


def _client() -> Determined:
    global _default
    if _default is None:
        _default = Determined()
    return _default


def login(master: Optional[str] = None, user: Optional[str] = None, password: Optional[str] = None,
          cert_path: Optional[str] = None, cert_name: Optional[str] = None, noverify: bool = False) -> None:
    """Accepted for compatibility; there is nothing to log in to (the store is local)."""
    global _default
    _default = Determined(master, user, password, cert_path, cert_name, noverify)


def create_experiment(config: Union[str, pathlib.Path, Dict[str, Any]], model_dir: Optional[Union[str, pathlib.Path]] = None,
                      includes: Optional[Iterable[Union[str, pathlib.Path]]] = None) -> ExperimentReference:
    return _client().create_experiment(config, model_dir, includes)


def get_experiment(experiment_id: int) -> ExperimentReference:
    return _client().get_experiment(experiment_id)


def get_trial(trial_id: int) -> TrialReference:
    return _client().get_trial(trial_id)


def list_experiments(sort_by: Optional[ExperimentSortBy] = None, order_by: Optional[OrderBy] = None,
                     experiment_ids: Optional[List[int]] = None, labels: Optional[List[str]] = None,
                     users: Optional[List[str]] = None, states: Optional[List[ExperimentState]] = None,
                     name: Optional[str] = None, project_id: Optional[int] = None) -> List[ExperimentReference]:
    return _client().list_experiments(sort_by, order_by, experiment_ids, labels, users, states, name, project_id)


def get_checkpoint(uuid: str) -> Checkpoint:
    return _client().get_checkpoint(uuid)


def create_model(name: str, description: Optional[str] = "", metadata: Optional[Dict[str, Any]] = None,
                 labels: Optional[List[str]] = None) -> Model:
    return _client().create_model(name, description, metadata, labels)


def get_model(identifier: Union[str, int]) -> Model:
    return _client().get_model(identifier)


def get_model_by_id(model_id: int) -> Model:
    return _client().get_model_by_id(model_id)


def get_models(sort_by: ModelSortBy = ModelSortBy.NAME, order_by: ModelOrderBy = ModelOrderBy.ASCENDING,
               name: Optional[str] = None, description: Optional[str] = None,
               model_id: Optional[int] = None) -> List[Model]:
    return _client().get_models(sort_by, order_by, name, description, model_id)


def get_model_labels() -> List[str]:
    return _client().get_model_labels()
