"""A PyTorch MLP on scikit-learn's digits (docs/benchmarks.md W2): 1-3 hidden layers with ReLU
and dropout, SGD with momentum; one epoch is one pass over the training split in mini-batches;
the metric is validation accuracy. About half of random configurations never learn, which is
where ASHA beats random search most. A Determined Core API script, run by searcher-run
unchanged (see README.md)."""
import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import determined as det

torch.set_num_threads(1)  # two trials share the two cores

X, y = load_digits(return_X_y=True)
X_train, X_val, y_train, y_val = train_test_split(X / 16.0, y, test_size=0.25, stratify=y, random_state=0)
X_train, X_val = torch.tensor(X_train, dtype=torch.float32), torch.tensor(X_val, dtype=torch.float32)
y_train, y_val = torch.tensor(y_train), torch.tensor(y_val)


def build(hp):
    layers, width = [], 64
    for _ in range(hp["n_layers"]):
        layers += [torch.nn.Linear(width, hp["width"]), torch.nn.ReLU(), torch.nn.Dropout(hp["dropout"])]
        width = hp["width"]
    layers.append(torch.nn.Linear(width, 10))
    return torch.nn.Sequential(*layers)


info = det.get_cluster_info()
with det.core.init() as ctx:
    hp = info.trial.hparams
    seed = info.trial.trial_seed
    torch.manual_seed(seed)
    model = build(hp)
    optimizer = torch.optim.SGD(model.parameters(), lr=hp["lr"], momentum=hp["momentum"],
                                weight_decay=hp["weight_decay"])
    generator = torch.Generator().manual_seed(seed)
    epochs = 0
    if info.latest_checkpoint is not None:
        with ctx.checkpoint.restore_path(info.latest_checkpoint) as path:
            state = torch.load(path / "state.pt")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        generator.set_state(state["generator"])
        epochs = state["epochs"]

    for op in ctx.searcher.operations():
        while epochs < op.length:
            model.train()
            order = torch.randperm(len(X_train), generator=generator)
            for start in range(0, len(order), hp["batch_size"]):
                batch = order[start:start + hp["batch_size"]]
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(X_train[batch]), y_train[batch])
                loss.backward()
                optimizer.step()
            epochs += 1
            op.report_progress(epochs)
        model.eval()
        with torch.no_grad():
            logits = model(X_val)
            accuracy = (logits.argmax(dim=1) == y_val).float().mean().item()
            val_loss = torch.nn.functional.cross_entropy(logits, y_val).item()
        with ctx.checkpoint.store_path({"steps_completed": epochs}) as (path, storage_id):
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "generator": generator.get_state(), "epochs": epochs}, path / "state.pt")
        # numpy and torch values are encoded as Determined does (NaN as "NaN").
        ctx.train.report_validation_metrics(epochs, {"validation_accuracy": accuracy,
                                                     "validation_loss": np.float64(val_loss)})
        op.report_completed(accuracy)
