"""Core API, step 3 (Determined 0.38): the validation metrics drive the search. The trial
trains to the config's max_time on its own, reporting validation metrics (the searcher metric,
at `batches`, the config's time_metric) as it goes; when the searcher stops it,
should_preempt() turns True and the trial saves and exits."""
import json
import logging
import time

import determined as det


def main(core_context, info):
    hparams = info.trial.hparams
    searcher = info.trial._config["searcher"]
    max_time = searcher["max_time"]
    batch, x = 0, 0.0
    if info.latest_checkpoint is not None:
        with core_context.checkpoint.restore_path(info.latest_checkpoint) as path:
            state = json.loads((path / "state.json").read_text())
        batch, x = state["batch"], state["x"]

    while batch < max_time:
        x += hparams["learning_rate"] * (1.0 - x)
        batch += 1
        time.sleep(0.02)  # a batch takes time: the searcher's stop arrives while it trains
        core_context.train.report_progress(batch / max_time)
        if batch % 4 == 0:
            loss = (1.0 - x) ** 2 + hparams["noise"]
            core_context.train.report_validation_metrics(
                steps_completed=batch, metrics={searcher["metric"]: loss, searcher["time_metric"]: batch})
            with core_context.checkpoint.store_path({"steps_completed": batch}) as (path, _):
                (path / "state.json").write_text(json.dumps({"batch": batch, "x": x}))
            if core_context.preempt.should_preempt():
                logging.info(f"stopped by the searcher at batch {batch}")
                return


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    info = det.get_cluster_info()
    assert info is not None, "this example runs as a trial of a search (searcher-run, or a Determined cluster)"
    with det.core.init() as core_context:
        main(core_context, info)
