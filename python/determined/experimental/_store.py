"""The SDK's one way to the experiment store: ``searcher-run`` subcommands (``--json``), which
own it (docs/store.md). Nothing here opens a file of the store."""

import datetime
import json
import os
import pathlib
import shutil
import subprocess
from typing import Any, Dict, List, Optional


class APIException(Exception):
    """A request the store refused, with ``searcher-run``'s message."""


class NotFoundException(APIException):
    """An experiment, trial, checkpoint or model that does not exist (the message names it)."""


# ---- the store and searcher-run ----------------------------------------------------------------

def _root() -> pathlib.Path:
    """The store, as searcher-run finds it."""
    if os.environ.get("HPSEARCH_HOME"):
        return pathlib.Path(os.environ["HPSEARCH_HOME"]).absolute()
    if os.environ.get("XDG_DATA_HOME"):
        return pathlib.Path(os.environ["XDG_DATA_HOME"]) / "hpsearch"
    return pathlib.Path.home() / ".local" / "share" / "hpsearch"


def _searcher_run() -> str:
    if os.environ.get("HPSEARCH_SEARCHER_RUN"):
        return os.environ["HPSEARCH_SEARCHER_RUN"]
    found = shutil.which("searcher-run")
    if found:
        return found
    built = pathlib.Path(__file__).resolve().parents[3] / "build" / "release" / "runner" / "searcher-run"
    if built.exists():
        return str(built)
    raise APIException("searcher-run not found: set HPSEARCH_SEARCHER_RUN or put it on PATH")


def _call(*args: str) -> str:
    """Runs ``searcher-run ARGS``; its stdout, or its message as the exception."""
    done = subprocess.run([_searcher_run(), *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        message = done.stderr.strip() or f"searcher-run {' '.join(args)} exited with {done.returncode}"
        # Its message as the SDK's, as Determined's names the thing: "trial 9 not found in ...".
        message = message.removeprefix(f"searcher-run {args[0]}: ")
        raise (NotFoundException if " not found in " in message else APIException)(message)
    return done.stdout


def _id_arg(value: Any, kind: str = "experiment") -> str:
    """An experiment or trial id as searcher-run's argument. Only a positive integer: anything else
    could reach its command line as an option (``-1``) or as something else than an id."""
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    article = "an" if kind[0] in "aeiou" else "a"
    if isinstance(value, bool) or not isinstance(value, int):
        raise APIException(f"{value!r} is not {article} {kind} id (a positive integer)")
    if value <= 0:
        raise NotFoundException(f"{kind} {value} not found in {_root()}: {article} {kind} id is a positive integer")
    return str(value)


def _experiment_arg(experiment_id: Any) -> str:
    return _id_arg(experiment_id, "experiment")


def _describe(experiment_id: int) -> Dict[str, Any]:
    return json.loads(_call("describe", _experiment_arg(experiment_id), "--json"))


def _trial_metrics(trial_id: int, group: Optional[str] = None) -> List[Dict[str, Any]]:
    """The trial's metric reports in order (``searcher-run trial ID --metrics``)."""
    return json.loads(_call("trial", _id_arg(trial_id, "trial"), "--metrics", *([f"--group={group}"] if group else [])))


def _checkpoint_arg(uuid: Any) -> str:
    """A checkpoint id as searcher-run's argument (which checks its form again: a plain name,
    never a path); a non-string or one that would read as an option never reaches it."""
    if not isinstance(uuid, str) or not uuid or uuid.startswith(("-", ".")):
        raise APIException(f"{uuid!r} is not a checkpoint id: expected the plain name the trial reported "
                           "(a UUID), not a path")
    return uuid


def _trial_entry(trial_id: int) -> Dict[str, Any]:
    """The store's trial index entry of a global trial id (``searcher-run trial ID --json``)."""
    return json.loads(_call("trial", _id_arg(trial_id, "trial"), "--json"))


def _number(value: Any) -> Optional[float]:
    """A metric value as a float ("NaN", "Infinity" included); None when it is not a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if value in ("NaN", "Infinity", "-Infinity"):
        return float(value.replace("Infinity", "inf"))
    return None


def _time(text: Optional[str]) -> Optional[datetime.datetime]:
    """A recorded time as the datetime Determined's SDK gives (timezone-aware, UTC)."""
    return datetime.datetime.fromisoformat(text) if text else None
