"""``PyTorchTrialContext``: what a PyTorchTrial builds its models and optimizers with, and how it
steps them (gradient aggregation across batches and slots included)."""

import contextlib
import logging

import torch

from determined.pytorch import _data
from determined.pytorch._lr_scheduler import LRScheduler
from determined.pytorch._reducer import MetricReducer, WrappedReducer, _SimpleReducer

logger = logging.getLogger("determined.pytorch")


class _Experimental:
    """``context.experimental``: switches Determined keeps apart from the main surface."""

    def __init__(self, context):
        self._context = context
        self._auto_to_device = True
        self._data_repro_checks_disabled = False
        self._auto_amp = False

    def use_amp(self):
        raise RuntimeError("context.experimental.use_amp(): automatic mixed precision needs a CUDA GPU; "
                           "hpsearch trains on the CPU (remove the call, or use torch.autocast yourself)")

    def disable_dataset_reproducibility_checks(self):
        self._data_repro_checks_disabled = True

    def disable_auto_to_device(self):
        self._auto_to_device = False


class PyTorchTrialContext:
    """Built by the harness (or ``determined.pytorch.init()``), never by the user."""

    def __init__(self, core_context, *, trial_seed, hparams, exp_conf, slots_per_trial=1,
                 aggregation_frequency=1, average_aggregated_gradients=True, average_training_metrics=True,
                 steps_completed=0, experiment_id=None, trial_id=None, enable_tensorboard_logging=True):
        self._core = core_context
        self.distributed = core_context.distributed
        self._trial_seed = trial_seed
        self._hparams = dict(hparams or {})
        self._exp_conf = exp_conf
        self._slots_per_trial = slots_per_trial
        if not isinstance(aggregation_frequency, int) or aggregation_frequency < 1:
            raise ValueError(f"optimizations.aggregation_frequency must be an integer >= 1, got "
                             f"{aggregation_frequency!r}")
        self._aggregation_frequency = aggregation_frequency
        self._average_aggregated_gradients = average_aggregated_gradients
        self._average_training_metrics = average_training_metrics
        self._initial_batch = steps_completed
        self._experiment_id = experiment_id
        self._trial_id = trial_id
        self._enable_tensorboard_logging = enable_tensorboard_logging
        self.models = []
        self.optimizers = []
        self.lr_schedulers = []
        self._reducers = []
        self._scaler = None
        self._use_apex = False
        self._stop_requested = False
        self._current_batch_idx = None
        self._epoch_len = None
        self._loss_ids = {}
        self._tensorboard_writer = None
        self.device = torch.device("cpu")
        self.experimental = _Experimental(self)
        self.profiler = None

    # --- wrapping ---------------------------------------------------------------------------
    def wrap_model(self, model):
        """Registers a model (its state goes into checkpoints). With several slots the chief's
        parameters are copied to every rank, as DistributedDataParallel does."""
        model = model.to(self.device)
        if self.distributed.size > 1:
            for tensor in list(model.parameters()) + list(model.buffers()):
                torch.distributed.broadcast(tensor.data, src=0)
        self.models.append(model)
        return model

    @property
    def _main_model(self):
        return self.models[0] if self.models else None

    def wrap_optimizer(self, optimizer, backward_passes_per_step=1, fp16_compression=False,
                       average_aggregated_gradients=None):
        if average_aggregated_gradients is not None:
            self._average_aggregated_gradients = average_aggregated_gradients
        self.optimizers.append(optimizer)
        return optimizer

    def wrap_lr_scheduler(self, lr_scheduler, step_mode, frequency=1):
        wrapped = LRScheduler(lr_scheduler, step_mode, frequency)
        self.lr_schedulers.append(wrapped)
        return wrapped

    def wrap_scaler(self, scaler):
        self._scaler = scaler
        return scaler

    def wrap_reducer(self, reducer, name=None, for_training=True, for_validation=True):
        """A MetricReducer, or a function of the list of every update (made a reducer)."""
        if not isinstance(reducer, MetricReducer):
            if not callable(reducer):
                raise TypeError(f"wrap_reducer() takes a MetricReducer or a function, got {reducer!r}")
            reducer = _SimpleReducer(reducer)
        self._reducers.append(WrappedReducer(reducer, name, for_training, for_validation))
        return reducer

    def configure_apex_amp(self, *args, **kwargs):
        raise RuntimeError("context.configure_apex_amp(): NVIDIA apex is not installed and needs a CUDA "
                           "GPU; hpsearch trains on the CPU (remove the call)")

    @contextlib.contextmanager
    def _autocast(self):
        yield

    def autocast_forward_pass(self, model):
        """Without AMP (no GPU here) the model is returned as it is."""
        return model

    # --- training steps ---------------------------------------------------------------------
    def _should_communicate_and_update(self):
        if self._current_batch_idx is None:
            raise RuntimeError("training has not started: no batch is being trained")
        return (self._current_batch_idx + 1) % self._aggregation_frequency == 0

    def backward(self, loss, gradient=None, retain_graph=False, create_graph=False):
        """loss.backward(); gradients add up over the batches of one aggregation."""
        loss.backward(gradient=gradient, retain_graph=retain_graph, create_graph=create_graph)

    def step_optimizer(self, optimizer, clip_grads=None, auto_zero_grads=True, scaler=None):
        """Steps ``optimizer`` on every aggregation_frequency-th batch: the gradients summed over
        those batches are averaged over the slots (as DistributedDataParallel's all-reduce does),
        then divided by aggregation_frequency when average_aggregated_gradients (the default)."""
        if optimizer not in self.optimizers:
            raise ValueError("step_optimizer(): this optimizer was not wrapped with context.wrap_optimizer()")
        if not self._should_communicate_and_update():
            return
        parameters = [p for group in optimizer.param_groups for p in group.get("params", [])
                      if p.grad is not None]
        if self.distributed.size > 1:
            for p in parameters:
                torch.distributed.all_reduce(p.grad.data)
                p.grad.data.div_(float(self.distributed.size))
        if self._average_aggregated_gradients and self._aggregation_frequency > 1:
            for p in parameters:
                p.grad.data.div_(float(self._aggregation_frequency))
        if clip_grads is not None:
            clip_grads(parameters)
        if scaler is not None:
            scaler.step(optimizer)
        else:
            optimizer.step()
        if auto_zero_grads:
            optimizer.zero_grad()

    def to_device(self, data):
        return _data.to_device(data, self.device)

    # --- what the trial knows ---------------------------------------------------------------
    def get_hparams(self):
        return self._hparams

    def get_hparam(self, name):
        if name not in self._hparams:
            raise ValueError(f"get_hparam({name!r}): the trial's hyperparameters have no {name!r} "
                             f"(they are: {sorted(self._hparams)})")
        return self._hparams[name]

    def get_global_batch_size(self):
        if "global_batch_size" not in self._hparams:
            raise ValueError("get_global_batch_size(): the hyperparameters have no global_batch_size "
                             "(Determined's PyTorchTrial needs it: add 'global_batch_size' to "
                             "hyperparameters)")
        # Determined's effective global batch: per-slot size times slots (a remainder is dropped).
        return self.get_per_slot_batch_size() * self._slots_per_trial

    def get_per_slot_batch_size(self):
        if "global_batch_size" not in self._hparams:
            raise ValueError("get_per_slot_batch_size(): the hyperparameters have no global_batch_size")
        global_batch_size = int(self._hparams["global_batch_size"])
        if global_batch_size < self._slots_per_trial:
            raise ValueError(f"global_batch_size ({global_batch_size}) must be at least "
                             f"resources.slots_per_trial ({self._slots_per_trial})")
        return global_batch_size // self._slots_per_trial

    def get_experiment_config(self):
        return self._exp_conf

    def get_data_config(self):
        return (self._exp_conf or {}).get("data", {}) or {}

    def get_trial_seed(self):
        return self._trial_seed

    def get_experiment_id(self):
        return self._experiment_id

    def get_trial_id(self):
        return self._trial_id

    def get_stop_requested(self):
        return self._stop_requested

    def set_stop_requested(self, stop_requested):
        if not isinstance(stop_requested, bool):
            raise AssertionError("stop_requested must be a boolean")
        logger.info("a trial stop was requested: the trial checkpoints and exits at the end of this step")
        self._stop_requested = stop_requested

    def get_initial_batch(self):
        return self._initial_batch

    def current_train_batch(self):
        return self._current_batch_idx

    def current_train_epoch(self):
        if self._current_batch_idx is None or not self._epoch_len:
            return 0
        return self._current_batch_idx // self._epoch_len

    def is_epoch_start(self):
        if self._current_batch_idx is None:
            raise AssertionError("training has not started: no batch is being trained")
        return self._current_batch_idx % self._epoch_len == 0

    def is_epoch_end(self):
        if self._current_batch_idx is None:
            raise AssertionError("training has not started: no batch is being trained")
        return self._current_batch_idx % self._epoch_len == self._epoch_len - 1

    def get_enable_tensorboard_logging(self):
        return self._enable_tensorboard_logging

    def get_tensorboard_path(self):
        return self._core.train.get_tensorboard_path()

    def get_tensorboard_writer(self):
        if self._tensorboard_writer is None:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError as e:
                raise RuntimeError("get_tensorboard_writer(): the tensorboard package is not installed "
                                   f"({e}); metrics are kept by searcher-run (metrics.jsonl)") from None
            self._tensorboard_writer = SummaryWriter(str(self.get_tensorboard_path()))
        return self._tensorboard_writer

    # --- reducers ---------------------------------------------------------------------------
    def reset_reducers(self):
        for wrapped in self._reducers:
            wrapped.reducer.reset()

    def reduce_metrics(self, for_training):
        metrics = {}
        for wrapped in self._reducers:
            if (for_training and wrapped.for_training) or (not for_training and wrapped.for_validation):
                metrics.update(wrapped.reduce(self.distributed))
        return metrics
