"""A small Core API trial for the runner's end-to-end tests. Its metric is a function of x and
the length alone, (x - 0.3)^2 + 1/length, so reruns and resumes report the very same values.
The `mode` hyperparameter picks a misbehaviour:
  ok                behave
  crash_once        die (exit 3) at length 2 on the first launch, then behave
  always_crash      print a few lines and raise (exit 1) on every launch
  invalid_if_big    raise det.InvalidHP when x > 0.5
  malformed_once    send a line that is not JSON on the first launch, then behave
  wrong_length      report a validation at a length it was not asked for
  quit_early        end (exit 0) without completing its first operation
  background_child  leave a process behind in a session of its own (it must not outlive the trial)
  hang_once         stop talking (sleep for an hour) at length 2 on the first launch, then behave
  hang_twice        the same on the first two launches
  report_after_hold wait (a minute at most) until runner.log says a failed launch is held (the
                    runner's fail-fast rule), then behave
  coarse            behave, but with x rounded down to a third in the loss: results repeat,
                    as on a table
`sleep` (seconds per unit, default 0) slows it down for the kill tests; `hang_seconds` (default
3600) is how long the hanging modes sleep; `checkpoint_each` (true)
stores a checkpoint after every unit, not only at validations, and prints the length it starts
from ("starting at N"), so a test can see which checkpoint a launch resumed from (otherwise it
prints nothing: tests check that its log is empty)."""
import json
import math
import os
import pathlib
import subprocess
import sys
import time

import determined as det

info = det.get_cluster_info()
hparams = info.trial.hparams
x = float(hparams["x"])
mode = hparams.get("mode", "ok")
delay = float(hparams.get("sleep", 0))
first_launch = info.trial.trial_run_id == 1
hangs = {"hang_once": 1, "hang_twice": 2}.get(mode, 0) >= info.trial.trial_run_id

with det.core.init() as ctx:
    if mode == "report_after_hold":
        runner_log = pathlib.Path(os.environ["HPSEARCH_TRIAL_DIR"]).parent.parent / "runner.log"
        deadline = time.monotonic() + 60
        while "so it is held" not in runner_log.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
    if mode == "invalid_if_big" and x > 0.5:
        raise det.InvalidHP(f"x = {x} is too big")
    if mode == "background_child":
        subprocess.Popen(["sleep", "300"], start_new_session=True)
    trained = 0
    try:
        with ctx.checkpoint.restore_path(info.latest_checkpoint) as path:
            trained = json.loads((path / "state.json").read_text())["trained"]
        assert trained == ctx.checkpoint.get_metadata(info.latest_checkpoint)["steps_completed"]
    except (TypeError, FileNotFoundError):
        # No checkpoint yet; or a test resumes a copy of a finished experiment whose older
        # checkpoints the save policy deleted: the metric depends on x and length alone, so
        # training again from scratch reports the same values.
        pass
    if hparams.get("checkpoint_each"):
        print(f"starting at {trained}", flush=True)
    for op in ctx.searcher.operations():
        if mode == "always_crash":
            print("about to fail")
            raise RuntimeError(f"always_crash at x = {x}")
        if mode == "quit_early":
            sys.exit(0)
        if mode == "malformed_once" and first_launch:
            ctx._channel._sock.sendall(b"this is not json\n")
        while trained < op.length:
            trained += 1
            time.sleep(delay)
            if hangs and trained == 2:
                time.sleep(float(hparams.get("hang_seconds", 3600)))
            if mode == "crash_once" and first_launch and trained == 2:
                sys.stdout.flush()
                os._exit(3)
            op.report_progress(trained)
            if hparams.get("checkpoint_each") and trained < op.length:
                with ctx.checkpoint.store_path({"steps_completed": trained}) as (path, storage_id):
                    (path / "state.json").write_text(json.dumps({"trained": trained}))
        with ctx.checkpoint.store_path({"steps_completed": trained}) as (path, storage_id):
            (path / "state.json").write_text(json.dumps({"trained": trained}))
        level = math.floor(x * 3) / 3 if mode == "coarse" else x
        loss = (level - 0.3) ** 2 + 1.0 / trained
        ctx.train.report_validation_metrics(trained, {"loss": loss, "accuracy": 1 - x})
        if mode == "wrong_length":
            op._length = op.length + 1
        op.report_completed(loss)
