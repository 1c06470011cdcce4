#!/usr/bin/env python3
"""hpsearch beside Optuna, in one invocation on one machine (issue 6).

1. Overhead: the searcher's own cost per trial. Optuna's RandomSampler with its
   SuccessiveHalvingPruner and HyperbandPruner, each trial reporting 27 steps and asking
   should_prune after each, against hpsearch's async_halving and adaptive_asha (rungs at 1, 3,
   9, 27) driven through `searcher-sim drive` from this script (out of process, one JSON line
   per event), from this script in-process through the hpsearch Python module (drivers.py,
   which bench/python_bench.cpp runs too), and in C++ (bench/peers/inprocess.cpp). The
   objective costs nothing, so what is timed is the decision machinery.
2. Quality at equal budget: one worker, the same total training units (2,700 = 100 full
   trainings of 27 units), on MF-Hartmann-6 and counting ones (4 + 4), reimplemented below
   from docs/benchmarks.md and checked against `searcher-sim evaluate`; 20 seeds; median and
   quartiles of the final regret of the best trial trained to full length. hpsearch runs its
   random, TPE and GP samplers (issue 13) under async_halving and adaptive_asha; Optuna runs
   TPE (multivariate, constant liar) and random sampling, both seeded, with Hyperband.

Writes build/peers/results.json and prints the markdown tables docs/PERFORMANCE.md shows.
"""
import argparse
import json
import math
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
BUDGET = 100 * MAX_LENGTH

# ---- workloads (docs/benchmarks.md 2.2 and 2.5; simulator/src/workload.cpp) -----------------

H6_A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14],
        [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]]
H6_P = [[1312, 1696, 5569, 124, 8283, 5886], [2329, 4135, 8307, 3736, 1004, 9991],
        [2348, 1451, 3522, 2883, 3047, 6650], [4047, 8828, 8732, 5743, 1091, 381]]
H6_ALPHA = [1.0, 1.2, 3.0, 3.2]


def hartmann6(x, z):
    """MF-Hartmann-6, every alpha moved by the fidelity z (the mfhpo-benchmark-api form)."""
    total = 0.0
    for i in range(4):
        inner = sum(H6_A[i][j] * (x[j] - H6_P[i][j] * 1e-4) ** 2 for j in range(6))
        total += (H6_ALPHA[i] - 0.1 * (1 - z)) * math.exp(-inner)
    return -total


def counting_ones(x, z):
    """Counting ones' expectation: minus the sum of the binary and continuous inputs."""
    return -sum(x)


WORKLOADS = {
    "mf-hartmann6": {
        "f": hartmann6, "optimum": -3.32236801141551,
        "inputs": [("x%d" % j, "double") for j in range(6)],
    },
    "counting-ones-4": {
        "f": counting_ones, "optimum": -8.0,
        "inputs": [("cat%d" % j, "binary") for j in range(4)] + [("cont%d" % j, "double") for j in range(4)],
    },
}


def check_workloads(sim):
    """The reimplementations give what the simulator gives, on random points and fidelities."""
    rng = random.Random(1)
    worst = 0.0
    for name, w in WORKLOADS.items():
        for _ in range(10):
            x = [float(rng.randint(0, 1)) if kind == "binary" else rng.random() for _, kind in w["inputs"]]
            for z in (0.1, 0.5, 1.0):
                out = subprocess.run([sim, "evaluate", "--workload", name, "--point",
                                      ",".join(repr(v) for v in x), "--fidelity", repr(z)],
                                     check=True, capture_output=True, text=True).stdout
                worst = max(worst, abs(float(out) - w["f"](x, z)))
    if worst > 1e-12:
        sys.exit(f"the Python workloads differ from the simulator's by {worst}")
    return worst


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


def play_drive(drive, metric, budget=None, pipelined=False):
    """FIFO, one worker: each operation in the order the searcher emitted it. `metric(hparams,
    length)` gives a trial's value; with a budget, play stops once the units trained reach it.
    Pipelined, the events for every operation already pending are sent before their answers
    are read: the same events in the same order (new operations go to the back of the queue
    either way), with one pipe round trip per batch instead of per event.
    Returns (trials created, lines sent, units trained, best value at max_length)."""
    pending = list(drive.ask({"event": "initial_operations"})["operations"])
    hparams, trained = {}, {}
    created = lines = units = 0
    best = math.inf
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
                trained[rid] = 0
                events.append({"event": "trial_created", "request_id": rid})
            elif kind == "validate_after":
                length = op["length"]
                if budget is not None and units + length - trained[rid] > budget:
                    pending = []  # the budget ends inside this training
                    break
                units += length - trained[rid]
                trained[rid] = length
                value = metric(hparams[rid], length)
                if length == MAX_LENGTH:
                    best = min(best, value)
                events.append({"event": "validation_completed", "request_id": rid,
                               "metric": value, "length": length})
            elif kind == "close":
                events.append({"event": "trial_closed", "request_id": rid})
        if not events:
            continue
        lines += len(events)
        for answer in drive.ask_all(events):
            pending.extend(answer["operations"])
    return created, lines, units, best


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
    created, lines, _, _ = play_drive(drive, lambda hp, length: rng.random(), pipelined=pipelined)
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


# ---- quality at equal budget ----------------------------------------------------------------

def optuna_quality(workload, sampler_name, seed):
    w = WORKLOADS[workload]
    # TPE as issue 13 specifies it (multivariate, constant liar; the liar only matters with
    # several workers). The study name is fixed per seed: Hyperband assigns trials to brackets
    # by hashing it with the trial number, so a random name would move the medians between runs.
    sampler = (optuna.samplers.TPESampler(seed=seed, multivariate=True, constant_liar=True)
               if sampler_name == "tpe" else optuna.samplers.RandomSampler(seed=seed))
    study = optuna.create_study(
        study_name=f"{workload}-{sampler_name}-{seed}", sampler=sampler,
        pruner=optuna.pruners.HyperbandPruner(min_resource=1, max_resource=MAX_LENGTH,
                                              reduction_factor=3))
    state = {"units": 0, "best": math.inf}

    def objective(trial):
        x = [float(trial.suggest_categorical(name, [0, 1])) if kind == "binary"
             else trial.suggest_float(name, 0, 1) for name, kind in w["inputs"]]
        value = None
        for step in range(1, MAX_LENGTH + 1):
            if state["units"] >= BUDGET:
                study.stop()
                raise optuna.TrialPruned()
            state["units"] += 1
            value = w["f"](x, step / MAX_LENGTH)
            trial.report(value, step)
            if step < MAX_LENGTH and trial.should_prune():
                raise optuna.TrialPruned()
        state["best"] = min(state["best"], value)
        return value

    study.optimize(objective, n_trials=100000)
    return state["best"] - w["optimum"]


def hpsearch_quality(sim, workload, method, seed, sampler="random"):
    w = WORKLOADS[workload]
    hyperparameters = "".join(
        f"  {name}: {{type: categorical, vals: [0, 1]}}\n" if kind == "binary"
        else f"  {name}: {{type: double, minval: 0, maxval: 1}}\n" for name, kind in w["inputs"])
    drive = Drive(sim, searcher_yaml(method, 100000, hyperparameters, seed, sampler=sampler))

    def metric(hp, length):
        return w["f"]([float(hp[name]) for name, _ in w["inputs"]], length / MAX_LENGTH)

    _, _, _, best = play_drive(drive, metric, budget=BUDGET)
    drive.close()
    return best - w["optimum"]


def quartiles(values):
    finite = sorted(v for v in values if math.isfinite(v))
    if not finite:
        return None
    q = statistics.quantiles(finite, n=4, method="inclusive") if len(finite) > 1 else [finite[0]] * 3
    return {"q1": q[0], "median": q[1], "q3": q[2], "runs": len(finite)}


# ---- main -----------------------------------------------------------------------------------

QUALITY_RUNS = [
    # (label, function of (sim, workload, seed)); the samplers' rows first.
    ("hpsearch TPE + async_halving", lambda sim, w, s: hpsearch_quality(sim, w, "async_halving", s, "tpe")),
    ("hpsearch GP + async_halving", lambda sim, w, s: hpsearch_quality(sim, w, "async_halving", s, "gp")),
    ("optuna TPE + Hyperband", lambda sim, w, s: optuna_quality(w, "tpe", s)),
    ("hpsearch async_halving", lambda sim, w, s: hpsearch_quality(sim, w, "async_halving", s)),
    ("optuna random + Hyperband", lambda sim, w, s: optuna_quality(w, "random", s)),
    ("hpsearch TPE + adaptive_asha", lambda sim, w, s: hpsearch_quality(sim, w, "adaptive_asha", s, "tpe")),
    ("hpsearch GP + adaptive_asha", lambda sim, w, s: hpsearch_quality(sim, w, "adaptive_asha", s, "gp")),
    ("hpsearch adaptive_asha", lambda sim, w, s: hpsearch_quality(sim, w, "adaptive_asha", s)),
    ("hpsearch random", lambda sim, w, s: hpsearch_quality(sim, w, "random", s)),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sim", required=True, help="searcher-sim")
    parser.add_argument("--inprocess", help="peer_inprocess (needed for the overhead part)")
    parser.add_argument("--python-module", help="the directory holding the built hpsearch package "
                        "(<build>/python; needed for the overhead part)")
    parser.add_argument("--out", required=True, help="results JSON")
    parser.add_argument("--trials", default="1000,4000,8000")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--parts", default="overhead,quality", help="overhead, quality or both")
    parser.add_argument("--workloads", default=",".join(WORKLOADS), help="for the quality part")
    parser.add_argument("--rows", help="quality rows to run, labels separated by ';' (default all)")
    args = parser.parse_args()
    parts = args.parts.split(",")
    results = {"optuna_version": optuna.__version__, "budget_units": BUDGET, "max_length": MAX_LENGTH,
               "seeds": args.seeds, "workload_check_max_difference": check_workloads(args.sim)}

    if "overhead" in parts:
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

    if "quality" in parts:
        results["quality"] = []
        for workload in args.workloads.split(","):
            for name, run in QUALITY_RUNS:
                if args.rows and name not in args.rows.split(";"):
                    continue
                start = time.time()
                regrets = [run(args.sim, workload, seed) for seed in range(args.seeds)]
                results["quality"].append({"workload": workload, "method": name, "regrets": regrets,
                                           "summary": quartiles(regrets),
                                           "seconds": time.time() - start})
                print(f"{workload} {name}: {quartiles(regrets)} ({time.time() - start:.0f} s)",
                      file=sys.stderr)
                with open(args.out, "w") as f:  # after every row: a long run keeps what it did
                    json.dump(results, f, indent=2)

    with open(args.out, "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
