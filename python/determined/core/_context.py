"""core.init() and the Context it gives."""

import enum
import logging
import os
import pathlib
import sys

import determined as det
from determined import _channel
from determined.core._checkpoint import CheckpointContext
from determined.core._distributed import DummyDistributedContext
from determined.core._preempt import PreemptContext, PreemptMode
from determined.core._searcher import SearcherContext, Unit
from determined.core._train import EarlyExitReason, TrainContext

logger = logging.getLogger("determined.core")


_ALERT_LEVELS = ("DEBUG", "INFO", "WARN", "WARNING", "ERROR", "CRITICAL")


class TensorboardMode(enum.Enum):
    AUTO = "AUTO"
    MANUAL = "MANUAL"


class ProfilerContext:
    """Accepted so scripts run; searcher-run collects no system metrics."""

    def __init__(self):
        self.enabled = False

    def on(self, sampling_interval=1, samples_per_report=10):
        self.enabled = True

    def off(self):
        self.enabled = False


class Context:
    """What ``det.core.init()`` gives: checkpoint, distributed, preempt, train, searcher, info."""

    def __init__(self, checkpoint, distributed=None, preempt=None, train=None, searcher=None, info=None,
                 experimental=None, profiler=None, _channel=None):
        self.checkpoint = checkpoint
        self.distributed = distributed or DummyDistributedContext()
        self.preempt = preempt
        self.train = train
        self.searcher = searcher
        self.info = info
        self.experimental = experimental
        self.profiler = profiler or ProfilerContext()
        self._channel = _channel

    def __enter__(self):
        return self

    def __exit__(self, typ, value, tb):
        if isinstance(value, det.InvalidHP):
            logger.info("InvalidHP detected during Trial init, converting InvalidHP to an early exit")
            if self._channel is not None:
                self._channel.send({"type": "invalid_hp", "reason": str(value)})
            else:
                self.train.report_early_exit(EarlyExitReason.INVALID_HP)
            self.close()
            return True  # as Determined: the trial ends normally, the searcher is told
        self.close()
        return False

    def close(self):
        self.distributed.close()

    def alert(self, title=None, description=None, level="INFO"):
        """Determined's custom webhook trigger. There are no webhooks on one machine: the alert is
        written to the trial's output (stderr), where `det trial logs` shows it, as
        ``ALERT [LEVEL] TITLE: DESCRIPTION``; LEVEL is DEBUG, INFO, WARN, WARNING, ERROR or CRITICAL
        (any case)."""
        if not isinstance(level, str) or level.upper() not in _ALERT_LEVELS:
            raise ValueError(f"alert(): level must be one of {', '.join(_ALERT_LEVELS)}, got {level!r}")
        if self.distributed.rank != 0:
            return  # one alert per trial, as the chief sends it
        # Straight to stderr (the trial's output.log), whatever the script's logging setup.
        print(f"ALERT [{level.upper()}] {title or ''}: {description or ''}", file=sys.stderr, flush=True)


def _storage_from(checkpoint_storage, default):
    if checkpoint_storage is None:
        return pathlib.Path(default)
    if isinstance(checkpoint_storage, str):
        if "://" in checkpoint_storage:
            raise ValueError(f"checkpoint_storage {checkpoint_storage!r}: only local directories are "
                             "supported by searcher-run")
        return pathlib.Path(checkpoint_storage)
    if isinstance(checkpoint_storage, dict):
        kind = checkpoint_storage.get("type")
        if kind == "shared_fs":
            return pathlib.Path(checkpoint_storage["host_path"]) / checkpoint_storage.get("storage_path", "")
        if kind == "directory":
            return pathlib.Path(checkpoint_storage["container_path"])
        raise ValueError(f"checkpoint_storage type {kind!r}: only shared_fs and directory are supported")
    raise TypeError("checkpoint_storage must be a path or a dict")


def _units(name):
    return {"batches": Unit.BATCHES, "records": Unit.RECORDS, "epochs": Unit.EPOCHS}.get(name or "")


def init(*, distributed=None, checkpoint_storage=None, preempt_mode=PreemptMode.WorkersAskChief,
         tensorboard_mode=TensorboardMode.AUTO, async_checkpointing=False, config=None, unmanaged=None,
         client=None, workspace=None, project=None, external_experiment_id=None, external_trial_id=None,
         _local=False):
    """The Core API context for this process. Under searcher-run it talks to the runner;
    elsewhere it gives local stand-ins (one operation of length 1, no preemption, metrics
    logged, checkpoints in a local directory), as Determined's off-cluster init does."""
    TensorboardMode(tensorboard_mode)
    distributed = distributed or DummyDistributedContext()
    # _local: the local stand-ins even inside a trial (determined.experimental.test_one_batch).
    info = None if _local else det.get_cluster_info()
    if info is None:
        storage = _storage_from(checkpoint_storage, pathlib.Path.home() / ".local/share/determined/checkpoints")
        storage.mkdir(parents=True, exist_ok=True)
        logger.info("det.core.init(): not in a searcher-run trial; running locally "
                    f"(checkpoints in {storage})")
        return Context(checkpoint=CheckpointContext(distributed, storage),
                       distributed=distributed,
                       preempt=PreemptContext(distributed, None, preempt_mode),
                       train=TrainContext(distributed, None),
                       searcher=SearcherContext(distributed, None, max_length=1),
                       info=None)
    channel = _channel.get(distributed.rank)
    storage = _storage_from(checkpoint_storage, os.environ["HPSEARCH_CHECKPOINT_STORAGE"])
    storage.mkdir(parents=True, exist_ok=True)
    max_length = os.environ.get("HPSEARCH_SEARCHER_MAX_LENGTH")
    searcher = SearcherContext(distributed, channel, metric_name=os.environ.get("HPSEARCH_METRIC"),
                               max_length=int(max_length) if max_length else None,
                               units=_units(os.environ.get("HPSEARCH_MAX_LENGTH_UNIT")),
                               driven_by_metrics=os.environ.get("HPSEARCH_SEARCH_MODE") == "metrics")
    trial_dir = pathlib.Path(os.environ.get("HPSEARCH_TRIAL_DIR", "."))
    return Context(checkpoint=CheckpointContext(distributed, storage, channel),
                   distributed=distributed,
                   preempt=PreemptContext(distributed, channel, preempt_mode),
                   train=TrainContext(distributed, channel, trial_dir / "tensorboard"),
                   searcher=searcher,
                   info=info,
                   _channel=channel)
