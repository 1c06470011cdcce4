"""The trial of the custom-searcher tests: a Core API script in the manner of Determined's
e2e fixture (e2e_tests/tests/fixtures/custom_searcher/model_coreapi.py): x grows by the
hyperparameter increment_by each batch, and x is the validation metric at every ValidateAfter.
It checkpoints x at each validation and resumes from its latest checkpoint; with the
hyperparameter invalid: true it raises det.InvalidHP."""
import json
import logging
import pathlib

import determined as det


def main(core_context, latest_checkpoint, increment_by):
    x, batch = 0, 0
    if latest_checkpoint is not None:
        with core_context.checkpoint.restore_path(latest_checkpoint) as path:
            x, batch = json.loads(pathlib.Path(path, "state.json").read_text())
    for op in core_context.searcher.operations():
        while batch < op.length:
            x += increment_by
            batch += 1
        op.report_progress(batch)
        core_context.train.report_validation_metrics(steps_completed=batch, metrics={"validation_error": x})
        with core_context.checkpoint.store_path({"steps_completed": batch}) as (path, _):
            pathlib.Path(path, "state.json").write_text(json.dumps([x, batch]))
        op.report_completed(x)
        if core_context.preempt.should_preempt():
            return


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    info = det.get_cluster_info()
    assert info is not None, "this trial only runs under searcher-run"
    with det.core.init() as core_context:
        if info.trial.hparams.get("invalid"):
            raise det.InvalidHP("this trial's hyperparameters say so")
        main(core_context, info.latest_checkpoint, info.trial.hparams["increment_by"])
