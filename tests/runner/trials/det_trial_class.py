"""A PyTorchTrial for `det experiment create --local` (tests/runner/det_test.py, once
determined.experimental.create exists): y = w * x fitted by SGD on x = 1..4, y = 2x. With
hparams["fail"] its constructor raises, as a broken model definition would."""
import torch
from determined import pytorch


class Line(pytorch.PyTorchTrial):
    def __init__(self, context):
        if context.get_hparam("fail"):
            raise RuntimeError("det_trial_class: broken on purpose")
        self.context = context
        self.model = context.wrap_model(torch.nn.Linear(1, 1, bias=False))
        self.opt = context.wrap_optimizer(torch.optim.SGD(self.model.parameters(), lr=0.01))

    def _data(self):
        x = torch.arange(1, 5, dtype=torch.float32).reshape(-1, 1)
        return torch.utils.data.TensorDataset(x, 2 * x)

    def build_training_data_loader(self):
        return pytorch.DataLoader(self._data(), batch_size=self.context.get_per_slot_batch_size())

    def build_validation_data_loader(self):
        return pytorch.DataLoader(self._data(), batch_size=self.context.get_per_slot_batch_size())

    def train_batch(self, batch, epoch_idx, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.model(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch):
        x, y = batch
        return {"val_loss": torch.nn.functional.mse_loss(self.model(x), y)}
