"""The digits MLP of examples/torch-mlp-digits as a Determined PyTorchTrial (the Trial API):
1-3 hidden layers with ReLU and dropout, SGD with momentum and weight decay, on scikit-learn's
8x8 digits (pixels / 16, the same stratified 75/25 split). The harness does the rest: batches
sharded across the trial's slots, gradients averaged across them, epochs counted in passes
over the data, checkpoints, resuming a paused trial where it stopped. Run by searcher-run
unchanged from what Determined runs (entrypoint: model_def:DigitsTrial)."""
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from determined import pytorch

torch.set_num_threads(1)  # several processes share the machine's cores


def splits():
    X, y = load_digits(return_X_y=True)
    X_train, X_val, y_train, y_val = train_test_split(X / 16.0, y, test_size=0.25, stratify=y, random_state=0)
    as_dataset = lambda X, y: torch.utils.data.TensorDataset(torch.tensor(X, dtype=torch.float32),  # noqa: E731
                                                             torch.tensor(y))
    return as_dataset(X_train, y_train), as_dataset(X_val, y_val)


class DigitsTrial(pytorch.PyTorchTrial):
    def __init__(self, context):
        self.context = context
        hp = context.get_hparams()
        layers, width = [], 64
        for _ in range(hp["n_layers"]):
            layers += [torch.nn.Linear(width, hp["width"]), torch.nn.ReLU(), torch.nn.Dropout(hp["dropout"])]
            width = hp["width"]
        layers.append(torch.nn.Linear(width, 10))
        self.model = context.wrap_model(torch.nn.Sequential(*layers))
        self.optimizer = context.wrap_optimizer(torch.optim.SGD(
            self.model.parameters(), lr=hp["lr"], momentum=hp["momentum"], weight_decay=hp["weight_decay"]))
        self.train_set, self.val_set = splits()

    def build_training_data_loader(self):
        return pytorch.DataLoader(self.train_set, batch_size=self.context.get_per_slot_batch_size(), shuffle=True)

    def build_validation_data_loader(self):
        return pytorch.DataLoader(self.val_set, batch_size=128)

    def train_batch(self, batch, epoch_idx, batch_idx):
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.model(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.optimizer)
        return {"loss": loss}

    def evaluate_batch(self, batch):
        x, y = batch
        logits = self.model(x)
        return {"validation_loss": torch.nn.functional.cross_entropy(logits, y),
                "validation_accuracy": (logits.argmax(dim=1) == y).float().mean()}
