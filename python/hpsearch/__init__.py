"""hpsearch in-process: a searcher to embed in a Python master, and the simulator.

    import hpsearch, pathlib
    s = hpsearch.Searcher(pathlib.Path("exp.yaml"), seed=3)
    for op in s.initial_operations(): ...          # dicts in the drive protocol's shapes
    s.trial_created(request_id)                     # -> the operations it answers
    state = s.snapshot(); s.restore(state)
    hpsearch.run(pathlib.Path("exp.yaml"), "mf-hartmann6", workers=4)   # -> the summary dict

Everything here calls the C++ library the programs call (`searcher-sim drive`, `run`,
`compare`, `preview`) through the extension module hpsearch._core; nothing is reimplemented.
docs/embedding.md documents this module; docs/protocol.md the shapes of events, operations
and snapshots.

A config is given as a path (a pathlib.Path or any os.PathLike: the file is read), as the text
of a YAML or JSON experiment config (a str), or as a dict (the config's content).
"""
import json
import os

from ._core import ConfigError, ProtocolError, SimulationError, UsageError, __version__
from . import _core

__all__ = ["Searcher", "run", "compare", "preview", "ConfigError", "ProtocolError",
           "UsageError", "SimulationError", "__version__"]


def _source(config):
    """The config as the extension takes it: a file's path, or text."""
    if isinstance(config, os.PathLike):
        return _core._ConfigSource(os.fspath(config), True)
    if isinstance(config, str):
        return _core._ConfigSource(config, False)
    if isinstance(config, dict):
        return _core._ConfigSource(json.dumps(config), False)
    raise TypeError("config: expected a path (os.PathLike), the config's text (str) or a dict, "
                    f"got {type(config).__name__}")


def _label(config, index):
    """How a config is named in flags and in compare's results."""
    return os.path.basename(os.fspath(config)) if isinstance(config, os.PathLike) else f"config{index + 1}"


def _refuse_files(command, options, *names):
    """Options that make the program write files have no meaning here: the data is returned."""
    for name in names:
        if name in options:
            raise TypeError(f"{command}: {name} is the program's (searcher-sim {command} "
                            f"--{name}); this function returns the data instead")


def _flags(**options):
    """Keyword arguments as searcher-sim's flags (seconds_per_unit=2 -> --seconds-per-unit 2):
    the library reads and checks them as the program does, so a bad value is refused with the
    program's message, which names the flag."""
    flags = []
    for name, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            flags.append(flag)
        elif isinstance(value, (list, tuple)):
            flags += [flag, ",".join(repr(float(v)) for v in value)]
        else:
            flags += [flag, repr(value) if isinstance(value, float) else str(value)]
    return flags


class Searcher:
    """One search, in-process: events in, operations out, as `searcher-sim drive` answers them.

    Searcher(config, seed=None, explain=False). `seed` None means the config's
    reproducibility.experiment_seed, else 0. `explain` adds an "explain" field to the
    validate_after and close operations ASHA decided (as `searcher-sim drive --explain`).
    Raises ConfigError (a ValueError) with the config's message, e.g.
    "exp.yaml:4:15: searcher.max_trials: must be an integer >= 1, got -5".

    Operations are dicts:
      {"type": "create", "request_id": "ac0a7f8c-...", "trial_seed": 441365315, "hparams": {...}}
        (a pbt clone's create also has "checkpoint": the parent's request id)
      {"type": "validate_after", "request_id": "...", "length": 100}
      {"type": "close", "request_id": "..."}
      {"type": "shutdown", "cancel": False, "failure": False}
    A refused event raises ProtocolError (a ValueError) with the protocol's message and leaves
    the searcher unchanged. One Searcher must not be used by two threads at once.
    """

    def __init__(self, config, seed=None, *, explain=False):
        self._searcher = _core._Searcher(_source(config), seed, explain)

    def feed(self, event):
        """One drive-protocol event as a dict ({"event": "trial_created", "request_id": ...},
        or the commands progress, snapshot, restore); returns the answer dict
        ({"operations": [...]}, {"progress": p}, {"snapshot": {...}}, {"restored": True})."""
        return self._searcher.feed(event)

    def initial_operations(self):
        return self._searcher.feed({"event": "initial_operations"})["operations"]

    def trial_created(self, request_id):
        return self._searcher.feed({"event": "trial_created", "request_id": request_id})["operations"]

    def validation_completed(self, request_id, metric, length):
        return self._searcher.feed({"event": "validation_completed", "request_id": request_id,
                                    "metric": metric, "length": length})["operations"]

    def trial_progress(self, request_id, units):
        return self._searcher.feed({"event": "trial_progress", "request_id": request_id,
                                    "units": units})["operations"]

    def trial_exited_early(self, request_id, reason):
        """reason: errored, user_canceled, invalid_hp, init_invalid_hp or user_requested_stop."""
        return self._searcher.feed({"event": "trial_exited_early", "request_id": request_id,
                                    "reason": reason})["operations"]

    def trial_closed(self, request_id):
        return self._searcher.feed({"event": "trial_closed", "request_id": request_id})["operations"]

    @property
    def progress(self):
        """The fraction of the search done, in [0, 1]."""
        return self._searcher.progress

    def snapshot(self):
        """The whole state as a dict (the drive protocol's snapshot; json.dumps it to store)."""
        return self._searcher.snapshot()

    def restore(self, snapshot):
        """Replaces the state with a snapshot of a searcher of the same config. Raises
        ProtocolError, the state unchanged, if it does not restore."""
        self._searcher.restore(snapshot)


def run(config, workload, workers=1, seed=None, **options):
    """`searcher-sim run`: plays the search on `workers` simulated workers in virtual time and
    returns its summary, the dict `searcher-sim run --json` prints (best_metric, wall_time,
    trials_created, validations_per_length, best_so_far, ...). Options, as the program's flags
    with underscores: seconds_per_unit, workload_cost (bool), startup, checkpoint, restore,
    noise, config_spread, worker_spread, stragglers, straggler_factor, crash_rate,
    max_restarts, metric_noise, noise_seed, data_dir. Raises UsageError for a bad option,
    ValueError when the config's hyperparameters are not the workload's inputs."""
    _refuse_files("run", options, "out")
    flags = ["--config", _label(config, 0), "--workload", workload, "--workers", str(workers)]
    flags += _flags(seed=seed, **options)
    return _core._run(_source(config), flags)


def compare(configs, workload, workers=1, seeds=10, times=None, target=None, names=None, **options):
    """`searcher-sim compare`: each config over search seeds 0..seeds-1; returns the dict
    `searcher-sim compare --json` prints: per config the quartiles of the best metric (regret
    when the workload's optimum is known) at `times` (default 25/50/75/100% of the longest
    run) and of the time to reach `target`. `names` label the configs (default: a path's file
    name, else config1, config2, ...). Options as for run, except noise_seed."""
    _refuse_files("compare", options, "out")
    names = list(names) if names is not None else [_label(c, i) for i, c in enumerate(configs)]
    if len(names) != len(configs):
        raise ValueError(f"names: expected one per config ({len(configs)}), got {len(names)}")
    flags = ["--configs", *names, "--workload", workload, "--workers", str(workers),
             "--seeds", str(seeds)]
    flags += _flags(times=times, target=target, **options)
    return _core._compare([_source(c) for c in configs], names, flags)


def preview(config, seed=None, order=None, metric=None, metric_seed=None, workers=None, **options):
    """`searcher-sim preview`: plays the whole search with instant trials and returns the dict
    `searcher-sim preview --json` prints: {"results": {"1 3 9": 8, ...}, "trials": N,
    "shutdown": {...}, "progress": 1.0, "seed": S}. order: "fifo" (default) or "random";
    metric: "constant" (default), "random" or "trial-id"; with workers=N, on N simulated
    workers instead (adds "workers": wall time, utilisation, ...; cost options as for run)."""
    _refuse_files("preview", options, "trace")
    flags = ["--config", _label(config, 0)]
    flags += _flags(seed=seed, order=order, metric=metric, metric_seed=metric_seed, workers=workers,
                    **options)
    return _core._preview(_source(config), flags)
