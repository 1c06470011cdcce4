"""Rebuilding a trained PyTorchTrial from one of its checkpoint directories."""

import json
import logging
import pathlib

import torch

from determined import _import
from determined.pytorch import _trial
from determined.pytorch._context import PyTorchTrialContext

logger = logging.getLogger("determined.pytorch")


class _NoCore:
    """A CheckpointLoadContext has no trial around it: distributed is one process."""

    def __init__(self):
        from determined.core import DummyDistributedContext

        self.distributed = DummyDistributedContext()


class CheckpointLoadContext(PyTorchTrialContext):
    """The context a trial is built with when it is loaded from a checkpoint, outside training."""

    def __init__(self, hparams, exp_conf, trial_seed=0):
        super().__init__(_NoCore(), trial_seed=trial_seed, hparams=hparams, exp_conf=exp_conf,
                         slots_per_trial=int(((exp_conf or {}).get("resources") or {}).get("slots_per_trial", 1) or 1))


def _load_data(ckpt_dir):
    load_data_path = ckpt_dir / "load_data.json"
    metadata_path = ckpt_dir / "metadata.json"
    if load_data_path.exists():
        load_data = json.loads(load_data_path.read_text(encoding="utf-8"))
        if load_data.get("trial_type") != "PyTorchTrial":
            logger.warning(f"{ckpt_dir} does not look like a PyTorchTrial checkpoint "
                           f"(trial_type {load_data.get('trial_type')!r}); continuing anyway")
        return load_data["experiment_config"], load_data["hparams"], load_data.get("trial_cls_spec")
    if metadata_path.exists():
        # Determined 0.17.7 and earlier: the config and hyperparameters in metadata.json (written
        # by Checkpoint.download()), and the entrypoint was always the trial class.
        metadata = json.loads(metadata_path.read_text(encoding="utf-8"))
        if "experiment_config" not in metadata or "hparams" not in metadata:
            raise AssertionError(f"{metadata_path} has no experiment_config and hparams: it is not the "
                                 "metadata.json of a Determined PyTorchTrial checkpoint")
        if not str(metadata.get("framework", "")).startswith("torch") and "torch_version" not in metadata:
            logger.warning(f"{ckpt_dir} does not look like a PyTorchTrial checkpoint; continuing anyway")
        config = metadata["experiment_config"]
        return config, metadata["hparams"], config.get("entrypoint")
    raise AssertionError(f"checkpoint {ckpt_dir} has neither load_data.json nor metadata.json: it was not "
                         "written by a PyTorchTrial (Determined 0.17.7 and earlier wrote metadata.json only "
                         "when downloading)")


def load_trial_from_checkpoint_path(path, trial_class=None, trial_kwargs=None, torch_load_kwargs=None):
    """The trial of a checkpoint directory, its models' weights loaded. Without trial_class it
    is imported from the checkpoint's code/ by the spec it was saved with. A very old trial with
    build_model() gives back the bare model, as Determined does."""
    ckpt_dir = pathlib.Path(path)
    config, hparams, spec = _load_data(ckpt_dir)
    if trial_class is None:
        if not spec or not _import.is_entrypoint_spec(spec):
            raise ValueError(f"checkpoint {ckpt_dir} names no trial class ({spec!r}): pass trial_class=")
        with _import.import_from_path(ckpt_dir / "code"):
            trial_class = _import.load_object(spec, ckpt_dir / "code")
    state_file = _trial.find_state_dict(ckpt_dir)
    if state_file is None:
        raise FileNotFoundError(f"checkpoint {ckpt_dir} has no state_dict.pth")
    checkpoint = torch.load(str(state_file), **({"map_location": "cpu"} | dict(torch_load_kwargs or {})))
    context = CheckpointLoadContext(hparams, config)
    trial = trial_class(context, **dict(trial_kwargs or {}))
    build_model = getattr(trial, "build_model", None)
    if callable(build_model):
        model = build_model()
        key = "model_state_dict" if "model_state_dict" in checkpoint else "models_state_dict"
        state = checkpoint[key] if key == "model_state_dict" else checkpoint[key][0]
        model.load_state_dict(_trial._strip_module_prefix(state))
        return model
    saved = checkpoint.get("models_state_dict") or [checkpoint.get("model_state_dict")]
    if len(saved) != len(context.models):
        raise RuntimeError(f"checkpoint {ckpt_dir} holds {len(saved)} models; {trial_class.__name__} wrapped "
                           f"{len(context.models)}")
    for model, state in zip(context.models, saved):
        model.load_state_dict(_trial._strip_module_prefix(state))
    return trial
