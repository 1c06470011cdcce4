"""A Core API trial for the PBT test of the save policy (runner_binary_test.cpp). Its metric is
1 / trial id (later trials are better). The first members checkpoint at every validation;
clones (HPSEARCH_WARM_START_PARENT set) never checkpoint, print what they restored, and on
their first launch, at their second operation, wait until runner.log says their parent was
closed (its save policy has run then), and exit 3: their restart needs the parent's checkpoint
again."""
import json
import os
import pathlib
import sys
import time

import determined as det

info = det.get_cluster_info()
trial_id = info.trial.trial_id
parent = os.environ.get("HPSEARCH_WARM_START_PARENT")
clone = bool(parent)
runner_log = pathlib.Path(os.environ["HPSEARCH_TRIAL_DIR"]).parent.parent / "runner.log"

with det.core.init() as ctx:
    if info.latest_checkpoint is not None:
        with ctx.checkpoint.restore_path(info.latest_checkpoint) as path:
            print("restored", (path / "state.json").read_text(), flush=True)
    first_op = True
    for op in ctx.searcher.operations():
        if clone and not first_op and info.trial.trial_run_id == 1:
            deadline = time.monotonic() + 300
            while f"({parent}) closed" not in runner_log.read_text() and time.monotonic() < deadline:
                time.sleep(0.05)
            sys.exit(3)
        first_op = False
        if not clone:
            with ctx.checkpoint.store_path({"steps_completed": op.length}) as (path, _):
                (path / "state.json").write_text(json.dumps({"trial": trial_id, "length": op.length}))
        ctx.train.report_validation_metrics(op.length, {"loss": 1.0 / trial_id})
        op.report_completed(1.0 / trial_id)
