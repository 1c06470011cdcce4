"""Core API, step 2: checkpoints and preemption. The trial saves its state every few batches,
starts from its latest checkpoint when it is relaunched, and stops early (after saving) when
should_preempt() says so: Ctrl-C on searcher-run, then `searcher-run resume`, loses nothing."""
import json
import logging
import time

import determined as det

BATCHES = 60


def load(core_context, storage_id):
    with core_context.checkpoint.restore_path(storage_id) as path:
        with open(path / "state.json") as f:
            state = json.load(f)
    logging.info(f"resuming from checkpoint {storage_id} at batch {state['batch']}")
    return state["batch"], state["x"]


def save(core_context, batch, x):
    with core_context.checkpoint.store_path({"steps_completed": batch}) as (path, storage_id):
        with open(path / "state.json", "w") as f:
            json.dump({"batch": batch, "x": x}, f)
    return storage_id


def train(core_context, info):
    step_size = info.trial.hparams["step_size"] if info is not None else 0.1
    batch, x = 0, 0.0
    if info is not None and info.latest_checkpoint is not None:
        batch, x = load(core_context, info.latest_checkpoint)
    while batch < BATCHES:
        x += step_size * (1.0 - x)
        batch += 1
        time.sleep(0.05)
        if batch % 10 == 0:
            core_context.train.report_training_metrics(steps_completed=batch, metrics={"loss": (1.0 - x) ** 2})
            save(core_context, batch, x)
            if core_context.preempt.should_preempt():
                logging.info(f"preempted at batch {batch}")
                return
    core_context.train.report_validation_metrics(steps_completed=batch, metrics={"loss": (1.0 - x) ** 2, "x": x})


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    with det.core.init() as core_context:
        train(core_context, det.get_cluster_info())
