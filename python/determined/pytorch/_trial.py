"""``PyTorchTrial`` and the loop that trains one (the controller behind ``Trainer.fit`` and the
legacy ``model_def:MyTrial`` entrypoint), over the Core API.

The loop follows Determined's: train batch by batch until the next boundary (the searcher
operation's length, the validation, checkpoint or reporting period), report training metrics,
act on each boundary reached (validate, checkpoint, report progress), check for a pause or a
stop request, and at the end of an operation validate and checkpoint unless already current.
A pause or stop checkpoints unsaved work and exits. Checkpoints hold state_dict.pth
(models, optimizers, LR schedulers, callbacks, RNG state, and the RNG state as the training
data's pass in progress began: samplers.py), trial_state.pkl (the loop's
counters), load_data.json and code/."""

import abc
import fnmatch
import inspect
import itertools
import json
import logging
import os
import pathlib
import pickle
import random
import shutil
import sys
import warnings

import numpy as np
import torch

import determined as det
from determined import core, errors
from determined.pytorch import _data, _reducer, samplers
from determined.pytorch._rng import rng_state, set_rng_state
from determined.pytorch._lr_scheduler import batches_to_step
from determined.pytorch._units import Batch, Epoch, TrainUnit

logger = logging.getLogger("determined.pytorch")

VERSION = det.__version__


class PyTorchTrial(abc.ABC):
    """Subclass it: build models and optimizers in __init__ with the context's wrap_* calls."""

    @abc.abstractmethod
    def __init__(self, context):
        pass

    @abc.abstractmethod
    def train_batch(self, batch, epoch_idx, batch_idx):
        pass

    @abc.abstractmethod
    def build_training_data_loader(self):
        pass

    @abc.abstractmethod
    def build_validation_data_loader(self):
        pass

    def build_callbacks(self):
        return {}

    def evaluate_batch(self, batch, batch_idx):
        raise NotImplementedError("evaluate_batch() is not implemented")

    def evaluation_reducer(self):
        return _reducer.Reducer.AVG

    def evaluate_full_dataset(self, data_loader):
        raise NotImplementedError("evaluate_full_dataset() is not implemented")

    def get_batch_length(self, batch):
        return _data.data_length(batch)


def _overridden(trial, name):
    return getattr(type(trial), name) is not getattr(PyTorchTrial, name)


class _ShouldExit(Exception):
    def __init__(self, skip_checkpoint=False):
        super().__init__()
        self.skip_checkpoint = skip_checkpoint


class _State:
    """The loop's counters, saved as trial_state.pkl (a plain dict, as Determined's)."""

    def __init__(self, trial_id=0, last_ckpt=0, step_id=0, last_val=0, batches_trained=0, epochs_trained=0):
        self.trial_id = trial_id
        self.last_ckpt = last_ckpt
        self.step_id = step_id
        self.last_val = last_val
        self.batches_trained = batches_trained
        self.epochs_trained = epochs_trained


class _LocalOperation:
    """The one operation of a local (off-cluster) run: train max_length."""

    def __init__(self, length):
        self.length = length
        self._completed = False

    def report_progress(self, length):
        pass

    def report_completed(self, searcher_metric):
        self._completed = True


def set_random_seeds(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.random.manual_seed(seed)


def find_state_dict(path):
    """The torch checkpoint file in a checkpoint directory, newest layout first (Determined reads
    the older determined/ and pedl/ folders and checkpoint.pt too)."""
    for parts in (("state_dict.pth",), ("determined", "state_dict.pth"), ("pedl", "state_dict.pth"),
                  ("checkpoint.pt",)):
        candidate = pathlib.Path(path).joinpath(*parts)
        if candidate.exists():
            return candidate
    return None


def _strip_module_prefix(state_dict):
    """A DistributedDataParallel model's state (Determined's multi-slot checkpoints) for a plain one."""
    if state_dict and all(k.startswith("module.") for k in state_dict.keys()):
        return type(state_dict)((k[len("module."):], v) for k, v in state_dict.items())
    return state_dict


def load_states(context, checkpoint, callbacks=None):
    """Puts a loaded state_dict.pth into the context's models, optimizers and LR schedulers
    (both key layouts), the RNGs and the callbacks."""
    callbacks = callbacks or {}
    if "model_state_dict" in checkpoint:  # the layout before multiple models
        if len(context.models) != 1:
            raise RuntimeError("this checkpoint holds one model (model_state_dict); the trial wrapped "
                               f"{len(context.models)}")
        context.models[0].load_state_dict(_strip_module_prefix(checkpoint["model_state_dict"]))
    else:
        saved = checkpoint.get("models_state_dict", [])
        if len(saved) != len(context.models):
            raise RuntimeError(f"the checkpoint holds {len(saved)} models; the trial wrapped {len(context.models)}")
        for model, state in zip(context.models, saved):
            model.load_state_dict(_strip_module_prefix(state))
    if "optimizer_state_dict" in checkpoint:
        context.optimizers[0].load_state_dict(checkpoint["optimizer_state_dict"])
    else:
        for optimizer, state in zip(context.optimizers, checkpoint.get("optimizers_state_dict", [])):
            optimizer.load_state_dict(state)
    if "lr_scheduler" in checkpoint:
        context.lr_schedulers[0].load_state_dict(checkpoint["lr_scheduler"])
    else:
        for scheduler, state in zip(context.lr_schedulers, checkpoint.get("lr_schedulers_state_dict", [])):
            scheduler.load_state_dict(state)
    scaler_state = checkpoint.get("scaler_state_dict", checkpoint.get("scalers_state_dict"))
    if scaler_state is not None and context._scaler is not None:
        context._scaler.load_state_dict(scaler_state)
    if "rng_state" in checkpoint:
        set_rng_state(checkpoint["rng_state"])
    else:
        logger.warning("the checkpoint has no random state to restore")
    saved_callbacks = checkpoint.get("callbacks", {})
    for name, callback in callbacks.items():
        if name in saved_callbacks:
            callback.load_state_dict(saved_callbacks[name])


_CODE_LIMIT = 96 * 1024 * 1024  # Determined's limit on a model definition


def _ignore_patterns(source):
    """.detignore's patterns (globs on a relative path or a name; a trailing / for folders)."""
    detignore = source / ".detignore"
    if not detignore.exists():
        return []
    lines = [line.strip() for line in detignore.read_text(encoding="utf-8", errors="replace").splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def _ignored(relative, is_dir, patterns):
    for pattern in patterns:
        if pattern.endswith("/"):
            if not is_dir:
                continue
            pattern = pattern[:-1]
        pattern = pattern.lstrip("/")
        if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(relative.rsplit("/", 1)[-1], pattern):
            return True
    return False


def _user_code_files(source):
    """The context directory's files as Determined packs a model definition: without
    __pycache__, .pyc, hidden entries, .detignore's patterns, and the experiment's own
    directories (which may lie inside it)."""
    excluded = set()
    if os.environ.get("HPSEARCH_CONFIG_JSON"):
        excluded.add(pathlib.Path(os.environ["HPSEARCH_CONFIG_JSON"]).resolve().parent)
    for variable in ("HPSEARCH_CHECKPOINT_STORAGE", "HPSEARCH_TRIAL_DIR"):
        if os.environ.get(variable):
            excluded.add(pathlib.Path(os.environ[variable]).resolve())
    patterns = _ignore_patterns(source)
    files = []
    for directory, subdirectories, names in os.walk(source):
        directory = pathlib.Path(directory)
        kept = []
        for name in sorted(subdirectories):
            full = directory / name
            relative = full.relative_to(source).as_posix()
            if name == "__pycache__" or name.startswith(".") or full.resolve() in excluded \
                    or _ignored(relative, True, patterns):
                continue
            kept.append(name)
        subdirectories[:] = kept
        for name in sorted(names):
            full = directory / name
            relative = full.relative_to(source).as_posix()
            if name.startswith(".") or name.endswith(".pyc") or _ignored(relative, False, patterns):
                continue
            files.append((full, relative))
    return files


def _write_user_code(path):
    """code/: the context directory (the trial's working directory under searcher-run)."""
    source = pathlib.Path.cwd()
    files = _user_code_files(source)
    total = sum(f.stat().st_size for f, _ in files if f.is_file())
    if total > _CODE_LIMIT:
        logger.warning(f"the context directory {source} holds {total / 2**20:.0f} MiB (over Determined's 96 MiB "
                       "for a model definition): the checkpoint gets no code/ (list large files in .detignore)")
        return
    target = pathlib.Path(path) / "code"
    for full, relative in files:
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        if full.is_file():
            shutil.copy2(full, destination)


class _Controller:
    def __init__(self, trial, context, *, checkpoint_period, validation_period, reporting_period,
                 smaller_is_better, latest_checkpoint, local_training, test_mode, searcher_metric_name,
                 checkpoint_policy, step_zero_validation, max_length, global_batch_size):
        if not isinstance(trial, PyTorchTrial):
            raise TypeError(f"the trial must be a determined.pytorch.PyTorchTrial, got {type(trial).__name__}")
        if checkpoint_policy not in ("best", "all", "none"):
            raise ValueError(f"checkpoint_policy must be 'best', 'all' or 'none', got {checkpoint_policy!r}")
        self.trial = trial
        self.context = context
        self.core = context._core
        self.is_chief = context.distributed.rank == 0
        self.checkpoint_period = checkpoint_period
        self.validation_period = validation_period
        self.reporting_period = reporting_period
        self.smaller_is_better = smaller_is_better
        self.latest_checkpoint = latest_checkpoint
        self.local_training = local_training
        self.test_mode = test_mode
        self.searcher_metric_name = searcher_metric_name
        self.ckpt_policy = checkpoint_policy
        self.step_zero_validation = step_zero_validation
        self.max_length = max_length
        self.global_batch_size = global_batch_size
        self.trial_id = context.get_trial_id() or 0
        if local_training:
            if max_length is None and not test_mode:
                raise ValueError("Trainer.fit(): max_length is required when training off-cluster "
                                 "(e.g. max_length=pytorch.Epoch(1))")
            self.searcher_unit = max_length._to_searcher_unit() if max_length is not None else core.Unit.BATCHES
        else:
            self.searcher_unit = self.core.searcher.get_configured_units() or core.Unit.BATCHES
        if self.searcher_unit == core.Unit.RECORDS and not global_batch_size:
            raise ValueError("a searcher length in records needs hyperparameters.global_batch_size")
        self.callbacks = trial.build_callbacks()
        if not isinstance(self.callbacks, dict):
            raise TypeError("build_callbacks() must return a dict of name -> PyTorchCallback")
        if not context.models:
            raise errors.InvalidExperimentException(
                "Must have at least one model. This might be caused by not wrapping your model with "
                "wrap_model().")
        if not context.optimizers:
            raise errors.InvalidExperimentException(
                "Must have at least one optimizer. This might be caused by not wrapping your optimizer "
                "with wrap_optimizer().")
        if _overridden(trial, "evaluate_batch") == _overridden(trial, "evaluate_full_dataset"):
            raise errors.InvalidExperimentException(
                "Please define exactly one of: `evaluate_batch()` or `evaluate_full_dataset()`.")
        self.state = None

    # --- checkpoint state -------------------------------------------------------------------
    def _read_state(self, path):
        """The loop's counters of a checkpoint of this very trial (a checkpoint of another trial
        gives its weights, and training counts from 0, as Determined does)."""
        saved = pathlib.Path(path) / "trial_state.pkl"
        if saved.exists():
            with saved.open("rb") as f:
                state = pickle.load(f)
            if state.get("trial_id") == self.trial_id:
                return _State(**state)
            return _State(trial_id=self.trial_id)
        legacy = pathlib.Path(path) / "workload_sequencer.pkl"
        if legacy.exists():
            with legacy.open("rb") as f:
                state = pickle.load(f)
            if state.get("trial_id") == self.trial_id:
                batches = state.get("steps_completed") or 0
                # Its epochs are counted once the training loader's length is known (run()).
                return _State(trial_id=self.trial_id, last_ckpt=state.get("last_ckpt", batches),
                              step_id=state.get("step_id", 0), last_val=state.get("last_val", 0),
                              batches_trained=batches, epochs_trained=None)
        return _State(trial_id=self.trial_id)

    def _read_checkpoint(self, path):
        state_file = find_state_dict(path)
        if state_file is None:
            logger.warning(f"checkpoint {path} has no state_dict.pth: starting from the initial weights")
            return None
        return torch.load(str(state_file), map_location="cpu")

    def _load(self, checkpoint):
        for callback in self.callbacks.values():
            callback.on_checkpoint_load_start(checkpoint)
        load_states(self.context, checkpoint, self.callbacks)

    def _save(self, path):
        path = pathlib.Path(path)
        if not self.local_training:
            _write_user_code(path)
        checkpoint = {
            "models_state_dict": [m.state_dict() for m in self.context.models],
            "optimizers_state_dict": [o.state_dict() for o in self.context.optimizers],
            "lr_schedulers_state_dict": [s.state_dict() for s in self.context.lr_schedulers],
            "callbacks": {name: cb.state_dict() for name, cb in self.callbacks.items()},
            "rng_state": rng_state(),
        }
        repeat = samplers.repeat_sampler(getattr(self.training_loader, "batch_sampler", None))
        # The pass that holds the next batch to train and those after it, where begun (with
        # workers, passes begin ahead of training).
        begun = repeat.begun_from(self.batch_idx // len(repeat)) if repeat is not None and len(repeat) else []
        if begun:
            # hpsearch's key (Determined reads only its own three from rng_state).
            checkpoint["rng_state"]["pass_start_rng_state"] = begun
        if self.context._scaler is not None:
            checkpoint["scaler_state_dict"] = self.context._scaler.state_dict()
        for callback in self.callbacks.values():
            callback.on_checkpoint_save_start(checkpoint)
        torch.save(checkpoint, str(path / "state_dict.pth"))
        with (path / "trial_state.pkl").open("wb") as f:
            pickle.dump(vars(self.state), f)
        trial_cls = type(self.trial)
        with (path / "load_data.json").open("w", encoding="utf-8") as f:
            json.dump({"trial_type": "PyTorchTrial", "experiment_config": self.context.get_experiment_config(),
                       "hparams": self.context.get_hparams(),
                       "trial_cls_spec": f"{trial_cls.__module__}:{trial_cls.__qualname__}",
                       "is_trainer": True}, f)
        for callback in self.callbacks.values():
            callback.on_checkpoint_end(str(path))
            callback.on_checkpoint_write_end(str(path))

    def _checkpoint(self):
        if self.is_chief:
            self.core.train.set_status("checkpointing")
        self.state.last_ckpt = self.state.batches_trained
        storage_id = ""
        if self.is_chief:
            metadata = {"determined_version": VERSION, "steps_completed": self.state.batches_trained,
                        "framework": f"torch-{torch.__version__}", "format": "pickle"}
            with self.core.checkpoint.store_path(metadata) as (path, storage_id):
                self._save(path)
        storage_id = self.context.distributed.broadcast(storage_id)
        for callback in self.callbacks.values():
            callback.on_checkpoint_upload_end(uuid=storage_id)

    # --- data -------------------------------------------------------------------------------
    def _loader(self, data, what, **kwargs):
        if isinstance(data, _data.DataLoader):
            return data.get_data_loader(**kwargs)
        if not self.context.experimental._data_repro_checks_disabled:
            raise RuntimeError(
                f"{what}() returned a {type(data).__module__}.{type(data).__name__}, not a "
                "determined.pytorch.DataLoader: Determined cannot shard it across slots or skip what "
                "was trained before a resume. Return a determined.pytorch.DataLoader, or call "
                "context.experimental.disable_dataset_reproducibility_checks() and do it yourself.")
        return data

    def _set_data_loaders(self, skip):
        dist = self.context.distributed
        self.training_loader = self._loader(self.trial.build_training_data_loader(),
                                            "build_training_data_loader", repeat=True, skip=skip,
                                            num_replicas=dist.size, rank=dist.rank)
        try:
            epoch_len = len(self.training_loader)
        except TypeError:
            epoch_len = self._records_epoch_len() or sys.maxsize
        self.context._epoch_len = dist.broadcast(epoch_len)
        if self.context._epoch_len < 1:
            raise RuntimeError("the training data loader is empty")
        validation = self.trial.build_validation_data_loader()
        self.validation_loader = None
        if _overridden(self.trial, "evaluate_batch"):
            self.validation_loader = self._loader(validation, "build_validation_data_loader", repeat=False,
                                                  skip=0, num_replicas=dist.size, rank=dist.rank)
        elif self.is_chief:
            self.validation_loader = self._loader(validation, "build_validation_data_loader", repeat=False,
                                                  skip=0, num_replicas=1, rank=0)

    def _records_epoch_len(self):
        """A loader without len(): an epoch is records_per_epoch records, if the config says."""
        records = (self.context.get_experiment_config() or {}).get("records_per_epoch")
        if records and self.global_batch_size:
            return max(int(records) // self.global_batch_size, 1)
        return None

    # --- the loop ---------------------------------------------------------------------------
    def run(self):
        start = _State(trial_id=self.trial_id)
        if self.latest_checkpoint is not None:
            with self.core.checkpoint.restore_path(self.latest_checkpoint) as path:
                start = self._read_state(path)
        self.context._initial_batch = start.batches_trained
        started = []
        try:
            for callback in self.callbacks.values():
                callback.on_trial_startup(start.batches_trained, self.latest_checkpoint)
                started.append(callback)
            self._set_data_loaders(skip=start.batches_trained)
            if start.epochs_trained is None:
                start.epochs_trained = start.batches_trained // self.context._epoch_len
            checkpoint = None
            if self.latest_checkpoint is not None:
                logger.info(f"restoring the trial from checkpoint {self.latest_checkpoint}")
                with self.core.checkpoint.restore_path(self.latest_checkpoint) as path:
                    checkpoint = self._read_checkpoint(path)
            # The skip begins the training data's pass in progress at the checkpoint from the RNG
            # state it began from (so a shuffled epoch keeps its order), before the iterator is
            # made: with workers, making it fetches the first batches.
            repeat = samplers.repeat_sampler(getattr(self.training_loader, "batch_sampler", None))
            if repeat is not None and checkpoint is not None:
                begun = checkpoint.get("rng_state", {}).get("pass_start_rng_state") or []
                if isinstance(begun, dict):  # one pass, as checkpoints of 2026-11-27 kept it
                    begun = [begun]
                repeat.replay = {start["pass"]: start for start in begun} or None
            # The iterator is made before the state is loaded, as Determined's, so that the RNG
            # draws that made it do not shift the restored RNG state.
            self.training_iterator = iter(self.training_loader)
            self.batch_idx = start.batches_trained
            if checkpoint is not None:
                self._load(checkpoint)
            self.state = start
            for callback in self.callbacks.values():
                callback.on_training_start()
            self._run()
        finally:
            for callback in started:
                callback.on_trial_shutdown()
            self.training_iterator = None

    def _operations(self):
        if self.local_training or self.test_mode and self.core.info is None:
            length = self.max_length.value if self.max_length is not None else 1
            return iter([_LocalOperation(length)])
        operations = self.core.searcher.operations()
        # The Core API warns a script that 0.38 deprecated operations(); the Trainer is not the
        # script (Determined 0.38's Trainer does not warn). The warning comes with the first one.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*operations\\(\\) was deprecated", category=FutureWarning)
            first = next(operations, None)
        return itertools.chain([] if first is None else [first], operations)

    def _train_unit(self, op):
        if self.test_mode:
            return Batch(1)
        if self.local_training:
            return self.max_length
        if op.length is None:  # the 0.38 form without a length: the script's max_length decides
            if self.max_length is None:
                raise ValueError("the searcher gives no length (no searcher.max_length): pass "
                                 "max_length= to Trainer.fit()")
            return self.max_length
        return TrainUnit._from_searcher_unit(op.length, self.searcher_unit, self.global_batch_size)

    def _run(self):
        try:
            if self.step_zero_validation and self.state.batches_trained == 0 and self.state.last_val == 0 \
                    and not self.test_mode:
                self._validate(None)
            for op in self._operations():
                self._train_for_op(op)
                if self.test_mode:
                    break
        except _ShouldExit as e:
            if not e.skip_checkpoint and self.state.last_ckpt != self.state.batches_trained:
                self._checkpoint()
        except det.InvalidHP:
            if self.state.last_ckpt != self.state.batches_trained:
                self._checkpoint()
            raise

    def _remaining(self, unit):
        if isinstance(unit, Batch):
            return unit.value - self.state.batches_trained
        return unit.value - self.state.epochs_trained

    def _train_for_op(self, op):
        length = self._train_unit(op)
        boundaries = [("train", length), ("validate", self.validation_period),
                      ("checkpoint", self.checkpoint_period), ("report", self.reporting_period)]
        while self._remaining(length) > 0:
            reached, batch_metrics = self._train_until(boundaries)
            self._report_training(batch_metrics)
            progress_reported = False
            for kind in reached:
                if kind in ("train", "report") and not progress_reported and self.is_chief \
                        and not op._completed and not self.local_training:
                    self._report_progress(op)
                    progress_reported = True
                elif kind == "validate" and self.state.last_val != self.state.batches_trained:
                    self._validate(op)
                elif kind == "checkpoint" and self.state.last_ckpt != self.state.batches_trained:
                    self._checkpoint()
                self._check_stop()
        if self.state.last_val != self.state.batches_trained:
            self._validate(op)
        if self.state.last_ckpt != self.state.batches_trained:
            self._checkpoint()
        # Relaunched from a checkpoint taken after this operation's validation (the runner did
        # not record the validation before it stopped): the runner asks again, so validate again.
        # Determined's master would already hold the validation; searcher-run wants the answer.
        if self.context.distributed.broadcast(self.is_chief and not self.test_mode and not op._completed):
            self._validate(op)

    def _check_stop(self):
        if self.core.preempt.should_preempt():
            raise _ShouldExit()
        if self.context.get_stop_requested():
            raise _ShouldExit()

    def _report_progress(self, op):
        if self.searcher_unit == core.Unit.EPOCHS:
            op.report_progress(self.state.epochs_trained)
        elif self.searcher_unit == core.Unit.RECORDS:
            op.report_progress(self.state.batches_trained * self.global_batch_size)
        else:
            op.report_progress(self.state.batches_trained)

    def _train_until(self, boundaries):
        """Trains batches until one of the boundaries is reached; which ones, and the batches'
        metrics."""
        if self.is_chief:
            self.core.train.set_status("training")
        for model in self.context.models:
            model.train()
        self.context.reset_reducers()
        epoch_len = self.context._epoch_len
        metrics = []
        while True:
            batch_idx = self.batch_idx
            epoch_idx, in_epoch = divmod(batch_idx, epoch_len)
            try:
                batch = next(self.training_iterator)
            except StopIteration:
                raise RuntimeError("the training data loader ended: a user-built loader must repeat "
                                   "(determined.pytorch.DataLoader does)") from None
            self.context._current_batch_idx = batch_idx
            if in_epoch == 0:
                for callback in self.callbacks.values():
                    if inspect.signature(callback.on_training_epoch_start).parameters:
                        callback.on_training_epoch_start(epoch_idx)
                    else:
                        callback.on_training_epoch_start()
            metrics.append(self._train_batch(batch, epoch_idx, batch_idx))
            self.batch_idx += 1
            self.state.batches_trained += 1
            if in_epoch == epoch_len - 1:
                for callback in self.callbacks.values():
                    callback.on_training_epoch_end(epoch_idx)
                self.state.epochs_trained += 1
            reached = []
            for kind, unit in boundaries:
                if isinstance(unit, Batch) and unit.should_stop(batch_idx + 1):
                    reached.append(kind)
                elif isinstance(unit, Epoch) and in_epoch == epoch_len - 1 and unit.should_stop(epoch_idx + 1):
                    reached.append(kind)
                elif kind == "train" and self.test_mode:
                    reached.append(kind)
            if reached:
                return reached, metrics

    def _train_batch(self, batch, epoch_idx, batch_idx):
        self.context._loss_ids = {}
        if self.context.experimental._auto_to_device:
            batch = self.context.to_device(batch)
        metrics = self.trial.train_batch(batch=batch, epoch_idx=epoch_idx, batch_idx=batch_idx)
        if isinstance(metrics, torch.Tensor):
            metrics = {"loss": metrics}
        if not isinstance(metrics, dict):
            raise TypeError("train_batch() must return a dict of metric names to values, or a loss "
                            f"tensor; got {type(metrics).__name__}")
        for scheduler in self.context.lr_schedulers:
            for _ in range(batches_to_step(scheduler._step_mode, scheduler._frequency, batch_idx,
                                           self.context._aggregation_frequency, self.context._epoch_len)):
                scheduler.step()
        return {name: (v.detach().cpu().numpy() if isinstance(v, torch.Tensor) else v)
                for name, v in metrics.items()}

    def _report_training(self, batch_metrics):
        if self.context._average_training_metrics:
            batch_metrics = _reducer.average_training_metrics(self.context.distributed, batch_metrics)
        avg = _reducer.mean_of_batches(batch_metrics)
        avg.update(self.context.reduce_metrics(for_training=True))
        if self.is_chief:
            self.core.train.report_training_metrics(steps_completed=self.state.batches_trained,
                                                    metrics=avg, batch_metrics=batch_metrics)
        avg = self.context.distributed.broadcast(avg)
        for callback in self.callbacks.values():
            callback.on_training_workload_end(avg_metrics=avg, batch_metrics=batch_metrics)

    @torch.no_grad()
    def _validate(self, op):
        if self.is_chief:
            self.core.train.set_status("validating")
        self.context.reset_reducers()
        for model in self.context.models:
            model.eval()
        for callback in self.callbacks.values():
            callback.on_validation_start()
        metrics = {}
        if _overridden(self.trial, "evaluate_batch"):
            for callback in self.callbacks.values():
                callback.on_validation_epoch_start()
            keys, batch_metrics = None, []
            for idx, batch in enumerate(self.validation_loader):
                if self.context.experimental._auto_to_device:
                    batch = self.context.to_device(batch)
                if "batch_idx" in inspect.signature(self.trial.evaluate_batch).parameters:
                    values = self.trial.evaluate_batch(batch=batch, batch_idx=idx)
                else:
                    values = self.trial.evaluate_batch(batch=batch)
                if not isinstance(values, dict):
                    raise TypeError(f"evaluate_batch() must return a dict of metrics, got {type(values).__name__}")
                if keys is None:
                    keys = values.keys()
                elif keys != values.keys():
                    raise ValueError(f"validation metric names must match across batches: {sorted(keys)} != "
                                     f"{sorted(values.keys())}")
                batch_metrics.append({k: (v.detach().cpu().numpy() if isinstance(v, torch.Tensor) else v)
                                      for k, v in values.items()})
                if self.test_mode:
                    break
            if keys is None and self.context.distributed.size == 1:
                raise RuntimeError("the validation data loader is empty")
            for callback in self.callbacks.values():
                callback.on_validation_epoch_end(batch_metrics)
            all_keys = self.context.distributed.allgather(list(keys or []))
            keys = next((k for k in all_keys if k), [])
            reducers = _reducer.reducers_for(self.trial.evaluation_reducer(), keys)
            metrics = _reducer.reduce_batch_metrics(self.context.distributed, batch_metrics, reducers) or {}
        elif self.is_chief:
            metrics = self.trial.evaluate_full_dataset(data_loader=self.validation_loader)
            if not isinstance(metrics, dict):
                raise TypeError(f"evaluate_full_dataset() must return a dict, got {type(metrics).__name__}")
        metrics.update(self.context.reduce_metrics(for_training=False))
        metrics = {k: (v.detach().cpu().numpy() if isinstance(v, torch.Tensor) else v) for k, v in metrics.items()}
        metrics = self.context.distributed.broadcast(metrics)
        for callback in self.callbacks.values():
            callback.on_validation_end(metrics)
        self.state.last_val = self.state.batches_trained
        searcher_metric = None
        best_before = None
        if self.is_chief:
            best_before = self.core.train.get_experiment_best_validation()
            self.core.train.report_validation_metrics(self.state.batches_trained, metrics)
            if op is not None and self.searcher_metric_name:
                searcher_metric = self._searcher_metric(metrics)
            if op is not None and not op._completed and self._remaining(self._train_unit(op)) < 1 \
                    and not self.test_mode:
                op.report_completed(searcher_metric)
        checkpoint = False
        if self.is_chief and self.state.last_ckpt != self.state.batches_trained:
            if self.ckpt_policy == "all":
                checkpoint = True
            elif self.ckpt_policy == "best" and searcher_metric is not None:
                checkpoint = best_before is None or (searcher_metric < best_before if self.smaller_is_better
                                                     else searcher_metric > best_before)
        if self.context.distributed.broadcast(checkpoint):
            self._checkpoint()
        return metrics

    def _searcher_metric(self, metrics):
        name = self.searcher_metric_name
        if name not in metrics:
            raise RuntimeError(f"Search method is configured to use metric '{name}' but model definition "
                               f"returned validation metrics {list(metrics.keys())}. The metric used by the "
                               "search method must be one of the validation metrics returned by the model "
                               "definition.")
        value = metrics[name]
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value.item()
        if isinstance(value, (np.floating, np.integer)):
            value = value.item()
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise RuntimeError(f"Searcher validation metric '{name}' returned a non-scalar value: {value!r}")
        return value
