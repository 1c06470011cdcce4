"""A PyTorch MLP on scikit-learn's digits (spec benchmarks.md W2): 1-3 hidden layers with ReLU
and dropout, SGD with momentum; one epoch is one pass over the training split in mini-batches;
the metric is validation accuracy. About half of random configurations never learn, which is
where ASHA beats random search most. Run by searcher-run (see README.md)."""
import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import hpsearch

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


with hpsearch.init() as ctx:
    hp = ctx.hparams
    torch.manual_seed(ctx.trial_seed)
    model = build(hp)
    optimizer = torch.optim.SGD(model.parameters(), lr=hp["lr"], momentum=hp["momentum"],
                                weight_decay=hp["weight_decay"])
    generator = torch.Generator().manual_seed(ctx.trial_seed)
    epochs = 0
    restore = ctx.checkpoint.restore_path()
    if restore is not None:
        state = torch.load(restore / "state.pt")
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
            ctx.train.report_progress(epochs)
        model.eval()
        with torch.no_grad():
            logits = model(X_val)
            accuracy = (logits.argmax(dim=1) == y_val).float().mean().item()
            val_loss = torch.nn.functional.cross_entropy(logits, y_val).item()
        with ctx.checkpoint.store_path(epochs) as path:
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "generator": generator.get_state(), "epochs": epochs}, path / "state.pt")
        op.report_completed(accuracy, validation_loss=val_loss if np.isfinite(val_loss) else "NaN")
