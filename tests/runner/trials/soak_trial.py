"""The soak test's trial (tests/runner/soak.py): it speaks the trial protocol itself on
descriptors 3 (commands) and 4 (reports), standard library only, and misbehaves at random.

Everything it does is a function of its trial seed, the length it trains and its attempt: the
number of restarts the runner has recorded for it (HPSEARCH_TRIAL_RESTARTS), never of the clock
or of how often it was launched. So a launch that a kill of the runner cut short, relaunched
from the trial's checkpoint, does what the launch of the uninterrupted run did: a fault the
dead runner never recorded is made again and recorded this time.

Per unit of length k it trains, at attempt a < 2 (at most two faults per trial, so
max_restarts >= 3 never runs out on them), with a chance drawn from (seed, k, a):
  crash          exit 3                                         (restarted)
  hang           sleep for an hour; --trial-timeout kills it     (restarted)
  malformed      a line that is not JSON, then wait to be killed (restarted)
  oversized      a 1.2 MiB line without a newline, then wait     (restarted)
and, the same at every launch: exit 0 before its operation is done (a user-requested stop),
invalid hyperparameters at start, a NaN validation metric, and "doomed" trials that crash at
every launch (errored after max_restarts). Otherwise it trains, checkpoints every unit
(CHECKPOINT_DIR/k/state.json) and validates with loss = (x - 0.3)^2 + 1/length.

It holds an exclusive lock on TRIAL_DIR/soak.lock while it runs: a second process of the same
trial at once is a runner bug, which it reports by appending to TRIAL_DIR/DUPLICATE.
"""
import fcntl
import hashlib
import json
import os
import sys
import time

seed = int(os.environ["HPSEARCH_TRIAL_SEED"])
hparams = json.loads(os.environ["HPSEARCH_HPARAMS"])
x = float(hparams["x"])
trial_dir = os.environ["HPSEARCH_TRIAL_DIR"]
checkpoint_dir = os.environ["HPSEARCH_CHECKPOINT_DIR"]
attempt = int(os.environ["HPSEARCH_TRIAL_RESTARTS"])

lock = open(os.path.join(trial_dir, "soak.lock"), "w")
try:
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
except OSError:
    with open(os.path.join(trial_dir, "DUPLICATE"), "a") as duplicate:
        duplicate.write(f"{os.getpid()}\n")
    sys.exit(9)

commands = os.fdopen(3, "r")
reports = os.fdopen(4, "w")
# Talk at once: the silence clock runs from the launch, and a loaded machine starts us slowly.
reports.write(json.dumps({"type": "status", "text": "started"}) + "\n")
reports.flush()


def chance(*key):
    """A number in [0, 1) drawn from the trial seed and `key` alone."""
    digest = hashlib.sha256(repr((seed,) + key).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def report(**fields):
    reports.write(json.dumps(fields) + "\n")
    reports.flush()


def wait_to_be_killed():
    time.sleep(3600)
    sys.exit(4)


def misbehave(k):
    """Maybe a fault before training unit k."""
    if attempt >= 2:
        return
    r = chance("fault", k, attempt)
    if r >= 0.055:
        return
    if r < 0.025:
        os._exit(3)
    if r < 0.035:
        wait_to_be_killed()  # a hang: only --trial-timeout ends it
    if r < 0.045:
        reports.write("this is not a report\n")
        reports.flush()
        wait_to_be_killed()
    reports.write('{"type":"status","text":"' + "x" * (1200 * 1024))
    reports.flush()
    wait_to_be_killed()


if chance("doomed") < 0.02:
    os._exit(5)
if chance("invalid") < 0.01:
    report(type="invalid_hp", reason="chance")
    sys.exit(0)

trained = 0
latest = os.environ.get("HPSEARCH_LATEST_CHECKPOINT")
if latest:
    with open(os.path.join(latest, "state.json")) as f:
        trained = json.load(f)["trained"]

for line in commands:
    command = json.loads(line)
    if command["op"] != "validate_after":
        sys.exit(0)  # close, or pause: its checkpoint is stored already
    target = command["length"]
    while trained < target:
        misbehave(trained + 1)
        if chance("early", trained + 1) < 0.004:
            sys.exit(0)  # before the operation is done: a user-requested stop
        trained += 1
        path = os.path.join(checkpoint_dir, str(trained))
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, "state.json"), "w") as f:
            json.dump({"trained": trained}, f)
        report(type="progress", units=trained)
        report(type="checkpoint", path=str(trained), length=trained)
    loss = "NaN" if chance("nan", trained) < 0.03 else (x - 0.3) ** 2 + 1.0 / trained
    report(type="validation", length=trained, metrics={"loss": loss})
