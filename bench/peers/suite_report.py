#!/usr/bin/env python3
"""The suite's verdict per method (issue 26), from quality.py's raw results.

For each (workload, workers) cell and method, over the seeds every method of the cell has:
- normalised regret: the final regret divided by the workload's error range at full fidelity
  (a table: its worst minus its best error at train_frac 1; a synthetic workload: the range of
  its full-fidelity values over 1,000 random configurations of the suite's space, drawn with
  seed 1 through peer_workload), averaged over seeds, then over cells;
- rank: the method's rank (1 = best) by mean final regret within the cell, averaged over cells;
- wins and losses against random under the same scheduler: a loss when the method's median
  final regret is worse than random's by more than 5% and more than 1e-4, a win when better by
  as much.

Usage: suite_report.py RESULTS.csv [--workload-server peer_workload] [--ranges ranges.json]
"""
import argparse
import csv
import json
import math
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quality  # noqa: E402  (the suite's spaces)

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data")


def table_range(workload):
    """Worst minus best error (1 - acc) at train_frac 1 of a table."""
    learner, _, task = workload[len("rbv2-"):].partition("@")
    task = task or "1220"
    name = f"rbv2_{learner}-{task}.csv"
    for folder in ("yahpo-rbv2", "yahpo-rbv2-dev"):
        path = os.path.join(DATA, folder, name)
        if os.path.exists(path):
            errors = [1 - float(r["acc"]) for r in csv.DictReader(open(path)) if float(r["train_frac"]) == 1.0]
            return max(errors) - min(errors)
    raise SystemExit(f"no table for {workload}")


def sampled_range(server, workload, samples=1000, seed=1):
    """Range of full-fidelity values over random configurations of the suite's space."""
    import random
    rng = random.Random(seed)
    draw = {"categorical": lambda a: rng.choice(a), "int": lambda a: rng.randint(a[0], a[1]),
            "log": lambda a: 10.0 ** rng.uniform(a[0], a[1]), "double": lambda a: rng.uniform(a[0], a[1])}
    w = quality.Workload(server, workload)
    values = [w.curve({n: draw[k](a) for n, k, a in quality.WORKLOADS[workload]})[-1] for _ in range(samples)]
    w.close()
    return max(values) - min(values)


def scheduler_of(method):
    return method.split(" + ")[-1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results")
    parser.add_argument("--workload-server", help="peer_workload, for the synthetic workloads' ranges")
    parser.add_argument("--ranges", help="a JSON file of ranges per workload, read and extended")
    parser.add_argument("--per-table", action="store_true", help="also print each cell's medians")
    args = parser.parse_args()
    rows = list(csv.DictReader(open(args.results)))
    ranges = json.load(open(args.ranges)) if args.ranges and os.path.exists(args.ranges) else {}
    finals = defaultdict(dict)  # (workload, workers) -> method -> {seed: regret}
    for r in rows:
        if r["final"] == "":
            continue
        finals[(r["workload"], int(r["workers"]))].setdefault(r["method"], {})[int(r["seed"])] = float(r["final"])
    for workload, _ in finals:
        if workload not in ranges:
            if workload.startswith("rbv2-"):
                ranges[workload] = table_range(workload)
            elif args.workload_server:
                ranges[workload] = sampled_range(args.workload_server, workload)
            else:
                raise SystemExit(f"no range for {workload}: pass --workload-server")
    if args.ranges:
        with open(args.ranges, "w") as f:
            json.dump(ranges, f, indent=1, sort_keys=True)
    norm, ranks, wins, losses, cells = (defaultdict(list), defaultdict(list), defaultdict(int),
                                        defaultdict(int), defaultdict(int))
    lost_on = defaultdict(list)
    for (workload, workers), by_method in sorted(finals.items()):
        seeds = set.intersection(*(set(v) for v in by_method.values()))
        if not seeds:
            continue
        means = {m: statistics.mean(v[s] for s in seeds) for m, v in by_method.items()}
        medians = {m: statistics.median(v[s] for s in seeds) for m, v in by_method.items()}
        order = sorted(means, key=means.get)
        if args.per_table:
            print(f"{workload} x{workers} ({len(seeds)} seeds): " +
                  ", ".join(f"{m.replace('hpsearch ', '')} {medians[m]:.4g}" for m in order))
        for m in by_method:
            cells[m] += 1
            norm[m].append(means[m] / ranges[workload])
            ranks[m].append(1 + sum(means[o] < means[m] for o in by_method) +
                            0.5 * sum(means[o] == means[m] and o != m for o in by_method))
            base = next((o for o in by_method if o.startswith("hpsearch random") and
                         scheduler_of(o) == scheduler_of(m)), None)
            if base is None or base == m:
                continue
            gap = medians[m] - medians[base]
            if gap > max(0.05 * abs(medians[base]), 1e-4):
                losses[m] += 1
                lost_on[m].append(f"{workload} x{workers}")
            elif -gap > max(0.05 * abs(medians[base]), 1e-4):
                wins[m] += 1
    print("| method | cells | mean normalised regret | x random's | mean rank | wins / losses vs random |")
    print("|---|---|---|---|---|---|")
    for m in sorted(norm, key=lambda m: statistics.mean(norm[m])):
        base = next((o for o in norm if o.startswith("hpsearch random") and scheduler_of(o) == scheduler_of(m)), None)
        ratio = statistics.mean(norm[m]) / statistics.mean(norm[base]) if base and statistics.mean(norm[base]) > 0 else math.nan
        print(f"| {m} | {cells[m]} | {statistics.mean(norm[m]):.4f} | {ratio:.2f} | {statistics.mean(ranks[m]):.2f} | "
              f"{wins[m]} / {losses[m]} |")
    for m, where in sorted(lost_on.items()):
        print(f"{m} loses on: {', '.join(where)}")


if __name__ == "__main__":
    main()
