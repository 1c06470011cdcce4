"""The seed's Native/Trial API entry points: ``det.experimental.create(trial_def=..., config=...,
context_dir=..., local=..., test=...)`` and 0.37's ``test_one_batch(trial_class, config)``.

Test mode trains one batch, validates one batch and checkpoints once, in this process, so that a
broken model definition fails in seconds with its own traceback. Nothing reaches an experiment
store: the checkpoint goes to a temporary directory removed afterwards."""

import copy
import logging
import math
import random
import tempfile

logger = logging.getLogger("determined.experimental")


def _sample(name, spec, rng):
    """One value of a hyperparameter, drawn as Determined's local test mode draws (uniformly in
    the range; a categorical's values equally likely), from a seeded generator."""
    if not isinstance(spec, dict) or "type" not in spec:
        return spec  # a bare value is a constant, as in Determined's configs
    kind = spec["type"]
    if kind == "const":
        return spec["val"]
    if kind == "categorical":
        return rng.choice(spec["vals"])
    if kind == "int":
        return rng.randint(spec["minval"], spec["maxval"])
    if kind == "double":
        return rng.uniform(spec["minval"], spec["maxval"])
    if kind == "log":
        return math.pow(spec["base"], rng.uniform(spec["minval"], spec["maxval"]))
    if kind == "object":
        return {k: _sample(f"{name}.{k}", v, rng) for k, v in spec["vals"].items()}
    raise ValueError(f"hyperparameters.{name}.type: {kind!r} is not one of const, categorical, int, double, "
                     "log, object")


def sample_hparams(config):
    seed = ((config.get("reproducibility") or {}).get("experiment_seed")) or 0
    rng = random.Random(seed)
    return {name: _sample(name, spec, rng) for name, spec in (config.get("hyperparameters") or {}).items()}


def _config_from(config):
    if config is None:
        return {}
    if isinstance(config, str):
        import json
        import pathlib

        text = pathlib.Path(config).read_text(encoding="utf-8")
        try:
            import yaml

            return yaml.safe_load(text) or {}
        except ImportError:
            return json.loads(text)
    if not isinstance(config, dict):
        raise TypeError(f"config must be a dict (or a path to a YAML file), got {type(config).__name__}")
    return copy.deepcopy(config)


def _train_locally(trial_class, config, test):
    from determined import pytorch

    if not (isinstance(trial_class, type) and issubclass(trial_class, pytorch.PyTorchTrial)):
        raise TypeError(f"{trial_class!r} is not a determined.pytorch.PyTorchTrial subclass (TFKerasTrial "
                        "needs TensorFlow, which hpsearch does not have: see docs/trial-api.md)")
    config = _config_from(config)
    hparams = sample_hparams(config)
    with tempfile.TemporaryDirectory(prefix="det-local-") as storage:
        if test:
            config["checkpoint_storage"] = {"type": "shared_fs", "host_path": storage}
        with pytorch.init(hparams=hparams, exp_conf=config, _local=True) as context:
            trial = trial_class(context)
            max_length = None
            if not test:
                length = (config.get("searcher") or {}).get("max_length")
                if isinstance(length, int):
                    length = {"batches": length}
                if not isinstance(length, dict):
                    raise ValueError("local training needs searcher.max_length ({batches: N}, {records: N} or "
                                     f"{{epochs: N}}), got {length!r}")
                (unit, n), = length.items()
                try:
                    gbs = context.get_global_batch_size()
                except ValueError:
                    gbs = None
                max_length = pytorch.TrainUnit._from_values(**{unit: n}, global_batch_size=gbs,
                                                            field="searcher.max_length")
            pytorch.Trainer(trial, context).fit(max_length=max_length, test_mode=test)
    logger.info("test mode: one batch trained and validated, and a checkpoint written, without errors"
                if test else "local training done")
    return trial


def test_one_batch(trial_class=None, config=None):
    """Trains and validates one batch of ``trial_class`` with hyperparameters drawn from
    ``config``; an error in the model definition is raised with its own traceback."""
    if trial_class is None:
        raise ValueError("test_one_batch(): trial_class is required")
    return _train_locally(trial_class, config, test=True)


def create(trial_def, config=None, mode=None, context_dir="", local=False, test=False, master_url=None):
    """The seed's ``det.experimental.create``: local=True trains in this process (test=True: one
    batch of training and validation). local=False would submit to a cluster: here experiments
    are created with ``det experiment create`` or the SDK's ``client.create_experiment``."""
    if not local:
        raise NotImplementedError(
            "det.experimental.create(local=False) submits to a Determined master, which hpsearch does not "
            "have: create the experiment with 'det experiment create CONFIG CONTEXT' or "
            "determined.experimental.client.create_experiment(config, context_dir); local=True runs here")
    return _train_locally(trial_def, config, test=test)
