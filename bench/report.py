#!/usr/bin/env python3
"""Regenerates the measured sections of docs/PERFORMANCE.md from the benchmark outputs.

Sections between `<!-- BEGIN name -->` and `<!-- END name -->` are replaced:
  bench     Google Benchmark medians (build/bench/*_bench.json)
  memory    peak memory per trial (build/bench/memory.jsonl)
  runner    the runner's cost per operation (build/bench/runner.json)
  machine   what the figures were measured on
  overhead  hpsearch beside Optuna, cost per trial (build/peers/results.json), and the plot
            docs/performance-overhead.svg
A section whose inputs are missing is left as it is.
"""
import argparse
import glob
import json
import math
import os
import platform
import re
import subprocess
from collections import OrderedDict


def replace_section(text, name, body):
    pattern = re.compile(r"(<!-- BEGIN %s -->\n).*?(<!-- END %s -->)" % (name, name), re.S)
    if not pattern.search(text):
        raise SystemExit(f"docs/PERFORMANCE.md has no section '{name}'")
    return pattern.sub(lambda m: m.group(1) + body.rstrip("\n") + "\n" + m.group(2), text)


def fmt_time(value, unit):
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]
    seconds = value * scale
    for name, factor in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= factor or name == "ns":
            return f"{seconds / factor:.3g} {name}"
    return f"{seconds:.3g} s"


def bench_section(directory):
    rows = OrderedDict()
    args = set()
    for path in sorted(glob.glob(os.path.join(directory, "*_bench.json"))):
        for b in json.load(open(path))["benchmarks"]:
            if b.get("aggregate_name") != "median":
                continue
            name = b["run_name"] if "run_name" in b else b["name"].rsplit("_median", 1)[0]
            family, _, arg = name.partition("/")
            arg = arg.replace("iterations:1", "").replace("real_time", "").strip("/") or "-"
            cell = fmt_time(b["real_time"], b["time_unit"])
            extras = []
            if "items_per_second" in b and arg != "-":
                extras.append(f"{1e6 / b['items_per_second']:.3g} µs/item")
            for counter, label in (("bytes_per_trial", "B/trial"), ("events/s", "events/s"), ("lines/s", "lines/s")):
                if counter in b:
                    value = b[counter]
                    extras.append(f"{value:.3g} {label}" if value < 1000 else f"{value / 1000:.3g}k {label}")
            if extras:
                cell += " (" + ", ".join(extras) + ")"
            rows.setdefault(family.replace("BM_", ""), {})[arg] = cell
            args.add(arg)
    if not rows:
        return None
    order = sorted(args, key=lambda a: (not a.isdigit(), int(a) if a.isdigit() else 0, a))
    head = "| benchmark | " + " | ".join(f"{int(a):,}" if a.isdigit() else "fixed size" for a in order) + " |"
    lines = [head, "|" + "---|" * (len(order) + 1)]
    for family, cells in rows.items():
        lines.append(f"| {family} | " + " | ".join(cells.get(a, "") for a in order) + " |")
    return ("\n".join(lines) + "\n\nMedians of the repetitions. Columns are trials per search (rung "
            "inserts for Rung_*); an item is a trial.\n")


def memory_section(path):
    if not os.path.exists(path):
        return None
    lines = ["| method | trials | peak RSS growth | bytes per trial |", "|---|---|---|---|"]
    for line in open(path):
        m = json.loads(line)
        growth = (m["peak_after_kib"] - m["peak_before_kib"]) / 1024
        lines.append(f"| {m['method']} | {m['trials']:,} | {growth:.1f} MiB | {m['bytes_per_trial']:.0f} |")
    return "\n".join(lines) + "\n"


def runner_line(r):
    m = r["medians"]

    def parts(prefix):
        """CPU, sync and syncs per operation, when the build reports them."""
        cpu, sync = m.get(f"{prefix}_cpu_ms"), m.get(f"{prefix}_sync_ms")
        syncs, whole = m.get(f"{prefix}_syncs_per_operation"), m.get(f"{prefix}_process_cpu_ms")
        if cpu is None:
            return ""
        return (f" (CPU {cpu:.3f} ms, fdatasync {sync:.3f} ms, {syncs:.2f} fdatasync calls; "
                f"the runner's whole CPU time {whole:.3f} ms)")

    own = m.get("one_in_flight_over_own_sync")
    own = "" if own is None else f" ({own:.2f} x the runner's own fdatasync at the same moments)"
    return (f"1 trial in flight {m['one_in_flight_ms']:.3f} ms per operation{parts('one_in_flight')}, "
            f"{m['one_in_flight_over_fdatasync']:.2f} x one bare fdatasync of "
            f"{m['bare_fdatasync_ms']:.3f} ms on the same disk in the same run{own}; 64 trials in flight "
            f"{m['64_in_flight_ms']:.3f} ms per operation{parts('64_in_flight')}")


def runner_section(path):
    """bench/runner/run.sh's medians; with runner_before.json beside it (the same script run on
    an earlier build through BEFORE, in the same runs), both, side by side."""
    if not os.path.exists(path):
        return None
    r = json.load(open(path))
    runs = len(r["one_in_flight"])
    load = r["medians"].get("uptime")
    load = "" if load is None else f" (load average {' '.join(load)} when the runs ended, on the 2 cores)"
    text = f"{runs} runs of each, medians{load}. This build: {runner_line(r)}.\n"
    before = os.path.join(os.path.dirname(path), "runner_before.json")
    if os.path.exists(before):
        text += f"\nThe earlier build (BEFORE), in the same runs: {runner_line(json.load(open(before)))}.\n"
    return text


def machine_section():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                memory = f", {int(line.split()[1]) / 1024 / 1024:.0f} GiB"
    except OSError:
        pass
    compiler = subprocess.run(["c++", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    return (f"{cpu}, {os.cpu_count()} cores{memory}; {platform.platform()}; {compiler}; "
            f"Python {platform.python_version()}.\n")


def overhead_section(results):
    lines = ["| trials | Optuna SuccessiveHalving | Optuna Hyperband | hpsearch pipe, sequential (ASHA / adaptive) | "
             "pipe, 16 in flight | Python in-process | C++ in-process | Optuna / pipe sequential | "
             "/ pipe 16 in flight | / Python in-process | / C++ in-process |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results["overhead"]:
        optuna_best = min(r["optuna_successive_halving_us"], r["optuna_hyperband_us"])
        has = lambda kind: f"hpsearch_async_halving_{kind}_us" in r
        worst = lambda kind: max(r[f"hpsearch_async_halving_{kind}_us"], r[f"hpsearch_adaptive_asha_{kind}_us"])
        pair = lambda kind, digits: (f"{r[f'hpsearch_async_halving_{kind}_us']:.{digits}f} / "
                                     f"{r[f'hpsearch_adaptive_asha_{kind}_us']:.{digits}f} µs" if has(kind) else "-")
        ratio = lambda kind, digits: f"{optuna_best / worst(kind):,.{digits}f}x" if has(kind) else "-"
        lines.append(
            f"| {r['trials']:,} | {r['optuna_successive_halving_us']:,.0f} µs | {r['optuna_hyperband_us']:,.0f} µs | "
            f"{pair('drive', 0)} | {pair('pipelined', 0)} | {pair('python', 1)} | {pair('inprocess', 2)} | "
            f"{ratio('drive', 1)} | {ratio('pipelined', 1)} | {ratio('python', 0)} | {ratio('inprocess', 0)} |")
    last = results["overhead"][-1]
    lines.append("")
    lines.append("Microseconds per trial; Optuna one run each, hpsearch in-process (Python and C++) the median "
                 "of 5; Optuna and the in-process columns in CPU time of the driving thread, the pipe columns "
                 "in wall time (two processes). The ratios "
                 "divide Optuna's cheaper pruner by hpsearch's dearer method. Sequential through the pipe is "
                 f"{last['hpsearch_async_halving_lines_per_trial']:.1f} (async_halving) and "
                 f"{last['hpsearch_adaptive_asha_lines_per_trial']:.1f} (adaptive_asha) round trips per trial; "
                 f"one line to `cat` and back took {results['pipe_round_trip_us']:.0f} µs on this machine in the "
                 "same run, the transport's floor.")
    return "\n".join(lines) + "\n"


def overhead_svg(results, path):
    series = OrderedDict([
        ("Optuna SuccessiveHalving", ("optuna_successive_halving_us", "#d62728")),
        ("Optuna Hyperband", ("optuna_hyperband_us", "#ff7f0e")),
        ("hpsearch async_halving, pipe", ("hpsearch_async_halving_drive_us", "#1f77b4")),
        ("hpsearch adaptive_asha, pipe", ("hpsearch_adaptive_asha_drive_us", "#17becf")),
        ("hpsearch async_halving, pipe x16", ("hpsearch_async_halving_pipelined_us", "#9467bd")),
        ("hpsearch adaptive_asha, pipe x16", ("hpsearch_adaptive_asha_pipelined_us", "#c5b0d5")),
        ("hpsearch async_halving, Python in-process", ("hpsearch_async_halving_python_us", "#8c564b")),
        ("hpsearch adaptive_asha, Python in-process", ("hpsearch_adaptive_asha_python_us", "#c49c94")),
        ("hpsearch async_halving, in-process", ("hpsearch_async_halving_inprocess_us", "#2ca02c")),
        ("hpsearch adaptive_asha, in-process", ("hpsearch_adaptive_asha_inprocess_us", "#98df8a")),
    ])
    rows = results["overhead"]
    series = OrderedDict((label, v) for label, v in series.items() if all(v[0] in r for r in rows))
    xs = [r["trials"] for r in rows]
    values = [r[key] for r in rows for key, _ in series.values()]
    lo, hi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    width, height, left, right, top, bottom = 860, 460, 80, 290, 40, 50
    px = lambda x: left + (x - min(xs)) / (max(xs) - min(xs)) * (width - left - right)
    py = lambda v: top + (hi - math.log10(v)) / (hi - lo) * (height - top - bottom)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15">Decision cost per trial '
           '(log scale): Optuna pruners and hpsearch</text>']
    for e in range(lo, hi + 1):
        y = py(10 ** e)
        out.append(f'<line x1="{left}" y1="{y}" x2="{width - right}" y2="{y}" stroke="#ccc"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4}" text-anchor="end">{10 ** e:g} µs</text>')
    for x in xs:
        out.append(f'<text x="{px(x)}" y="{height - bottom + 16}" text-anchor="middle">{x:,}</text>')
    out.append(f'<text x="{(left + width - right) / 2}" y="{height - 12}" text-anchor="middle">trials in the study</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{height - top - bottom}" '
               'fill="none" stroke="#333"/>')
    for k, (label, (key, colour)) in enumerate(series.items()):
        points = " ".join(f"{px(r['trials'])},{py(r[key])}" for r in rows)
        out.append(f'<polyline fill="none" stroke-width="2" stroke="{colour}" points="{points}"/>')
        y = top + 10 + 18 * k
        out.append(f'<rect x="{width - right + 14}" y="{y - 9}" width="14" height="10" fill="{colour}"/>')
        out.append(f'<text x="{width - right + 34}" y="{y}">{label}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench", help="directory with the benchmark JSON (build/bench)")
    parser.add_argument("--peers", help="build/peers/results.json")
    parser.add_argument("--docs", default="docs/PERFORMANCE.md")
    args = parser.parse_args()
    text = open(args.docs).read()
    text = replace_section(text, "machine", machine_section())
    if args.bench:
        for name, body in (("bench", bench_section(args.bench)),
                           ("memory", memory_section(os.path.join(args.bench, "memory.jsonl"))),
                           ("runner", runner_section(os.path.join(args.bench, "runner.json")))):
            if body is not None:
                text = replace_section(text, name, body)
    if args.peers and os.path.exists(args.peers):
        results = json.load(open(args.peers))
        if "overhead" in results:
            text = replace_section(text, "overhead", overhead_section(results))
            overhead_svg(results, os.path.join(os.path.dirname(args.docs), "performance-overhead.svg"))
    with open(args.docs, "w") as f:
        f.write(text)
    print(f"updated {args.docs}")


if __name__ == "__main__":
    main()
