"""A small trial for the runner's end-to-end tests. Its metric is a function of x and the
length alone, (x - 0.3)^2 + 1/length, so reruns and resumes report the very same values.
The `mode` hyperparameter picks a misbehaviour:
  ok              behave
  crash_once      die (exit 3) at length 2 on the first launch, then behave
  always_crash    die (exit 1) on every launch
  invalid_if_big  raise InvalidHP when x > 0.5
  malformed_once  send a line that is not JSON on the first launch, then behave
  wrong_length    report a validation at a length it was not asked for
`sleep` (seconds per unit, default 0) slows it down for the kill tests."""
import json
import os
import pathlib
import sys
import time

import hpsearch

with hpsearch.init() as ctx:
    x = float(ctx.hparams["x"])
    mode = ctx.hparams.get("mode", "ok")
    delay = float(ctx.hparams.get("sleep", 0))
    first_launch = not (ctx.trial_dir / "launched").exists()
    (ctx.trial_dir / "launched").write_text("yes")
    if mode == "invalid_if_big" and x > 0.5:
        raise hpsearch.InvalidHP(f"x = {x} is too big")
    trained = 0
    restore = ctx.checkpoint.restore_path()
    if restore is not None:
        trained = json.loads((restore / "state.json").read_text())["trained"]
        assert trained == ctx.checkpoint.restore_length()
    for op in ctx.searcher.operations():
        if mode == "always_crash":
            sys.exit(1)
        if mode == "malformed_once" and first_launch:
            ctx._channel._reports.write("this is not json\n")
            ctx._channel._reports.flush()
        while trained < op.length:
            trained += 1
            time.sleep(delay)
            if mode == "crash_once" and first_launch and trained == 2:
                os._exit(3)
            ctx.train.report_progress(trained)
        with ctx.checkpoint.store_path(trained) as path:
            (path / "state.json").write_text(json.dumps({"trained": trained}))
        length = op.length + 1 if mode == "wrong_length" else op.length
        op.length = length
        op.report_completed((x - 0.3) ** 2 + 1.0 / trained, accuracy=1 - x)
