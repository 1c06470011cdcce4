"""Determined's PyTorch Trial API (``determined.pytorch``) over hpsearch's Core API: a
PyTorchTrial runs under searcher-run (``entrypoint: model_def:MyTrial`` or the Trainer API) and
off-cluster. Member by member: docs/trial-api.md."""

from determined.pytorch import samplers
from determined.pytorch._callback import PyTorchCallback
from determined.pytorch._context import PyTorchTrialContext
from determined.pytorch._data import DataLoader, TorchData, adapt_batch_sampler, data_length, to_device
from determined.pytorch._load import CheckpointLoadContext, load_trial_from_checkpoint_path
from determined.pytorch._lr_scheduler import LRScheduler
from determined.pytorch._reducer import MetricReducer, Reducer
from determined.pytorch._trainer import Trainer, init
from determined.pytorch._trial import PyTorchTrial
from determined.pytorch._units import Batch, Epoch, TrainUnit

__all__ = ["Batch", "CheckpointLoadContext", "DataLoader", "Epoch", "LRScheduler", "MetricReducer",
           "PyTorchCallback", "PyTorchTrial", "PyTorchTrialContext", "Reducer", "TorchData", "TrainUnit",
           "Trainer", "adapt_batch_sampler", "data_length", "init", "load_trial_from_checkpoint_path",
           "samplers", "to_device"]
