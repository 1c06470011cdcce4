"""A Core API script as Determined's e2e fixtures write them (tests/runner/det_test.py runs it
through `det`, in the store and with --local): metrics in the legacy groups named through
determined.common.util and in groups of its own, reported both by report_metrics and by the
harness's _report_trial_metrics; an alert; and the environment the config's
environment.environment_variables promised, printed for the test to read."""
import logging
import os

import determined as det
from determined.common import util as det_util

metric_groups = [det_util._LEGACY_TRAINING, det_util._LEGACY_VALIDATION, "inference", "test"]


def main(core_context):
    steps = 0
    for op in core_context.searcher.operations():
        while steps < op.length:
            steps += 1
            for i, group in enumerate(metric_groups):
                metrics = {"acc": steps * (i + 1), "f1": 1 / steps}
                if i % 2:
                    core_context.train._report_trial_metrics(group=group, total_batches=steps, metrics=metrics)
                else:
                    core_context.train.report_metrics(group=group, steps_completed=steps, metrics=metrics)
        op.report_completed(1 / steps)
    core_context.alert(title="e2e done", description=f"trained {steps} steps", level="warn")


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    for name in ("DET_E2E_COLOR", "DET_E2E_SHAPE", "DET_E2E_EMPTY", "PYTHONPATH"):
        print(f"env {name}={os.environ.get(name, '<unset>')}", flush=True)
    with det.core.init() as core_context:
        main(core_context)
