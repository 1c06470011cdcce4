"""The one-variable model of the Trial API tests: y = w * x with w from 0, no bias, MSE loss,
plain SGD (lr from the hyperparameters), data x = 1..8 with y = 2x, in order. Its weight after
each batch is derivable by hand (see trial_api_test.py). ``w`` is reported as a validation metric
so that end-to-end tests can read the final weight from the runner's records."""
import torch
from determined import pytorch


class OneVarTrial(pytorch.PyTorchTrial):
    def __init__(self, context):
        self.context = context
        self.model = context.wrap_model(torch.nn.Linear(1, 1, bias=False))
        with torch.no_grad():
            self.model.weight.fill_(0.0)
        self.opt = context.wrap_optimizer(torch.optim.SGD(self.model.parameters(), lr=context.get_hparam("lr")))

    def _data(self):
        x = torch.arange(1, 9, dtype=torch.float32).reshape(-1, 1)
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
        return {"loss": loss, "w": self.model.weight.item()}

    def evaluate_batch(self, batch):
        x, y = batch
        return {"val_loss": torch.nn.functional.mse_loss(self.model(x), y), "w": self.model.weight.item()}
