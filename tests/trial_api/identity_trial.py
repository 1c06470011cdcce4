"""y = w * x learning the identity: records x = y = 1 + 0.1 i (i < 64), w from 0, MSE, SGD with
lr 0.001; it reports its weight at every validation (the shape of Determined's pytorch_identity
e2e fixture)."""
import torch

from determined import pytorch


class Identity(torch.utils.data.Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        v = torch.tensor([1.0 + 0.1 * index])
        return v, v


class IdentityTrial(pytorch.PyTorchTrial):
    def __init__(self, context):
        self.context = context
        model = torch.nn.Linear(1, 1, bias=False)
        model.weight.data.fill_(0)
        self.model = context.wrap_model(model)
        self.opt = context.wrap_optimizer(torch.optim.SGD(self.model.parameters(), lr=0.001))

    def train_batch(self, batch, epoch_idx, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.model(x), y)
        self.context.backward(loss)
        self.context.step_optimizer(self.opt)
        return {"loss": loss}

    def evaluate_batch(self, batch):
        x, y = batch
        return {"val_loss": torch.nn.functional.mse_loss(self.model(x), y), "weight": self.model.weight.item()}

    def build_training_data_loader(self):
        return pytorch.DataLoader(Identity(), batch_size=self.context.get_per_slot_batch_size())

    def build_validation_data_loader(self):
        return pytorch.DataLoader(Identity(), batch_size=self.context.get_per_slot_batch_size())
