"""A trial with every piece of state a resume must restore: an MLP with dropout (RNG draws every
batch), SGD with momentum (optimizer state), a StepLR stepped every batch (scheduler state), and
a callback that counts batches (callback state). Data: 96 fixed random points, in order, or
with hparams shuffle: true reshuffled every epoch by torch's RandomSampler without a generator
(each epoch's order drawn from torch's global RNG when the epoch begins), or from a generator
seeded with hparams generator_seed when given."""
import torch
from determined import pytorch


class Counter(pytorch.PyTorchCallback):
    def __init__(self):
        self.epochs = 0
        self.workloads = 0

    def on_training_epoch_end(self, epoch_idx):
        self.epochs += 1

    def on_training_workload_end(self, avg_metrics, batch_metrics):
        self.workloads += 1

    def state_dict(self):
        return {"epochs": self.epochs, "workloads": self.workloads}

    def load_state_dict(self, state):
        self.epochs = state["epochs"]
        self.workloads = state["workloads"]


def dataset():
    generator = torch.Generator().manual_seed(1234)
    x = torch.randn(96, 4, generator=generator)
    y = (x.sum(dim=1, keepdim=True) > 0).float()
    return torch.utils.data.TensorDataset(x, y)


class RichTrial(pytorch.PyTorchTrial):
    def __init__(self, context):
        self.context = context
        self.model = context.wrap_model(torch.nn.Sequential(
            torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Dropout(0.3), torch.nn.Linear(16, 1)))
        self.opt = context.wrap_optimizer(torch.optim.SGD(self.model.parameters(), lr=context.get_hparam("lr"),
                                                          momentum=0.9))
        self.sched = context.wrap_lr_scheduler(torch.optim.lr_scheduler.StepLR(self.opt, step_size=5, gamma=0.7),
                                               pytorch.LRScheduler.StepMode.STEP_EVERY_BATCH)
        self.counter = Counter()

    def build_callbacks(self):
        return {"counter": self.counter}

    def build_training_data_loader(self):
        seed = self.context.get_hparams().get("generator_seed")
        return pytorch.DataLoader(dataset(), batch_size=self.context.get_per_slot_batch_size(),
                                  shuffle=self.context.get_hparams().get("shuffle", False),
                                  generator=None if seed is None else torch.Generator().manual_seed(seed),
                                  num_workers=self.context.get_hparams().get("num_workers", 0))

    def build_validation_data_loader(self):
        return pytorch.DataLoader(dataset(), batch_size=32)

    def train_batch(self, batch, epoch_idx, batch_idx):
        x, y = batch
        loss = torch.nn.functional.binary_cross_entropy_with_logits(self.model(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch):
        x, y = batch
        logits = self.model(x)
        return {"validation_loss": torch.nn.functional.binary_cross_entropy_with_logits(logits, y),
                "accuracy": ((logits > 0).float() == y).float().mean()}
