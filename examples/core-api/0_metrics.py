"""Core API, step 1: report metrics. A toy model (a number walking towards 1) "trains" for a
fixed number of batches and reports its training loss every few batches and a validation
loss at the end; the metrics are kept per trial and drawn as learning curves."""
import logging
import time

import determined as det

BATCHES = 40


def train(core_context, step_size):
    x = 0.0
    for batch in range(1, BATCHES + 1):
        x += step_size * (1.0 - x)
        time.sleep(0.01)
        if batch % 5 == 0:
            core_context.train.report_training_metrics(steps_completed=batch, metrics={"loss": (1.0 - x) ** 2})
    core_context.train.report_validation_metrics(steps_completed=BATCHES, metrics={"loss": (1.0 - x) ** 2, "x": x})


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    info = det.get_cluster_info()
    step_size = info.trial.hparams["step_size"] if info is not None else 0.1
    with det.core.init() as core_context:
        train(core_context, step_size)
