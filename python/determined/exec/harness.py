"""``python3 -m determined.exec.harness [--test] MODULE:OBJECT``: runs a Trial class (the legacy
``entrypoint: model_def:MyTrial``) in the trial's process, on the trial channel, as Determined's
harness does: the context from the trial's info, the trial built from it, trained by the
Trainer under the searcher's operations with the config's periods.

searcher-run starts it for an entrypoint of that form (docs/trial-api.md). With
``resources.slots_per_trial`` > 1 it starts itself once per slot through
determined.launch.torch_distributed. Run by a Python without torch, it re-executes itself under
/usr/bin/python3 (Debian's python3-torch) when that one has torch.

Off-cluster, ``--test --config CONFIG MODULE:OBJECT`` runs Determined's test mode on the class
(determined.experimental.test_one_batch): one batch of training and validation, nothing stored."""

import importlib.util
import logging
import os
import sys

_DEBIAN_PYTHON = "/usr/bin/python3"


def _ensure_torch(argv):
    if importlib.util.find_spec("torch") is not None:
        return
    if os.path.realpath(sys.executable) != os.path.realpath(_DEBIAN_PYTHON) and os.path.exists(_DEBIAN_PYTHON):
        print(f"determined.exec.harness: {sys.executable} has no torch: running under {_DEBIAN_PYTHON}",
              file=sys.stderr, flush=True)
        os.execv(_DEBIAN_PYTHON, [_DEBIAN_PYTHON, "-m", "determined.exec.harness"] + argv)
    sys.exit(f"determined.exec.harness: {sys.executable} cannot import torch, which a PyTorchTrial needs "
             "(install python3-torch, or name a Python with torch in the entrypoint)")


def _length(config, field, global_batch_size):
    from determined import pytorch

    value = config.get(field)
    if value is None:
        return None
    if not isinstance(value, dict) or len(value) != 1 or next(iter(value)) not in ("batches", "records", "epochs"):
        raise ValueError(f"{field}: expected one of {{batches: N}}, {{records: N}}, {{epochs: N}}, got {value!r}")
    (unit, n), = value.items()
    if not isinstance(n, int) or isinstance(n, bool):
        raise ValueError(f"{field}.{unit}: must be an integer, got {n!r}")
    return pytorch.TrainUnit._from_values(**{unit: n}, global_batch_size=global_batch_size, field=field)


def run(spec, test_mode=False, context_dir="."):
    import determined as det
    from determined import _import, pytorch

    trial_class = _import.load_object(spec, context_dir)
    if not (isinstance(trial_class, type) and issubclass(trial_class, pytorch.PyTorchTrial)):
        keras = sys.modules.get("determined.keras")
        raise TypeError(f"entrypoint {spec!r} names {trial_class!r}, which is not a determined.pytorch."
                        "PyTorchTrial subclass" + (" (TFKerasTrial needs TensorFlow: see docs/trial-api.md)"
                                                    if keras is not None else ""))
    with pytorch.init() as context:
        config = context.get_experiment_config() or {}
        try:
            global_batch_size = context.get_global_batch_size()
        except ValueError:
            global_batch_size = None
        scheduling_unit = config.get("scheduling_unit", 100)
        if not isinstance(scheduling_unit, int) or scheduling_unit < 1:
            raise ValueError(f"scheduling_unit: must be a positive integer, got {scheduling_unit!r}")
        trial = trial_class(context)
        info = det.get_cluster_info()
        pytorch.Trainer(trial, context).fit(
            checkpoint_period=_length(config, "min_checkpoint_period", global_batch_size),
            validation_period=_length(config, "min_validation_period", global_batch_size),
            reporting_period=pytorch.Batch(scheduling_unit),
            checkpoint_policy=config.get("checkpoint_policy", "best"),
            latest_checkpoint=info.latest_checkpoint if info is not None else None,
            step_zero_validation=bool(config.get("perform_initial_validation", False)),
            test_mode=test_mode)


_USAGE = ("usage: python3 -m determined.exec.harness [--test] MODULE:OBJECT   (in a searcher-run trial)\n"
          "       python3 -m determined.exec.harness --test --config CONFIG MODULE:OBJECT   (off-cluster: one batch of\n"
          "       training and validation with hyperparameters drawn from CONFIG, nothing stored)")


def main(argv):
    logging.basicConfig(level=logging.INFO, format="%(levelname)s: [%(process)s] %(name)s: %(message)s")
    args = list(argv)
    test_mode = "--test" in args
    args = [a for a in args if a != "--test"]
    config = None
    if "--config" in args:
        i = args.index("--config")
        if i + 1 >= len(args):
            print(_USAGE, file=sys.stderr)
            return 2
        config = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1 or (config is not None and not test_mode):
        print(_USAGE, file=sys.stderr)
        return 2
    _ensure_torch(argv)
    if config is not None:
        from determined import _import
        from determined.experimental import _native

        _native.test_one_batch(_import.load_object(args[0], "."), config)
        return 0
    slots = int(os.environ.get("HPSEARCH_SLOTS_PER_TRIAL", "1"))
    if slots > 1 and "RANK" not in os.environ:
        from determined.launch import torch_distributed

        return torch_distributed.main([sys.executable, "-m", "determined.exec.harness"] + list(argv))
    run(args[0], test_mode=test_mode)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
