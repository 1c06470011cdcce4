#!/usr/bin/env python3
"""The quality tables of docs/samplers.md and README.md, from the raw runs of quality.py.

Reads the CSV (one row per run), writes a JSON summary beside it and replaces the sections
between <!-- BEGIN name --> and <!-- END name --> in the documents:
- samplers.md `quality-tables`: per worker count, median [q1, q3] of the final regret per
  method and workload; time to target; the mean rank; hpsearch's best against Optuna's TPE.
- README.md `quality-summary`: with --default-method, that one method (what a user gets by
  naming its sampler and scheduler) beside Optuna's TPE in every cell (issue 26: never the
  best of several per cell); without it, the best-per-cell table.

Definitions (also printed above the tables):
- final regret: the best value among trials trained to full length, minus the workload's
  optimum (learning curves have none: their value, the error, is shown);
- target: per workload, the median final regret of Optuna random + Hyperband on one worker;
  time to target: virtual seconds (one per unit of training on a worker) until a full-length
  result within it, median over the runs that got there;
- rank: per workload, worker count and seed, the methods ranked by final regret (ties share
  the mean rank; a run without a full-length result ranks last), averaged.
"""
import argparse
import csv
import json
import math
import statistics
from collections import defaultdict

import quality  # bench/peers/quality.py: the workloads and methods, in their order

HPSEARCH_PREFIX = "hpsearch "
OPTUNA_TPE = "optuna TPE + Hyperband"
OPTUNA_RANDOM = "optuna random + Hyperband"
# Workloads without a known optimum: their "regret" is the value itself (an error rate), so
# only its order means something, not a ratio.
NO_OPTIMUM = {"learning-curves-4"}


def quartiles(values):
    values = sorted(values)
    if not values:
        return None
    if len(values) == 1:
        return values[0], values[0], values[0]
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[1], q[2]


def fmt(v):
    if v is None:
        return "-"
    if v == 0:
        return "0"
    return f"{v:.3g}" if abs(v) >= 1e-3 else f"{v:.2e}"


def trajectory(row):
    return [tuple(float(x) for x in point.split(":")) for point in row["trajectory"].split(";") if point]


def common_seeds(rows):
    """The rows of quality.METHODS cut down, per workload and worker count, to the seeds every
    one of those methods ran there, so that each comparison is over the same seeds; rows of the
    extra methods are kept as they are."""
    seeds = defaultdict(set)
    for r in rows:
        seeds[(r["workload"], r["workers"], r["method"])].add(r["seed"])
    common = {}
    for (w, n, m), s in seeds.items():
        if m in quality.METHODS:
            common[(w, n)] = common.get((w, n), s) & s
    return [r for r in rows if r["method"] not in quality.METHODS or r["seed"] in common[(r["workload"], r["workers"])]]


def summarise(rows):
    rows = common_seeds(rows)
    workloads = [w for w in quality.WORKLOADS if any(r["workload"] == w for r in rows)]
    workers = sorted({int(r["workers"]) for r in rows})
    methods = [m for m in quality.ALL_METHODS if any(r["method"] == m for r in rows)]
    cells = defaultdict(list)
    for r in rows:
        cells[(r["workload"], int(r["workers"]), r["method"])].append(r)
    targets = {}
    for w in workloads:
        finals = [float(r["final"]) for r in cells[(w, 1, OPTUNA_RANDOM)] if r["final"]]
        if finals:
            targets[w] = statistics.median(finals)
    summary = {"workloads": workloads, "workers": workers, "methods": methods, "targets": targets,
               "cells": [], "ranks": {}, "best_vs_optuna": []}
    for w in workloads:
        for n in workers:
            for m in methods:
                runs = cells.get((w, n, m))
                if not runs:
                    continue
                finals = [float(r["final"]) for r in runs if r["final"]]
                q = quartiles(finals)
                reached = []
                for r in runs:
                    for t, regret in trajectory(r):
                        if w in targets and regret <= targets[w]:
                            reached.append(t)
                            break
                summary["cells"].append({
                    "workload": w, "workers": n, "method": m, "runs": len(runs),
                    "finished": len(finals), "q1": q and q[0], "median": q and q[1], "q3": q and q[2],
                    "reached_target": len(reached),
                    "time_to_target": statistics.median(reached) if reached else None})
    # Ranks among the methods run on every workload at that worker count (extra methods run on
    # a few workloads only are left out), over the seeds that all of them ran.
    for n in workers:
        ranked = [m for m in methods if all((w, n, m) in cells for w in workloads)]
        totals, counts = defaultdict(float), defaultdict(int)
        for w in workloads:
            by_seed = defaultdict(dict)
            for m in ranked:
                for r in cells.get((w, n, m), []):
                    by_seed[r["seed"]][m] = float(r["final"]) if r["final"] else math.inf
            for seed, finals in by_seed.items():
                if len(finals) != len(ranked):
                    continue
                ordered = sorted(finals.values())
                for m, v in finals.items():
                    first = ordered.index(v)
                    last = len(ordered) - 1 - ordered[::-1].index(v)
                    totals[(w, m)] += (first + last) / 2 + 1
                    counts[(w, m)] += 1
        summary["ranks"][str(n)] = {
            m: {"mean": (sum(totals[(w, m)] for w in workloads) / sum(counts[(w, m)] for w in workloads)
                         if sum(counts[(w, m)] for w in workloads) else None),
                "per_workload": {w: totals[(w, m)] / counts[(w, m)] if counts[(w, m)] else None
                                 for w in workloads},
                "seeds": sum(counts[(w, m)] for w in workloads)}
            for m in ranked}
    index = {(c["workload"], c["workers"], c["method"]): c for c in summary["cells"]}
    for w in workloads:
        for n in workers:
            optuna = index.get((w, n, OPTUNA_TPE))
            ours = [index[(w, n, m)] for m in summary["ranks"][str(n)]
                    if m.startswith(HPSEARCH_PREFIX) and (w, n, m) in index and index[(w, n, m)]["median"] is not None]
            if not optuna or not ours:
                continue
            best = min(ours, key=lambda c: c["median"])
            ratio = (best["median"] / optuna["median"]
                     if optuna["median"] and w not in NO_OPTIMUM else None)
            summary["best_vs_optuna"].append({
                "workload": w, "workers": n, "best": best["method"], "best_median": best["median"],
                "best_runs": best["runs"], "optuna_median": optuna["median"], "optuna_runs": optuna["runs"],
                "ratio": ratio, "lower": best["median"] < optuna["median"]})
    return summary


def tables(summary):
    index = {(c["workload"], c["workers"], c["method"]): c for c in summary["cells"]}
    ws = summary["workloads"]
    out = []
    for n in summary["workers"]:
        seeds = sorted({c["runs"] for c in summary["cells"] if c["workers"] == n})
        out += [f"**{n} worker{'s' if n > 1 else ''}**: final regret, median [q1, q3] "
                f"(runs per cell: {', '.join(map(str, seeds))})", "",
                "| method | " + " | ".join(ws) + " | mean rank |", "|---|" + "---|" * (len(ws) + 1)]
        for m in summary["methods"]:
            cells = []
            for w in ws:
                c = index.get((w, n, m))
                cells.append("-" if not c or c["median"] is None else
                             f"{fmt(c['median'])} [{fmt(c['q1'])}, {fmt(c['q3'])}]" +
                             ("" if c["runs"] == max(seeds) else f" ({c['runs']})"))
            if all((w, n, m) not in index for w in ws):
                continue
            rank = summary["ranks"][str(n)].get(m, {}).get("mean")
            out.append(f"| {m} | " + " | ".join(cells) + f" | {fmt(rank) if rank else '-'} |")
        out += ["", f"Time to target ({n} worker{'s' if n > 1 else ''}): median virtual seconds, "
                "runs that reached it / runs", "",
                "| method | " + " | ".join(f"{w} (≤ {fmt(summary['targets'].get(w))})" for w in ws) + " |",
                "|---|" + "---|" * len(ws)]
        for m in summary["methods"]:
            if all((w, n, m) not in index for w in ws):
                continue
            cells = []
            for w in ws:
                c = index.get((w, n, m))
                cells.append("-" if not c else
                             f"{fmt(c['time_to_target'])} ({c['reached_target']}/{c['runs']})")
            out.append(f"| {m} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def best_table(summary):
    out = ["| workload | workers | best hpsearch method | its median (seeds) | Optuna TPE + Hyperband (seeds) | ratio |",
           "|---|---|---|---|---|---|"]
    for b in summary["best_vs_optuna"]:
        ratio = "-" if b["ratio"] is None else f"{b['ratio']:.2g}"
        name = b["workload"] + (" (error)" if b["workload"] in NO_OPTIMUM else "")
        out.append(f"| {name} | {b['workers']} | {b['best'][len(HPSEARCH_PREFIX):]} | "
                   f"{fmt(b['best_median'])} ({b['best_runs']}) | {fmt(b['optuna_median'])} ({b['optuna_runs']}) | {ratio} |")
    out.append("")
    for n in summary["workers"]:
        rows = [b for b in summary["best_vs_optuna"] if b["workers"] == n]
        lower = sum(b["best_median"] < b["optuna_median"] for b in rows)
        equal = sum(b["best_median"] == b["optuna_median"] for b in rows)
        out.append(f"- {n} worker{'s' if n > 1 else ''}: lower on {lower}, equal on {equal}, "
                   f"higher on {len(rows) - lower - equal} of {len(rows)} workloads.")
    return "\n".join(out)


def default_table(summary, method):
    """One fixed hpsearch method beside Optuna's TPE + Hyperband, cell by cell."""
    index = {(c["workload"], c["workers"], c["method"]): c for c in summary["cells"]}
    label = method[len(HPSEARCH_PREFIX):] if method.startswith(HPSEARCH_PREFIX) else method
    out = [f"| workload | workers | {label}: median (seeds) | Optuna TPE + Hyperband (seeds) | ratio |",
           "|---|---|---|---|---|"]
    tally = defaultdict(lambda: [0, 0, 0])
    for w in summary["workloads"]:
        for n in summary["workers"]:
            ours, optuna = index.get((w, n, method)), index.get((w, n, OPTUNA_TPE))
            if not ours or not optuna or ours["median"] is None or optuna["median"] is None:
                continue
            ratio = (f"{ours['median'] / optuna['median']:.2g}"
                     if optuna["median"] and w not in NO_OPTIMUM else "-")
            name = w + (" (error)" if w in NO_OPTIMUM else "")
            out.append(f"| {name} | {n} | {fmt(ours['median'])} ({ours['runs']}) | "
                       f"{fmt(optuna['median'])} ({optuna['runs']}) | {ratio} |")
            t = tally[n]
            t[0 if ours["median"] < optuna["median"] else 1 if ours["median"] == optuna["median"] else 2] += 1
    out.append("")
    for n in summary["workers"]:
        if n in tally:
            lower, equal, higher = tally[n]
            out.append(f"- {n} worker{'s' if n > 1 else ''}: lower on {lower}, equal on {equal}, "
                       f"higher on {higher} of {lower + equal + higher} workloads.")
    return "\n".join(out)


def costs_table(path, seeds=30):
    """Mean CPU seconds per run (the harness, Optuna or searcher-sim drive, and peer_workload)
    by method and worker count, from quality.py's costs file, and what the full grid of
    quality.METHODS would take: every workload at 1, 4 and 16 workers, `seeds` seeds."""
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["cpu_seconds"]]
    by = defaultdict(list)
    extra_workloads = defaultdict(set)  # the extra methods run only where they matter
    for r in rows:
        by[(r["method"], int(r["workers"]))].append(float(r["cpu_seconds"]))
        extra_workloads[r["method"]].add(r["workload"])
    workers = sorted({n for _, n in by})
    out = ["| method | " + " | ".join(f"{n} worker{'s' if n > 1 else ''}" for n in workers) + " |",
           "|---|" + "---|" * len(workers)]
    grid = extra = 0.0
    for m in quality.ALL_METHODS:
        if not any((m, n) in by for n in workers):
            continue
        out.append(f"| {m} | " + " | ".join(
            f"{statistics.mean(by[(m, n)]):.2f} ({len(by[(m, n)])})" if (m, n) in by else "-"
            for n in workers) + " |")
        per_run = statistics.mean([v for n in workers for v in by.get((m, n), [])])
        if m in quality.METHODS:
            grid += per_run * len(quality.WORKLOADS) * 3 * seeds
        else:
            extra += per_run * len(extra_workloads[m]) * 3 * seeds
    out += ["", f"CPU seconds per run, mean (runs measured). The full grid ({len(quality.METHODS)} methods x "
            f"{len(quality.WORKLOADS)} workloads x 3 worker counts x {seeds} seeds, each method at its mean "
            f"over the worker counts measured): {grid:,.0f} CPU seconds ({grid / 3600:.1f} hours); the extra "
            f"methods on the workloads they were run on, as many runs: {extra:,.0f} more."]
    return "\n".join(out) + "\n"


def replace_section(text, name, body):
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    if begin not in text or end not in text:
        raise SystemExit(f"no section '{name}' to replace")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + begin + "\n" + body.rstrip("\n") + "\n" + end + tail


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", required=True, nargs="+", help="quality.py's CSV files")
    parser.add_argument("--summary", help="JSON summary to write")
    parser.add_argument("--samplers-doc", help="docs/samplers.md")
    parser.add_argument("--readme", help="README.md")
    parser.add_argument("--costs", help="quality.py's costs CSV: a table of CPU seconds per run in samplers.md")
    parser.add_argument("--default-method", help="the one hpsearch method README's table shows beside Optuna "
                        "(e.g. 'hpsearch auto + adaptive_asha'); default: the best per cell")
    args = parser.parse_args()
    rows = []
    for path in args.results:
        with open(path, newline="") as f:
            rows += list(csv.DictReader(f))
    summary = summarise(rows)
    if args.summary:
        with open(args.summary, "w") as f:
            json.dump(summary, f, indent=1)
            f.write("\n")
    body = tables(summary) + "\nhpsearch's best method against Optuna's TPE + Hyperband (median final regret):\n\n" + \
        best_table(summary) + "\n"
    sections = [(args.samplers_doc, "quality-tables", body),
                (args.readme, "quality-summary",
                 (default_table(summary, args.default_method) if args.default_method
                  else best_table(summary)) + "\n")]
    if args.costs:
        sections.append((args.samplers_doc, "quality-costs", costs_table(args.costs)))
    for path, name, text in sections:
        if path:
            with open(path) as f:
                doc = f.read()
            with open(path, "w") as f:
                f.write(replace_section(doc, name, text))
    if not (args.samplers_doc or args.readme):
        print(body)


if __name__ == "__main__":
    main()
