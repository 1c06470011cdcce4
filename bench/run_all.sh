#!/usr/bin/env bash
# Builds the benchmarks (Release) and runs them with repetitions, writing JSON and a table of
# medians to build/bench/. Takes a few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$(nproc)" --target searcher_bench asha_bench simulator_bench
mkdir -p build/bench
for bench in searcher_bench asha_bench simulator_bench; do
  build/release/bench/$bench --benchmark_repetitions="${REPETITIONS:-5}" \
    --benchmark_report_aggregates_only=true \
    --benchmark_out=build/bench/$bench.json --benchmark_out_format=json \
    | grep -E 'Benchmark|----|_median'
done
echo "JSON results: build/bench/*.json"
