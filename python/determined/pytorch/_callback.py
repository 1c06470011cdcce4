"""``PyTorchCallback``: hooks the harness calls at the points of the training loop."""


class PyTorchCallback:
    def on_trial_startup(self, first_batch_idx, checkpoint_uuid):
        pass

    def on_trial_shutdown(self):
        pass

    def on_training_start(self):
        pass

    def on_training_epoch_start(self, epoch_idx):
        pass

    def on_training_epoch_end(self, epoch_idx):
        pass

    def on_training_workload_end(self, avg_metrics, batch_metrics):
        pass

    def on_validation_start(self):
        pass

    def on_validation_epoch_start(self):
        pass

    def on_validation_epoch_end(self, outputs):
        pass

    def on_validation_end(self, metrics):
        pass

    def on_checkpoint_load_start(self, checkpoint):
        pass

    def on_checkpoint_save_start(self, checkpoint):
        pass

    def on_checkpoint_write_end(self, checkpoint_dir):
        pass

    def on_checkpoint_end(self, checkpoint_dir):
        """Deprecated in Determined for on_checkpoint_write_end; still called."""

    def on_checkpoint_upload_end(self, uuid):
        pass

    def state_dict(self):
        return {}

    def load_state_dict(self, state_dict):
        pass
