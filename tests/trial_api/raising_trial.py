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


class InvalidHPTrial(RaisingTrial):
    def __init__(self, context):
        import determined as det

        raise det.InvalidHP(f"global_batch_size {context.get_global_batch_size()} is too small")
