#!/usr/bin/env python3
"""What proposing one configuration costs: hpsearch's samplers beside Optuna's TPE, one run.

hpsearch: bench/samplers_bench (Google Benchmark), the Propose benchmarks: a sampler holding N
observations of MF-Hartmann-6 and 16 pending trials proposes one configuration; CPU time,
median of the repetitions.
Optuna (Debian's python3-optuna): a study holding N completed trials of MF-Hartmann-6 (uniform
random points, valued by peer_workload at full length) and 16 running ones; one proposal is
`study.ask()` plus the six `suggest_float` calls (TPESampler(multivariate=True,
constant_liar=True) fits and samples its relative model in them); CPU time (process time),
median of REPETITIONS proposals, each told FAIL afterwards so the study keeps N completed
trials.

Writes the raw figures as JSON and replaces the `decision-cost` section of docs/PERFORMANCE.md.
"""
import argparse
import json
import random
import statistics
import subprocess
import time
import warnings

import quality  # bench/peers/quality.py: peer_workload's client

OBSERVATIONS = [100, 1000, 10000]
PENDING = 16
NAMES = ["x%d" % j for j in range(6)]


def hpsearch_figures(bench, repetitions):
    out = subprocess.run([bench, "--benchmark_filter=Propose", f"--benchmark_repetitions={repetitions}",
                          "--benchmark_report_aggregates_only=true", "--benchmark_format=json"],
                         check=True, capture_output=True, text=True).stdout
    figures = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        name, n = b["run_name"].split("/")
        scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[b["time_unit"]]
        figures.setdefault(name.replace("BM_Sampler_", ""), {})[int(n)] = b["cpu_time"] * scale
    return figures  # microseconds


def optuna_figures(workload_server, repetitions):
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    server = quality.Workload(workload_server, "mf-hartmann6")
    rng = random.Random(7)
    distributions = {name: optuna.distributions.FloatDistribution(0, 1) for name in NAMES}
    figures = {}
    for n in OBSERVATIONS:
        study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=3, multivariate=True,
                                                                        constant_liar=True))
        trials = []
        for t in range(n + PENDING):
            params = {name: rng.random() for name in NAMES}
            if t < n:
                value = server.curve(params)[-1]  # at full length
                trials.append(optuna.trial.create_trial(params=params, distributions=distributions, value=value))
            else:
                trials.append(optuna.trial.create_trial(params=params, distributions=distributions,
                                                        state=optuna.trial.TrialState.RUNNING))
        study.add_trials(trials)
        times = []
        for _ in range(repetitions):
            start = time.process_time()
            trial = study.ask()
            for name in NAMES:
                trial.suggest_float(name, 0, 1)
            times.append((time.process_time() - start) * 1e6)
            study.tell(trial, state=optuna.trial.TrialState.FAIL)
        figures[n] = statistics.median(times)
    server.close()
    return figures


def fmt(us):
    if us is None:
        return ""
    if us < 10:
        return f"{us:.2g} µs"
    if us < 1000:
        return f"{us:.0f} µs"
    return f"{us / 1000:.3g} ms" if us < 1e6 else f"{us / 1e6:.3g} s"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench", required=True, help="samplers_bench")
    parser.add_argument("--workload-server", required=True, help="peer_workload")
    parser.add_argument("--out", required=True, help="JSON of the figures")
    parser.add_argument("--docs", help="docs/PERFORMANCE.md")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--render-only", action="store_true", help="only write the table from --out")
    args = parser.parse_args()
    if not args.render_only:
        import optuna
        results = {"optuna_version": optuna.__version__, "pending": PENDING, "repetitions": args.repetitions,
                   "hpsearch_us": hpsearch_figures(args.bench, args.repetitions),
                   "optuna_tpe_us": optuna_figures(args.workload_server, args.repetitions)}
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
            f.write("\n")
    with open(args.out) as f:
        results = json.load(f)
    counts = sorted({int(n) for figures in results["hpsearch_us"].values() for n in figures} | set(OBSERVATIONS))
    rows = [("hpsearch random", results["hpsearch_us"].get("RandomPropose", {})),
            ("hpsearch TPE", results["hpsearch_us"].get("TpePropose", {})),
            ("hpsearch GP (kernel fitted)", results["hpsearch_us"].get("GpPropose", {})),
            ("hpsearch GP with a kernel refit", results["hpsearch_us"].get("GpProposeWithRefit", {})),
            (f"Optuna {results['optuna_version']} TPE (multivariate, constant liar)", results["optuna_tpe_us"])]
    lines = ["One proposal with N observations of MF-Hartmann-6 and 16 trials pending, CPU time, "
             f"median of {results['repetitions']}.", "",
             "| sampler | " + " | ".join(f"N = {n:,}" for n in counts) + " |", "|---|" + "---|" * len(counts)]
    for label, figures in rows:
        figures = {int(k): v for k, v in figures.items()}
        lines.append(f"| {label} | " + " | ".join(fmt(figures.get(n)) for n in counts) + " |")
    body = "\n".join(lines) + "\n"
    if args.docs:
        with open(args.docs) as f:
            text = f.read()
        begin, end = "<!-- BEGIN decision-cost -->", "<!-- END decision-cost -->"
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        with open(args.docs, "w") as f:
            f.write(head + begin + "\n" + body + end + tail)
    print(body)


if __name__ == "__main__":
    main()
