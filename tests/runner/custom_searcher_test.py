"""Custom searchers (`searcher: {name: custom}`, docs/custom-searcher.md) end to end, each case in
a temporary store of its own:

    custom_searcher_test.py SEARCHER_RUN SOURCE_DIR CASE

- protocol: `searcher-run searcher ID --events/--post` driven directly: the queue's ids, refused
  operations (named, nothing applied), an answered event dropped, the runner SIGKILLed and
  activated with the queue intact, the client's progress, a shutdown that completes the run;
- local_random, local_asha: Determined's e2e fixture methods (custom_searcher/searchers.py)
  through LocalSearchRunner; the experiments complete with the trial counts the methods imply;
- remote_random, remote_asha: each method as the entrypoint of a one-trial experiment
  (RemoteSearchRunner);
- resume: the method's process SIGKILLed mid-search, LocalSearchRunner started again on the same
  searcher_dir: its state is reloaded; then the runner SIGKILLed and activated: the method waits
  and goes on; the experiment completes with the trials the method implies.

Waits poll with generous deadlines: the machine may be loaded.
"""
import atexit
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time

searcher_run, source, case = os.path.abspath(sys.argv[1]), pathlib.Path(sys.argv[2]).absolute(), sys.argv[3]
home = pathlib.Path(tempfile.mkdtemp(prefix=f"custom-{case}-"))
os.environ["HPSEARCH_HOME"] = str(home / "store")
os.environ["HPSEARCH_SEARCHER_RUN"] = searcher_run
os.environ["PYTHONPATH"] = os.pathsep.join([str(source / "python"), os.environ.get("PYTHONPATH", "")])
sys.path.insert(0, str(source / "python"))
fixtures = source / "tests" / "runner" / "custom_searcher"
sys.path.insert(0, str(fixtures))

DEADLINE = 600  # seconds: far beyond what any case needs on an idle machine
model_dir = home / "model"
model_dir.mkdir()
shutil.copy(fixtures / "model.py", model_dir / "model.py")


def check(condition, what):
    if not condition:
        sys.exit(f"custom_searcher_test {case}: {what}")


def poll(condition, what, timeout=DEADLINE):
    deadline = time.monotonic() + timeout
    while not condition():
        check(time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.1)


def run(*args, ok=True, text=False):
    done = subprocess.run([searcher_run, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check((done.returncode == 0) == ok, f"searcher-run {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stderr if not ok else done.stdout if text else json.loads(done.stdout)


@atexit.register
def stop_runners():
    """A failed case leaves no runner of its store behind (only the ones this test started)."""
    for state in (home / "store" / "experiments").glob("*/state.json"):
        record = json.loads(state.read_text())
        if "pid" in record and "ended" not in record:
            try:
                os.kill(record["pid"], signal.SIGKILL)
            except ProcessLookupError:
                pass


def custom_config(name="custom-test"):
    return {"name": name, "entrypoint": f"{sys.executable} model.py",
            "searcher": {"name": "custom", "metric": "validation_error", "smaller_is_better": True,
                         "unit": "batches"},
            "max_restarts": 0}


def describe(experiment_id):
    return run("describe", str(experiment_id), "--json")


def trials_of(experiment_id):
    return describe(experiment_id)["experiment"]["trials"]


def protocol():
    (model_dir / "custom.json").write_text(json.dumps(custom_config()))
    # Outside the store no client could reach it: `run` refuses, naming the way in.
    message = run("run", "--config", str(model_dir / "custom.json"), "--dir", str(home / "run"), ok=False)
    check("through the experiment store" in message and "searcher-run create" in message, message)
    check(not (home / "run").exists(), "nothing made")
    created = run("create", "--config", str(model_dir / "custom.json"), "--detach", "--json")
    exp = str(created["id"])
    events = run("searcher", exp, "--events", "--wait", "60")
    check(events["events"] == [{"id": 1, "event": "initial_operations"}], f"first queue: {events}")
    a, b = "11111111-2222-4333-8444-555555555555", "21111111-2222-4333-8444-555555555555"

    def create(r, increment):
        return {"type": "create", "request_id": r, "trial_seed": 42, "hparams": {"increment_by": increment}}

    # Refused lists change nothing: each names the operation and why.
    refused = [([{"type": "validate_after", "request_id": a, "length": 3}], "no create operation has requested"),
               ([create(a, 1), create(a, 2)], "already requested"),
               ([create(a, 1), {"type": "validate_after", "request_id": a, "length": 3},
                 {"type": "validate_after", "request_id": a, "length": 5}], "still outstanding"),
               ([create(a, 1), {"type": "close", "request_id": a}, {"type": "close", "request_id": a}],
                "already asked to close")]
    for operations, why in refused:
        message = run("searcher", exp, "--post", json.dumps({"triggered_by": 1, "operations": operations}), ok=False)
        check(why in message and "operation " in message, f"refusal of {operations}: {message}")
    message = run("searcher", exp, "--post", json.dumps({"triggered_by": 7, "operations": []}), ok=False)
    check("event 7 not found" in message, f"an event not yet sent: {message}")
    c = "31111111-2222-4333-8444-555555555555"  # its hyperparameters are invalid: it exits early
    ops = [create(a, 2), {"type": "validate_after", "request_id": a, "length": 3},
           create(b, 5), {"type": "validate_after", "request_id": b, "length": 2},
           {"type": "create", "request_id": c, "trial_seed": 42, "hparams": {"increment_by": 1, "invalid": True}},
           {"type": "validate_after", "request_id": c, "length": 2}]
    check(run("searcher", exp, "--post", json.dumps({"triggered_by": 1, "operations": ops, "progress": 0.25}))
          == {"ok": True}, "the initial operations")
    message = run("searcher", exp, "--post", json.dumps({"triggered_by": 1, "operations": []}), ok=False)
    check("event 1 not found" in message, f"an answered event: {message}")
    # A symbolic link planted in the inbox is never followed: the post outside the store it
    # points to (a valid one, creating trial d) is neither read nor applied, and stays as it was;
    # the link is answered as a malformed post and removed.
    d = "41111111-2222-4333-8444-555555555555"
    name = "00000000000000000001-planted.json"
    outside = home / "outside-post.json"
    outside.write_text(json.dumps({"post": name, "triggered_by": 1, "event": "custom_operations",
                                   "operations": [create(d, 1)]}))
    exchange = home / "store" / "experiments" / exp / "run" / "custom_searcher"
    (exchange / "inbox" / name).symlink_to(outside)
    poll(lambda: (exchange / "results" / name).exists(), "the planted link's answer")
    answer = json.loads((exchange / "results" / name).read_text())
    check("not a JSON object naming itself" in answer.get("error", ""), f"the link refused: {answer}")
    check(not (exchange / "inbox" / name).exists() and outside.exists(), "the link removed, its target kept")
    check(json.loads(outside.read_text())["operations"] == [create(d, 1)], "the target unchanged")
    # A FIFO planted there neither blocks the runner (an open without O_NONBLOCK would wait for a
    # writer forever, and the planted link's answer above shows the inbox is read) nor is read:
    # it is answered as a malformed post and removed like the link.
    fifo = "00000000000000000002-planted.json"
    os.mkfifo(exchange / "inbox" / fifo)
    poll(lambda: (exchange / "results" / fifo).exists(), "the planted FIFO's answer")
    check("error" in json.loads((exchange / "results" / fifo).read_text()), "the FIFO refused")
    check(not (exchange / "inbox" / fifo).exists(), "the FIFO removed")
    # The two trials are created (events 2, 3), then report; nothing else happens until asked.
    seen = []

    def validated(request_id, length):
        answer = run("searcher", exp, "--events")
        seen[:] = answer["events"]
        return any(e["event"] == "validation_completed" and e["request_id"] == request_id and e["length"] == length
                   for e in seen)

    poll(lambda: validated(a, 3) and validated(b, 2) and any(e == {"id": e["id"], "event": "trial_closed",
                                                                    "request_id": c} for e in seen),
         "both validations and the invalid trial's end")
    check(any(e.get("reason") == "invalid_hp" and e["request_id"] == c for e in seen), f"invalid_hp: {seen}")
    check([e["id"] for e in seen] == list(range(2, 2 + len(seen))), f"ids increase from 2: {seen}")
    check({(e["event"], e.get("request_id")) for e in seen[:3]} == {("trial_created", r) for r in (a, b, c)},
          f"the creations come first: {seen}")
    metrics = {e["request_id"]: e["metric"] for e in seen if e["event"] == "validation_completed"}
    check(metrics == {a: 6.0, b: 10.0}, f"metrics are increment_by x length: {metrics}")
    last = seen[-1]["id"]
    # The runner killed outright and activated: the queue is whole, with the same ids.
    pid = json.loads((home / "store" / "experiments" / exp / "state.json").read_text())["pid"]
    os.kill(pid, signal.SIGKILL)
    poll(lambda: not run("searcher", exp, "--events")["alive"], "the runner's death")
    run("activate", exp, text=True)
    poll(lambda: run("searcher", exp, "--events")["alive"], "the runner's return")
    check(run("searcher", exp, "--events")["events"] == seen, "the queue survives a SIGKILL")
    # a trains on to 5 and closes; b closes; then the search shuts down at 100%.
    run("searcher", exp, "--post", json.dumps({"triggered_by": last, "progress": 0.5, "operations": [
        {"type": "validate_after", "request_id": a, "length": 5}, {"type": "close", "request_id": a},
        {"type": "close", "request_id": b},
        # A close for the trial that exited (and closed) changes nothing: accepted, left out.
        {"type": "close", "request_id": c}]}))
    poll(lambda: sum(e["event"] == "trial_closed" for e in run("searcher", exp, "--events")["events"]) == 2,
         "both trials closed")
    events = run("searcher", exp, "--events")["events"]
    check(any(e["event"] == "validation_completed" and e["length"] == 5 and e["metric"] == 10.0 for e in events),
          f"a's second validation: {events}")
    check(run("describe", exp, "--json")["state"] == "ACTIVE", "a custom search never shuts down by itself")
    run("searcher", exp, "--post", json.dumps({"triggered_by": events[-1]["id"], "progress": 1.0,
                                               "operations": [{"type": "shutdown", "cancel": False,
                                                               "failure": False}]}))
    poll(lambda: describe(exp)["state"] == "COMPLETED", "the run's end")
    final = run("searcher", exp, "--events", "--wait", "5")
    check(final["state"] == "completed" and not final["alive"], f"the client sees the end: {final}")
    check(describe(exp)["experiment"]["progress"] == 1.0, "the client's last progress")
    check(len(trials_of(exp)) == 3, "three trials (not d, the planted link's)")


def check_random(experiment_id):
    """RandomSearchMethod(max_trials=5, max_length=4): five trials, each validated once at 4
    with increment_by x 4, each completed; the experiment completed at the method's progress 1."""
    record = describe(experiment_id)
    check(record["state"] == "COMPLETED", f"experiment {experiment_id} is {record['state']}")
    trials = record["experiment"]["trials"]
    check(len(trials) == 5, f"5 trials, got {len(trials)}")
    for t in trials:
        lengths = [v["length"] for v in t["validations"]]
        check(lengths == [4], f"one validation at 4: {t}")
        check(t["validations"][0]["metric"] == 4 * t["hparams"]["increment_by"], f"metric: {t}")
        check(t["outcome"] == "completed", f"completed: {t}")
    check(record["experiment"]["progress"] == 1.0, f"progress {record['experiment']['progress']}")


def check_asha(experiment_id):
    """ASHASearchMethod(max_trials=8, num_rungs=3, divisor=2, max_length=16): rungs need 4, 12
    and 28 units; a promotion asks for the difference (8, then 16). Every metric at a rung is the
    same (increment_by 10), so each rung promotes its 2nd, 4th, ... arrival's predecessor: half of
    8 (4) reach length 8, half of those (2) reach 16; all eight trials complete."""
    record = describe(experiment_id)
    check(record["state"] == "COMPLETED", f"experiment {experiment_id} is {record['state']}")
    trials = record["experiment"]["trials"]
    check(len(trials) == 8, f"8 trials, got {len(trials)}")
    paths = sorted(tuple(v["length"] for v in t["validations"]) for t in trials)
    check(paths == [(4,)] * 4 + [(4, 8)] * 2 + [(4, 8, 16)] * 2, f"rungs reached: {paths}")
    check(all(t["outcome"] == "completed" for t in trials), f"every trial completed: {trials}")


def search_process(method, searcher_dir):
    log = open(home / f"search-{method}.log", "a")
    return subprocess.Popen([sys.executable, str(fixtures / "search.py"), "local", method, str(searcher_dir),
                             str(model_dir)], stdout=log, stderr=subprocess.STDOUT, cwd=str(home))


def local(method):
    from determined import searcher
    import search
    runner = searcher.LocalSearchRunner(search.make_method(method), searcher_dir=home / "searcher")
    experiment_id = runner.run(search.experiment_config(method), model_dir=str(model_dir))
    check(runner.state.experiment_completed, "the runner saw the experiment complete")
    return experiment_id


def remote(method):
    """The method as the entrypoint of a one-trial experiment: it creates experiment 2."""
    shutil.copy(fixtures / "search.py", model_dir / "search.py")
    shutil.copy(fixtures / "searchers.py", model_dir / "searchers.py")
    outer = {"name": "custom-remote", "entrypoint": f"{sys.executable} search.py remote {method}",
             "searcher": {"name": "single", "metric": "validation_error", "max_length": 1}, "max_restarts": 0}
    (home / "outer.json").write_text(json.dumps(outer))
    created = run("create", "--config", str(home / "outer.json"), "--model-dir", str(model_dir), "--json",
                  text=True)
    check(json.loads(created.splitlines()[0])["id"] == 1, f"create: {created}")
    (check_random if method == "random" else check_asha)(2)
    check(describe(1)["state"] == "COMPLETED", f"the searcher's experiment: {describe(1)['state']}")


def resume():
    """The method's process SIGKILLed once it has handled a few events, then started again on the
    same searcher_dir: it reloads its state and the experiment completes as if uninterrupted."""
    searcher_dir = home / "searcher"
    first = search_process("random", searcher_dir)
    poll(lambda: (searcher_dir / "exp_1" / "event_id").exists()
         and int((searcher_dir / "exp_1" / "event_id").read_text()) >= 6, "six events handled")
    first.send_signal(signal.SIGKILL)
    first.wait()
    check(describe(1)["state"] == "ACTIVE", "the experiment waits for its method")
    second = search_process("random", searcher_dir)
    # Then the experiment's runner is SIGKILLed mid-search and activated: the method waits for
    # it (a post it was sending stays in the inbox) and goes on.
    poll(lambda: int((searcher_dir / "exp_1" / "event_id").read_text()) >= 12, "twelve events handled")
    record = json.loads((home / "store" / "experiments" / "1" / "state.json").read_text())
    # (Twelve of the search's 21 events are handled: it is still running, unless the machine
    # stalled this test for seconds; then there is no runner left to kill.)
    if "ended" not in record:
        try:
            os.kill(record["pid"], signal.SIGKILL)
        except ProcessLookupError:
            pass
        poll(lambda: not run("searcher", "1", "--events")["alive"], "the runner's death")
        if describe(1)["state"] != "COMPLETED":
            run("activate", "1", text=True)
    check(second.wait(timeout=DEADLINE) == 0, f"the restarted search: {(home / 'search-random.log').read_text()}")
    log = (home / "search-random.log").read_text()
    check("Resuming HP searcher for experiment 1" in log, "the restart reloaded its state")
    check_random(1)


if __name__ == "__main__":
    {"protocol": protocol,
     "local_random": lambda: check_random(local("random")),
     "local_asha": lambda: check_asha(local("asha")),
     "remote_random": lambda: remote("random"),
     "remote_asha": lambda: remote("asha"),
     "resume": resume}[case]()
    print(f"custom_searcher_test {case}: ok")
