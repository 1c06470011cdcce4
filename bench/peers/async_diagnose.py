#!/usr/bin/env python3
"""Why a sampler gains more or less under one scheduler than another (issue 26): per run, what
the proposals offered against what the promotions made of them.

Runs quality.py's hpsearch harness (same budget, workers, spaces and tables) and records, per
run, from every trial's curve (the table's values at lengths 1 .. 27) and the longest length it
trained to; every regret is normalised by the table's error range (suite_report.table_range):
- trials, and how many trained to 3, 9 and 27 units;
- final: the run's final regret (the best value at 27 among the trials trained that far);
- offered: the best value at 27 among all trials created (had each been trained fully), so
  final - offered is what the promotions lost, and offered is what the proposals found;
- proposal_mean: the mean value at 27 over the trials created (how good the proposals are on
  average, not only at best);
- good_share: the share of trials created whose value at 27 is within 0.02 (normalised) of
  the table's best;
- repeats: the share of trials whose curve equals an earlier trial's (the same row again);
- model_at: the share of the run's trials created before `d + 2` trials had trained to 27
  (d: the space's dimensions), i.e. before a model could be fitted on full-length results.

Usage: async_diagnose.py --sim searcher-sim --workload-server peer_workload --workloads A,B
       --methods "hpsearch random + async_halving;..." --seeds 0-9 --out diag.csv
then --summary diag.csv prints the means per method (over the workloads and seeds given).
"""
import argparse
import csv
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quality  # noqa: E402
import suite_report  # noqa: E402

FIELDS = ["workload", "method", "seed", "trials", "at3", "at9", "at27", "final", "offered",
          "proposal_mean", "good_share", "repeats", "model_at"]


def diagnose(binaries, workload_name, method, workers, seed, span):
    workload = quality.Workload(binaries["workload"], workload_name)
    name, sampler = quality.HPSEARCH_METHODS[method]
    cluster = quality.play_hpsearch(binaries["sim"], workload, name, sampler, workers, seed, method)
    workload.close()
    curves = list(cluster.curves.values())
    trained = [cluster.trained[rid] for rid in cluster.curves]
    full = [(c[-1] - workload.optimum) / span for c in curves]
    d = len(quality.WORKLOADS[workload_name])
    seen, repeats, at27, model_at = set(), 0, 0, len(curves)
    # Creation order; a trial's full-length result exists later than its creation, so counting
    # full-length trials in creation order overstates how early a model could use them: an
    # upper bound on model_at's earliness.
    for i, (curve, length) in enumerate(zip(curves, trained)):
        key = tuple(curve)
        repeats += key in seen
        seen.add(key)
        at27 += length >= quality.MAX_LENGTH
        if at27 >= d + 2 and model_at == len(curves):
            model_at = i + 1
    final = cluster.best / span if cluster.trajectory else float("nan")
    return dict(workload=workload_name, method=method, seed=seed, trials=len(curves),
                at3=sum(t >= 3 for t in trained), at9=sum(t >= 9 for t in trained), at27=at27,
                final=final, offered=min(full), proposal_mean=statistics.mean(full),
                good_share=sum(f <= 0.02 for f in full) / len(full),
                repeats=repeats / len(curves), model_at=model_at / len(curves))


def summary(path):
    rows = list(csv.DictReader(open(path)))
    by = defaultdict(list)
    for r in rows:
        by[r["method"]].append(r)
    numeric = FIELDS[3:]
    print("| method | runs | " + " | ".join(numeric) + " |")
    print("|---|---|" + "---|" * len(numeric))
    for method, rs in sorted(by.items()):
        cells = [statistics.mean(float(r[k]) for r in rs) for k in numeric]
        print(f"| {method.replace('hpsearch ', '')} | {len(rs)} | " +
              " | ".join(f"{c:.3g}" for c in cells) + " |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sim")
    parser.add_argument("--workload-server")
    parser.add_argument("--workloads", default=",".join(quality.TABLES))
    parser.add_argument("--methods", default="hpsearch random + async_halving;hpsearch TPE + async_halving")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--seeds", default="0-9")
    parser.add_argument("--out")
    parser.add_argument("--summary", help="print the means per method of a diagnostics CSV")
    args = parser.parse_args()
    if args.summary:
        summary(args.summary)
        return
    first, _, last = args.seeds.partition("-")
    seeds = range(int(first), int(last or first) + 1)
    binaries = {"sim": args.sim, "workload": args.workload_server}
    with open(args.out, "w", newline="") as f:
        out = csv.DictWriter(f, FIELDS, lineterminator="\n")
        out.writeheader()
        for workload in args.workloads.split(","):
            span = suite_report.table_range(workload)
            for method in args.methods.split(";"):
                for seed in seeds:
                    out.writerow(diagnose(binaries, workload, method, args.workers, seed, span))
                    f.flush()


if __name__ == "__main__":
    main()
