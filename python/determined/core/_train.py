"""Metrics and progress: every report reaches the runner, which keeps it (per trial, on disk)."""

import enum
import logging
import pathlib

from determined import util

logger = logging.getLogger("determined.core")


class EarlyExitReason(enum.Enum):
    INVALID_HP = "EXITED_REASON_INVALID_HP"
    USER_REQUESTED_STOP = "EXITED_REASON_USER_REQUESTED_STOP"


class TrainContext:
    def __init__(self, dist, channel=None, tensorboard_path=None):
        self._dist = dist
        self._channel = channel
        self._tensorboard_path = pathlib.Path(tensorboard_path or "tensorboard")

    def _report(self, group, steps_completed, metrics):
        if "." in group:
            raise ValueError(f"metric group names cannot contain '.': {group!r}")
        if not isinstance(metrics, dict):
            raise TypeError("metrics must be a dictionary")
        plain = util.make_plain(metrics)  # numpy and torch values as Determined encodes them
        if self._channel is not None:
            self._channel.send({"type": "metrics", "group": group, "steps_completed": int(steps_completed),
                                "metrics": plain})
        return plain

    # The public reports log what they report at INFO, as Determined's TrainContext does: with
    # logging configured (the Trial API harness does it, a Core API script may), the trial's
    # output, and so `det trial logs`, shows each training and validation report.

    def report_training_metrics(self, steps_completed, metrics, batch_metrics=None):
        plain = self._report("training", steps_completed, metrics)
        logger.info(f"report_training_metrics(steps_completed={steps_completed}, metrics={plain})")

    def report_validation_metrics(self, steps_completed, metrics):
        plain = self._report("validation", steps_completed, metrics)
        logger.info(f"report_validation_metrics(steps_completed={steps_completed}, metrics={plain})")

    def report_metrics(self, group, steps_completed, metrics):
        plain = self._report(group, steps_completed, metrics)
        logger.info(f"report_metrics(group={group}, steps_completed={steps_completed}, metrics={plain})")

    def _report_trial_metrics(self, group, total_batches, metrics, batch_metrics=None):
        """The form Determined's Trial harness and its e2e scripts call (``total_batches`` is
        ``steps_completed``); unlogged, as Determined's."""
        self._report(group, total_batches, metrics)

    def report_progress(self, progress):
        """The fraction of the trial's training done, between 0 and 1."""
        progress = float(progress)
        if not 0 <= progress <= 1:
            raise ValueError(f"report_progress() takes a fraction between 0 and 1, got {progress}")
        if self._channel is not None:
            self._channel.send({"type": "progress", "fraction": progress})

    def set_status(self, status):
        if self._channel is None:
            logger.info(f"status: {status}")
            return
        self._channel.send({"type": "status", "text": str(status)})

    def report_early_exit(self, reason):
        reason = EarlyExitReason(reason)
        if self._channel is not None:
            self._channel.send({"type": "early_exit", "reason": reason.name.lower()})

    def get_experiment_best_validation(self):
        """The best searcher metric reported so far by any trial of the experiment, or None."""
        if self._channel is None:
            return None
        return self._channel.request("best_validation").get("value")

    def get_tensorboard_path(self):
        self._tensorboard_path.mkdir(parents=True, exist_ok=True)
        return self._tensorboard_path

    def upload_tensorboard_files(self, selector=lambda _: True, mangler=lambda p, rank: p):
        """TensorBoard files already live in the trial's directory; nothing to upload."""
