"""A trial whose __init__ raises: the harness must surface the error (and its traceback)."""
from determined import pytorch


class RaisingTrial(pytorch.PyTorchTrial):
    def __init__(self, context):
        raise ValueError("this trial cannot be built: bad model definition")

    def train_batch(self, batch, epoch_idx, batch_idx):
        return {}

    def build_training_data_loader(self):
        return None

    def build_validation_data_loader(self):
        return None
