"""The Trainer API: ``determined.pytorch.init()`` gives a PyTorchTrialContext over the Core API,
``Trainer(trial, context).fit(...)`` trains the trial, under searcher-run on the searcher's
operations, off-cluster (a plain ``python3 train.py``) for ``max_length``."""

import contextlib
import logging
import os
import sys
import warnings

import torch

import determined as det
from determined import core
from determined.pytorch import _trial
from determined.pytorch._context import PyTorchTrialContext
from determined.pytorch._units import Batch, TrainUnit

logger = logging.getLogger("determined.pytorch")


def _section(config, name):
    value = (config or {}).get(name)
    return value if isinstance(value, dict) else {}


def _bool_field(section, name, field, default):
    value = section.get(field, default)
    if not isinstance(value, bool):
        raise ValueError(f"{name}.{field}: must be true or false, got {value!r}")
    return value


@contextlib.contextmanager
def init(*, hparams=None, exp_conf=None, distributed=None, aggregation_frequency=1,
         enable_tensorboard_logging=True, _local=False):
    """A PyTorchTrialContext for this process. Under searcher-run the trial's hyperparameters and
    config come from the runner (hparams/exp_conf must then be None); off-cluster they are the
    ones given. With several processes (torchrun's environment) torch.distributed is set up with
    gloo."""
    info = None if _local else det.get_cluster_info()
    if info is not None:
        if hparams is not None or exp_conf is not None:
            logger.info("pytorch.init(): hparams and exp_conf are taken from the trial under "
                           "searcher-run; the ones passed are ignored")
        hparams = info.trial.hparams
        exp_conf = info.trial._config
        trial_seed = info.trial.trial_seed
        optimizations = _section(exp_conf, "optimizations")
        aggregation_frequency = optimizations.get("aggregation_frequency", 1)
    else:
        hparams = dict(hparams or {})
        exp_conf = exp_conf
        optimizations = _section(exp_conf, "optimizations")
        trial_seed = _section(exp_conf, "reproducibility").get("experiment_seed", 0)
    average_aggregated = _bool_field(optimizations, "optimizations", "average_aggregated_gradients", True)
    average_training = _bool_field(optimizations, "optimizations", "average_training_metrics", True)
    if distributed is None and int(os.environ.get("WORLD_SIZE", "1")) > 1:
        distributed = core.DistributedContext.from_torch_distributed()
    if distributed is not None and distributed.size > 1 and not torch.distributed.is_initialized():
        torch.distributed.init_process_group(backend="gloo", rank=distributed.rank, world_size=distributed.size)
    _trial.set_random_seeds(trial_seed)
    # Off-cluster, the config's checkpoint storage when it names one (a section holding only the
    # save policy does not).
    storage = None if info is not None else (exp_conf or {}).get("checkpoint_storage")
    if isinstance(storage, dict) and "type" not in storage:
        storage = None
    with core.init(distributed=distributed, checkpoint_storage=storage, _local=_local) as core_context:
        context = PyTorchTrialContext(
            core_context, trial_seed=trial_seed, hparams=hparams, exp_conf=exp_conf,
            slots_per_trial=core_context.distributed.size, aggregation_frequency=aggregation_frequency,
            average_aggregated_gradients=average_aggregated, average_training_metrics=average_training,
            steps_completed=info.trial.steps_completed if info is not None else 0,
            experiment_id=info.trial.experiment_id if info is not None else None,
            trial_id=info.trial.trial_id if info is not None else None,
            enable_tensorboard_logging=enable_tensorboard_logging)
        context._cluster_info = info
        yield context


class Trainer:
    def __init__(self, trial, context=None):
        self._trial = trial
        self._context = context if context is not None else getattr(trial, "context", None)
        if not isinstance(self._context, PyTorchTrialContext):
            raise TypeError("Trainer(trial, context): context must be the PyTorchTrialContext from "
                            "determined.pytorch.init()")
        self._info = getattr(self._context, "_cluster_info", None)

    def configure_profiler(self, *args, **kwargs):
        logger.warning("Trainer.configure_profiler(): there is no profiler under searcher-run; ignored")

    def fit(self, checkpoint_period=None, validation_period=None, max_length=None, reporting_period=None,
            checkpoint_policy="best", latest_checkpoint=None, step_zero_validation=False, test_mode=False,
            profiling_enabled=False):
        for name, value in (("checkpoint_period", checkpoint_period), ("validation_period", validation_period),
                            ("max_length", max_length), ("reporting_period", reporting_period)):
            if value is not None and not isinstance(value, TrainUnit):
                raise TypeError(f"Trainer.fit(): {name} must be a pytorch.Batch or pytorch.Epoch, got {value!r}")
        local = self._info is None
        config = self._context.get_experiment_config() or {}
        searcher = _section(config, "searcher")
        if not local:
            if max_length is not None and os.environ.get("HPSEARCH_SEARCHER_MAX_LENGTH"):
                warnings.warn("Trainer.fit(max_length=...) is ignored under searcher-run: the searcher's "
                              "operations decide how long the trial trains", stacklevel=2)
                max_length = None
            if latest_checkpoint is None:
                latest_checkpoint = self._info.latest_checkpoint
        try:
            global_batch_size = self._context.get_global_batch_size()
        except ValueError:
            global_batch_size = None
        controller = _trial._Controller(
            self._trial, self._context,
            checkpoint_period=checkpoint_period or Batch(sys.maxsize),
            validation_period=validation_period or Batch(sys.maxsize),
            reporting_period=reporting_period or Batch(100),
            smaller_is_better=searcher.get("smaller_is_better", True),
            latest_checkpoint=latest_checkpoint, local_training=local, test_mode=test_mode,
            searcher_metric_name=searcher.get("metric"), checkpoint_policy=checkpoint_policy,
            step_zero_validation=step_zero_validation, max_length=max_length,
            global_batch_size=global_batch_size)
        controller.run()
