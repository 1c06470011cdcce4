#!/usr/bin/env bash
# Builds the benchmarks (Release) and runs them all with repetitions (REPETITIONS, default 5),
# writing JSON to build/bench/: the Google Benchmark suites (searcher trial cycles, ASHA,
# snapshot/restore, drive through a pipe, the C ABI, the simulator), peak memory per trial at 10^6 trials
# (getrusage, one process per method), and the runner's cost per operation. Then regenerates
# the tables of docs/PERFORMANCE.md. About 10 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
benches=(searcher_bench asha_bench snapshot_bench drive_bench capi_bench simulator_bench)
cmake --build build/release -j "$(nproc)" --target "${benches[@]}" memory_per_trial searcher-sim searcher-run
mkdir -p build/bench
for bench in "${benches[@]}"; do
  echo "== $bench"
  build/release/bench/$bench --benchmark_repetitions="${REPETITIONS:-5}" \
    --benchmark_report_aggregates_only=true \
    --benchmark_out=build/bench/$bench.json --benchmark_out_format=json \
    | grep -E 'Benchmark|----|_median'
done
echo "== memory per trial at 10^6 trials"
: > build/bench/memory.jsonl
for method in random async_halving adaptive_asha; do
  build/release/bench/memory_per_trial "$method" 1000000 | tee -a build/bench/memory.jsonl
done
echo "== the runner's cost per operation"
bash bench/runner/run.sh
/usr/bin/python3 bench/report.py --bench build/bench --docs docs/PERFORMANCE.md
echo "JSON results: build/bench/"
