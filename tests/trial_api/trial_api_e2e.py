"""PyTorchTrials end to end under searcher-run: the legacy entrypoint through the harness, the
Trainer API, two slots with gradient aggregation, a killed trial resumed bit for bit, a trial
that raises in __init__. Weights are checked against hand derivations (trial_api_test.py).

    trial_api_e2e.py SEARCHER_RUN SOURCE_DIR CASE
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

searcher_run, source, case = sys.argv[1], pathlib.Path(sys.argv[2]).resolve(), sys.argv[3]
here = pathlib.Path(__file__).resolve().parent
work = pathlib.Path(tempfile.mkdtemp(prefix=f"trial-api-{case}-"))
context = work / "context"
shutil.copytree(here, context, ignore=shutil.ignore_patterns("__pycache__", "trial_api_*.py"))


def check(condition, what):
    if not condition:
        sys.exit(f"{case}: {what}")


def search(name, config_text, *, slots=1, expect=0):
    config = work / f"{name}.yaml"
    config.write_text(config_text)
    exp = work / name
    done = subprocess.run([searcher_run, "run", "--config", config, "--dir", exp, "--slots", str(slots),
                           "--context", context], capture_output=True, text=True, timeout=600)
    if done.returncode != expect:
        logs = "".join(p.read_text() for p in exp.glob("trials/*/output.log"))
        sys.exit(f"{case}: searcher-run exit {done.returncode}, expected {expect}\n{done.stderr}\n{logs}")
    return exp, json.loads((exp / "experiment.json").read_text())


def reports(exp, group):
    (directory,) = (exp / "trials").glob("1-*")
    lines = [json.loads(line) for line in (directory / "metrics.jsonl").read_text().splitlines()]
    return [r for r in lines if r["group"] == group]


def output(exp):
    (directory,) = (exp / "trials").glob("1-*")
    return (directory / "output.log").read_text()


def onevar():
    exp, e = search("onevar", """
name: onevar
entrypoint: onevar_trial:OneVarTrial
hyperparameters: {lr: 0.01, global_batch_size: 2}
searcher: {name: single, metric: val_loss, max_length: {batches: 6}}
min_validation_period: {batches: 4}
max_restarts: 0
""")
    check(e["state"] == "completed", e["state"])
    # By hand (trial_api_test.py): w4 = 2.0722475, w5 = 2.068635125, and batch 6 (x = 3, 4,
    # mean x^2 12.5): w6 = w5 + 0.01 * 2 * (2 - w5) * 12.5 = 2.05147634375.
    validations = reports(exp, "validation")
    check([v["steps_completed"] for v in validations] == [4, 6], validations)
    check(abs(validations[0]["metrics"]["w"] - 2.0722475) < 1e-5, validations)
    check(abs(validations[1]["metrics"]["w"] - 2.05147634375) < 1e-5, validations)
    # Determined's checkpoint layout, code/ holding the context directory.
    checkpoint = pathlib.Path(e["trials"][0]["checkpoint"]["path"]) if "checkpoint" in e["trials"][0] else None
    directories = [p for p in (exp / "checkpoints").iterdir() if p.is_dir()]
    check(directories, "no checkpoint")
    checkpoint = checkpoint or directories[0]
    for name in ("state_dict.pth", "load_data.json", "trial_state.pkl", "metadata.json", "code/onevar_trial.py"):
        check((checkpoint / name).exists(), f"{checkpoint} has no {name}")
    load_data = json.loads((checkpoint / "load_data.json").read_text())
    check(load_data["trial_type"] == "PyTorchTrial" and load_data["hparams"]["lr"] == 0.01, load_data)
    check(load_data["experiment_config"]["searcher"]["metric"] == "val_loss", load_data)
    # The trial rebuilt from its checkpoint by the class it names (imported from code/).
    loaded = subprocess.run(["/usr/bin/python3", "-c", "import sys; from determined import pytorch; "
                             "t = pytorch.load_trial_from_checkpoint_path(sys.argv[1]); print(t.model.weight.item())",
                             str(checkpoint)], env=dict(os.environ, PYTHONPATH=str(source / "python")),
                            capture_output=True, text=True, timeout=120)
    check(loaded.returncode == 0 and abs(float(loaded.stdout) - 2.05147634375) < 1e-5, loaded.stderr)
    # Test mode off-cluster: one batch (w1 = 0.1 by hand), validated, nothing stored.
    done = harness_test_mode("onevar_trial:OneVarTrial")
    check(done.returncode == 0 and "test mode: one batch trained and validated" in done.stderr, done.stderr)
    # Determined's Core API log line: report_validation_metrics(steps_completed=1, metrics={...}).
    check("report_validation_metrics(steps_completed=1, metrics={'val_loss': 9.02" in done.stderr
          and "'w': 0.0999999" in done.stderr, done.stderr)


def harness_test_mode(spec):
    """The harness's off-cluster test mode on the context directory (nothing stored)."""
    config = work / "test-mode.yaml"
    config.write_text("hyperparameters: {lr: 0.01, global_batch_size: 2}\n"
                      "searcher: {name: single, metric: val_loss, max_length: {batches: 3}}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HPSEARCH_")}
    env.update(PYTHONPATH=str(source / "python"), HOME=str(work / "home"))
    done = subprocess.run(["/usr/bin/python3", "-m", "determined.exec.harness", "--test", "--config", str(config),
                           spec], cwd=context, env=env, capture_output=True, text=True, timeout=120)
    check(not (work / "home").exists(), "test mode wrote under HOME")
    return done


def two_slots():
    exp, e = search("two-slots", """
name: onevar-2slots
entrypoint: onevar_trial:OneVarTrial
resources: {slots_per_trial: 2}
optimizations: {aggregation_frequency: 2}
hyperparameters: {lr: 0.001, global_batch_size: 4}
searcher: {name: single, metric: val_loss, max_length: {batches: 4}}
max_restarts: 0
""")
    check(e["state"] == "completed", e["state"])
    # Per-slot batches of 2 from x = 1..8: rank 0 gets x = (1,2), (5,6); rank 1 (3,4), (7,8).
    # One step per 2 batches on the gradients summed over both batches, averaged over the two
    # slots, divided by 2: g = 2 (w - 2) (2.5 + 30.5 + 12.5 + 56.5) / 4 = 51 (w - 2), so
    # 2 - w_k = 2 (1 - 0.051)^k; after 4 batches (k = 2) w = 2 - 2 * 0.949^2 = 0.198798.
    (validation,) = reports(exp, "validation")
    check(abs(validation["metrics"]["w"] - 0.198798) < 1e-6, validation)
    # Metrics across slots. Training: batch losses (2 - w)^2 mean(x^2) averaged over the slots
    # batch by batch, then over the 4 batches: w = 0 for the first two (4 * (2.5, 12.5, 30.5,
    # 56.5)), w = 0.102 for the last two: (408 + 1.898^2 * 102) / 8 = 96.930651.
    (training,) = reports(exp, "training")
    check(abs(training["metrics"]["loss"] - 96.930651) < 1e-4, training)
    # Validation: the 4 batches of the sharded validation set (2 per slot), each batch's loss
    # weighing the same: (2 - 0.198798)^2 * 25.5 = 82.730397.
    check(abs(validation["metrics"]["val_loss"] - 82.730397) < 1e-3, validation)
    text = output(exp)
    check("[rank=0]" in text and "[rank=1]" in text, "both ranks must have run")


def identity():
    """Determined's torch_distributed --trial form, 2 slots, aggregation 2, validating and
    checkpointing every batch for one epoch."""
    exp, e = search("identity", """
name: identity
entrypoint: python3 -m determined.launch.torch_distributed --trial identity_trial:IdentityTrial
hyperparameters: {global_batch_size: 4}
records_per_epoch: 64
resources: {slots_per_trial: 2}
scheduling_unit: 1
searcher: {name: single, metric: val_loss, max_length: {epochs: 1}}
min_checkpoint_period: {batches: 1}
min_validation_period: {batches: 1}
optimizations: {aggregation_frequency: 2, average_aggregated_gradients: true}
max_restarts: 0
""")
    check(e["state"] == "completed", e["state"])
    # One epoch: 64 records in per-slot batches of 2 is 32 batches, 16 per rank. The optimizer
    # steps after every second batch of each rank, on 4 batches (records 8(k-1) .. 8k-1 for
    # step k) averaged over 2 slots and 2 batches: dL/dw of MSE with y = x is
    # -2 (1 - w) mean(x^2) over those 8 records, so w += 0.001 * 2 (1 - w) mean(x^2).
    w, expected = 0.0, []
    for batch in range(1, 17):
        if batch % 2 == 0:
            k = batch // 2
            xs = [1.0 + 0.1 * i for i in range(8 * (k - 1), 8 * k)]
            w += 0.001 * 2 * (1 - w) * sum(x * x for x in xs) / len(xs)
        expected.append(w)
    validations = reports(exp, "validation")
    check([v["steps_completed"] for v in validations] == list(range(1, 17)), [v["steps_completed"] for v in validations])
    for v, want in zip(validations, expected):
        check(abs(v["metrics"]["weight"] - want) < 1e-5, (v, want))
    steps = sorted(json.loads((p / "metadata.json").read_text())["steps_completed"]
                   for p in (exp / "checkpoints").iterdir() if p.is_dir())
    check(steps[-1] == 16, steps)  # a checkpoint every batch; the save policy keeps the latest/best


def final_state(exp):
    import torch

    directories = sorted((p for p in (exp / "checkpoints").iterdir() if p.is_dir()),
                         key=lambda p: json.loads((p / "metadata.json").read_text())["steps_completed"])
    return torch.load(directories[-1] / "state_dict.pth")


def resume():
    import torch

    def config(crash_at, shuffle=False, length=30, period=5):
        return f"""
name: resume
entrypoint: crashing_trial:CrashingTrial
hyperparameters: {{lr: 0.05, global_batch_size: 8, crash_at: {crash_at}, shuffle: {str(shuffle).lower()}}}
searcher: {{name: single, metric: validation_loss, max_length: {{batches: {length}}}}}
min_checkpoint_period: {{batches: {period}}}
checkpoint_storage: {{save_trial_latest: 5}}
reproducibility: {{experiment_seed: 3}}
max_restarts: 1
"""

    def equal_ends(whole_exp, crashed_exp, what):
        a, b = final_state(whole_exp), final_state(crashed_exp)
        for x, y in zip(a["models_state_dict"][0].values(), b["models_state_dict"][0].values()):
            check(torch.equal(x, y), f"model weights differ after the resume ({what})")
        for x, y in zip(a["optimizers_state_dict"][0]["state"].values(),
                        b["optimizers_state_dict"][0]["state"].values()):
            check(torch.equal(x["momentum_buffer"], y["momentum_buffer"]), f"momentum differs after the resume ({what})")
        check(a["lr_schedulers_state_dict"] == b["lr_schedulers_state_dict"], f"LR schedulers differ ({what})")
        check(torch.equal(a["rng_state"]["cpu_rng_state"], b["rng_state"]["cpu_rng_state"]), f"RNG states differ ({what})")
        return a, b

    whole_exp, whole = search("whole", config(0))
    crashed_exp, crashed = search("crashed", config(17))
    check(whole["trials"][0]["trial_seed"] == crashed["trials"][0]["trial_seed"], "trial seeds differ")
    check(crashed["trials"][0].get("restarts") == 1, crashed["trials"][0])
    a, b = equal_ends(whole_exp, crashed_exp, "in order, from 15")
    check(a["callbacks"] == b["callbacks"] == {"counter": {"epochs": 2, "workloads": 6}}, (a["callbacks"], b["callbacks"]))
    # shuffle=True (each epoch's order drawn from torch's RNG as it begins), 12 batches an epoch,
    # a checkpoint every 12: killed at 30, restarted from the epoch boundary 24.
    whole_exp, _ = search("whole-shuffled", config(0, shuffle=True, length=36, period=12))
    crashed_exp, crashed = search("crashed-shuffled", config(30, shuffle=True, length=36, period=12))
    check(crashed["trials"][0].get("restarts") == 1, crashed["trials"][0])
    check("restoring the trial from checkpoint" in output(crashed_exp), output(crashed_exp))
    equal_ends(whole_exp, crashed_exp, "shuffled, from 24")


def pause():
    """Ctrl-C on the runner pauses the trial (it checkpoints at its next boundary and exits);
    `searcher-run resume` relaunches it from there; it ends equal to an uninterrupted run."""
    import signal
    import time
    import torch

    text = """
name: pause
entrypoint: crashing_trial:CrashingTrial
hyperparameters: {{lr: 0.05, global_batch_size: 8, crash_at: 0, sleep: {sleep}}}
searcher: {{name: single, metric: validation_loss, max_length: {{batches: 40}}}}
scheduling_unit: 1
checkpoint_storage: {{save_trial_latest: 5}}
reproducibility: {{experiment_seed: 3}}
max_restarts: 0
"""
    whole_exp, _ = search("whole", text.format(sleep=0))
    config = work / "paused.yaml"
    config.write_text(text.format(sleep=0.3))
    exp = work / "paused"
    runner = subprocess.Popen([searcher_run, "run", "--config", config, "--dir", exp, "--slots", "1", "--context",
                               context], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list(exp.glob("trials/1-*/metrics.jsonl")) or "training" not in next(
            exp.glob("trials/1-*/metrics.jsonl")).read_text():
        check(time.monotonic() < deadline and runner.poll() is None, "the trial never reported training metrics")
        time.sleep(0.1)
    # 40 batches of 0.3 s: the SIGINT lands well before the end even on a loaded machine.
    runner.send_signal(signal.SIGINT)
    check(runner.wait(timeout=120) == 130, f"searcher-run after SIGINT: {runner.returncode}\n{runner.stderr.read()}")
    paused_at = final_state_metadata(exp)
    check(0 < paused_at < 40, f"the pause checkpoint is at {paused_at} batches")
    done = subprocess.run([searcher_run, "resume", exp], capture_output=True, text=True, timeout=600)
    check(done.returncode == 0, done.stderr)
    a, b = final_state(whole_exp), final_state(exp)
    for x, y in zip(a["models_state_dict"][0].values(), b["models_state_dict"][0].values()):
        check(torch.equal(x, y), f"model weights differ after a pause at {paused_at}")
    check(a["lr_schedulers_state_dict"] == b["lr_schedulers_state_dict"], "LR schedulers differ")
    check(torch.equal(a["rng_state"]["cpu_rng_state"], b["rng_state"]["cpu_rng_state"]), "RNG states differ")


def final_state_metadata(exp):
    return max(json.loads((p / "metadata.json").read_text())["steps_completed"]
               for p in (exp / "checkpoints").iterdir() if p.is_dir())


def init_error():
    exp, e = search("init-error", """
name: init-error
entrypoint: raising_trial:RaisingTrial
hyperparameters: {global_batch_size: 2}
searcher: {name: single, metric: loss, max_length: {batches: 2}}
max_restarts: 1
""", expect=1)
    check(e["trials"][0]["outcome"] == "errored", e["trials"][0])
    text = output(exp)
    check(text.count("ValueError: this trial cannot be built: bad model definition") == 2, text)
    check("raising_trial.py" in text and "Traceback" in text, text)
    # The same trial in the harness's test mode: the error and its traceback, exit 1.
    done = harness_test_mode("raising_trial:RaisingTrial")
    check(done.returncode == 1 and "ValueError: this trial cannot be built" in done.stderr
          and 'raising_trial.py", line' in done.stderr, done.stderr)
    # det.InvalidHP raised in __init__ tells the searcher (invalid_hp), not a failure.
    exp, e = search("invalid-hp", """
name: invalid-hp
entrypoint: raising_trial:InvalidHPTrial
hyperparameters: {global_batch_size: 2}
searcher: {name: single, metric: loss, max_length: {batches: 2}}
max_restarts: 1
""")
    check(e["trials"][0]["outcome"] == "invalid_hp" and e["trials"][0]["restarts"] == 0, e["trials"][0])


def trainer():
    exp, e = search("trainer", """
name: trainer
entrypoint: /usr/bin/python3 trainer_script.py
hyperparameters: {lr: 0.01, global_batch_size: 2}
searcher: {name: single, metric: val_loss, max_length: {batches: 4}}
checkpoint_storage: {save_trial_latest: 5}
max_restarts: 0
""")
    check(e["state"] == "completed", e["state"])
    # Validations every 2 batches (w2 = 0.575, w4 = 2.0722475); max_length=Batch(3) is the
    # script's local length, ignored under the searcher; checkpoint_policy "all": one per validation.
    validations = reports(exp, "validation")
    check([v["steps_completed"] for v in validations] == [2, 4], validations)
    check(abs(validations[0]["metrics"]["w"] - 0.575) < 1e-6, validations)
    check(abs(validations[1]["metrics"]["w"] - 2.0722475) < 1e-5, validations)
    steps = sorted(json.loads((p / "metadata.json").read_text())["steps_completed"]
                   for p in (exp / "checkpoints").iterdir() if p.is_dir())
    check(steps == [2, 4], steps)
    # Determined 0.38's form (no searcher.max_length): the script's max_length=Batch(3) decides,
    # its last validation (w3 = 1.44425, by hand in trial_api_test.py) is the trial's.
    exp, e = search("trainer-0.38", """
name: trainer-0.38
entrypoint: /usr/bin/python3 trainer_script.py
hyperparameters: {lr: 0.01, global_batch_size: 2}
searcher: {name: single, metric: val_loss}
max_restarts: 0
""")
    validations = reports(exp, "validation")
    check([v["steps_completed"] for v in validations] == [2, 3], validations)
    check(abs(validations[-1]["metrics"]["w"] - 1.44425) < 1e-5, validations)
    check("deprecated" not in output(exp), output(exp))
    # The same script off-cluster: max_length=Batch(3): w3 = 1.44425.
    env = {k: v for k, v in os.environ.items() if not k.startswith("HPSEARCH_")}
    env.update(PYTHONPATH=str(source / "python"), HOME=str(work))
    alone = subprocess.run(["/usr/bin/python3", "trainer_script.py"], cwd=context, env=env, capture_output=True,
                           text=True, timeout=120)
    check(alone.returncode == 0 and "final w 1.444250" in alone.stdout, alone.stdout + alone.stderr)


def digits_example():
    """examples/torch-trial-digits at CI size, through `det experiment create -f`: its config
    with 5 trials to 3 epochs, and a learning rate and momentum range where every configuration
    learns."""
    import re

    example = source / "examples" / "torch-trial-digits"
    text = (example / "config.yaml").read_text()
    for field, value in (("max_trials", "5"), ("max_length", "{epochs: 3}")):
        text, n = re.subn(rf"^(  {field}:) .*$", rf"\1 {value}", text, flags=re.M)
        check(n == 1, f"config.yaml has no searcher.{field}")
    text, n = re.subn(r"^(  lr:) .*$", r"\1 {type: log, minval: -1.3, maxval: -0.7, base: 10}", text, flags=re.M)
    check(n == 1, "config.yaml has no hyperparameters.lr")
    text = re.sub(r"^(  momentum:) .*$", r"\1 0.9", text, flags=re.M)
    text = re.sub(r"^(  dropout:) .*$", r"\1 0.0", text, flags=re.M)
    # As a Determined user runs it: `det experiment create CONFIG CONTEXT -f` into a store.
    config = work / "digits.yaml"
    config.write_text(text)
    det = pathlib.Path(searcher_run).resolve().parent.parent / "det"
    env = dict(os.environ, HPSEARCH_HOME=str(work / "store"), HOME=str(work))
    done = subprocess.run([det, "experiment", "create", config, example, "-f"], capture_output=True,
                          text=True, timeout=900, env=env)
    check(done.returncode == 0 and done.stdout.startswith("Created experiment 1\n"),
          f"det experiment create: exit {done.returncode}\n{done.stdout}{done.stderr}")
    (found,) = (work / "store").glob("**/experiment.json")
    e = json.loads(found.read_text())
    check(e["state"] == "completed", e["state"])
    check(all(t["outcome"] in ("completed", "stopped") for t in e["trials"]), [t["outcome"] for t in e["trials"]])
    # Adaptive ASHA with divisor 3 and max_length 3: rungs at 1 and 3 epochs; a promoted trial
    # was paused at 1 and relaunched from its checkpoint to 3.
    lengths = {t["trial"]: [v["length"] for v in t["validations"]] for t in e["trials"]}
    check(all(v in ([1], [3], [1, 3]) for v in lengths.values()), lengths)
    promoted = [t for t in e["trials"] if lengths[t["trial"]] == [1, 3]]
    check(promoted and all(t["launches"] == 2 for t in promoted), (lengths, [t["launches"] for t in e["trials"]]))
    # One layer, lr 0.05-0.2 with momentum 0.9: 3 epochs reach well over 90% (a linear model ~95%).
    check(e["best"]["length"] == 3 and e["best"]["metric"] >= 0.9, e["best"])
    for t in e["trials"]:
        text = pathlib.Path(t["directory"], "output.log").read_text()
        check("[rank=1]" in text, f"trial {t['trial']} did not run two processes")
    # `det trial logs` shows the harness's training and validation reports, as Determined's
    # TrainContext logs each one: a line per report the store kept (metrics.jsonl, read through
    # the SDK), at the same steps_completed, from the chief alone.
    os.environ.update(HPSEARCH_HOME=env["HPSEARCH_HOME"], HPSEARCH_SEARCHER_RUN=str(searcher_run))
    from determined.experimental import client
    for trial in client.get_experiment(1).get_trials():
        logs = subprocess.run([det, "trial", "logs", str(trial.id)], capture_output=True, text=True,
                              timeout=120, env=env).stdout
        for group in ("training", "validation"):
            logged = [int(n) for n in re.findall(
                rf"^\[rank=0\] INFO: \[\d+\] determined\.core: report_{group}_metrics\(steps_completed=(\d+), "
                r"metrics=\{'", logs, flags=re.M)]
            kept = [m.steps_completed for m in trial.get_metrics(group)]
            check(kept and sorted(logged) == sorted(kept),
                  f"trial {trial.id}: {group} reports logged at {logged}, kept at {kept}\n{logs}")


sys.path.insert(0, str(source / "python"))
{"onevar": onevar, "two-slots": two_slots, "identity": identity, "resume": resume, "pause": pause, "init-error": init_error, "trainer": trainer,
 "digits-example": digits_example}[case]()
shutil.rmtree(work)
print(f"{case}: ok")
