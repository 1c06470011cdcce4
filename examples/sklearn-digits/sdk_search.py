"""The scikit-learn digits search driven from Python with Determined's SDK, notebook style:
create the experiment, wait for it, take the best checkpoint, load the model from it and score
it on digits the search never saw.

    HPSEARCH_SEARCHER_RUN=build/release/runner/searcher-run PYTHONPATH=python \\
        /usr/bin/python3 examples/sklearn-digits/sdk_search.py

Experiments go to the store ($HPSEARCH_HOME, default ~/.local/share/hpsearch); afterwards
`searcher-run ls` lists this one. Run by CI (tests/runner/sdk_example.sh).
"""
import pathlib
import pickle
import tempfile

from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from determined.experimental import client

HERE = pathlib.Path(__file__).resolve().parent
HOLDOUT = 0.2  # the fraction of digits kept for the final test: no trial trains or validates on it

# config.yaml's search, smaller, as a dict (a path to a YAML file works as well).
config = {
    "name": "sklearn_digits_sdk",
    "entrypoint": "/usr/bin/python3 train.py",
    "hyperparameters": {
        "alpha": {"type": "log", "minval": -6, "maxval": -1, "base": 10},
        "eta0": {"type": "log", "minval": -4, "maxval": 0, "base": 10},
        "learning_rate": {"type": "categorical", "vals": ["constant", "invscaling", "adaptive", "optimal"]},
        "loss": {"type": "categorical", "vals": ["hinge", "log_loss", "modified_huber"]},
        "penalty": {"type": "categorical", "vals": ["l2", "l1", "elasticnet"]},
        "holdout": HOLDOUT,
    },
    "searcher": {"name": "adaptive_asha", "metric": "validation_accuracy", "smaller_is_better": False,
                 "max_length": 27, "max_trials": 12, "divisor": 3, "mode": "standard", "max_concurrent_trials": 2},
    "max_restarts": 2,
    "reproducibility": {"experiment_seed": 7},
}

exp = client.create_experiment(config=config, model_dir=HERE)
print(f"started experiment {exp.id}")
exit_status = exp.wait(interval=1)
print(f"experiment {exp.id} ended with status {exit_status.value}")
if exit_status != client.ExperimentState.COMPLETED:
    raise SystemExit(f"experiment {exp.id} did not complete: `searcher-run describe {exp.id}` says why")

best_checkpoint = exp.top_checkpoint()
trial = client.get_trial(best_checkpoint.training.trial_id)
validation = best_checkpoint.training.validation_metrics["avgMetrics"]["validation_accuracy"]
print(f"best checkpoint {best_checkpoint.uuid}: trial {trial.id}, {best_checkpoint.steps_completed} epochs, "
      f"validation accuracy {validation:.4f}, hparams {trial.hparams}")

with tempfile.TemporaryDirectory() as tmp:
    path = pathlib.Path(best_checkpoint.download(str(pathlib.Path(tmp) / best_checkpoint.uuid)))
    with open(path / "state.pkl", "rb") as f:
        model, _, epochs, _ = pickle.load(f)  # the model, its random state, epochs, the trial
    with open(path / "scaler.pkl", "rb") as f:
        scaler = pickle.load(f)

# The same split train.py made: these digits were held out of every trial.
X, y = load_digits(return_X_y=True)
_, X_test, _, y_test = train_test_split(X, y, test_size=HOLDOUT, stratify=y, random_state=1)
accuracy = model.score(scaler.transform(X_test), y_test)
print(f"held-out accuracy of the best model ({epochs} epochs): {accuracy:.4f} on {len(y_test)} digits")
