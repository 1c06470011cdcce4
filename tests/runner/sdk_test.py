"""The Python SDK (determined.experimental.client) against real experiments of a temporary store:
every member, the lifecycle commands, and the errors a user sees.

    sdk_test.py SEARCHER_RUN SOURCE_DIR CASE   (CASE: lifecycle, registry, pause, kill, sigkill, errors, config,
                                                hostile)

The trial (tests/runner/trials/sdk_trial.py) has loss (x - 3)^2 + 10/steps on a grid of x, so the
best trial and checkpoint are known beforehand. Waits poll with generous deadlines: the machine
may be loaded.
"""
import datetime
import fcntl
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time

searcher_run, source, case = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
home = pathlib.Path(tempfile.mkdtemp(prefix=f"sdk-{case}-"))
os.environ["HPSEARCH_HOME"] = str(home / "store")
os.environ["HPSEARCH_SEARCHER_RUN"] = searcher_run
sys.path.insert(0, str(source / "python"))

from determined.experimental import client  # noqa: E402

model_dir = home / "model"
model_dir.mkdir()
shutil.copy(source / "tests" / "runner" / "trials" / "sdk_trial.py", model_dir / "trial.py")
DEADLINE = 600  # seconds: far beyond what any case needs on an idle machine


def check(condition, what):
    if not condition:
        sys.exit(f"sdk_test {case}: {what}")


def config(xs=(1, 2, 3, 4), sleep=0.0, length=4, concurrent=2, name="sdk-test", **hparams):
    return {"name": name, "entrypoint": f"{sys.executable} trial.py",
            "hyperparameters": {"x": {"type": "categorical", "vals": list(xs)}, "sleep": sleep, **hparams},
            "searcher": {"name": "grid", "metric": "loss", "smaller_is_better": True,
                         "max_length": {"batches": length}, "max_concurrent_trials": concurrent},
            "max_restarts": 0}


def poll(condition, what, timeout=DEADLINE):
    deadline = time.monotonic() + timeout
    while not condition():
        check(time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.1)


def wait(exp, expected):
    state = None

    def ended():
        nonlocal state
        state = exp.state
        return state in client._TERMINAL or state == client.ExperimentState.PAUSED
    poll(ended, f"experiment {exp.id} to end")
    if state in client._TERMINAL:
        check(exp.wait(interval=0.1) == state, "wait() returns the state it ended in")
    check(state == client.ExperimentState(expected),
          f"experiment {exp.id} ended {state}, expected {expected}: {exp.describe()['reason']}\n"
          + pathlib.Path(exp.describe()["log"]).read_text()[-3000:])


def raises(kind, text, call):
    try:
        call()
    except kind as e:
        check(text in str(e), f"the error names {text!r}: {e}")
        return str(e)
    sys.exit(f"sdk_test {case}: expected {kind.__name__} naming {text!r}")


def cli(*args, expect=0):
    done = subprocess.run([searcher_run, *map(str, args)], capture_output=True, text=True, timeout=DEADLINE)
    check(done.returncode == expect, f"searcher-run {' '.join(map(str, args))}: exit {done.returncode}, "
                                     f"expected {expect}\n{done.stdout}{done.stderr}")
    return done


def checkpoints_of(exp):
    run = pathlib.Path(exp.describe()["run_dir"]) / "checkpoints"
    return list(run.iterdir()) if run.is_dir() else []


def lifecycle():
    # .detignore in gitignore syntax (expected results from gitignore(5)).
    (model_dir / ".detignore").write_text(
        "# not part of the model\ndata/\n*.tmp\n!keep.tmp\n/top.txt\nsub/**/deep.log\nlog?.txt\n[ab].md\n")
    for name in ("data/big.bin", "scratch.tmp", "keep.tmp", "top.txt", "sub/top.txt", "sub/deep.log",
                 "sub/x/y/deep.log", "log1.txt", "log12.txt", "a.md", "c.md", "__pycache__/trial.cpython-311.pyc",
                 "sub/helper.pyc"):
        (model_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (model_dir / name).write_text("x")
    extra = home / "extra.txt"
    extra.write_text("included")
    config_file = home / "my_config.yaml"
    config_file.write_text(json.dumps(config(), indent=2))
    # The creator is a process of its own that exits at once: the experiment outlives it.
    creator = subprocess.run(
        [sys.executable, "-c",
         "import sys; from determined.experimental import client\n"
         "exp = client.create_experiment(config=sys.argv[1], model_dir=sys.argv[2], includes=[sys.argv[3]])\n"
         "print(exp.id)", str(config_file), str(model_dir), str(extra)],
        capture_output=True, text=True, timeout=DEADLINE, env={**os.environ, "PYTHONPATH": str(source / "python")})
    check(creator.returncode == 0, f"the creator failed: {creator.stderr}")
    exp = client.get_experiment(int(creator.stdout))
    check(exp.id == 1, f"the first experiment of a new store is 1, got {exp.id}")
    wait(exp, "COMPLETED")

    snapshot = pathlib.Path(exp.describe()["model_dir"])
    present = sorted(str(p.relative_to(snapshot)) for p in snapshot.rglob("*"))
    check(present == [".detignore", "c.md", "extra.txt", "keep.tmp", "log12.txt", "sub", "sub/top.txt", "sub/x",
                      "sub/x/y", "trial.py"], f"the model snapshot: {present}")

    trials = exp.get_trials()
    check(len(trials) == 4, f"4 grid trials, got {trials}")
    ids = [t.id for t in trials]
    check(ids == sorted(set(ids)), f"distinct trial ids: {ids}")
    check(sorted(t.hparams["x"] for t in trials) == [1, 2, 3, 4], [t.hparams for t in trials])
    check([t.id for t in exp.get_trials(order_by=client.TrialOrderBy.DESCENDING)] == ids[::-1], "descending order")
    first = exp.await_first_trial()
    check(first.id == ids[0], f"await_first_trial on an ended experiment gives the first trial: {first}")
    for t in trials:
        check(t.state == client.TrialState.COMPLETED, f"trial {t.id}: {t.state}")
        # The trial was told its global id and its experiment's (det.get_cluster_info()).
        lines = list(t.logs())
        check(lines[0].startswith(f"trial {t.id} of experiment {exp.id} starts at step 0"), lines)
        check(list(t.logs(tail=1)) == [f"trial {t.id} done\n"], list(t.logs(tail=1)))
        check(list(t.logs(head=1)) == lines[:1], "logs(head=1)")
        raises(ValueError, "mutually exclusive", lambda: t.logs(follow=True, tail=1))
        check(list(t.logs(follow=True)) == lines, "logs(follow=True) on an ended experiment gives every line")
        training = list(t.get_metrics("training"))
        check([m.steps_completed for m in training] == [1, 2, 3, 4], training)
        x = t.hparams["x"]
        check(all(abs(m.metrics["loss"] - ((x - 3) ** 2 + 10 / m.steps_completed)) < 1e-9 for m in training), "losses")
        (validation,) = t.get_metrics("validation")
        check(validation.steps_completed == 4, validation)
        latest = t.select_checkpoint(latest=True)
        check(latest.metadata["steps_completed"] == 4 and latest.metadata["x"] == x, latest.metadata)
        check(t.top_checkpoint().uuid == latest.uuid, "the best checkpoint of a trial is its last (loss falls)")
        check(t.select_checkpoint(uuid=latest.uuid).uuid == latest.uuid, "select_checkpoint(uuid)")
        raises(client.NotFoundException, "no-such-uuid", lambda: t.select_checkpoint(uuid="no-such-uuid"))
    by_x = {t.hparams["x"]: t for t in trials}
    best = exp.top_checkpoint()
    check(best.training.trial_id == by_x[3].id and best.metadata["x"] == 3, f"the best checkpoint is x = 3's: {best}")
    check(abs(best.training.validation_metrics["avgMetrics"]["loss"] - 10 / 4) < 1e-9, best.training.validation_metrics)
    top = exp.top_n_checkpoints(4)
    check([c.metadata["x"] for c in top][0] == 3 and sorted(c.metadata["x"] for c in top[1:3]) == [2, 4]
          and top[3].metadata["x"] == 1, [c.metadata for c in top])
    by_accuracy = exp.top_checkpoint(sort_by="accuracy", smaller_is_better=False)
    check(by_accuracy.uuid == best.uuid, "the best by accuracy (larger is better) is the best by loss")
    worst = exp.top_checkpoint(sort_by="loss", smaller_is_better=False)
    check(worst.metadata["x"] == 1, f"smaller_is_better=False ranks the other way: {worst.metadata}")

    # Determined's newer members. list_checkpoints: best first by default (the searcher metric in
    # its order: losses 2.5 for x = 3, 3.5 for x = 2 and 4, 6.5 for x = 1), or by a metric or an
    # attribute with an order; list_trials, name, config, progress; client.list_experiments.
    listed = exp.list_checkpoints()
    check([c.metadata["x"] for c in listed][::3] == [3, 1] and sorted(c.metadata["x"] for c in listed[1:3]) == [2, 4],
          f"list_checkpoints(): {[c.metadata for c in listed]}")
    check([c.uuid for c in exp.list_checkpoints(max_results=1)] == [best.uuid], "max_results=1 is the best")
    by_accuracy = exp.list_checkpoints(sort_by="accuracy", order_by=client.OrderBy.DESC)
    check([c.uuid for c in by_accuracy] == [c.uuid for c in listed], "accuracy 1/(1+loss), descending, is the same order")
    check([c.metadata["x"] for c in exp.list_checkpoints(sort_by="loss", order_by=client.OrderBy.DESCENDING)][0] == 1,
          "the worst first in descending order")
    by_uuid = exp.list_checkpoints(sort_by=client.CheckpointSortBy.UUID, order_by=client.OrderBy.ASC)
    check([c.uuid for c in by_uuid] == sorted(c.uuid for c in listed), "sorted by uuid")
    raises(AssertionError, "both set", lambda: exp.list_checkpoints(sort_by="loss"))
    raises(ValueError, "max_results", lambda: exp.list_checkpoints(max_results=0))
    check([c.uuid for c in by_x[3].list_checkpoints()] == [best.uuid], "Trial.list_checkpoints")
    check([t.id for t in exp.list_trials()] == ids and len(exp.list_trials(limit=2)) == 2, "list_trials")
    check(exp.name == "sdk-test" and exp.config["searcher"]["metric"] == "loss" and exp.progress == 1.0,
          f"name, config, progress: {exp.name} {exp.config} {exp.progress}")
    check([e.id for e in client.list_experiments()] == [1], "list_experiments")
    check(isinstance(client.list_experiments()[0], client.Experiment) and isinstance(trials[0], client.Trial),
          "Determined's newer names: client.Experiment, client.Trial")
    check(client.list_experiments(states=[client.ExperimentState.ACTIVE]) == [], "list_experiments by state")
    check([e.id for e in client.list_experiments(name="sdk")] == [1] and client.list_experiments(name="zzz") == [],
          "list_experiments by name")

    # Checkpoints by uuid, across experiments; download; metadata; delete.
    found = client.get_checkpoint(best.uuid)
    check(found.uuid == best.uuid and found.training.experiment_id == exp.id and found.state == client.CheckpointState.COMPLETED,
          found)
    target = home / "downloaded"
    path = found.download(str(target))
    check(json.loads((pathlib.Path(path) / "model.json").read_text()) == {"x": 3, "steps": 4}, "downloaded files")
    check(json.loads((pathlib.Path(path) / "metadata.json").read_text())["x"] == 3, "downloaded metadata")
    found.add_metadata({"note": "best"})
    check(client.get_checkpoint(best.uuid).metadata["note"] == "best", "add_metadata is kept")
    found.remove_metadata(["note"])
    check("note" not in client.get_checkpoint(best.uuid).metadata, "remove_metadata is kept")
    found.write_metadata_file(str(home / "meta.json"))
    check(json.loads((home / "meta.json").read_text())["steps_completed"] == 4, "write_metadata_file")
    cwd = os.getcwd()
    os.chdir(home)
    try:
        check(found.download() == f"checkpoints/{best.uuid}", "download() defaults to checkpoints/UUID")
    finally:
        os.chdir(cwd)
    doomed = by_x[1].select_checkpoint(latest=True)
    doomed.delete()
    check(doomed.state == client.CheckpointState.DELETED, doomed.state)
    raises(client.NotFoundException, doomed.uuid, lambda: client.get_checkpoint(doomed.uuid))
    # A deleted checkpoint is never a best or a latest (Determined: only COMPLETED checkpoints
    # count). Each trial keeps one checkpoint (save_trial_latest/best 1: step 4, its validation).
    raises(client.NotFoundException, "were all deleted", lambda: by_x[1].top_checkpoint())
    raises(client.NotFoundException, "all were deleted", lambda: by_x[1].select_checkpoint(latest=True))
    check(doomed.uuid not in [c.uuid for c in exp.top_n_checkpoints(4)], "top_n_checkpoints skips a deleted one")
    best.delete()
    # Then the experiment's best is x = 2's or x = 4's (loss 1 + 10/4 each), still stored.
    after = exp.top_checkpoint()
    check(after.uuid != best.uuid and after.metadata["x"] in (2, 4) and after.state == client.CheckpointState.COMPLETED,
          f"the best once x = 3's is deleted: {after.metadata}")
    top = exp.top_n_checkpoints(4)
    check(sorted(c.metadata["x"] for c in top) == [2, 4], [c.metadata for c in top])
    check(exp.top_n_checkpoints(1)[0].uuid == after.uuid, "top_n_checkpoints(1) is top_checkpoint()")
    check(sorted(c.metadata["x"] for c in exp.list_checkpoints()) == [2, 4], "list_checkpoints lists no deleted one")

    # A second experiment from a dict: new experiment id, trial ids continue.
    second = client.create_experiment(config(xs=(3,), name="second"), str(model_dir))
    check(second.id == 2, second.id)
    wait(second, "COMPLETED")
    (trial,) = second.get_trials()
    check(trial.id == max(ids) + 1, f"trial ids are global: {trial.id} after {ids}")
    check(client.get_trial(trial.id).experiment_id == 2, "get_trial finds the experiment")
    check(client.get_checkpoint(trial.top_checkpoint().uuid).training.experiment_id == 2, "uuid in experiment 2")

    listed = json.loads(cli("ls", "--json").stdout)
    check([(e["id"], e["state"], e["trials"]) for e in listed] == [(1, "COMPLETED", 4), (2, "COMPLETED", 1)], listed)
    human = cli("describe", "1").stdout
    check("COMPLETED" in human and "sdk-test" in human, human)

    exp.delete()
    raises(client.NotFoundException, "experiment 1 not found", lambda: client.get_experiment(1))
    raises(client.NotFoundException, f"trial {ids[0]} not found", lambda: client.get_trial(ids[0]))
    check(client.get_trial(trial.id).experiment_id == 2, "deleting experiment 1 keeps experiment 2's trials")
    third = client.create_experiment(config(xs=(2,)), str(model_dir))
    check(third.id == 3, f"ids are not reused after a delete while a larger one exists: {third.id}")
    wait(third, "COMPLETED")
    # Nor is the largest id, once deleted (Determined never reuses an id).
    third.delete()
    fourth = client.create_experiment(config(xs=(2,)), str(model_dir))
    check(fourth.id == 4, f"a deleted largest id is not handed out again: got {fourth.id}, expected 4")
    wait(fourth, "COMPLETED")
    # Concurrent creates each get their own id, the next ones.
    tiny = home / "tiny.yaml"
    tiny.write_text(json.dumps(config(xs=(2,), length=1)))
    creates = [subprocess.Popen([searcher_run, "create", "--config", str(tiny), "--model-dir", str(model_dir),
                                 "--detach", "--json"], stdout=subprocess.PIPE, text=True) for _ in range(4)]
    concurrent = sorted(json.loads(p.communicate(timeout=DEADLINE)[0])["id"] for p in creates)
    check(concurrent == [5, 6, 7, 8], f"four concurrent creates: ids {concurrent}")
    for i in concurrent:
        wait(client.get_experiment(i), "COMPLETED")


def registry():
    exp = client.create_experiment(config(xs=(2, 3)), str(model_dir))
    wait(exp, "COMPLETED")
    best = exp.top_checkpoint()
    model = client.create_model("digits", description="the best digits model", metadata={"owner": "me"},
                                labels=["sgd"])
    check(model.model_id == 1 and model.name == "digits" and model.metadata == {"owner": "me"}, model)
    # The reference types the model's times as datetime.datetime.
    now = datetime.datetime.now(datetime.timezone.utc)
    for when in (model.creation_time, model.last_updated_time, client.get_model("digits").creation_time):
        check(isinstance(when, datetime.datetime) and abs((now - when).total_seconds()) < 600,
              f"a model time is a datetime near now: {when!r}")
    raises(client.APIException, "already exists", lambda: client.create_model("digits"))
    other = client.create_model("another", labels=["sgd", "old"])
    check(client.get_model("digits").model_id == 1 and client.get_model(2).name == "another", "get_model by name/id")
    check(client.get_model_by_id(1).name == "digits", "get_model_by_id")
    check([m.name for m in client.get_models()] == ["another", "digits"], "sorted by name")
    check([m.name for m in client.get_models(order_by=client.ModelOrderBy.DESCENDING)] == ["digits", "another"], "desc")
    check([m.name for m in client.get_models(name="dig")] == ["digits"], "filtered by name")
    check([m.name for m in client.get_models(description="best")] == ["digits"], "filtered by description")
    check(client.get_model_labels() == ["sgd", "old"], client.get_model_labels())
    check(model.get_version() is None, "no version yet")
    v1 = model.register_version(best.uuid)
    v2 = model.register_version(exp.get_trials()[0].top_checkpoint().uuid)
    check((v1.model_version, v2.model_version) == (1, 2), (v1, v2))
    check(model.get_version().model_version == 2 and model.get_version(1).checkpoint.uuid == best.uuid, "get_version")
    check([v.model_version for v in model.get_versions()] == [2, 1], "versions, newest first")
    check([v.model_version for v in model.get_versions(client.ModelOrderBy.ASCENDING)] == [1, 2], "ascending")
    raises(client.NotFoundException, "no version 7", lambda: model.get_version(7))
    check(isinstance(model.get_version(1).creation_time, datetime.datetime), "a version's creation_time is a datetime")
    # A registered checkpoint, or its experiment, cannot be deleted (Determined refuses too).
    raises(client.APIException, "version 1 of model 'digits'", lambda: client.get_checkpoint(best.uuid).delete())
    check(client.get_checkpoint(best.uuid).state == client.CheckpointState.COMPLETED, "the refused delete kept it")
    message = raises(client.APIException, "version 1 of model 'digits'", exp.delete)
    check(best.uuid in message, f"the refusal names the checkpoint: {message}")
    check(exp.state == client.ExperimentState.COMPLETED, "the refused delete kept the experiment")
    check([v.checkpoint.uuid for v in model.get_versions(client.ModelOrderBy.ASCENDING)][0] == best.uuid,
          "get_versions() still works after the refusals")
    raises(client.NotFoundException, "no-such", lambda: model.register_version("no-such"))
    model.add_metadata({"stage": "prod"})
    model.remove_metadata(["owner"])
    model.set_labels(["final"])
    model.archive()
    again = client.get_model("digits")
    check(again.metadata == {"stage": "prod"} and again.labels == ["final"] and again.archived, vars(again))
    model.unarchive()
    check(not client.get_model(1).archived, "unarchive")
    # searcher-run model, the registry's one owner, refuses bad input naming the option, the value
    # and what it expected, and changes nothing then.
    bad = cli("model", "update", "--id", 1, "--add-metadata", "[1]", expect=2).stderr
    check("--add-metadata: expected a JSON object, got '[1]'" in bad, bad)
    bad = cli("model", "update", "--name", "digits", "--labels", '["a", 2]', expect=2).stderr
    check("--labels: expected a JSON array of strings, got '[\"a\", 2]'" in bad, bad)
    bad = cli("model", "describe", "--id", 1, "--name", "digits", expect=2).stderr
    check("give --id N or --name NAME" in bad, bad)
    check("must be one of list, create" in cli("model", "rename", expect=2).stderr, "an unknown action")
    shown = json.loads(cli("model", "describe", "--name", "digits", "--json").stdout)
    check(shown["metadata"] == {"stage": "prod"} and shown["labels"] == ["final"]
          and [v["version"] for v in shown["versions"]] == [1, 2], f"the refused updates changed nothing: {shown}")
    other.delete()
    raises(client.NotFoundException, "another", lambda: client.get_model("another"))
    # A checkpoint registered while its experiment runs is kept by the save policy (which keeps
    # only each trial's latest and best: here its last), as Determined's GC skips registered ones.
    running = client.create_experiment(config(xs=(3,), sleep=0.3, length=6), str(model_dir))
    def early_checkpoints():
        found = []
        for c in checkpoints_of(running):
            try:
                if json.loads((c / "metadata.json").read_text())["steps_completed"] < 6:
                    found.append(c.name)
            except (OSError, ValueError):
                pass  # not written yet
        return found
    poll(early_checkpoints, "a checkpoint before the last")
    early = early_checkpoints()[0]
    kept = model.register_version(early)
    wait(running, "COMPLETED")
    check(client.get_checkpoint(early).state == client.CheckpointState.COMPLETED
          and model.get_version(kept.model_version).checkpoint.uuid == early,
          f"a registered checkpoint survives the save policy: {sorted(p.name for p in checkpoints_of(running))}")
    check(len(checkpoints_of(running)) == 2, "the save policy still deleted the others")
    # The save policy reads the registry and deletes under the registry's lock. While a
    # registration holds it, a closed trial's checkpoints wait (the run goes on: the next trial
    # starts), and what is registered meanwhile is kept. The registration here is the client's
    # own steps, done while this process holds the lock.
    last = client.create_experiment(config(xs=(3, 4), sleep=0.1, length=4, concurrent=1), str(model_dir))
    runner_log = pathlib.Path(last.describe()["run_dir"]) / "runner.log"

    def stored_steps():  # x -> {steps: uuid} of the checkpoints on disk
        found = {}
        for c in checkpoints_of(last):
            try:
                meta = json.loads((c / "metadata.json").read_text())
            except (OSError, ValueError):
                continue  # being written
            found.setdefault(meta["x"], {})[meta["steps_completed"]] = c.name
        return found

    def next_started():
        text = runner_log.read_text() if runner_log.exists() else ""
        return " closed" in text and " started (" in text[text.index(" closed"):]
    # The registry's lock as docs/store.md documents it: an exclusive flock on ROOT/models/lock.
    models = home / "store" / "models"
    with open(models / "lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        poll(next_started, "the next trial to start while the registry is locked", timeout=120)
        time.sleep(1)  # time for a save policy that ignored the lock to delete
        steps = stored_steps()
        done = [x for x, s in steps.items() if sorted(s) == [1, 2, 3, 4]]
        check(done and all(sorted(s) == list(range(1, len(s) + 1)) for s in steps.values()),
              f"no checkpoint deleted while the registry is locked: {steps}")
        first = steps[done[0]][1]
        record = json.loads((models / "1.json").read_text())  # "digits"
        versions = record.setdefault("versions", [])
        versions.append({"version": versions[-1]["version"] + 1, "checkpoint_uuid": first,
                         "experiment_id": last.id,
                         "creation_time": datetime.datetime.now(datetime.timezone.utc).isoformat()})
        (models / "1.json.tmp").write_text(json.dumps(record, indent=2))
        os.replace(models / "1.json.tmp", models / "1.json")
    wait(last, "COMPLETED")
    left = {x: sorted(s) for x, s in stored_steps().items()}
    other = ({3, 4} - {done[0]}).pop()
    check(left == {done[0]: [1, 4], other: [4]} and stored_steps()[done[0]][1] == first,
          f"the checkpoint registered while the policy waited is kept, the others deleted: {left}")
    model.delete()  # no version refers to the experiments any more
    last.delete()
    running.delete()
    exp.delete()
    raises(client.NotFoundException, f"experiment {exp.id} not found", lambda: client.get_experiment(exp.id))


def pause():
    exp = client.create_experiment(config(sleep=0.3, length=12), str(model_dir))
    exp.await_first_trial()
    poll(lambda: len(checkpoints_of(exp)) >= 2, "the first checkpoints")
    raises(client.APIException, "pause or kill it", exp.delete)
    exp.pause()
    check(exp.state == client.ExperimentState.PAUSED, f"pause() returns once paused: {exp.state}")
    # Determined's wait() raises ValueError on a paused experiment (it would never end).
    raises(ValueError, f"Experiment {exp.id} is in paused state. Make sure the experiment is active.",
           lambda: exp.wait(interval=0.1))
    log = (home / "store" / "experiments" / str(exp.id) / "experiment.log").read_text()
    check(f"continue with: searcher-run activate {exp.id}\n" in log and "searcher-run resume" not in log,
          f"a paused store run names activate: {log[-300:]}")
    states = {t.id: t.state for t in exp.get_trials()}
    check(client.TrialState.PAUSED in states.values() and client.TrialState.ACTIVE not in states.values(),
          f"a paused experiment's unfinished trials read PAUSED: {states}")
    ids = [t.id for t in exp.get_trials()]
    exp.activate()
    check(exp.state in (client.ExperimentState.ACTIVE, client.ExperimentState.COMPLETED), exp.state)
    wait(exp, "COMPLETED")
    check([t.id for t in exp.get_trials()][:len(ids)] == ids, "a resumed experiment keeps its trial ids")
    check(len(exp.get_trials()) == 4 and exp.top_checkpoint().metadata["x"] == 3, "the search finished")
    log = "".join(t for trial in exp.get_trials() for t in trial.logs())
    check("paused at step" in log, "some trial was paused mid-operation and resumed")


def kill():
    exp = client.create_experiment(config(sleep=0.5, length=40), str(model_dir))
    exp.await_first_trial()
    exp.kill()
    check(exp.state == client.ExperimentState.CANCELED, f"kill() returns once canceled: {exp.state}")
    check(exp.wait(interval=0.1) == client.ExperimentState.CANCELED, "wait() returns CANCELED")
    states = {t.id: t.state for t in exp.get_trials()}
    check(client.TrialState.CANCELED in states.values() and client.TrialState.ACTIVE not in states.values(),
          f"a killed experiment's unfinished trials read CANCELED: {states}")
    raises(client.APIException, "only a PAUSED experiment can be activated", exp.activate)
    exp.kill()  # nothing to do: it has ended
    # A trial that does not respond (a step of 1000 s) is stopped at once, not after the pause's
    # 30 s grace: the runner finds the kill's mark on the first SIGTERM. Its log says it was
    # killed and advises no activate.
    stuck = client.create_experiment(config(xs=(3,), sleep=1000, length=2), str(model_dir))
    trial = stuck.await_first_trial()
    poll(lambda: any("starts at step 0" in line for line in trial.logs()), "the stuck trial to start")
    started = time.monotonic()
    stuck.kill()
    elapsed = time.monotonic() - started
    check(stuck.state == client.ExperimentState.CANCELED and elapsed < 20,
          f"kill() of a stuck trial: {stuck.state} after {elapsed:.1f} s (the pause grace is 30 s)")
    log = pathlib.Path(stuck.describe()["log"]).read_text()
    check("received SIGTERM: the experiment is killed: stopping every trial now" in log
          and "pausing every trial" not in log, log[-2000:])
    check(log.rstrip().splitlines()[-1] == "killed: 1 trials (0 completed, 0 stopped, 0 errored); the experiment is "
          "canceled and cannot be continued" and "activate" not in log, log[-2000:])
    # A paused experiment killed becomes CANCELED too.
    paused = client.create_experiment(config(sleep=0.5, length=40), str(model_dir))
    paused.await_first_trial()
    paused.pause()
    paused.kill()
    check(paused.state == client.ExperimentState.CANCELED, paused.state)
    paused.delete()
    raises(client.NotFoundException, f"experiment {paused.id} not found", lambda: client.get_experiment(paused.id))


def sigkill():
    exp = client.create_experiment(config(sleep=0.3, length=10), str(model_dir))
    exp.await_first_trial()
    poll(lambda: len(checkpoints_of(exp)) >= 2, "the first checkpoints")
    pid = exp.describe()["pid"]
    os.kill(pid, signal.SIGKILL)
    poll(lambda: exp.state == client.ExperimentState.PAUSED, "the killed runner's experiment to read PAUSED")
    check("without recording an end" in exp.describe()["reason"], exp.describe()["reason"])
    before = {t.id: t._request_id for t in exp.get_trials()}
    exp.activate()
    wait(exp, "COMPLETED")
    after = {t.id: t._request_id for t in exp.get_trials()}
    check(all(after[i] == r for i, r in before.items()), f"trial ids survive the crash: {before} {after}")
    entries = [json.loads(line) for line in (home / "store" / "trials.jsonl").read_text().splitlines()]
    check(len(entries) == len({e["trial_id"] for e in entries}) == 4, f"one id per trial: {entries}")
    check(exp.top_checkpoint().metadata["x"] == 3, "the search finished with the right best")


def errors():
    bad = home / "bad.yaml"
    bad.write_text("name: bad\nentrypoint: true\nsearcher:\n  name: grid\n  metric: loss\n  max_length: {batches: -3}\n"
                   "hyperparameters: {}\n")
    message = raises(client.APIException, str(bad), lambda: client.create_experiment(str(bad), str(model_dir)))
    check(f"{bad}:6:" in message, f"the config error has file:line:col: {message}")
    check(not (home / "store" / "experiments" / "1").exists(), "nothing is stored for a bad config")
    raises(client.NotFoundException, "experiment 42 not found", lambda: client.get_experiment(42))
    raises(client.NotFoundException, "trial 42 not found", lambda: client.get_trial(42))
    raises(client.NotFoundException, "checkpoint 0123-abc not found", lambda: client.get_checkpoint("0123-abc"))
    raises(client.NotFoundException, "model 'nope' not found", lambda: client.get_model("nope"))
    raises(client.APIException, "model directory", lambda: client.create_experiment(config(), str(home / "missing")))
    raises(ValueError, "needs model_dir", lambda: client.create_experiment(config()))
    # A bad config given as a dict: the error names the dict and the field, not a temporary file.
    bad_dict = config()
    bad_dict["searcher"]["max_length"] = {"batches": -3}
    message = raises(client.APIException, "<config dict>: searcher.max_length",
                     lambda: client.create_experiment(bad_dict, str(model_dir)))
    check("config.yaml" not in message and "/tmp" not in message and "-3" in message,
          f"the dict's error says what was wrong, naming no temporary file: {message}")
    # A model definition over Determined's limit, 95 MiB after .detignore (its CLI's
    # MAX_CONTEXT_SIZE: 128 MiB base64-encoded less 1 MiB), is refused before anything is
    # stored, naming the directory, its size and the limit. Determined counts a file by its
    # base64 length x 3/4: 95 MiB - 1 byte (a sparse file: nothing written) counts 95 MiB + 1.
    big = home / "big-model"
    big.mkdir()
    with open(big / "weights.bin", "wb") as f:
        f.truncate(95 * 2**20 - 1)
    message = raises(client.APIException, "over Determined's limit",
                     lambda: client.create_experiment(config(xs=(3,)), str(big)))
    check(f"model directory '{big}' holds 95.0 MiB (99614721 bytes) after .detignore, over Determined's "
          "limit on a model definition, 95.0 MiB (99614720 bytes); nothing was stored" in message, message)
    check(not (home / "store" / "experiments").exists() or not any((home / "store" / "experiments").iterdir()),
          "nothing stored for a model over the limit")
    # Left out by its .detignore, the same file is no part of the model definition.
    (big / ".detignore").write_text("*.bin\n")
    shutil.copy(model_dir / "trial.py", big / "trial.py")
    exp = client.create_experiment(config(xs=(3,)), str(big))
    wait(exp, "COMPLETED")
    check(sorted(p.name for p in pathlib.Path(exp.describe()["model_dir"]).iterdir()) == [".detignore", "trial.py"],
          "the snapshot leaves out what .detignore names")
    message = cli("describe", "9", expect=2).stderr
    # The creates refused above (a missing model directory, a model over the limit) were refused
    # before an id was taken.
    check(exp.id == 1, f"the id after refused creates: {exp.id}")
    check("experiment 9 not found" in message and "(experiments: 1)" in message, message)
    check("'x' is not an experiment id" in cli("pause", "x", expect=2).stderr, "a bad id is named")
    check("COMPLETED: only an ACTIVE experiment can be paused" in cli("pause", "1", expect=2).stderr, "pause a completed")
    # A store experiment's run is continued by activate, which keeps the store's records.
    run_dir = home / "store" / "experiments" / "1" / "run"
    message = cli("resume", f"{run_dir}/", expect=2).stderr
    check("is the run of experiment 1 in the experiment store" in message and "searcher-run activate 1" in message,
          message)
    client.login(master="http://ignored:8080", user="me")  # accepted, nothing to log in to
    check(client.get_experiment(1).id == 1, "login() keeps the client working")
    # A trial that fails: the experiment ends ERROR.
    (model_dir / "fail.py").write_text("raise SystemExit(3)\n")
    failing = config(xs=(1,))
    failing["entrypoint"] = f"{sys.executable} fail.py"
    failed = client.create_experiment(failing, str(model_dir))
    wait(failed, "ERROR")
    # An experiment that errored did not finish its search: Determined's master saves the
    # progress when a trial reports progress and sets 100% only when the experiment completes,
    # so it keeps that of the last report: this trial reported 1 of max_length 4 before it
    # failed (max_restarts 0), 25%, though the searcher counts the errored trial as done.
    (model_dir / "fail_late.py").write_text(
        "import determined as det\n"
        "with det.core.init() as ctx:\n"
        "    for op in ctx.searcher.operations():\n"
        "        op.report_progress(1)\n"
        "        ctx.train.report_training_metrics(1, {'loss': 1.0})\n"
        "        raise SystemExit(3)\n")
    failing["entrypoint"] = f"{sys.executable} fail_late.py"
    failed = client.create_experiment(failing, str(model_dir))
    wait(failed, "ERROR")
    check(failed.progress == 0.25, f"an errored experiment's progress: {failed.progress}")
    listed = json.loads(cli("ls", "--json").stdout)
    check([e["progress"] for e in listed if e["id"] == failed.id] == [0.25], f"ls --json: {listed}")


def hostile():
    # A checkpoint is named by its id, never by a path: nothing outside the checkpoint storage is
    # reachable through get_checkpoint() (issue 25).
    exp = client.create_experiment(config(xs=(3,)), str(model_dir))
    wait(exp, "COMPLETED")
    run_dir = pathlib.Path(exp.describe()["run_dir"])
    before = sorted(p.relative_to(run_dir) for p in run_dir.rglob("*"))
    outside = home / "outside"
    outside.mkdir()
    (outside / "metadata.json").write_text("{}")
    (outside / "precious.txt").write_text("keep me")
    storage = run_dir / "checkpoints"
    (storage / "link").symlink_to(outside)  # a link in storage is not a checkpoint either
    for name in ("..", ".", "", "experiments", str(outside), "../../..", "a/../..", "link", "x\\y"):
        raises(client.APIException, "", lambda: client.get_checkpoint(name).delete())
    for value in (None, 7, ["x"]):
        raises(client.APIException, "is not a checkpoint id", lambda: client.get_checkpoint(value))
    raises(client.APIException, "is not a checkpoint id", lambda: client.get_checkpoint(".."))
    raises(client.APIException, "is not a checkpoint id", lambda: client.get_checkpoint(str(outside)))
    raises(client.NotFoundException, "checkpoint experiments not found", lambda: client.get_checkpoint("experiments"))
    raises(client.NotFoundException, "checkpoint link not found", lambda: client.get_checkpoint("link"))
    (storage / "link").unlink()
    check((outside / "precious.txt").read_text() == "keep me", "the directory outside the store is untouched")
    after = sorted(p.relative_to(run_dir) for p in run_dir.rglob("*"))
    check(after == before, f"the experiment's run directory is untouched: {before} -> {after}")
    check(len(exp.get_trials()) == 1 and exp.state == client.ExperimentState.COMPLETED, "the experiment is intact")
    listed = json.loads(cli("ls", "--json").stdout)
    check([(e["id"], e["state"], e["trials"]) for e in listed] == [(1, "COMPLETED", 1)], listed)
    # The real checkpoint is still found by its id.
    best = exp.top_checkpoint()
    check(client.get_checkpoint(best.uuid).uuid == best.uuid, "a checkpoint id is found")
    shown = json.loads(cli("checkpoint", best.uuid, "--json").stdout)
    stored_metadata = json.loads((storage / best.uuid / "metadata.json").read_text())
    check({k: v for k, v in shown.items() if k != "report_time"}
          == {"uuid": best.uuid, "experiment_id": 1, "storage": str(storage),
              "directory": str(storage / best.uuid), "metadata": stored_metadata}
          and shown["report_time"].endswith("Z"), f"searcher-run checkpoint --json: {shown}")
    bad = cli("checkpoint", best.uuid, "--add-metadata", "[]", expect=2).stderr
    check("--add-metadata: expected a JSON object, got '[]'" in bad, bad)
    check(json.loads((storage / best.uuid / "metadata.json").read_text()) == stored_metadata,
          "a refused metadata change changed nothing")
    # A trial's metrics and output through searcher-run trial, against its files read here.
    trial_id = exp.get_trials()[0].id
    (trial_dir,) = (run_dir / "trials").iterdir()
    reports = [json.loads(line) for line in (trial_dir / "metrics.jsonl").read_text().splitlines()]
    check(json.loads(cli("trial", trial_id, "--metrics").stdout) == reports and reports,
          "trial --metrics is metrics.jsonl")
    check(json.loads(cli("trial", trial_id, "--metrics", "--group", "validation").stdout)
          == [r for r in reports if r["group"] == "validation"], "trial --metrics --group validation")
    output = (trial_dir / "output.log").read_bytes()
    check(output and subprocess.run([searcher_run, "trial", str(trial_id), "--logs", "--from-byte", "3"],
                                    capture_output=True, check=True).stdout == output[3:], "trial --logs --from-byte 3")
    check("--group is for --metrics" in cli("trial", trial_id, "--group", "validation", expect=2).stderr,
          "trial --group without --metrics")
    check("exclude each other" in cli("trial", trial_id, "--json", "--logs", expect=2).stderr, "--json --logs")
    for name in ("..", "a/b", "/etc"):
        check("is not a checkpoint id" in cli("checkpoint", name, "--delete", expect=2).stderr,
              f"searcher-run checkpoint refuses {name!r}")

    # download() into a directory that has files: every file of the checkpoint is copied over
    # them (Determined's shared_fs download overwrites), never metadata.json alone.
    target = home / "not-empty"
    (target / "sub").mkdir(parents=True)
    (target / "model.json").write_text('{"stale": true}')
    (target / "other.txt").write_text("mine")
    check(best.download(str(target)) == str(target), "download returns the path")
    check(json.loads((target / "model.json").read_text()) == {"x": 3, "steps": 4},
          f"the checkpoint's model.json replaced the stale one: {(target / 'model.json').read_text()}")
    check(json.loads((target / "metadata.json").read_text())["steps_completed"] == 4, "metadata.json")
    check((target / "other.txt").read_text() == "mine", "a file of the caller's that the checkpoint lacks is kept")
    stored = sorted(p.name for p in (storage / best.uuid).iterdir())
    check(all((target / name).is_file() for name in stored), f"every stored file was copied: {stored}")
    a_file = home / "a-file"
    a_file.write_text("x")
    raises(client.APIException, "is not a directory", lambda: best.download(str(a_file)))

    # An id that is not a positive integer never reaches searcher-run's command line (as an option).
    raises(client.NotFoundException, "experiment -1 not found", lambda: client.get_experiment(-1))
    raises(client.NotFoundException, "experiment 0 not found", lambda: client.get_experiment(0))
    for bad in ("-1", "--help", "1 2", None, 1.5):
        raises(client.APIException, "is not an experiment id", lambda: client.get_experiment(bad))
    check(client.get_experiment("1").id == 1, "an id given as digits is still accepted")

    # The store is its user's alone: root 0700 (an older, open store is closed on first use),
    # files 0600, the trials' channel socket 0600 (connecting needs write permission).
    store = home / "store"
    check(store.stat().st_mode & 0o777 == 0o700, f"the store root is 0700: {oct(store.stat().st_mode)}")
    check((store / "trials.jsonl").stat().st_mode & 0o077 == 0, "trials.jsonl is its owner's only")
    store.chmod(0o755)
    cli("ls")
    check(store.stat().st_mode & 0o777 == 0o700, f"an open store is closed: {oct(store.stat().st_mode)}")

    # A torn last line of trials.jsonl (a crash mid-append) is ended before the next line: the
    # next experiment's trials keep their ids. Its name carries terminal escape codes, which
    # ls and describe show escaped.
    with open(store / "trials.jsonl", "a") as f:
        f.write('{"trial_id": 99, "experim')
    evil = "evil\x1b]0;pwned\x07\x1b[2J\u009b31m"
    second = client.create_experiment(config(xs=(2, 4), sleep=0.3, length=4, name=evil), str(model_dir))
    sock = pathlib.Path(second.describe()["run_dir"]) / "channel.sock"
    poll(sock.exists, "the channel socket")
    check(sock.stat().st_mode & 0o777 == 0o600, f"the channel socket is 0600: {oct(sock.stat().st_mode)}")
    wait(second, "COMPLETED")
    trials = second.get_trials()
    check(len(trials) == 2 and len({t.id for t in trials}) == 2, f"both trials have their ids: {trials}")
    lines = (store / "trials.jsonl").read_text().splitlines()
    check(lines[-3] == '{"trial_id": 99, "experim' and all(json.loads(x)["experiment_id"] == 2 for x in lines[-2:]),
          f"the torn line is kept apart, each new trial on a line of its own: {lines}")
    for args in (("ls",), ("describe", "2")):
        shown = cli(*args).stdout
        check("\x1b" not in shown and "\x07" not in shown and "\u009b" not in shown,
              f"searcher-run {args[0]} prints no control character: {shown!r}")
        check("evil\\x1b]0;pwned\\x07\\x1b[2J\\u009b31m" in shown, f"the name is shown escaped: {shown!r}")
    check(second.describe()["name"] == evil, "--json keeps the name as it is")
    # The trial index is read through searcher-run (trial ID --json, describe's trial_index),
    # equal to what trials.jsonl records.
    recorded = {e["trial_id"]: e for e in map(json.loads, lines[-2:])}
    for t in trials:
        check(json.loads(cli("trial", t.id, "--json").stdout) == recorded[t.id], f"searcher-run trial {t.id}")
    check(second.describe()["trial_index"] == [recorded[i] for i in sorted(recorded)], "describe's trial_index")
    check("not a trial id" in cli("trial", "x", expect=2).stderr, "a bad trial id is named")
    raises(client.NotFoundException, "trial -1 not found", lambda: client.get_trial(-1))
    raises(client.APIException, "is not a trial id", lambda: client.get_trial("--help"))

    # A damaged record (cut short) is said to be damaged, not read as a state.
    state_json = store / "experiments" / "1" / "state.json"
    whole = state_json.read_text()
    state_json.write_text(whole[:len(whole) // 2])
    described = client.get_experiment(1).describe()
    check(described["damaged"] == ["state.json"] and "damaged" in described["reason"]
          and "never started" not in described["reason"], described)
    check("DAMAGED: state.json" in cli("describe", "1").stdout, cli("describe", "1").stdout)
    state_json.write_text(whole)
    experiment_json = pathlib.Path(second.describe()["run_dir"]) / "experiment.json"
    whole = experiment_json.read_text()
    experiment_json.write_text(whole[:len(whole) // 2])
    listed = {e["id"]: e for e in json.loads(cli("ls", "--json").stdout)}
    check(listed[2]["damaged"] == ["run/experiment.json"] and listed[2]["trials"] is None
          and listed[1]["damaged"] == [] and listed[1]["trials"] == 1, listed)
    row = [line for line in cli("ls").stdout.splitlines() if line.startswith("2 ")]
    check(row and "COMPLETED (DAMAGED)" in row[0] and " 0 " not in row[0], f"ls says it is damaged: {row}")
    check("DAMAGED: run/experiment.json" in cli("describe", "2").stdout, "describe names the damaged file")
    experiment_json.write_text(whole)
    check(client.get_experiment(2).describe()["damaged"] == [], "a repaired record reads again")

    # The store's format_version (docs/store.md): stamped, a newer one refused, a missing one
    # (a store from before the field) stamped again.
    stamp = store / "store.json"
    check(json.loads(stamp.read_text()) == {"format_version": 1}, stamp.read_text())
    stamp.write_text('{"format_version": 2}\n')
    message = cli("ls", expect=2).stderr
    check("has format_version 2" in message and "reads format_version 1" in message and str(stamp) in message,
          message)
    raises(client.APIException, "has format_version 2", lambda: client.get_experiment(1))
    stamp.write_text('{"format_v')
    check("is damaged" in cli("ls", expect=2).stderr, "a damaged store.json is refused")
    stamp.unlink()
    check([e["id"] for e in json.loads(cli("ls", "--json").stdout)] == [1, 2], "a store without store.json is read")
    check(json.loads(stamp.read_text()) == {"format_version": 1}, "and stamped")


def config_case():
    # The experiment seed: one is chosen at creation when the config has none (as Determined's
    # master does), recorded, and reproduces the experiment when given back.
    random_search = config(name="seeded")
    random_search["hyperparameters"]["x"] = {"type": "double", "minval": 0, "maxval": 6}
    random_search["searcher"] = {"name": "random", "metric": "loss", "smaller_is_better": True,
                                 "max_length": {"batches": 1}, "max_trials": 2, "max_concurrent_trials": 2}
    config_file = model_dir / "random.yaml"
    config_file.write_text(json.dumps(random_search))

    def run(*extra):
        created = json.loads(cli("create", "--config", config_file, "--json", *extra).stdout.splitlines()[0])
        described = client.get_experiment(created["id"]).describe()
        check(described["state"] == "COMPLETED", described)
        hparams = sorted(t["hparams"]["x"] for t in described["experiment"]["trials"])
        run_json = json.loads((pathlib.Path(described["run_dir"]) / "run.json").read_text())
        used = json.loads((pathlib.Path(described["run_dir"]) / "config.json").read_text())
        check(isinstance(described["seed"], int) and run_json["seed"] == described["seed"]
              and used["reproducibility"]["experiment_seed"] == described["seed"],
              f"the seed is in describe, run.json and the trials' config: {described['seed']} {run_json} {used}")
        return described["seed"], hparams
    seed_a, hparams_a = run()
    seed_b, hparams_b = run()
    check(seed_a != seed_b and hparams_a != hparams_b,
          f"two experiments without a seed get their own seeds and hyperparameters: {seed_a} {hparams_a}, "
          f"{seed_b} {hparams_b}")
    check(run("--seed", seed_a) == (seed_a, hparams_a), "the recorded seed reproduces the experiment")
    random_search["reproducibility"] = {"experiment_seed": seed_b}
    config_file.write_text(json.dumps(random_search))
    check(run() == (seed_b, hparams_b), "the config's experiment_seed is used when given")
    check(run("--seed", seed_a) == (seed_a, hparams_a), "--seed wins over the config's experiment_seed")

    # checkpoint_storage shared_fs: checkpoints go under host_path/storage_path. A trial that
    # crashes after its checkpoint is relaunched from it and reports the steps after it again:
    # the first run's reports of those steps are rolled back (Determined), each step once.
    shared = home / "shared"
    relaunched = config(xs=(3,), checkpoint_every=2, crash_at=3)
    relaunched["max_restarts"] = 1
    relaunched["checkpoint_storage"] = {"type": "shared_fs", "host_path": str(shared), "storage_path": "ckpts",
                                        "save_trial_latest": 5}
    exp = client.create_experiment(relaunched, str(model_dir))
    wait(exp, "COMPLETED")
    (trial,) = exp.get_trials()
    check("crashes at step 3" in "".join(trial.logs()), "the trial crashed once")
    training = [(m.steps_completed, m.metrics["run"]) for m in trial.get_metrics("training")]
    check(training == [(1, 1), (2, 1), (3, 2), (4, 2)],
          f"each step once, steps after the checkpoint (2) from the relaunch (run 2): {training}")
    check([m.steps_completed for m in trial.get_metrics("validation")] == [4], "one validation")
    # runner.log gives each figure its unit: the target is the searcher's (max_length: batches),
    # a stored checkpoint's length the steps_completed the trial reported with it.
    log = (pathlib.Path(exp.describe()["run_dir"]) / "runner.log").read_text()
    check("restarting from its checkpoint at steps_completed 2 (restart 1 of 1)" in log, log)
    check("train to 4 batches, from its checkpoint at steps_completed 2)" in log, log)
    summary = exp.describe()["experiment"]["trials"][0]["metrics"]["groups"]
    check(summary["training"]["reports"] == 4 and summary["training"]["last"]["metrics"]["run"] == 2,
          f"describe counts each step once: {summary}")
    stored = sorted(p.name for p in (shared / "ckpts").iterdir())
    check(len(stored) == 2 and not checkpoints_of(exp), f"checkpoints at 2 and 4 in host_path/storage_path: {stored}")
    best = exp.top_checkpoint()
    check(best.uuid in stored and best.metadata["steps_completed"] == 4, best.metadata)
    check(client.get_checkpoint(best.uuid).training.experiment_id == exp.id, "found by uuid in shared storage")
    path = pathlib.Path(best.download(str(home / "best")))
    check(json.loads((path / "model.json").read_text()) == {"x": 3, "steps": 4}, "downloaded from shared storage")
    exp.delete()
    check(not list((shared / "ckpts").iterdir()), "deleting the experiment deletes its checkpoints in shared storage")
    # Other storage types are refused before anything is stored.
    s3 = config()
    s3["checkpoint_storage"] = {"type": "s3", "bucket": "b"}
    message = raises(client.APIException, "checkpoint_storage.type", lambda: client.create_experiment(s3, str(model_dir)))
    check('"s3"' in message and "shared_fs" in message, message)
    relative = config()
    relative["checkpoint_storage"] = {"type": "shared_fs", "host_path": "relative/dir"}
    raises(client.APIException, "checkpoint_storage.host_path", lambda: client.create_experiment(relative, str(model_dir)))
    escaping = config()
    escaping["checkpoint_storage"] = {"type": "shared_fs", "host_path": str(shared), "storage_path": "../elsewhere"}
    raises(client.APIException, "must be a directory under it", lambda: client.create_experiment(escaping, str(model_dir)))
    outside = config()
    outside["checkpoint_storage"] = {"type": "shared_fs", "host_path": str(shared), "storage_path": "/elsewhere"}
    raises(client.APIException, "an absolute storage_path must contain host_path",
           lambda: client.create_experiment(outside, str(model_dir)))
    check(len(json.loads(cli("ls", "--json").stdout)) == 5, "nothing is stored for a refused storage (5 seeded)")


{"lifecycle": lifecycle, "registry": registry, "pause": pause, "kill": kill, "sigkill": sigkill,
 "errors": errors, "config": config_case, "hostile": hostile}[case]()
# Only what the test made is cleaned up; any runner left would hold its store (ended above).
shutil.rmtree(home, ignore_errors=True)
print(f"sdk_test {case}: ok")
