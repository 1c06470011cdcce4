"""A Core API trial for the PBT test of the save policy (runner_binary_test.cpp). Its metric is
1 / trial id (later trials are better). The first members checkpoint at every validation;
clones (HPSEARCH_WARM_START_PARENT set) never checkpoint, print what they restored, and the
first time one of their launches gets their second operation, wait until the journal has
their parent's trial_closed (the runner applies the save policy as it handles that event,
before it sees this exit), and exit 3: their restart needs the
parent's checkpoint again. (A clone may be paused between its operations and relaunched, so
which launch that is depends on timing; a marker file in its directory makes it once.)"""
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
trial_dir = pathlib.Path(os.environ["HPSEARCH_TRIAL_DIR"])
journal = trial_dir.parent.parent / "journal.jsonl"
crashed = trial_dir / "crashed"



def parent_closed():
    for line in journal.read_text().splitlines():
        try:
            event = json.loads(line).get("in", {})
        except ValueError:  # a record being written
            continue
        if event.get("event") == "trial_closed" and event.get("request_id") == parent:
            return True
    return False


with det.core.init() as ctx:
    if info.latest_checkpoint is not None:
        with ctx.checkpoint.restore_path(info.latest_checkpoint) as path:
            print("restored", (path / "state.json").read_text(), flush=True)
    for op in ctx.searcher.operations():
        if clone and op.length > 2 and not crashed.exists():
            crashed.write_text("once")
            deadline = time.monotonic() + 300
            while not parent_closed() and time.monotonic() < deadline:
                time.sleep(0.05)
            sys.exit(3)
        if not clone:
            with ctx.checkpoint.store_path({"steps_completed": op.length}) as (path, _):
                (path / "state.json").write_text(json.dumps({"trial": trial_id, "length": op.length}))
        ctx.train.report_validation_metrics(op.length, {"loss": 1.0 / trial_id})
        op.report_completed(1.0 / trial_id)
