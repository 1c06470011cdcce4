"""The SDK tests' trial (tests/runner/sdk_test.py): a Core API script whose validation loss is
(x - 3)^2 + 10 / steps, so the best trial (x = 3) and its best checkpoint (the last) are known
beforehand. Each step sleeps hparams["sleep"] seconds; it checkpoints after every step (every
hparams["checkpoint_every"] steps if given), so a pause or a killed runner loses at most one step.
With hparams["crash_at"] = S, its first run exits 3 right after reporting step S's training
metrics (a relaunch from its checkpoint reports S again); training metrics carry "run", the
trial_run_id, so a test can tell which run reported a step."""
import json

import time

import determined as det

info = det.get_cluster_info()
hp = info.trial.hparams
with det.core.init() as ctx:
    steps = 0
    if info.latest_checkpoint is not None:
        with ctx.checkpoint.restore_path(info.latest_checkpoint) as path:
            steps = json.loads((path / "model.json").read_text())["steps"]
    print(f"trial {info.trial.trial_id} of experiment {info.trial.experiment_id} starts at step {steps}", flush=True)
    for op in ctx.searcher.operations():
        while steps < op.length:
            time.sleep(hp["sleep"])
            steps += 1
            ctx.train.report_training_metrics(steps, {"loss": (hp["x"] - 3) ** 2 + 10 / steps,
                                                      "run": info.trial.trial_run_id})
            if hp.get("crash_at") == steps and info.latest_checkpoint is None:
                print(f"trial {info.trial.trial_id} crashes at step {steps}", flush=True)
                raise SystemExit(3)
            if steps % hp.get("checkpoint_every", 1) == 0:
                with ctx.checkpoint.store_path({"steps_completed": steps, "x": hp["x"]}) as (path, _):
                    (path / "model.json").write_text(json.dumps({"x": hp["x"], "steps": steps}))
            if ctx.preempt.should_preempt():
                print(f"trial {info.trial.trial_id} paused at step {steps}", flush=True)
                raise SystemExit(0)
        loss = (hp["x"] - 3) ** 2 + 10 / steps
        ctx.train.report_validation_metrics(steps, {"loss": loss, "accuracy": 1 / (1 + loss)})
        op.report_completed(loss)
    print(f"trial {info.trial.trial_id} done", flush=True)
