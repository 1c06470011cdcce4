"""Soak test of searcher-run: an ASHA search of tests/runner/trials/soak_trial.py (trials that
crash, hang, write malformed or oversized lines, stop early, report NaN, are invalid or doomed)
with the runner SIGKILLed at random moments and resumed each time.

    soak.py SEARCHER_RUN SOURCE_DIR [--trials N] [--kills K] [--slots S ...] [--seed N]
            [--work DIR] [--trial-timeout SECONDS] [--kill-every SECONDS]

For each --slots value S, an experiment is run with S slots and killed K times (SIGKILL, at a
random moment: a random delay around --kill-every after each start or resume), then resumed
until it ends. After every kill, and at the end, no process of the experiment may be left
(every process carrying its HPSEARCH_EXPERIMENT_KEY; the soak trials' own), and then:
  - no validation and no checkpoint the journal had recorded (complete records) is lost: each
    validation is in the final experiment.json, each trial's latest checkpoint never goes back
    to an earlier length, and every checkpoint recorded still exists on disk;
  - no trial is duplicated: request ids are unique, and no two processes of one trial ever ran
    at once (each holds a lock; a second one writes TRIAL_DIR/DUPLICATE);
  - with S = 1, the final experiment equals an uninterrupted run with the same seed: every
    trial's request id, seed, hyperparameters, validations, outcome and latest checkpoint; the
    searcher's events and operations in the journal (progress reports aside: a relaunched trial
    reports its progress again from its checkpoint); the searcher's final snapshot; restart
    counts (a trial's faults depend on its seed and recorded restarts only, so a fault the
    killed runner never recorded is made again).
Prints the figures (trials, kills, resumes, faults, wall time) and exits 1 on any failure.
"""
import argparse
import json
import os
import random
import signal
import shutil
import subprocess
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("searcher_run")
parser.add_argument("source_dir")
parser.add_argument("--trials", type=int, default=1000)
parser.add_argument("--kills", type=int, default=20)
parser.add_argument("--slots", type=int, nargs="+", default=[1, 4])
parser.add_argument("--seed", type=int, default=7)
parser.add_argument("--work", default=None)
# Long enough that a trial slowed by a loaded machine is not taken for a hung one (that would be
# a restart the uninterrupted run did not have): at 2 s and a load of 18 on 2 cores, one was.
parser.add_argument("--trial-timeout", type=float, default=5.0)
parser.add_argument("--kill-every", type=float, default=None,
                    help="mean seconds between kills (default: the uninterrupted run's time / slots / "
                         "(2 kills), so that every kill lands before the search ends)")
args = parser.parse_args()

TRIAL = os.path.join(os.path.abspath(args.source_dir), "tests", "runner", "trials", "soak_trial.py")
work = args.work or os.path.join("/tmp", f"hpsearch-soak-{os.getpid()}")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
rng = random.Random(args.seed)  # the kill moments; the search itself is seeded by --seed too
failures = []


def fail(message):
    failures.append(message)
    print("FAIL:", message, flush=True)


config = os.path.join(work, "config.yaml")
with open(config, "w") as f:
    f.write(f"""entrypoint: /usr/bin/python3 -I -S {TRIAL}
max_restarts: 4
reproducibility: {{experiment_seed: {args.seed}}}
searcher:
  name: async_halving
  metric: loss
  num_rungs: 3
  divisor: 2
  max_length: 8
  max_trials: {args.trials}
  max_concurrent_trials: 8
hyperparameters:
  x: {{type: double, minval: 0, maxval: 1}}
""")


def run_options(slots):
    return ["--slots", str(slots), "--trial-timeout", str(args.trial_timeout)]


def experiment_key(exp):
    with open(os.path.join(exp, "run.json")) as f:
        return json.load(f)["key"]


def processes_of(key, runner_command=None):
    """Processes whose environment carries the experiment's key (as `ps e` would show), and
    with `runner_command` (the killed runner's, which has been reaped) the runner's forks: its
    trials' shepherds, and a trial forked but not yet exec'd, which carry the runner's command
    line and not yet the key. Without them, a trial exec'd by a shepherd after the check had
    seen nothing would look like a process started after the runner's death."""
    marker = f"HPSEARCH_EXPERIMENT_KEY={key}".encode()
    command = None if runner_command is None else b"\0".join(a.encode() for a in runner_command) + b"\0"
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                if marker in f.read().split(b"\0"):
                    found.append(int(name))
                    continue
            if command is not None:
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    if f.read() == command:
                        found.append(int(name))
        except OSError:
            pass
    return found


def check_no_process_left(exp, when, runner_command=None):
    """Waits up to 5 s for the experiment's processes to go (killed ones take a moment)."""
    key = experiment_key(exp)
    deadline = time.monotonic() + 5
    left = processes_of(key, runner_command)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = processes_of(key, runner_command)
    if left:
        ps = subprocess.run(["ps", "-o", "pid,ppid,args", "-p", ",".join(map(str, left))],
                            capture_output=True, text=True).stdout
        fail(f"{when}: processes of the experiment left: {left}\n{ps}")
    # The trial program by name too: none of this experiment's trials may run.
    pgrep = subprocess.run(["pgrep", "-f", TRIAL], capture_output=True, text=True).stdout.split()
    mine = [int(p) for p in pgrep if int(p) in processes_of(key)]
    if mine:
        fail(f"{when}: soak trials still running: {mine}")


def journal_records(exp):
    """The journal's complete records (a last line without its newline was never acted on),
    up to its first zero byte (the spare space a killed runner leaves: docs/store.md)."""
    records = []
    with open(os.path.join(exp, "journal.jsonl"), "rb") as f:
        text = f.read()
    for line in text[:len(text) if b"\0" not in text else text.index(b"\0")].splitlines(True):
        if not line.endswith(b"\n"):
            break
        records.append(json.loads(line))
    return records


class Recorded:
    """What the journals held at the kills: validations and checkpoints that must survive."""

    def __init__(self):
        self.validations = set()
        self.latest_checkpoint = {}  # request id -> the highest length recorded
        self.checkpoint_paths = set()

    def take(self, exp):
        for r in journal_records(exp):
            event = r.get("in", {})
            if event.get("event") == "validation_completed":
                self.validations.add((event["request_id"], event["length"], json.dumps(event["metric"])))
            if "checkpoint" in r:
                c = r["checkpoint"]
                self.latest_checkpoint[c["request_id"]] = max(self.latest_checkpoint.get(c["request_id"], 0), c["length"])
                self.checkpoint_paths.add(c["path"])


def searcher_transcript(exp):
    """The searcher's events and answers, progress reports aside."""
    out = []
    for r in journal_records(exp):
        if "in" in r and r["in"].get("event") != "trial_progress":
            out.append((json.dumps(r["in"], sort_keys=True), json.dumps(r["out"], sort_keys=True)))
    return out


def comparable(exp):
    """What must equal between an interrupted run and the uninterrupted one."""
    with open(os.path.join(exp, "experiment.json")) as f:
        e = json.load(f)
    with open(os.path.join(exp, "snapshot.json")) as f:
        snapshot = json.load(f)
    trials = []
    for t in e["trials"]:
        checkpoint = t["checkpoint"]
        if checkpoint:
            checkpoint = {"path": os.path.relpath(checkpoint["path"], exp), "length": checkpoint["length"]}
        trials.append({k: t[k] for k in ("request_id", "trial_seed", "hparams", "validations", "outcome",
                                         "exit_reason", "closed", "restarts")} | {"checkpoint": checkpoint})
    return {"state": e["state"], "progress": e["progress"], "trials": trials, "searcher": snapshot["searcher"],
            "transcript": searcher_transcript(exp)}


def run_once(exp, slots):
    started = time.monotonic()
    result = subprocess.run([args.searcher_run, "run", "--config", config, "--dir", exp] + run_options(slots),
                            stdout=subprocess.DEVNULL, stderr=open(exp + ".err", "w"))
    if result.returncode != 0:
        fail(f"the uninterrupted run exited {result.returncode} (see {exp}.err)")
    return time.monotonic() - started


def run_with_kills(exp, slots, kill_every):
    """Runs, SIGKILLs at random moments and resumes until the search ends; returns (kills, resumes)."""
    recorded = Recorded()
    kills = resumes = 0
    log = open(exp + ".err", "w")
    command = [args.searcher_run, "run", "--config", config, "--dir", exp] + run_options(slots)
    while True:
        runner = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log)
        code = None
        if kills < args.kills:
            try:
                code = runner.wait(timeout=rng.uniform(0.1, 2 * kill_every))
            except subprocess.TimeoutExpired:
                runner.send_signal(signal.SIGKILL)
                runner.wait()
                kills += 1
                check_no_process_left(exp, f"after kill {kills}", command)
                recorded.take(exp)
                command = [args.searcher_run, "resume", exp] + run_options(slots)
                resumes += 1
                continue
        else:
            code = runner.wait()
        if code != 0:
            fail(f"searcher-run exited {code} after {kills} kills (see {exp}.err)")
        break
    check_no_process_left(exp, "at the end")
    recorded.take(exp)
    with open(os.path.join(exp, "experiment.json")) as f:
        final = json.load(f)
    if final["state"] != "completed":
        fail(f"the search ended {final['state']}")
    ids = [t["request_id"] for t in final["trials"]]
    if len(ids) != len(set(ids)):
        fail("a request id appears twice in experiment.json")
    for t in final["trials"]:
        if os.path.exists(os.path.join(t["directory"], "DUPLICATE")):
            fail(f"trial {t['trial']} ran twice at once (its DUPLICATE file)")
    after = {(t["request_id"], v["length"], json.dumps(v["metric"])) for t in final["trials"] for v in t["validations"]}
    lost = recorded.validations - after
    if lost:
        fail(f"{len(lost)} validations the journal had recorded are lost, e.g. {sorted(lost)[:3]}")
    latest = {t["request_id"]: (t["checkpoint"] or {}).get("length", 0) for t in final["trials"]}
    back = [(r, n, latest.get(r)) for r, n in recorded.latest_checkpoint.items() if latest.get(r, 0) < n]
    if back:
        fail(f"{len(back)} trials' latest checkpoint went back, e.g. {back[:3]}")
    missing = [p for p in recorded.checkpoint_paths if not os.path.exists(p)]
    if missing:
        fail(f"{len(missing)} recorded checkpoints are gone from disk, e.g. {missing[:3]}")
    return kills, resumes, final


def fault_counts(final):
    counts = {"restarts": 0, "errored": 0, "user_requested_stop": 0, "invalid_hp": 0, "NaN validations": 0}
    for t in final["trials"]:
        counts["restarts"] += t["restarts"]
        if t["exit_reason"] in counts:
            counts[t["exit_reason"]] += 1
        counts["NaN validations"] += sum(1 for v in t["validations"] if v["metric"] == "NaN")
    return counts


total_start = time.monotonic()
figures = []
reference_seconds = None
for slots in args.slots:
    if slots == 1:
        reference = os.path.join(work, "reference")
        reference_seconds = run_once(reference, 1)
        print(f"uninterrupted run, --slots 1: {reference_seconds:.1f} s", flush=True)
    mean = args.kill_every or (reference_seconds or 30.0) / slots / (2 * args.kills)
    exp = os.path.join(work, f"slots-{slots}")
    started = time.monotonic()
    kills, resumes, final = run_with_kills(exp, slots, mean)
    seconds = time.monotonic() - started
    if kills != args.kills:
        fail(f"--slots {slots}: the search ended after {kills} kills, before {args.kills}")
    if slots == 1:
        a, b = comparable(reference), comparable(exp)
        for key in a:
            if a[key] != b[key]:
                detail = ""
                if key == "trials":
                    diff = [i for i, (p, q) in enumerate(zip(a[key], b[key])) if p != q]
                    detail = f" (first differing trial {diff[:1]}: {a[key][diff[0]] if diff else ''} vs {b[key][diff[0]] if diff else ''})"
                fail(f"--slots 1: the interrupted run's {key} differs from the uninterrupted run's{detail}")
        if not failures:
            print("--slots 1: the interrupted run equals the uninterrupted one", flush=True)
    counts = fault_counts(final)
    figures.append((slots, len(final["trials"]), kills, resumes, seconds, counts))
    print(f"--slots {slots}: {len(final['trials'])} trials, {kills} kills, {resumes} resumes, {seconds:.1f} s, "
          + ", ".join(f"{k} {v}" for k, v in counts.items()), flush=True)

print(f"soak: {sum(f[1] for f in figures)} trials, {sum(f[2] for f in figures)} kills, "
      f"{sum(f[3] for f in figures)} resumes, {time.monotonic() - total_start:.1f} s in all"
      + (f" (uninterrupted reference {reference_seconds:.1f} s)" if reference_seconds else "")
      + (f"; {len(failures)} FAILURES" if failures else "; every check passed"), flush=True)
if not failures:
    shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failures else 0)
