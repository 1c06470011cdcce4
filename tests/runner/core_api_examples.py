"""Runs one of examples/core-api (or the PyTorch digits example) under searcher-run, unchanged,
and checks what a user would: the search's end state, the metrics kept per trial, the trials'
output and checkpoints. Run with Debian's /usr/bin/python3 (numpy for the json_encode case).

    core_api_examples.py SEARCHER_RUN SOURCE_DIR CASE
"""
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time
from xml.etree import ElementTree

searcher_run, source = sys.argv[1], pathlib.Path(sys.argv[2])
case = sys.argv[3]
examples = source / "examples" / "core-api"
SVG = "{http://www.w3.org/2000/svg}"
work = pathlib.Path(tempfile.mkdtemp(prefix=f"core-api-{case}-"))


def run(*args, expect=0):
    done = subprocess.run([searcher_run, *map(str, args)], capture_output=True, text=True, timeout=600)
    if done.returncode != expect:
        sys.exit(f"searcher-run {' '.join(map(str, args))}: exit {done.returncode}, expected {expect}\n{done.stderr}")
    return done


def search(config, *extra, slots=2, context=examples):
    exp = work / "exp"
    run("run", "--config", config, "--dir", exp, "--slots", slots, "--context", context, *extra)
    return exp, json.loads((exp / "experiment.json").read_text())


def reports(exp, trial, group=None):
    (directory,) = (exp / "trials").glob(f"{trial}-*")
    lines = [json.loads(line) for line in (directory / "metrics.jsonl").read_text().splitlines()]
    return [r for r in lines if group is None or r["group"] == group]


def output(exp, trial):
    (directory,) = (exp / "trials").glob(f"{trial}-*")
    return (directory / "output.log").read_text()


def check(condition, what):
    if not condition:
        sys.exit(f"{case}: {what}")


def metrics():
    exp, e = search(examples / "metrics.yaml")
    check(e["state"] == "completed", e["state"])
    training = reports(exp, 1, "training")
    check([r["steps_completed"] for r in training] == list(range(5, 41, 5)), training)
    losses = [r["metrics"]["loss"] for r in training]
    check(all(a > b for a, b in zip(losses, losses[1:])), f"training loss must fall: {losses}")
    (validation,) = reports(exp, 1, "validation")
    # x after 40 steps of x += 0.1 (1 - x) from 0 is 1 - 0.9^40.
    check(abs(validation["metrics"]["x"] - (1 - 0.9 ** 40)) < 1e-12, validation)
    summary = e["trials"][0]["metrics"]["groups"]
    check(summary["training"]["reports"] == 8 and summary["validation"]["reports"] == 1, summary)
    # The script never asked for operations and ended: a user-requested stop, as in Determined.
    check(e["trials"][0]["outcome"] == "user_requested_stop", e["trials"][0])
    # The same script on its own: Determined's local stand-ins.
    env = {k: v for k, v in os.environ.items() if not k.startswith("HPSEARCH_")}
    env["PYTHONPATH"] = str(source / "python")
    env["HOME"] = str(work)
    alone = subprocess.run([sys.executable, "0_metrics.py"], cwd=examples, env=env, capture_output=True,
                           text=True, timeout=120)
    check(alone.returncode == 0 and "determined.core: report_validation_metrics(steps_completed=40, metrics={"
          in alone.stderr, alone.stderr)


def metrics_038():
    """Determined 0.38's tutorial config has no max_length: the script decides how long a trial
    trains, and its last validation is what the searcher sees."""
    config = work / "metrics-0.38.yaml"
    config.write_text((examples / "metrics.yaml").read_text().replace("  max_length: {batches: 40}\n", ""))
    check("max_length" not in config.read_text(), config.read_text())
    exp, e = search(config)
    check(e["state"] == "completed" and e["progress"] == 1.0, (e["state"], e["progress"]))
    (trial,) = e["trials"]
    check(trial["outcome"] == "completed", trial)
    # The script's own validation after 40 steps of x += 0.1 (1 - x): loss (1 - x)^2 = 0.9^80.
    (validation,) = trial["validations"]
    check(validation["length"] == 1 and abs(validation["metric"] - 0.9 ** 80) < 1e-12, validation)


# A plain 0.38 Core API script for the grid below: what a trial does depends on its hparam.
GRID_038_SCRIPT = """import determined as det

info = det.get_cluster_info()
mode = info.trial.hparams["mode"]
with det.core.init() as core_context:
    for op in core_context.searcher.operations():
        assert op.length is None, op.length  # 0.38: no length without max_length
        if mode == "fail" and info.trial.trial_run_id == 1:
            raise SystemExit(1)  # fails once, then its restart reports
        if mode != "silent":
            for step in (1, 2):
                loss = {"report": 0.5, "fail": 0.25}[mode] * step
                core_context.train.report_validation_metrics(steps_completed=step, metrics={"loss": loss})
        op.report_completed(0.0)  # only logged in 0.38's form
"""


def grid_038():
    """A grid without max_length (0.38): each trial runs until its script ends; the last
    validation it reported completes its run, one that reports none is a user-requested stop,
    and a failed run is restarted as usual."""
    (work / "grid.py").write_text(GRID_038_SCRIPT)
    config = work / "grid.yaml"
    config.write_text("""name: grid-0.38
entrypoint: python3 grid.py
hyperparameters:
  mode: {type: categorical, vals: [report, silent, fail]}
searcher: {name: grid, metric: loss, max_concurrent_trials: 2}
max_restarts: 1
""")
    exp, e = search(config, context=work)
    check(e["state"] == "completed" and e["progress"] == 1.0, (e["state"], e["progress"]))
    by_mode = {t["hparams"]["mode"]: t for t in e["trials"]}
    check(sorted(by_mode) == ["fail", "report", "silent"], list(by_mode))
    check(by_mode["report"]["outcome"] == "completed", by_mode["report"])
    check([v["metric"] for v in by_mode["report"]["validations"]] == [1.0], by_mode["report"])
    check(by_mode["silent"]["outcome"] == "user_requested_stop", by_mode["silent"])
    check(by_mode["fail"]["outcome"] == "completed" and by_mode["fail"]["restarts"] == 1, by_mode["fail"])
    check([v["metric"] for v in by_mode["fail"]["validations"]] == [0.5], by_mode["fail"])
    check(e["best"]["metric"] == 0.5, e["best"])


def checkpoints():
    exp = work / "exp"
    runner = subprocess.Popen([searcher_run, "run", "--config", examples / "checkpoints.yaml", "--dir", exp,
                               "--slots", "1"], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # Ctrl-C once the trial has stored two checkpoints
        files = list((exp / "trials").glob("1-*/metrics.jsonl")) if (exp / "trials").exists() else []
        if files and len(files[0].read_text().splitlines()) >= 2:
            break
        time.sleep(0.05)
    runner.send_signal(signal.SIGINT)
    _, err = runner.communicate(timeout=120)
    check(runner.returncode == 130, f"Ctrl-C: exit {runner.returncode}\n{err}")
    log = output(exp, 1)
    check("preempted at batch" in log, log)
    run("resume", exp)
    log = output(exp, 1)
    check("resuming from checkpoint" in log, log)
    e = json.loads((exp / "experiment.json").read_text())
    check(e["state"] == "completed", e["state"])
    (validation,) = reports(exp, 1, "validation")
    # Nothing lost across the pause: 60 steps of x += 0.05 (1 - x) from 0 leave (1 - x)^2 = 0.95^120.
    check(validation["steps_completed"] == 60, validation)
    check(abs(validation["metrics"]["loss"] - 0.95 ** 120) < 1e-12, validation)
    # save_trial_latest: 2, save_trial_best: 0 -> the two latest checkpoints stay.
    kept = sorted(json.loads((p / "metadata.json").read_text())["steps_completed"]
                  for p in (exp / "checkpoints").iterdir())
    check(kept == [50, 60], kept)


def hpsearch():
    exp, e = search(examples / "hpsearch.yaml")
    check(e["state"] == "completed", e["state"])
    trials = e["trials"]
    check(len(trials) == 8, len(trials))
    lengths = [max((v["length"] for v in t["validations"]), default=0) for t in trials]
    check(64 in lengths and min(lengths) < 64, f"ASHA stops some trials early: {lengths}")
    for n, t in enumerate(trials, start=1):
        # Each operation's searcher metric is the validation the script reported at that length.
        reported = {r["steps_completed"]: r["metrics"]["validation_loss"] for r in reports(exp, n, "validation")}
        for v in t["validations"]:
            check(reported[v["length"]] == v["metric"], (n, v, reported))
    check(e["best"]["length"] == 64, e["best"])
    # What a person looks at: SVG plots, listed in experiment.json.
    plots = e["plots"]
    curves = ElementTree.parse(plots["learning_curves"]).getroot()
    check(len(curves.findall(f"{SVG}polyline")) == 8, "one learning curve per trial")
    check(len(curves.findall(f"{SVG}circle")) == sum(len(t["validations"]) for t in trials), "a dot per validation")
    over_time = ElementTree.parse(plots["searcher_metric"]).getroot()
    check(len(over_time.findall(f"{SVG}circle")) == sum(len(t["validations"]) for t in trials), "a dot per validation")
    for n, path in enumerate(plots["trials"], start=1):
        texts = [t.text for t in ElementTree.parse(path).getroot().iter(f"{SVG}text")]
        check("training loss" in texts and "validation validation_loss" in texts, (n, texts))


def pbt():
    # 4 members, 3 rounds of 16, truncate 0.25: one member closed and one clone per round end,
    # so 6 trials; trials 5 and 6 are clones and start from their parent's checkpoint.
    exp, e = search(examples / "pbt.yaml")
    check(e["state"] == "completed", e["state"])
    trials = e["trials"]
    check(len(trials) == 6, len(trials))
    runner_log = (exp / "runner.log").read_text()
    for n in (5, 6):
        parent = trials[n - 1].get("parent")
        check(parent is not None, f"trial {n} has no parent: {trials[n - 1]}")
        (k,) = [i for i, t in enumerate(trials, start=1) if t["request_id"] == parent]
        check(k < n, (n, k))
        # The parent had checkpointed at the end of its round: the clone got that checkpoint
        # (the script says whose it restored) and trained 16 batches of its own from it.
        log = output(exp, n)
        check(f"of trial {k}" in log and "warm start from checkpoint" in log, log)
        steps = [r["steps_completed"] for r in reports(exp, n, "validation")]
        check(steps and steps[0] == 16, (n, steps))
        # A Core API checkpoint in checkpoint storage: its length is the steps_completed reported.
        check("starts from its parent's checkpoint at steps_completed 16" in runner_log
              or "starts from its parent's checkpoint at steps_completed 32" in runner_log, runner_log)
    for n in (1, 2, 3, 4):
        check("warm start" not in output(exp, n), f"trial {n} is not a clone")


def hpsearch_metrics():
    exp, e = search(examples / "hpsearch-metrics.yaml")
    check(e["state"] == "completed", e["state"])
    trials = e["trials"]
    check(len(trials) == 8, len(trials))
    stopped = 0
    for n, t in enumerate(trials, start=1):
        check(t["outcome"] in ("completed", "stopped"), t)
        last = reports(exp, n, "validation")[-1]["steps_completed"]
        if last < 64:
            stopped += 1
            check("stopped by the searcher" in output(exp, n), f"trial {n} must learn of its stop from should_preempt")
    check(stopped >= 1 and e["best"]["length"] == 64, (stopped, e["best"]))


def hpsearch_metrics_killed():
    """0.38's form survives kill -9 of the runner: no trial process outlives it, and resume
    finishes the same search."""
    exp = work / "exp"
    runner = subprocess.Popen([searcher_run, "run", "--config", examples / "hpsearch-metrics.yaml", "--dir", exp,
                               "--slots", "1"], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        log = exp / "runner.log"
        if log.exists() and log.read_text().count(" validated at ") >= 2:
            break
        time.sleep(0.05)
    runner.kill()
    runner.wait()
    key = json.loads((exp / "run.json").read_text())["key"]
    time.sleep(1)  # the shepherds see their pipe close and kill their trees

    def survivors():
        alive = []
        for environ in pathlib.Path("/proc").glob("[0-9]*/environ"):
            try:
                if f"HPSEARCH_EXPERIMENT_KEY={key}".encode() in environ.read_bytes().split(b"\0"):
                    alive.append(environ.parent.name)
            except OSError:
                pass
        return alive

    check(survivors() == [], f"trial processes outlived kill -9: {survivors()}")
    run("resume", exp)
    e = json.loads((exp / "experiment.json").read_text())
    check(e["state"] == "completed" and len(e["trials"]) == 8, (e["state"], len(e["trials"])))
    check(all(t["outcome"] in ("completed", "stopped") for t in e["trials"]), [t["outcome"] for t in e["trials"]])
    check(e["best"]["length"] == 64, e["best"])


def distributed(entrypoint=None):
    config = examples / "distributed.yaml"
    if entrypoint:
        text = config.read_text()
        lines = [f"entrypoint: {entrypoint}" if line.startswith("entrypoint:") else line for line in text.splitlines()]
        config = work / "distributed.yaml"
        config.write_text("\n".join(lines) + "\n")
    exp, e = search(config, slots=1)
    check(e["state"] == "completed", e["state"])
    for n in (1, 2):
        validations = reports(exp, n, "validation")
        check(len(validations) == 1 and validations[0]["metrics"]["workers"] == 2, validations)
        log = output(exp, n)
        check("[rank=0] " in log and "worker 0 of 2" in log and "[rank=1] " in log and "worker 1 of 2" in log, log)


def torch_digits():
    context = source / "examples" / "torch-mlp-digits"
    config = work / "digits.yaml"
    config.write_text("""entrypoint: /usr/bin/python3 train.py
hyperparameters: {lr: 0.1, n_layers: 1, width: 64, dropout: 0.0, weight_decay: 0.0001, batch_size: 32,
                  momentum: 0.9}
searcher: {name: single, metric: validation_accuracy, smaller_is_better: false, max_length: 2}
max_restarts: 0
""")
    exp, e = search(config, context=context, slots=1)
    check(e["state"] == "completed", e["state"])
    # Two epochs of SGD with momentum on digits reach well over 90% (a linear model gets ~95%).
    check(e["best"]["length"] == 2 and e["best"]["metric"] >= 0.9, e["best"])
    check(pathlib.Path(e["best"]["checkpoint"], "state.pt").exists(), e["best"])


def members():
    config = work / "members.yaml"
    config.write_text("""entrypoint: python3 members.py
hyperparameters: {x: 0.5}
searcher: {name: single, metric: loss, max_length: {batches: 4}}
max_restarts: 0
""")
    exp, e = search(config, context=source / "tests" / "runner" / "trials", slots=1)
    check(e["state"] == "completed" and "members: ok" in output(exp, 1), output(exp, 1))
    groups = {r["group"] for r in reports(exp, 1)}
    check(groups == {"training", "validation", "custom"}, groups)
    check("trial 1 (" in (exp / "runner.log").read_text() and "members: training" in (exp / "runner.log").read_text(),
          "set_status reaches runner.log")
    # The uploaded checkpoint was deleted by the trial; the stored one is the trial's latest.
    stored = [c["length"] for c in e["trials"][0]["stored_checkpoints"]]
    check(stored == [4] and len(list((exp / "checkpoints").iterdir())) == 1, stored)


def sharded():
    config = work / "sharded.yaml"
    config.write_text("""entrypoint: python3 -m determined.launch.torch_distributed python3 sharded.py
resources: {slots_per_trial: 2}
hyperparameters: {x: 0.5}
searcher: {name: single, metric: loss, max_length: {batches: 2}}
max_restarts: 0
""")
    exp, e = search(config, context=source / "tests" / "runner" / "trials", slots=1)
    log = output(exp, 1)
    check(e["state"] == "completed" and "[rank=0] sharded: rank 0 ok" in log and "[rank=1] sharded: rank 1 ok" in log, log)
    # Both checkpoints reached the runner once each: the trial's latest is one of them.
    check(e["trials"][0]["checkpoint"]["length"] == 2, e["trials"][0])


def json_encode():
    import numpy as np

    sys.path.insert(0, str(source / "python"))
    from determined import util

    values = {"f32": np.float32(0.5), "i64": np.int64(7), "b": np.bool_(True), "nan": np.float64("nan"),
              "inf": float("inf"), "ninf": np.float32("-inf"), "array": np.arange(3), "matrix": np.eye(2)}
    # Determined's json_encode: numpy numbers as Python numbers, arrays as lists, non-finite
    # floats as the strings "NaN", "Infinity" and "-Infinity".
    expected = {"f32": 0.5, "i64": 7, "b": True, "nan": "NaN", "inf": "Infinity", "ninf": "-Infinity",
                "array": [0, 1, 2], "matrix": [[1.0, 0.0], [0.0, 1.0]]}
    check(json.loads(util.json_encode(values)) == expected, util.json_encode(values))


cases = {"metrics": metrics, "metrics-0.38": metrics_038, "grid-0.38": grid_038, "checkpoints": checkpoints, "hpsearch": hpsearch, "hpsearch-metrics": hpsearch_metrics,
         "hpsearch-metrics-killed": hpsearch_metrics_killed,
         "distributed-torchrun": distributed,
         "distributed-plain": lambda: distributed("python3 -m determined.launch.torch_distributed python3 4_distributed.py"),
         "torch-digits": torch_digits, "json-encode": json_encode, "members": members,
         "sharded": sharded, "pbt": pbt}
try:
    # The examples are Determined scripts as they are: the import, and nothing of hpsearch's own.
    for script in [*examples.glob("*.py"), source / "examples" / "torch-mlp-digits" / "train.py"]:
        text = script.read_text()
        check("import determined as det" in text and "hpsearch" not in text.lower(),
              f"{script} is not a plain Core API script")
    cases[case]()
finally:
    subprocess.run(["rm", "-rf", str(work)])
print(f"{case}: ok")
