"""hpsearch trial client: what a training script uses under `searcher-run`.

Standard library only. A Determined Core API script ports by changing the import::

    import hpsearch

    with hpsearch.init() as ctx:
        lr = ctx.hparams["learning_rate"]
        trained = 0
        restore = ctx.checkpoint.restore_path()          # a Path, or None on the first launch
        if restore is not None:
            trained = load(restore)                      # your own checkpoint format
        for op in ctx.searcher.operations():             # ends when the runner says close or pause
            while trained < op.length:
                train_one_unit()
                trained += 1
                ctx.train.report_progress(trained)
            with ctx.checkpoint.store_path(trained) as path:
                save(path, trained)
            op.report_completed(validation_loss, accuracy=acc)

Raise ``hpsearch.InvalidHP("why")`` inside the ``with`` block when the hyperparameters cannot
work; the runner tells the searcher, which replaces the trial where its method says so.

The protocol underneath (docs/runner.md): commands arrive as JSON lines on descriptor
$HPSEARCH_CMD_FD, reports leave as JSON lines on $HPSEARCH_REPORT_FD.
"""

import contextlib
import json
import math
import os
import pathlib
import select

__all__ = ["init", "InvalidHP", "Context", "Operation"]


class InvalidHP(Exception):
    """The trial's hyperparameters cannot work (raise it inside ``hpsearch.init()``)."""


def _metric(value):
    """A metric as JSON allows it: non-finite values as the strings the searcher reads."""
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


class _Channel:
    """The two descriptors to the runner. Commands are read with os.read into our own buffer,
    so that a non-blocking look (should_preempt) never misses a line a reader buffered."""

    def __init__(self, command_fd, report_fd):
        self._command_fd = command_fd
        self._reports = os.fdopen(report_fd, "w", encoding="utf-8")
        self._buffer = b""
        self._closed = False
        self._pending = []

    def send(self, message):
        self._reports.write(json.dumps(message, separators=(",", ":")) + "\n")
        self._reports.flush()

    def _take_lines(self):
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            if line.strip():
                self._pending.append(json.loads(line))

    def _read(self, block):
        if self._closed:
            return
        if not block and not select.select([self._command_fd], [], [], 0)[0]:
            return
        chunk = os.read(self._command_fd, 65536)
        if not chunk:
            self._closed = True  # the runner went away: nothing more to do
        self._buffer += chunk
        self._take_lines()

    def next_command(self):
        while not self._pending and not self._closed:
            self._read(block=True)
        return self._pending.pop(0) if self._pending else None

    def poll_pause(self):
        """True if a pause command is waiting (without blocking)."""
        self._read(block=False)
        return self._closed or any(c.get("op") == "pause" for c in self._pending)


class Operation:
    """Train until the trial's total trained length is ``length``, then report."""

    def __init__(self, channel, length):
        self._channel = channel
        self.length = length
        self._completed = False

    def report_progress(self, units):
        self._channel.send({"type": "progress", "units": float(units)})

    def report_completed(self, metric, **other_metrics):
        """Reports the searcher's metric (and any others) at this operation's length."""
        if self._completed:
            raise RuntimeError("report_completed was already called for this operation")
        name = os.environ["HPSEARCH_METRIC"]
        metrics = {key: _metric(value) if isinstance(value, (int, float)) else value
                   for key, value in other_metrics.items()}
        metrics[name] = _metric(metric)
        self._channel.send({"type": "validation", "length": self.length, "metrics": metrics})
        self._completed = True


class _Searcher:
    def __init__(self, channel):
        self._channel = channel

    def operations(self):
        """Yields operations until the runner says close (done) or pause (come back later)."""
        while True:
            command = self._channel.next_command()
            if command is None or command.get("op") in ("close", "pause"):
                return
            if command.get("op") != "validate_after":
                raise RuntimeError(f"unknown command from searcher-run: {command!r}")
            op = Operation(self._channel, int(command["length"]))
            yield op
            if not op._completed:
                raise RuntimeError(
                    f"operation to length {op.length} ended without op.report_completed(metric)")


class _Train:
    def __init__(self, channel):
        self._channel = channel

    def report_progress(self, units):
        """The total length trained so far (feeds the searcher's progress)."""
        self._channel.send({"type": "progress", "units": float(units)})


class _Checkpoint:
    def __init__(self, channel):
        self._channel = channel

    def restore_path(self):
        """The latest checkpoint (a directory), or None if the trial has none yet."""
        path = os.environ.get("HPSEARCH_LATEST_CHECKPOINT")
        return pathlib.Path(path) if path else None

    def restore_length(self):
        """The length the latest checkpoint was stored at, or 0."""
        return int(os.environ.get("HPSEARCH_LATEST_CHECKPOINT_LENGTH", "0"))

    @contextlib.contextmanager
    def store_path(self, length):
        """A new directory to write a checkpoint into; reported to the runner when the block
        ends without an exception. ``length`` is the total length trained at this point."""
        root = pathlib.Path(os.environ["HPSEARCH_CHECKPOINT_DIR"])
        path = root / f"length-{int(length)}"
        path.mkdir(parents=True, exist_ok=True)
        yield path
        self._channel.send({"type": "checkpoint", "path": str(path), "length": int(length)})


class _Preempt:
    def __init__(self, channel):
        self._channel = channel

    def should_preempt(self):
        """True once the runner has asked the trial to pause (Ctrl-C on the runner): store a
        checkpoint and return from the training loop; the trial resumes from it later."""
        return self._channel.poll_pause()


class Context:
    """What ``hpsearch.init()`` gives: the trial's identity, hyperparameters and channels."""

    def __init__(self, channel):
        self.request_id = os.environ["HPSEARCH_REQUEST_ID"]
        self.trial_id = int(os.environ.get("HPSEARCH_TRIAL_ID", "0"))
        self.trial_seed = int(os.environ["HPSEARCH_TRIAL_SEED"])
        self.hparams = json.loads(os.environ["HPSEARCH_HPARAMS"])
        self.trial_dir = pathlib.Path(os.environ["HPSEARCH_TRIAL_DIR"])
        self.max_length = int(os.environ.get("HPSEARCH_MAX_LENGTH", "0"))
        self.searcher = _Searcher(channel)
        self.train = _Train(channel)
        self.checkpoint = _Checkpoint(channel)
        self.preempt = _Preempt(channel)
        self._channel = channel


@contextlib.contextmanager
def init():
    """Connects to searcher-run. Outside searcher-run it raises RuntimeError."""
    if "HPSEARCH_CMD_FD" not in os.environ or "HPSEARCH_REPORT_FD" not in os.environ:
        raise RuntimeError("hpsearch.init(): not started by searcher-run "
                           "(HPSEARCH_CMD_FD and HPSEARCH_REPORT_FD are not set)")
    channel = _Channel(int(os.environ["HPSEARCH_CMD_FD"]), int(os.environ["HPSEARCH_REPORT_FD"]))
    try:
        yield Context(channel)
    except InvalidHP as error:
        channel.send({"type": "invalid_hp", "reason": str(error)})
