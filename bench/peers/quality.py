#!/usr/bin/env python3
"""Search quality at equal training budget: hpsearch's samplers beside Optuna's (issue 13).

Every workload, every worker count, every seed, one training budget:
- hpsearch: random, TPE and GP sampling under promotion ASHA (async_halving) and adaptive
  ASHA, played by `searcher-sim compare --budget` (the simulator's engine: N workers, one
  virtual second per length unit, no start-up costs);
- Optuna 3.1: TPE (multivariate, constant liar) and random sampling, each with the Hyperband
  pruner (min_resource 1, max_resource = max_length, reduction_factor 3), played here by the
  same worker model: N workers in lockstep, one unit per second each, a trial reporting after
  every unit and asking should_prune; a pruned or finished trial's worker asks for the next.

A run ends when the units trained (over all workers) reach the budget; its result is the best
value among trials trained to max_length by then, as regret (minus the workload's optimum)
where the optimum is known. Metrics come from the simulator itself (`searcher-sim evaluate
--stdin`), so both sides see the same function. Optuna is seeded (sampler seed and study name,
which Hyperband's bracket assignment hashes), so a rerun gives the same table.
"""
import argparse
import heapq
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import optuna

optuna.logging.set_verbosity(optuna.logging.WARNING)
warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)

MAX_LENGTH = 27
FULL_TRAININGS = 100  # the budget, in full trainings of max_length units

# Each workload's search space, as hpsearch configs and Optuna suggestions both read it:
# (name, kind, arguments). Kinds: double (lo, hi), log (lo, hi, base: exponents), int (lo, hi),
# categorical (values). `target`: the regret (or value) that counts as reached, for time to
# target.
WORKLOADS = {
    "mf-hartmann6": {"space": [(f"x{j}", "double", (0, 1)) for j in range(6)], "target": 0.1},
    "mf-branin": {"space": [("x1", "double", (-5, 10)), ("x2", "double", (0, 15))], "target": 0.05},
    "counting-ones-4": {
        "space": [(f"cat{j}", "categorical", ([0, 1],)) for j in range(4)] +
                 [(f"cont{j}", "double", (0, 1)) for j in range(4)],
        "target": 0.5},
    "learning-curves-4": {"space": [(f"x{j}", "double", (0, 1)) for j in range(4)], "target": None},
    "rbv2-svm": {
        "space": [("cost", "log", (-4, 4, 10)), ("degree", "int", (2, 5)), ("gamma", "log", (-4, 4, 10)),
                  ("kernel", "categorical", (["linear", "polynomial", "radial"],)),
                  ("num.impute.selected.cpo", "categorical", (["impute.hist", "impute.mean", "impute.median"],)),
                  ("tolerance", "log", (-4, 0, 10))],
        "target": 0.01},
    "rbv2-glmnet": {
        "space": [("alpha", "double", (0.001, 0.999)), ("s", "log", (-3, 3, 10)),
                  ("num.impute.selected.cpo", "categorical", (["impute.hist", "impute.mean", "impute.median"],))],
        "target": 0.005},
    "rbv2-aknn": {
        "space": [("M", "int", (18, 50)), ("distance", "categorical", (["cosine", "ip", "l2"],)),
                  ("ef", "int", (8, 256)), ("ef_construction", "int", (8, 511)), ("k", "int", (1, 50)),
                  ("num.impute.selected.cpo", "categorical", (["impute.hist", "impute.mean", "impute.median"],))],
        "target": 0.01},
}

# hpsearch configurations: (label, method YAML, sampler YAML).
METHODS = {
    "asha": "  name: async_halving\n  num_rungs: 4\n  divisor: 3\n",
    "adaptive": "  name: adaptive_asha\n  divisor: 3\n  mode: standard\n",
}
SAMPLERS = ["random", "tpe", "gp"]


# ---- the workloads, from the simulator ------------------------------------------------------

class Evaluator:
    """A `searcher-sim evaluate --stdin` process: one line `v1,v2,...;z` in, the value out."""

    def __init__(self, sim, workload):
        self.names = [name for name, _, _ in WORKLOADS[workload]["space"]]
        self._process = subprocess.Popen([sim, "evaluate", "--workload", workload, "--stdin"],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        optimum = subprocess.run([sim, "evaluate", "--workload", workload, "--optimum"],
                                 check=True, capture_output=True, text=True).stdout.strip()
        self.optimum = None if optimum == "none" else float(optimum)

    def __call__(self, params, fidelity):
        point = ",".join(str(params[name]) for name in self.names)
        self._process.stdin.write(f"{point};{fidelity!r}\n")
        self._process.stdin.flush()
        return float(self._process.stdout.readline())

    def close(self):
        self._process.stdin.close()
        self._process.wait()


# ---- Optuna ---------------------------------------------------------------------------------

def suggest(trial, space):
    params = {}
    for name, kind, args in space:
        if kind == "double":
            params[name] = trial.suggest_float(name, args[0], args[1])
        elif kind == "log":
            lo, hi, base = args
            params[name] = trial.suggest_float(name, base ** lo, base ** hi, log=True)
        elif kind == "int":
            params[name] = trial.suggest_int(name, args[0], args[1])
        else:
            params[name] = trial.suggest_categorical(name, args[0])
    return params


def optuna_run(evaluate, workload, sampler_name, workers, seed, budget):
    """One seeded Optuna study on `workers` lockstep workers. Returns (best-so-far trace as
    [(time, best value at max_length)], units trained, trials asked)."""
    space = WORKLOADS[workload]["space"]
    sampler = (optuna.samplers.TPESampler(seed=seed, multivariate=True, constant_liar=True)
               if sampler_name == "tpe" else optuna.samplers.RandomSampler(seed=seed))
    study = optuna.create_study(
        study_name=f"{workload}-{sampler_name}-{workers}-{seed}", sampler=sampler,
        pruner=optuna.pruners.HyperbandPruner(min_resource=1, max_resource=MAX_LENGTH, reduction_factor=3))
    asked = 0

    def ask():
        nonlocal asked
        asked += 1
        trial = study.ask()
        return {"trial": trial, "params": suggest(trial, space), "step": 0}

    running = [ask() for _ in range(workers)]
    units = 0
    now = 0
    best = math.inf
    trace = []
    while units < budget:
        now += 1
        for w in range(workers):
            if units >= budget:
                break
            slot = running[w]
            slot["step"] += 1
            units += 1
            value = evaluate(slot["params"], slot["step"] / MAX_LENGTH)
            slot["trial"].report(value, slot["step"])
            if slot["step"] == MAX_LENGTH:
                study.tell(slot["trial"], value)
                if value < best:
                    best = value
                    trace.append((now, best))
                running[w] = ask()
            elif slot["trial"].should_prune():
                study.tell(slot["trial"], state=optuna.trial.TrialState.PRUNED)
                running[w] = ask()
    return trace, units, asked


# ---- hpsearch, through the simulator ------------------------------------------------------------

def hpsearch_yaml(workload, method, sampler, workers):
    lines = ["hyperparameters:"]
    for name, kind, args in WORKLOADS[workload]["space"]:
        if kind == "double":
            lines.append(f"  {name}: {{type: double, minval: {args[0]}, maxval: {args[1]}}}")
        elif kind == "log":
            lines.append(f"  {name}: {{type: log, minval: {args[0]}, maxval: {args[1]}, base: {args[2]}}}")
        elif kind == "int":
            lines.append(f"  {name}: {{type: int, minval: {args[0]}, maxval: {args[1]}}}")
        else:
            lines.append(f"  {name}: {{type: categorical, vals: {json.dumps(args[0])}}}")
    lines.append("searcher:")
    lines.append(METHODS[method].rstrip("\n"))
    lines.append(f"  metric: loss\n  max_length: {MAX_LENGTH}\n  max_trials: 100000\n"
                 f"  max_concurrent_trials: {workers}")
    lines.append(f"  sampler: {{name: {sampler}}}")
    return "\n".join(lines) + "\n"


def hpsearch_runs(sim, workload, workers, seeds, budget, directory):
    """Every hpsearch configuration over `seeds` seeds in one `compare`; returns
    {label: [per-seed traces]}."""
    paths, labels = [], []
    for method in METHODS:
        for sampler in SAMPLERS:
            label = f"hpsearch {sampler} + {method}"
            path = os.path.join(directory, f"{workload}-{method}-{sampler}-{workers}.yaml")
            with open(path, "w") as f:
                f.write(hpsearch_yaml(workload, method, sampler, workers))
            paths.append(path)
            labels.append(label)
    out = subprocess.run([sim, "compare", "--configs", *paths, "--workload", workload,
                          "--workers", str(workers), "--seeds", str(seeds), "--budget", str(budget),
                          "--json"], check=True, capture_output=True, text=True).stdout
    result = json.loads(out)
    return {label: [run["best_so_far"] for run in config["runs"]]
            for label, config in zip(labels, result["configs"])}


# ---- summaries ------------------------------------------------------------------------------

def final(trace, optimum):
    if not trace:
        return math.inf
    return trace[-1][1] - (optimum or 0)


def time_to(trace, optimum, target):
    for t, value in trace:
        if value - (optimum or 0) <= target:
            return t
    return math.inf


def quartiles(values):
    finite = sorted(v for v in values if math.isfinite(v))
    if not finite:
        return None
    q = statistics.quantiles(finite, n=4, method="inclusive") if len(finite) > 1 else [finite[0]] * 3
    return {"q1": q[0], "median": q[1], "q3": q[2], "runs": len(finite), "of": len(values)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sim", required=True, help="searcher-sim")
    parser.add_argument("--out", required=True, help="results JSON")
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--workers", default="1,4,16")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--skip-optuna", action="store_true", help="hpsearch only (tuning)")
    args = parser.parse_args()
    budget = FULL_TRAININGS * MAX_LENGTH
    results = {"optuna_version": optuna.__version__, "budget_units": budget, "max_length": MAX_LENGTH,
               "seeds": args.seeds, "rows": []}
    with tempfile.TemporaryDirectory() as directory:
        for workload in args.workloads.split(","):
            evaluate = Evaluator(args.sim, workload)
            optimum = evaluate.optimum
            target = WORKLOADS[workload]["target"]
            for workers in [int(w) for w in args.workers.split(",")]:
                traces = {}
                start = time.time()
                traces.update(hpsearch_runs(args.sim, workload, workers, args.seeds, budget, directory))
                if not args.skip_optuna:
                    for sampler in ("tpe", "random"):
                        label = f"optuna {sampler} + hyperband"
                        traces[label] = [optuna_run(evaluate, workload, sampler, workers, seed, budget)[0]
                                         for seed in range(args.seeds)]
                for label, runs in traces.items():
                    finals = [final(t, optimum) for t in runs]
                    row = {"workload": workload, "workers": workers, "method": label,
                           "regret": optimum is not None, "finals": finals,
                           "summary": quartiles(finals)}
                    if target is not None:
                        row["target"] = target
                        row["time_to_target"] = quartiles([time_to(t, optimum, target) for t in runs])
                    results["rows"].append(row)
                    s = row["summary"]
                    print(f"{workload} x{workers} {label}: median {s['median']:.4g} "
                          f"[{s['q1']:.4g}, {s['q3']:.4g}]", file=sys.stderr)
                print(f"{workload} x{workers}: {time.time() - start:.0f} s", file=sys.stderr)
            evaluate.close()
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
