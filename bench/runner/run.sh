#!/usr/bin/env bash
# The runner's own cost per operation, excluding process start-up: the time the runner spends
# on a batch of trial reports (lines read, decisions, journal writes and the batch's one
# fdatasync: group commit) over the validations in it, with trivial shell trials. Measured
# with 1 trial in flight (every operation waits for its own sync) and with 64 in flight (syncs
# shared), beside one bare fdatasync of a journal-sized append on the same disk in the same run.
# RUNS runs of each (default 3); writes build/bench/runner.json (OUT). SEARCHER_RUN names another
# build's program to measure (an older commit's, side by side); default: this tree's, built.
set -euo pipefail
cd "$(dirname "$0")/../.."
runner=${SEARCHER_RUN:-}
if [ -z "$runner" ]; then
  cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/release --target searcher-run >/dev/null
  runner=build/release/runner/searcher-run
fi
out=${OUT:-build/bench/runner.json}
mkdir -p build/bench
dir=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/hpsearch-runner-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
runs=${RUNS:-3}
for run in $(seq 1 "$runs"); do
  "$runner" run --config bench/runner/overhead.yaml --dir "$dir/one$run" \
    --slots 1 >/dev/null 2>&1
  sed 's/max_concurrent_trials: 1$/max_concurrent_trials: 64/; s/max_trials: 200$/max_trials: 640/' \
    bench/runner/overhead.yaml > "$dir/overhead64.yaml"
  cp bench/runner/trivial_trial.sh "$dir/"
  "$runner" run --config "$dir/overhead64.yaml" --dir "$dir/many$run" \
    --slots 64 >/dev/null 2>&1
done
/usr/bin/python3 - "$dir" "$runs" <<'PY' > "$out"
import json, os, statistics, sys, time
base, runs = sys.argv[1], int(sys.argv[2])

def bare_fdatasync_ms(path, n=200):
    """One journal-sized line appended and fdatasync'd, as Journal::append does; median."""
    line = b'{"seq":1,"in":{"event":"validation_completed"},"out":{"operations":[]}}\n' * 2
    times = []
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for _ in range(n):
            start = time.perf_counter()
            os.write(fd, line)
            os.fdatasync(fd)
            times.append((time.perf_counter() - start) * 1000)
    finally:
        os.close(fd)
    return statistics.median(times)

result = {"one_in_flight": [], "64_in_flight": [], "bare_fdatasync_ms": []}
for run in range(1, runs + 1):
    for key, name in (("one_in_flight", "one"), ("64_in_flight", "many")):
        r = json.load(open(f"{base}/{name}{run}/experiment.json"))["runner"]
        result[key].append(r)
        print(f"run {run}, {key}: {r['validations_handled']} operations, "
              f"{r['mean_decision_ms']:.3f} ms each", file=sys.stderr)
    result["bare_fdatasync_ms"].append(bare_fdatasync_ms(f"{base}/fdatasync{run}"))
    print(f"run {run}: bare fdatasync {result['bare_fdatasync_ms'][-1]:.3f} ms", file=sys.stderr)
one = statistics.median(r["mean_decision_ms"] for r in result["one_in_flight"])
many = statistics.median(r["mean_decision_ms"] for r in result["64_in_flight"])
sync = statistics.median(result["bare_fdatasync_ms"])
result["medians"] = {"one_in_flight_ms": one, "64_in_flight_ms": many, "bare_fdatasync_ms": sync,
                     "one_in_flight_over_fdatasync": one / sync}
print(f"medians: 1 in flight {one:.3f} ms per operation ({one / sync:.2f} x one fdatasync), "
      f"64 in flight {many:.3f} ms, one bare fdatasync {sync:.3f} ms", file=sys.stderr)
print(json.dumps(result, indent=2))
PY
echo "wrote $out"
