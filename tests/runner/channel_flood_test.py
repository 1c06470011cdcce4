"""The trial channel under a flood of idle connections (issue 25, item 6): connections that never
say hello must not exhaust searcher-run's descriptors, nor make a trial fail.

    channel_flood_test.py SEARCHER_RUN [--work DIR]

A search of six trials (two at a time, speaking the protocol on descriptors 3 and 4 only) runs
with RLIMIT_NOFILE lowered to 48 for the runner. The first two trials wait for a file before
they report, so the search runs as long as this script needs:
  1. one idle connection of ours must be closed by the runner, no sooner than the hello timeout
     (5 s, docs/runner.md "Limits") and within 120 s;
  2. then this script keeps up to 300 idle connections open on the channel socket, opening new
     ones as the runner closes old ones, until runner.log says descriptors ran short; then the
     trials may go on, and the next four start under the flood (pipes: before the fix,
     "pipe: Too many open files" failed trials until max_restarts was used up).
Checked: the search completes, every trial is completed with no restart. Generous bounds only:
it must not fail on a loaded machine.
"""
import argparse
import json
import os
import resource
import select
import shutil
import socket
import subprocess
import sys
import threading
import time

parser = argparse.ArgumentParser()
parser.add_argument("searcher_run")
parser.add_argument("--work", default=None)
args = parser.parse_args()

HELLO_TIMEOUT = 5.0  # Supervisor::kHelloTimeout
NOFILE = 48  # the runner needs about 15 with two trials running; the flood takes the rest
FLOOD = 300

work = args.work or os.path.join("/tmp", f"hpsearch-channel-flood-{os.getpid()}")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def fail(message):
    failures.append(message)
    print("FAIL:", message, flush=True)


trial = os.path.join(work, "trial.py")
go = os.path.join(work, "go")
with open(trial, "w") as f:
    f.write(f"GO = {go!r}\n")
    f.write("""import json, os, time
commands = os.fdopen(3, "r")
reports = os.fdopen(4, "w")
x = float(json.loads(os.environ["HPSEARCH_HPARAMS"])["x"])
for line in commands:
    command = json.loads(line)
    if command["op"] != "validate_after":
        break
    while not os.path.exists(GO):
        time.sleep(0.1)
    time.sleep(0.5)
    reports.write(json.dumps({"type": "validation", "length": command["length"],
                              "metrics": {"loss": (x - 0.3) ** 2}}) + "\\n")
    reports.flush()
""")
config = os.path.join(work, "config.yaml")
with open(config, "w") as f:
    f.write(f"""entrypoint: /usr/bin/python3 -I -S {trial}
max_restarts: 2
reproducibility: {{experiment_seed: 3}}
searcher:
  name: random
  metric: loss
  max_length: 3
  max_trials: 6
  max_concurrent_trials: 2
hyperparameters:
  x: {{type: double, minval: 0, maxval: 1}}
""")

# Our own descriptors: the flood holds hundreds.
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if soft != resource.RLIM_INFINITY and soft < FLOOD + 64:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, FLOOD + 64) if hard != resource.RLIM_INFINITY
                                                else FLOOD + 64, hard))


def runner_limits():
    resource.setrlimit(resource.RLIMIT_NOFILE, (NOFILE, NOFILE))


exp = os.path.join(work, "exp")
log = open(os.path.join(work, "runner.err"), "w")
runner = subprocess.Popen([args.searcher_run, "run", "--config", config, "--dir", exp, "--slots", "2"],
                          stdout=subprocess.DEVNULL, stderr=log, preexec_fn=runner_limits)
address = os.path.join(exp, "channel.sock")
deadline = time.monotonic() + 120
while not os.path.exists(address) and runner.poll() is None and time.monotonic() < deadline:
    time.sleep(0.05)
if not os.path.exists(address):
    print(f"FAIL: no channel socket at {address} (runner exit {runner.poll()})", flush=True)
    runner.kill()
    sys.exit(1)


def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect(address)
        return s
    except OSError:  # the backlog is full (EAGAIN), or the runner has ended
        s.close()
        return None


def closed_by_peer(s):
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


# Our watched connection: idle from the start, it must be closed after the hello timeout.
watched = None
while watched is None and runner.poll() is None:
    watched = connect()
    if watched is None:
        time.sleep(0.01)
watched_opened = time.monotonic()

stop = threading.Event()
opened = [0]
closed_count = [0]


def flood():
    held = []
    while not stop.is_set():
        while len(held) < FLOOD and not stop.is_set():
            s = connect()
            if s is None:
                break
            held.append(s)
            opened[0] += 1
        readable, _, _ = select.select(held, [], [], 0.05) if held else ([], [], time.sleep(0.05))
        for s in readable:
            if closed_by_peer(s):
                s.close()
                held.remove(s)
                closed_count[0] += 1
    for s in held:
        s.close()


watched_closed_after = None
deadline = time.monotonic() + 120
while runner.poll() is None and watched_closed_after is None and time.monotonic() < deadline:
    if select.select([watched], [], [], 0.2)[0] and closed_by_peer(watched):
        watched_closed_after = time.monotonic() - watched_opened

flooder = threading.Thread(target=flood)
flooder.start()
runner_log_path = os.path.join(exp, "runner.log")


def runner_log():
    with open(runner_log_path) as f:
        return f.read()


deadline = time.monotonic() + 300
while runner.poll() is None and "out of file descriptors" not in runner_log() and time.monotonic() < deadline:
    time.sleep(0.1)
with open(go, "w"):
    pass
try:
    code = runner.wait(timeout=600)
except subprocess.TimeoutExpired:
    runner.kill()
    code = "killed after 600 s"
search_ended = time.monotonic() - watched_opened
stop.set()
flooder.join()
watched.close()

print(f"flood: {opened[0]} idle connections opened, {closed_count[0]} closed by the runner; "
      f"the watched one closed after {watched_closed_after} s; the search took {search_ended:.1f} s",
      flush=True)
if code != 0:
    fail(f"searcher-run exited {code} (see {work}/runner.err)")
if watched_closed_after is None:
    fail("our idle connection was not closed within 120 s")
elif watched_closed_after < HELLO_TIMEOUT:
    fail(f"our idle connection was closed after {watched_closed_after:.2f} s, before the hello timeout")
if closed_count[0] < 10:
    fail(f"the runner closed only {closed_count[0]} idle connections")
for expected in ("out of file descriptors", "sent no hello within"):
    if expected not in runner_log():
        fail(f"runner.log does not say '{expected}' (was the limit reached?)")
try:
    with open(os.path.join(exp, "experiment.json")) as f:
        experiment = json.load(f)
except OSError as e:
    fail(f"no experiment.json: {e}")
    experiment = {"state": None, "trials": []}
if experiment["state"] != "completed":
    fail(f"the search ended {experiment['state']}")
if len(experiment["trials"]) != 6:
    fail(f"{len(experiment['trials'])} trials, expected 6")
for t in experiment["trials"]:
    if t["restarts"] != 0 or t["outcome"] != "completed":
        fail(f"trial {t['trial']}: outcome {t['outcome']}, {t['restarts']} restarts (expected completed, 0)")
print("channel flood: " + (f"{len(failures)} FAILURES" if failures else "every check passed"), flush=True)
if not failures:
    shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failures else 0)
