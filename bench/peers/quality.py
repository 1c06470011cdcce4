#!/usr/bin/env python3
"""Quality at equal budget, hpsearch beside Optuna, on one simulated cluster (issue 13).

Every run gets the same training budget (BUDGET units; a unit costs one virtual second) on N
workers. Both sides play on the same event loop below: a trial holds a worker while it trains;
workers that finish at the same virtual time act in worker order; a training span starts only
while the units committed stay within the budget, and once one does not fit no more start
(spans already running finish). A trial's metric at every length comes from the simulator's own
workloads (peer_workload, bench/peers/workload_server.cpp), so both sides are valued by the
same code.

- hpsearch: `searcher-sim drive` with max_concurrent_trials = N; a trial trains toward each
  validate_after length as one span and keeps its worker if the searcher sends it on at once.
- Optuna (Debian's python3-optuna): ask/tell, each of the N workers training one trial a unit at
  a time, reporting every unit and asking should_prune (HyperbandPruner, min 1, max MAX_LENGTH,
  reduction 3). TPESampler(multivariate=True, constant_liar=True, seed) or RandomSampler(seed);
  the study name is fixed per run because Hyperband hashes it into its bracket assignment.

Each run records its improvements of the best full-length value as (virtual time, regret);
bench/peers/quality_report.py turns the raw rows into the tables.
"""
import argparse
import csv
import heapq
import json
import math
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from concurrent.futures import ProcessPoolExecutor, as_completed

MAX_LENGTH = 27
BUDGET = 100 * MAX_LENGTH

# Spaces in hpsearch's config form; Optuna's suggestions are derived from the same entries.
# Each tuple: (name, kind, arguments) with kind double, log (base 10 exponents), int, categorical.
def unit_cube(names):
    return [(name, "double", (0, 1)) for name in names]


WORKLOADS = {
    "mf-hartmann6": unit_cube(["x%d" % j for j in range(6)]),
    "mf-branin": [("x1", "double", (-5, 10)), ("x2", "double", (0, 15))],
    "counting-ones-4": [("cat%d" % j, "categorical", [0, 1]) for j in range(4)] +
                       unit_cube(["cont%d" % j for j in range(4)]),
    "learning-curves-4": unit_cube(["x%d" % j for j in range(4)]),
    # The examples' spaces (examples/rbv2_*.yaml), which cover each table's listed values.
    "rbv2-svm": [("cost", "log", (-4.35, 4.35)), ("degree", "int", (2, 5)), ("gamma", "log", (-4.35, 4.35)),
                 ("kernel", "categorical", ["linear", "polynomial", "radial"]),
                 ("num.impute.selected.cpo", "categorical", ["impute.hist", "impute.mean", "impute.median"]),
                 ("tolerance", "log", (-4.35, 0.31))],
    "rbv2-glmnet": [("alpha", "double", (0, 1)), ("s", "log", (-3.05, 3.05)),
                    ("num.impute.selected.cpo", "categorical", ["impute.hist", "impute.mean", "impute.median"])],
    "rbv2-aknn": [("M", "int", (18, 50)), ("distance", "categorical", ["cosine", "ip", "l2"]),
                  ("ef", "int", (8, 256)), ("ef_construction", "int", (8, 511)), ("k", "int", (1, 50)),
                  ("num.impute.selected.cpo", "categorical", ["impute.hist", "impute.mean", "impute.median"])],
}
# The development tables (data/yahpo-rbv2-dev), under their learner's space.
DEV_TASKS = {"svm": [40536, 40966, 40975, 40978], "glmnet": [375, 40978, 40981, 41138],
             "aknn": [40927, 40978, 40981, 40996]}
for _learner, _tasks in DEV_TASKS.items():
    for _task in _tasks:
        WORKLOADS[f"rbv2-{_learner}@{_task}"] = WORKLOADS[f"rbv2-{_learner}"]
# The fixed suite (issue 26): the 15 tables and the synthetic workloads.
TABLES = [w for w in WORKLOADS if w.startswith("rbv2-")]
SUITE = list(WORKLOADS)

HPSEARCH_METHODS = {  # label -> (searcher.name, sampler)
    "hpsearch random + async_halving": ("async_halving", "random"),
    "hpsearch TPE + async_halving": ("async_halving", "tpe"),
    "hpsearch GP + async_halving": ("async_halving", "gp"),
    "hpsearch random + adaptive_asha": ("adaptive_asha", "random"),
    "hpsearch TPE + adaptive_asha": ("adaptive_asha", "tpe"),
    "hpsearch GP + adaptive_asha": ("adaptive_asha", "gp"),
}
OPTUNA_METHODS = {"optuna TPE + Hyperband": "tpe", "optuna random + Hyperband": "random"}
METHODS = list(HPSEARCH_METHODS) + list(OPTUNA_METHODS)
# Run only when named (--methods): adaptive_asha with every bracket down to one rung (trials
# trained to full length at once), as Hyperband's full range of brackets; it matters where
# short trainings rank configurations badly (the rbv2 tables).
EXTRA_METHODS = {
    "hpsearch TPE + adaptive_asha conservative": ("adaptive_asha_conservative", "tpe"),
    "hpsearch GP + adaptive_asha conservative": ("adaptive_asha_conservative", "gp"),
    # `sampler: auto` (issue 26): GP, then TPE once results repeat (docs/samplers.md).
    "hpsearch auto + async_halving": ("async_halving", "auto"),
    "hpsearch auto + adaptive_asha": ("adaptive_asha", "auto"),
}
HPSEARCH_METHODS.update(EXTRA_METHODS)
ALL_METHODS = METHODS + list(EXTRA_METHODS)


def hyperparameters_yaml(workload):
    lines = []
    for name, kind, args in WORKLOADS[workload]:
        if kind == "categorical":
            lines.append(f"  {name}: {{type: categorical, vals: {json.dumps(args)}}}")
        elif kind == "log":
            lines.append(f"  {name}: {{type: log, minval: {args[0]}, maxval: {args[1]}, base: 10}}")
        else:
            lines.append(f"  {name}: {{type: {kind}, minval: {args[0]}, maxval: {args[1]}}}")
    return "hyperparameters:\n" + "\n".join(lines) + "\n"


def config_yaml(workload, method, sampler, workers, seed):
    body = ("  name: async_halving\n  num_rungs: 4\n  divisor: 3\n" if method == "async_halving"
            else "  name: adaptive_asha\n  divisor: 3\n  mode: conservative\n" if method == "adaptive_asha_conservative"
            else "  name: adaptive_asha\n  divisor: 3\n  mode: standard\n")
    return ("searcher:\n" + body +
            f"  metric: loss\n  max_length: {MAX_LENGTH}\n  max_trials: 100000\n"
            f"  max_concurrent_trials: {workers}\n  sampler: {sampler}\n" +
            hyperparameters_yaml(workload) + f"reproducibility:\n  experiment_seed: {seed}\n")


def temporary_file(text):
    f = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
    f.write(text)
    f.close()
    return f.name


class Workload:
    """peer_workload: a configuration's metric at lengths 1 .. MAX_LENGTH."""

    def __init__(self, binary, workload):
        self.name = workload
        self._config = temporary_file(config_yaml(workload, "async_halving", "random", 1, 0))
        self._process = subprocess.Popen([binary, workload, self._config], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True, bufsize=1)
        self.optimum = json.loads(self._process.stdout.readline())["optimum"]

    def curve(self, hparams):
        self._process.stdin.write(json.dumps(hparams) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"peer_workload failed on {hparams}")
        return [float(v) for v in line.split()]

    def regret(self, value):
        return value - self.optimum if self.optimum is not None else value

    def close(self):
        self._process.stdin.close()
        self._process.wait()
        os.unlink(self._config)


class Cluster:
    """Virtual time, N workers, a budget of training units and the run's record."""

    def __init__(self, workers, workload):
        self.workers = workers
        self.workload = workload
        self.now = 0.0
        self.committed = 0
        self.exhausted = False
        self.free = list(range(workers))  # a heap: the lowest-numbered free worker first
        self.running = []  # heap of (finish time, worker, payload)
        self.best = math.inf
        self.trajectory = []  # (time, regret) at each improvement at full length
        self.trials = 0

    def start(self, worker, units, payload):
        """Occupies `worker` for `units` of training if the budget allows; False once it does not."""
        if self.exhausted or self.committed + units > BUDGET:
            self.exhausted = True
            return False
        self.committed += units
        heapq.heappush(self.running, (self.now + units, worker, payload))
        return True

    def next_finished(self):
        finish, worker, payload = heapq.heappop(self.running)
        self.now = finish
        return worker, payload

    def full_length(self, value):
        regret = self.workload.regret(value)
        if regret < self.best:
            self.best = regret
            self.trajectory.append((self.now, regret))


def play_hpsearch(sim, workload, method, sampler, workers, seed, label):
    cluster = Cluster(workers, workload)
    config = temporary_file(config_yaml(workload.name, method, sampler, workers, seed))
    drive = subprocess.Popen([sim, "drive", "--config", config], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, bufsize=1)

    def ask(event):
        drive.stdin.write(json.dumps(event, separators=(",", ":")) + "\n")
        drive.stdin.flush()
        answer = json.loads(drive.stdout.readline())
        if "error" in answer:
            raise RuntimeError(f"{label}: {answer['error']}")
        return answer["operations"]

    curves, trained, target = {}, {}, {}
    waiting = deque()  # trials with a target and no worker, FIFO
    on_worker = {}  # trial -> worker, while it trains
    close_after = set()  # trials closed while training: closed when the span ends
    ops = deque(ask({"event": "initial_operations"}))
    shut_down = False

    def handle(ops):
        nonlocal shut_down
        while ops:
            op = ops.popleft()
            kind, rid = op["type"], op.get("request_id")
            if kind == "create":
                curves[rid] = workload.curve(op["hparams"])
                trained[rid] = 0
                cluster.trials += 1
                ops.extend(ask({"event": "trial_created", "request_id": rid}))
            elif kind == "validate_after":
                target[rid] = op["length"]
                if rid not in on_worker:
                    waiting.append(rid)
            elif kind == "close":
                if rid in on_worker or rid in target:
                    close_after.add(rid)
                else:
                    ops.extend(ask({"event": "trial_closed", "request_id": rid}))
            elif kind == "shutdown":
                shut_down = True

    def assign():
        while waiting and cluster.free and not cluster.exhausted:
            rid = waiting[0]
            worker = heapq.heappop(cluster.free)
            if not cluster.start(worker, target[rid] - trained[rid], rid):
                heapq.heappush(cluster.free, worker)
                return
            waiting.popleft()
            on_worker[rid] = worker

    handle(ops)
    assign()
    while cluster.running and not shut_down:
        worker, rid = cluster.next_finished()
        length = target.pop(rid)
        trained[rid] = length
        value = curves[rid][length - 1]
        if length == MAX_LENGTH:
            cluster.full_length(value)
        ops = deque(ask({"event": "validation_completed", "request_id": rid, "metric": value,
                         "length": length}))
        handle(ops)
        del on_worker[rid]
        if rid in target and not cluster.exhausted and cluster.start(worker, target[rid] - trained[rid], rid):
            on_worker[rid] = worker  # sent on at once: it keeps its worker
        else:
            heapq.heappush(cluster.free, worker)
            if rid in close_after and rid not in target:
                close_after.discard(rid)
                handle(deque(ask({"event": "trial_closed", "request_id": rid})))
        assign()
    drive.stdin.close()
    drive.wait()
    os.unlink(config)
    # For diagnostics (async_diagnose.py): each trial's curve, in creation order, and the
    # longest length it trained to.
    cluster.curves, cluster.trained = curves, trained
    return cluster


def play_optuna(workload, sampler_name, workers, seed, label):
    import warnings
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    space = WORKLOADS[workload.name]
    sampler = (optuna.samplers.TPESampler(seed=seed, multivariate=True, constant_liar=True)
               if sampler_name == "tpe" else optuna.samplers.RandomSampler(seed=seed))
    study = optuna.create_study(
        study_name=f"{workload.name}-{sampler_name}-{workers}-{seed}", sampler=sampler,
        pruner=optuna.pruners.HyperbandPruner(min_resource=1, max_resource=MAX_LENGTH, reduction_factor=3))
    cluster = Cluster(workers, workload)

    def suggest(trial):
        hparams = {}
        for name, kind, args in space:
            if kind == "categorical":
                hparams[name] = trial.suggest_categorical(name, args)
            elif kind == "int":
                hparams[name] = trial.suggest_int(name, args[0], args[1])
            elif kind == "log":
                hparams[name] = trial.suggest_float(name, 10.0 ** args[0], 10.0 ** args[1], log=True)
            else:
                hparams[name] = trial.suggest_float(name, args[0], args[1])
        return hparams

    def launch(worker):
        trial = study.ask()
        cluster.trials += 1
        state = {"trial": trial, "curve": workload.curve(suggest(trial)), "step": 0}
        if not cluster.start(worker, 1, state):
            study.tell(trial, state=optuna.trial.TrialState.FAIL)  # never trained: out of budget
            return False
        return True

    for worker in range(workers):
        if not launch(worker):
            break
    while cluster.running:
        worker, state = cluster.next_finished()
        state["step"] += 1
        step, trial = state["step"], state["trial"]
        value = state["curve"][step - 1]
        trial.report(value, step)
        if step == MAX_LENGTH:
            cluster.full_length(value)
            study.tell(trial, value)
        elif trial.should_prune():
            study.tell(trial, state=optuna.trial.TrialState.PRUNED)
        elif cluster.start(worker, 1, state):
            continue
        else:
            continue  # out of budget in mid-training
        launch(worker)
    return cluster


def cpu_seconds():
    """CPU seconds of this process and of its children that ended (peer_workload, drive)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run_cell(binaries, workload_name, method, workers, seed):
    """One run: a row of the raw results and a row of its cost."""
    start, start_cpu = time.perf_counter(), cpu_seconds()
    workload = Workload(binaries["workload"], workload_name)
    if method in HPSEARCH_METHODS:
        name, sampler = HPSEARCH_METHODS[method]
        cluster = play_hpsearch(binaries["sim"], workload, name, sampler, workers, seed, method)
    else:
        cluster = play_optuna(workload, OPTUNA_METHODS[method], workers, seed, method)
    workload.close()
    key = {"workload": workload_name, "workers": workers, "method": method, "seed": seed}
    row = dict(key, final=cluster.best if cluster.trajectory else None, units=cluster.committed,
               trials=cluster.trials, end_time=cluster.now,
               trajectory=";".join(f"{t:g}:{r:.17g}" for t, r in cluster.trajectory))
    cost = dict(key, cpu_seconds=round(cpu_seconds() - start_cpu, 3),
                wall_seconds=round(time.perf_counter() - start, 3))
    return row, cost


def fidelity_correlation(binary, samples=300, seed=1):
    """How well short trainings rank configurations, per workload: Spearman's rank correlation
    between the values at lengths 1, 3, 9 and at full length over random configurations."""
    import random

    def ranks(values):
        order = sorted(range(len(values)), key=values.__getitem__)
        out = [0] * len(values)
        for rank, i in enumerate(order):
            out[i] = rank
        return out

    def spearman(a, b):
        ra, rb = ranks(a), ranks(b)
        mean = (len(a) - 1) / 2
        cov = sum((x - mean) * (y - mean) for x, y in zip(ra, rb))
        return cov / math.sqrt(sum((x - mean) ** 2 for x in ra) * sum((y - mean) ** 2 for y in rb))

    rng = random.Random(seed)
    draw = {"categorical": lambda a: rng.choice(a), "int": lambda a: rng.randint(a[0], a[1]),
            "log": lambda a: 10.0 ** rng.uniform(a[0], a[1]), "double": lambda a: rng.uniform(a[0], a[1])}
    print(f"Spearman's rank correlation with the value at length {MAX_LENGTH}, {samples} random configurations:\n")
    print("| workload | length 1 | length 3 | length 9 |")
    print("|---|---|---|---|")
    for name, space in WORKLOADS.items():
        workload = Workload(binary, name)
        curves = [workload.curve({n: draw[kind](args) for n, kind, args in space}) for _ in range(samples)]
        workload.close()
        full = [c[-1] for c in curves]
        cells = [f"{spearman([c[length - 1] for c in curves], full):.2f}" for length in (1, 3, 9)]
        print(f"| {name} | " + " | ".join(cells) + " |")


# The results hold only what the run decided, so that a rerun of a cell writes the same bytes;
# what it cost (CPU and wall seconds, which depend on the machine) goes to a file of its own.
FIELDS = ["workload", "workers", "method", "seed", "final", "units", "trials", "end_time", "trajectory"]
COST_FIELDS = ["workload", "workers", "method", "seed", "cpu_seconds", "wall_seconds"]


def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def sort_key(row):
    return row["workload"], int(row["workers"]), ALL_METHODS.index(row["method"]), int(row["seed"])


def rewrite_sorted(path, fields):
    """Sorted, so that the checked-in file does not depend on the order runs finished in."""
    rows = sorted({tuple(r[k] for k in FIELDS[:4]): r for r in read_rows(path)}.values(), key=sort_key)
    with open(path, "w", newline="") as f:
        out = csv.DictWriter(f, fields, lineterminator="\n")
        out.writeheader()
        out.writerows(rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sim", required=True, help="searcher-sim")
    parser.add_argument("--workload-server", required=True, help="peer_workload")
    parser.add_argument("--out", required=True,
                        help="raw results CSV: a run whose (workload, workers, method, seed) is there already "
                             "is skipped, new runs are appended, so the grid accumulates over sessions")
    parser.add_argument("--costs", help="CPU and wall seconds per run (default: OUT with _costs before .csv)")
    parser.add_argument("--workloads", default=",".join(WORKLOADS),
                        help="names separated by ',', or 'suite' for the fixed suite (issue 26: the 15 "
                             "tables and the synthetic workloads)")
    parser.add_argument("--methods", default=";".join(METHODS), help="labels separated by ';'")
    parser.add_argument("--workers", default="1,4,16")
    parser.add_argument("--seeds", default="0-29", help="a range a-b or a list")
    parser.add_argument("--jobs", type=int, default=1, help="runs in parallel")
    parser.add_argument("--fidelity-correlation", action="store_true",
                        help="only print how well short trainings rank configurations, per workload")
    args = parser.parse_args()
    if args.fidelity_correlation:
        fidelity_correlation(args.workload_server)
        return
    if args.workloads == "suite":
        args.workloads = ",".join(SUITE)
    seeds = (list(range(int(args.seeds.split("-")[0]), int(args.seeds.split("-")[1]) + 1))
             if "-" in args.seeds else [int(s) for s in args.seeds.split(",")])
    done = {(r["workload"], r["workers"], r["method"], r["seed"]) for r in read_rows(args.out)}
    binaries = {"sim": args.sim, "workload": args.workload_server}
    # Seed by seed, so that a run stopped early has every cell with the first seeds.
    todo = [(w, m, n, s) for s in seeds for n in map(int, args.workers.split(","))
            for w in args.workloads.split(",") for m in args.methods.split(";")
            if (w, str(n), m, str(s)) not in done]
    for _, m, _, _ in todo:
        if m not in ALL_METHODS:
            sys.exit(f"unknown method '{m}' (methods: {'; '.join(ALL_METHODS)})")
    # A run started in the background ignores SIGINT; SIGTERM stops it as SIGINT would in a
    # terminal: the runs that finished are kept.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    costs_path = args.costs or os.path.splitext(args.out)[0] + "_costs.csv"
    files = [(args.out, FIELDS), (costs_path, COST_FIELDS)]
    writers = []
    for path, fields in files:
        new_file = not os.path.exists(path)
        f = open(path, "a", newline="")
        writer = csv.DictWriter(f, fields, lineterminator="\n")
        if new_file:
            writer.writeheader()
        writers.append((f, writer))
    try:
        with ProcessPoolExecutor(args.jobs) as pool:
            futures = [pool.submit(run_cell, binaries, w, m, n, s) for w, m, n, s in todo]
            try:
                for future in as_completed(futures):
                    # The cost first: a stop between the two writes leaves the cell to be run
                    # again (and its cost row replaced).
                    row, cost = future.result()
                    for (f, writer), record in zip(reversed(writers), (cost, row)):
                        writer.writerow(record)
                        f.flush()
                    print(f"{row['workload']} x{row['workers']} {row['method']} seed {row['seed']}: "
                          f"{row['final']} ({cost['cpu_seconds']} s CPU)", file=sys.stderr)
            except KeyboardInterrupt:
                # Stopped (SIGINT or SIGTERM to this process): what finished is kept, the rest is left
                # for the next run.
                for future in futures:
                    future.cancel()
                print("quality.py: stopped; rerun with the same arguments to go on", file=sys.stderr)
    finally:
        for f, _ in writers:
            f.close()
        for path, fields in files:
            rewrite_sorted(path, fields)

if __name__ == "__main__":
    main()
