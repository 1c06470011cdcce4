"""Core API, step 3 (Determined 0.37): a hyperparameter search driven by the searcher's
operations. Each operation says how far to train (absolute, in batches); the trial trains,
checkpoints, and reports the searcher metric with op.report_completed(). Adaptive ASHA stops the
poor trials at its rungs and the good ones train on from their checkpoints."""
import json
import logging
import math

import determined as det


def validation_loss(x, noise):
    # The toy model's loss on "held-out data": how far x is from 1, plus what it cannot learn.
    return (1.0 - x) ** 2 + noise


def main(core_context, info):
    hparams = info.trial.hparams
    batch, x = 0, 0.0
    if info.latest_checkpoint is not None:
        with core_context.checkpoint.restore_path(info.latest_checkpoint) as path:
            state = json.loads((path / "state.json").read_text())
        x = state["x"]
        if state.get("trial_id", info.trial.trial_id) == info.trial.trial_id:
            batch = state["batch"]  # resuming: train on from where this trial stopped
        else:
            # Another trial's checkpoint (a PBT clone's parent): its weights, with this trial's
            # own hyperparameters, and training counted from 0, as Determined's warm start.
            logging.info(f"warm start from checkpoint {info.latest_checkpoint} of trial {state['trial_id']}")

    for op in core_context.searcher.operations():
        while batch < op.length:
            # A learning rate too large overshoots; a momentum-like damping smooths it.
            x += hparams["learning_rate"] * (1.0 - x) * (1.0 - hparams["damping"] * math.sin(batch))
            batch += 1
            if batch % 4 == 0:
                core_context.train.report_training_metrics(steps_completed=batch, metrics={"loss": (1.0 - x) ** 2})
                op.report_progress(batch)
        loss = validation_loss(x, hparams["noise"])
        core_context.train.report_validation_metrics(steps_completed=batch, metrics={"validation_loss": loss})
        with core_context.checkpoint.store_path({"steps_completed": batch}) as (path, _):
            (path / "state.json").write_text(json.dumps({"batch": batch, "x": x, "trial_id": info.trial.trial_id}))
        op.report_completed(loss)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    info = det.get_cluster_info()
    assert info is not None, "this example runs as a trial of a search (searcher-run, or a Determined cluster)"
    with det.core.init() as core_context:
        main(core_context, info)
