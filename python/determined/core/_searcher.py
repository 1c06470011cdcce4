"""The searcher's operations (Determined 0.37's form; deprecated in 0.38, still served).

With a config whose searcher has ``max_length`` the runner sends operations: train to an
absolute length, report the searcher metric. With the 0.38 form (``time_metric``/``max_time``,
or no length at all) the validation metrics drive the search, and ``operations()`` yields one
operation of the configured ``max_length`` (None without one), as Determined 0.38 does."""

import enum
import logging
import warnings

logger = logging.getLogger("determined.core")


class Unit(enum.Enum):
    EPOCHS = "EPOCHS"
    RECORDS = "RECORDS"
    BATCHES = "BATCHES"


class SearcherMode(enum.Enum):
    WorkersAskChief = "WORKERS_ASK_CHIEF"
    ChiefOnly = "CHEIF_ONLY"


class SearcherOperation:
    """Train until the trial's total trained length is ``length``, then report the metric."""

    def __init__(self, channel, length, is_chief, metric_name=None, driven_by_metrics=False):
        self._channel = channel
        self._length = length
        self._is_chief = is_chief
        self._metric_name = metric_name
        self._driven_by_metrics = driven_by_metrics
        self._completed = False

    @property
    def length(self):
        return self._length

    def report_progress(self, length):
        if not self._is_chief:
            raise RuntimeError("you must only call op.report_progress() from the chief worker")
        if self._completed and length != self._length:
            raise RuntimeError("you must not call op.report_progress() after op.report_completed()")
        if self._channel is not None:
            self._channel.send({"type": "progress", "units": max(0.0, float(length))})

    def report_completed(self, searcher_metric):
        if not self._is_chief:
            raise RuntimeError("you must only call op.report_completed() from the chief worker")
        if self._completed:
            raise RuntimeError("you may only call op.report_completed() once")
        self._completed = True
        if self._channel is None or self._driven_by_metrics:
            logger.info(f"SearcherOperation Complete: searcher_metric={searcher_metric}")
            return
        self._channel.send({"type": "validation", "length": self._length,
                            "metrics": {self._metric_name: searcher_metric}})


class SearcherContext:
    def __init__(self, dist, channel=None, *, metric_name=None, max_length=None, units=None,
                 driven_by_metrics=False):
        self._dist = dist
        self._channel = channel
        self._metric_name = metric_name
        self._max_length = max_length
        self._units = units
        self._driven_by_metrics = driven_by_metrics or channel is None

    def _chief_operations(self):
        if self._driven_by_metrics:
            yield self._max_length if self._max_length is not None or self._channel is None else None
            return
        while True:
            command = self._channel.next_command()
            if command is None or command.get("op") in ("close", "pause"):
                return
            if command.get("op") == "validate_after":
                yield int(command["length"])

    def operations(self, searcher_mode=SearcherMode.WorkersAskChief, auto_ack=True):
        """Iterates over the searcher's operations for this trial."""
        if self._driven_by_metrics and self._channel is not None:
            warnings.warn("SearcherContext.operations() was deprecated in Determined 0.38.0; the "
                          "validation metrics drive this search", FutureWarning, stacklevel=2)
        searcher_mode = SearcherMode(searcher_mode)
        if self._dist.rank == 0:
            for length in self._chief_operations():
                op = SearcherOperation(self._channel, length, True, self._metric_name, self._driven_by_metrics)
                if searcher_mode == SearcherMode.WorkersAskChief:
                    self._dist.broadcast(length if length is not None else -1)
                yield op
                if not op._completed:
                    raise RuntimeError("you must call op.report_completed() on each operation")
            if searcher_mode == SearcherMode.WorkersAskChief:
                self._dist.broadcast(None)
        else:
            if searcher_mode != SearcherMode.WorkersAskChief:
                raise RuntimeError("you cannot call searcher.operations(searcher_mode=ChiefOnly) "
                                   "from a non-chief worker.")
            while True:
                length = self._dist.broadcast(None)
                if length is None:
                    break
                yield SearcherOperation(self._channel, None if length == -1 else length, False)

    def acknowledge_out_of_ops(self):
        """The runner knows when a trial has no more operations; nothing to send."""

    def get_configured_units(self):
        return self._units
