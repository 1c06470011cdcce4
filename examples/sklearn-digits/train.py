"""SGD classifier on scikit-learn's digits (docs/benchmarks.md W1): one epoch is one shuffled
pass over the training split with partial_fit; the metric is validation accuracy.
A Determined Core API script (0.37 form: the searcher's operations), run by searcher-run
unchanged (see README.md)."""
import pickle

import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

import determined as det

info = det.get_cluster_info()
X, y = load_digits(return_X_y=True)
# The SDK example (sdk_search.py) keeps a test set no trial sees: the hyperparameter `holdout`.
if info.trial.hparams.get("holdout"):
    X, _, y, _ = train_test_split(X, y, test_size=info.trial.hparams["holdout"], stratify=y, random_state=1)
X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
scaler = StandardScaler().fit(X_train)
X_train, X_val = scaler.transform(X_train), scaler.transform(X_val)
classes = np.unique(y)

with det.core.init() as ctx:
    hp = info.trial.hparams
    if hp["learning_rate"] != "optimal" and hp["eta0"] <= 0:
        raise det.InvalidHP("eta0 must be positive unless learning_rate is 'optimal'")
    seed = info.trial.trial_seed
    model = SGDClassifier(alpha=hp["alpha"], eta0=hp["eta0"], learning_rate=hp["learning_rate"],
                          loss=hp["loss"], penalty=hp["penalty"], random_state=seed % 2**31)
    rng = np.random.default_rng(seed)
    epochs = 0
    if info.latest_checkpoint is not None:
        with ctx.checkpoint.restore_path(info.latest_checkpoint) as path:
            with open(path / "state.pkl", "rb") as f:
                saved_model, saved_rng, saved_epochs, owner = pickle.load(f)
        if owner == info.trial.trial_id:  # this trial's own checkpoint: resume where it stopped
            model, rng, epochs = saved_model, saved_rng, saved_epochs
        else:
            # Another trial's (population-based training's clone of its parent, pbt.yaml): its
            # weights with this trial's own hyperparameters, training counted from 0.
            model = saved_model.set_params(alpha=hp["alpha"], eta0=hp["eta0"], learning_rate=hp["learning_rate"])
            print(f"warm start from trial {owner}'s checkpoint after {saved_epochs} epochs", flush=True)

    for op in ctx.searcher.operations():
        while epochs < op.length:
            order = rng.permutation(len(X_train))
            model.partial_fit(X_train[order], y_train[order], classes=classes)
            epochs += 1
            op.report_progress(epochs)
        with ctx.checkpoint.store_path({"steps_completed": epochs}) as (path, storage_id):
            with open(path / "state.pkl", "wb") as f:
                pickle.dump((model, rng, epochs, info.trial.trial_id), f)
            with open(path / "scaler.pkl", "wb") as f:  # what a user of the model needs with it
                pickle.dump(scaler, f)
        accuracy = model.score(X_val, y_val)
        ctx.train.report_validation_metrics(epochs, {"validation_accuracy": accuracy})
        op.report_completed(accuracy)
