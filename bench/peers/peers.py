#!/usr/bin/env python3
"""hpsearch beside Optuna, in one invocation on one machine (issue 6).

1. Overhead: the searcher's own cost per trial. Optuna's RandomSampler with its
   SuccessiveHalvingPruner and HyperbandPruner, each trial reporting 27 steps and asking
   should_prune after each, against hpsearch's async_halving and adaptive_asha (rungs at 1, 3,
   9, 27) driven through `searcher-sim drive` from this script (out of process, one JSON line
   per event), from this script in-process through the hpsearch Python module (drivers.py,
   which bench/python_bench.cpp runs too), and in C++ (bench/peers/inprocess.cpp). The
   objective costs nothing, so what is timed is the decision machinery.
Quality at equal budget (samplers against Optuna's TPE) is bench/peers/quality.py.

Writes build/peers/results.json and prints the markdown tables docs/PERFORMANCE.md shows.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

import optuna

import drivers

optuna.logging.set_verbosity(optuna.logging.WARNING)

MAX_LENGTH = drivers.MAX_LENGTH

# ---- hpsearch through `searcher-sim drive` ----------------------------------------------------

class Drive:
    def __init__(self, sim, config_text):
        self._file = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
        self._file.write(config_text)
        self._file.close()
        self._process = subprocess.Popen([sim, "drive", "--config", self._file.name],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def ask(self, event):
        return self.ask_all([event])[0]

    def ask_all(self, events):
        """Sends the events, then reads their answers (the protocol answers in order)."""
        self._process.stdin.write("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events))
        self._process.stdin.flush()
        answers = [json.loads(self._process.stdout.readline()) for _ in events]
        for answer in answers:
            if "error" in answer:
                raise RuntimeError(answer["error"])
        return answers

    def close(self):
        self._process.stdin.close()
        self._process.wait()
        os.unlink(self._file.name)


def searcher_yaml(method, max_trials, hyperparameters, seed, concurrent=1, sampler="random"):
    common = (f"  metric: loss\n  max_length: {MAX_LENGTH}\n  max_trials: {max_trials}\n"
              f"  max_concurrent_trials: {concurrent}\n")
    if method == "random":
        body = "  name: random\n"
    elif method == "async_halving":
        body = "  name: async_halving\n  num_rungs: 4\n  divisor: 3\n"
    else:
        body = "  name: adaptive_asha\n  divisor: 3\n  mode: standard\n"
    if sampler != "random":
        common += f"  sampler: {{name: {sampler}}}\n"
    return ("searcher:\n" + body + common + "hyperparameters:\n" + hyperparameters +
            f"reproducibility:\n  experiment_seed: {seed}\n")


def play_drive(drive, metric, pipelined=False):
    """FIFO, one worker: each operation in the order the searcher emitted it. `metric(hparams,
    length)` gives a trial's value.
    Pipelined, the events for every operation already pending are sent before their answers
    are read: the same events in the same order (new operations go to the back of the queue
    either way), with one pipe round trip per batch instead of per event.
    Returns (trials created, lines sent)."""
    pending = list(drive.ask({"event": "initial_operations"})["operations"])
    hparams = {}
    created = lines = 0
    while pending:
        # At most 32 events a batch: their lines and answers stay well inside the pipes'
        # buffers, so neither side blocks writing while the other is not reading.
        size = 32 if pipelined else 1
        batch, pending = pending[:size], pending[size:]
        events = []
        for op in batch:
            kind = op["type"]
            rid = op.get("request_id")
            if kind == "create":
                created += 1
                hparams[rid] = op["hparams"]
                events.append({"event": "trial_created", "request_id": rid})
            elif kind == "validate_after":
                length = op["length"]
                events.append({"event": "validation_completed", "request_id": rid,
                               "metric": metric(hparams[rid], length), "length": length})
            elif kind == "close":
                events.append({"event": "trial_closed", "request_id": rid})
        if not events:
            continue
        lines += len(events)
        for answer in drive.ask_all(events):
            pending.extend(answer["operations"])
    return created, lines


# ---- overhead -------------------------------------------------------------------------------

def optuna_overhead(trials, pruner_name, seed=0):
    return drivers.optuna_seconds(trials, pruner_name, seed) / trials * 1e6


def python_overhead(method, trials, repetitions=5):
    """hpsearch through its Python module, in-process: the median of `repetitions` searches."""
    return statistics.median(drivers.hpsearch_python_seconds(trials, method, seed) / trials * 1e6
                             for seed in range(repetitions))


def drive_overhead(sim, method, trials, pipelined, seed=0):
    """Sequential: one trial at a time, one pipe round trip per event. Pipelined: 16 trials in
    flight, as a master with many workers would run, the events of each batch sent together."""
    drive = Drive(sim, searcher_yaml(method, trials, "  x: {type: double, minval: 0, maxval: 1}\n", seed,
                                     concurrent=16 if pipelined else 1))
    rng = random.Random(seed)
    start = time.perf_counter()
    created, lines = play_drive(drive, lambda hp, length: rng.random(), pipelined=pipelined)
    elapsed = time.perf_counter() - start
    drive.close()
    return elapsed / created * 1e6, lines / created


def pipe_round_trip_us(count=3000):
    """The transport's floor on this machine: one line to `cat` and back."""
    cat = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    start = time.perf_counter()
    for _ in range(count):
        cat.stdin.write("x\n")
        cat.stdin.flush()
        cat.stdout.readline()
    elapsed = time.perf_counter() - start
    cat.stdin.close()
    cat.wait()
    return elapsed / count * 1e6


def inprocess_overhead(binary, method, trials):
    out = subprocess.run([binary, method, str(trials), "5"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["us_per_trial"]


# ---- main -----------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sim", required=True, help="searcher-sim")
    parser.add_argument("--inprocess", help="peer_inprocess (needed for the overhead part)")
    parser.add_argument("--python-module", help="the directory holding the built hpsearch package "
                        "(<build>/python; needed for the overhead part)")
    parser.add_argument("--out", required=True, help="results JSON")
    parser.add_argument("--trials", default="1000,4000,8000")
    args = parser.parse_args()
    results = {"optuna_version": optuna.__version__, "max_length": MAX_LENGTH}

    sys.path.insert(0, args.python_module)
    results["pipe_round_trip_us"] = pipe_round_trip_us()
    results["overhead"] = []
    for trials in [int(t) for t in args.trials.split(",")]:
        row = {"trials": trials}
        for pruner in ("successive_halving", "hyperband"):
            row[f"optuna_{pruner}_us"] = optuna_overhead(trials, pruner)
            print(f"optuna {pruner} {trials}: {row[f'optuna_{pruner}_us']:.0f} us/trial", file=sys.stderr)
        for method in ("async_halving", "adaptive_asha"):
            row[f"hpsearch_{method}_drive_us"], row[f"hpsearch_{method}_lines_per_trial"] = \
                drive_overhead(args.sim, method, trials, pipelined=False)
            row[f"hpsearch_{method}_pipelined_us"], _ = drive_overhead(args.sim, method, trials, pipelined=True)
            row[f"hpsearch_{method}_inprocess_us"] = inprocess_overhead(args.inprocess, method, trials)
            row[f"hpsearch_{method}_python_us"] = python_overhead(method, trials)
        results["overhead"].append(row)

    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
