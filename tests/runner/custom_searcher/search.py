"""A custom search as a user runs one, for tests/runner/custom_searcher_test.py:

    search.py local METHOD SEARCHER_DIR MODEL_DIR   LocalSearchRunner in this process
    search.py remote METHOD                         RemoteSearchRunner, as an experiment's entrypoint

METHOD is random (5 trials, 2 at a time, 4 batches each) or asha (8 trials, 3 rungs, divisor 2,
max_length 16): the e2e fixture methods of searchers.py. The searched experiment trains model.py."""
import logging
import sys

import determined as det
from determined import searcher
from searchers import ASHASearchMethod, RandomSearchMethod


def make_method(name):
    if name == "random":
        return RandomSearchMethod(max_trials=5, max_concurrent_trials=2, max_length=4)
    return ASHASearchMethod(max_length=16, max_trials=8, num_rungs=3, divisor=2)


def experiment_config(name):
    return {"name": f"custom-{name}", "entrypoint": f"{sys.executable} model.py",
            "searcher": {"name": "custom", "metric": "validation_error", "smaller_is_better": True,
                         "unit": "batches"},
            "max_restarts": 0}


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    mode, method = sys.argv[1], sys.argv[2]
    if mode == "local":
        runner = searcher.LocalSearchRunner(make_method(method), searcher_dir=sys.argv[3])
        experiment_id = runner.run(experiment_config(method), model_dir=sys.argv[4])
    else:
        with det.core.init() as core_context:
            runner = searcher.RemoteSearchRunner(make_method(method), context=core_context)
            experiment_id = runner.run(experiment_config(method), model_dir=".")
    print(f"searched experiment {experiment_id}, completed: {runner.state.experiment_completed}", flush=True)
