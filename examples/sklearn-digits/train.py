"""SGD classifier on scikit-learn's digits (spec benchmarks.md W1): one epoch is one shuffled
pass over the training split with partial_fit; the metric is validation accuracy.
Run by searcher-run (see README.md); it reads like a Determined Core API script."""
import pickle

import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

import hpsearch

X, y = load_digits(return_X_y=True)
X_train, X_val, y_train, y_val = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
scaler = StandardScaler().fit(X_train)
X_train, X_val = scaler.transform(X_train), scaler.transform(X_val)
classes = np.unique(y)

with hpsearch.init() as ctx:
    hp = ctx.hparams
    if hp["learning_rate"] != "optimal" and hp["eta0"] <= 0:
        raise hpsearch.InvalidHP("eta0 must be positive unless learning_rate is 'optimal'")
    model = SGDClassifier(alpha=hp["alpha"], eta0=hp["eta0"], learning_rate=hp["learning_rate"],
                          loss=hp["loss"], penalty=hp["penalty"], random_state=ctx.trial_seed % 2**31)
    rng = np.random.default_rng(ctx.trial_seed)
    epochs = 0
    restore = ctx.checkpoint.restore_path()
    if restore is not None:
        with open(restore / "state.pkl", "rb") as f:
            model, rng, epochs = pickle.load(f)

    for op in ctx.searcher.operations():
        while epochs < op.length:
            order = rng.permutation(len(X_train))
            model.partial_fit(X_train[order], y_train[order], classes=classes)
            epochs += 1
            ctx.train.report_progress(epochs)
        with ctx.checkpoint.store_path(epochs) as path:
            with open(path / "state.pkl", "wb") as f:
                pickle.dump((model, rng, epochs), f)
        op.report_completed(model.score(X_val, y_val))
