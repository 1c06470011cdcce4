#!/usr/bin/env bash
# The runner's own cost per operation, excluding process start-up: the time the runner spends
# on the batches of trial reports (lines read, decisions, journal writes and the batch's one
# fdatasync: group commit) over the validations handled, with trivial shell trials that are
# long-lived processes (bench/runner/trivial_trial.sh: ten operations each, nothing forked per
# operation). Measured with 1 trial in flight (every operation waits for its own sync) and with
# 64 in flight (syncs shared), beside one bare fdatasync of a journal-sized append on the same
# disk in the same run (and one of the same records written over zeros synced ahead, as the
# runner's journal writes them: bare_fdatasync_spare_ms). Besides the wall time it reports, per operation, the runner's CPU time
# in those batches, its time in fdatasync, its fdatasync calls and its whole process CPU time
# (launches and snapshots included), as experiment.json's "runner" gives them. Beside the wall
# time of the batches, the same span up to the answers ("mean_answer_ms": the wall time until
# the commands are written plus the CPU time of writing them), since a command wakes its
# trial, which on a busy machine runs in the runner's place before the write returns.
# RUNS runs of each (default 5), medians; writes build/bench/runner.json (OUT). SEARCHER_RUN
# names another build's program to measure instead of this tree's (built). With BEFORE naming
# an earlier build's searcher-run, each run measures both, one after the other, and the
# earlier build's figures go to build/bench/runner_before.json (OUT_BEFORE): side by side in
# the same run (fields an earlier build does not report are null).
set -euo pipefail
cd "$(dirname "$0")/../.."
runner=${SEARCHER_RUN:-}
if [ -z "$runner" ]; then
  cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/release --target searcher-run >/dev/null
  runner=build/release/runner/searcher-run
fi
before=${BEFORE:-}
out=${OUT:-build/bench/runner.json}
out_before=${OUT_BEFORE:-build/bench/runner_before.json}
mkdir -p build/bench
dir=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/hpsearch-runner-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
runs=${RUNS:-5}
cp bench/runner/trivial_trial.sh bench/runner/overhead.yaml "$dir/"
sed 's/max_concurrent_trials: 1$/max_concurrent_trials: 64/; s/max_trials: 200$/max_trials: 640/' \
  bench/runner/overhead.yaml > "$dir/overhead64.yaml"
builds="this"
[ -n "$before" ] && builds="this before"
for run in $(seq 1 "$runs"); do
  for build in $builds; do
    program=$runner
    [ "$build" = before ] && program=$before
    "$program" run --config "$dir/overhead.yaml" --dir "$dir/$build-one$run" \
      --slots 1 >/dev/null 2>&1
    "$program" run --config "$dir/overhead64.yaml" --dir "$dir/$build-many$run" \
      --slots 64 >/dev/null 2>&1
  done
  # One bare fdatasync of a journal-sized append (median of 200), right after this run's
  # experiments, on the same disk; and beside it (fdatasync_spare) the same records written
  # over zeros synced ahead, as the runner's journal now writes them (docs/store.md, "Spare
  # space"): the like-for-like floor of the runner's own sync.
  /usr/bin/python3 - "$dir/fdatasync$run" > "$dir/fdatasync$run.ms" 2> "$dir/fdatasync_spare$run.ms" <<'PY'
import os, statistics, sys, time
line = b'{"seq":1,"in":{"event":"validation_completed"},"out":{"operations":[]}}\n' * 2

def median_sync(spare):
    times = []
    flags = os.O_WRONLY | os.O_CREAT | (0 if spare else os.O_APPEND)
    fd = os.open(sys.argv[1], flags, 0o600)
    if spare:
        os.write(fd, bytes(len(line) * 200))
        os.fdatasync(fd)
        os.lseek(fd, 0, os.SEEK_SET)
    for _ in range(200):
        start = time.perf_counter()
        os.write(fd, line)
        os.fdatasync(fd)
        times.append((time.perf_counter() - start) * 1000)
    os.close(fd)
    os.unlink(sys.argv[1])
    return statistics.median(times)

print(median_sync(False))
print(median_sync(True), file=sys.stderr)
PY
done
summarize() {
  /usr/bin/python3 - "$dir" "$runs" "$1" <<'PY'
import json, statistics, sys
base, runs, build = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def per_operation(r):
    """experiment.json's "runner", with the per-operation figures an earlier build may lack."""
    n = r["validations_handled"]
    syncs = r.get("batch_syncs")
    cpu = r.get("process_cpu_seconds")
    return dict(r, syncs_per_operation=None if syncs is None else syncs / n,
                process_cpu_ms_per_operation=None if cpu is None else 1000 * cpu / n)

def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None

result = {"one_in_flight": [], "64_in_flight": [], "bare_fdatasync_ms": [],
          "bare_fdatasync_spare_ms": []}
for run in range(1, runs + 1):
    for key, name in (("one_in_flight", "one"), ("64_in_flight", "many")):
        r = per_operation(json.load(open(f"{base}/{build}-{name}{run}/experiment.json"))["runner"])
        result[key].append(r)
        print(f"{build} run {run}, {key}: {r['validations_handled']} operations, "
              f"{r['mean_decision_ms']:.3f} ms each", file=sys.stderr)
    result["bare_fdatasync_ms"].append(float(open(f"{base}/fdatasync{run}.ms").read()))
    result["bare_fdatasync_spare_ms"].append(float(open(f"{base}/fdatasync_spare{run}.ms").read()))
sync = statistics.median(result["bare_fdatasync_ms"])
spare = statistics.median(result["bare_fdatasync_spare_ms"])
medians = {"bare_fdatasync_ms": sync, "bare_fdatasync_spare_ms": spare}
for key, prefix in (("one_in_flight", "one_in_flight"), ("64_in_flight", "64_in_flight")):
    rows = result[key]
    medians[f"{prefix}_ms"] = median(r["mean_decision_ms"] for r in rows)
    medians[f"{prefix}_answer_ms"] = median(r.get("mean_answer_ms") for r in rows)
    medians[f"{prefix}_cpu_ms"] = median(r.get("mean_decision_cpu_ms") for r in rows)
    medians[f"{prefix}_sync_ms"] = median(r.get("mean_decision_sync_ms") for r in rows)
    medians[f"{prefix}_syncs_per_operation"] = median(r["syncs_per_operation"] for r in rows)
    medians[f"{prefix}_process_cpu_ms"] = median(r["process_cpu_ms_per_operation"] for r in rows)
medians["one_in_flight_over_fdatasync"] = medians["one_in_flight_ms"] / sync
medians["one_in_flight_over_spare_fdatasync"] = medians["one_in_flight_ms"] / spare
answer = medians["one_in_flight_answer_ms"]
medians["one_in_flight_answer_over_fdatasync"] = None if answer is None else answer / sync
# The same ratio against the runner's own fdatasync time at the same moments (1 in flight: one
# sync per operation), which a disk shared with others' builds moves less than a bare one
# measured minutes apart.
own = medians["one_in_flight_sync_ms"]
medians["one_in_flight_over_own_sync"] = None if not own else medians["one_in_flight_ms"] / own
medians["one_in_flight_answer_over_own_sync"] = None if not own or answer is None else answer / own
medians["uptime"] = open("/proc/loadavg").read().split()[:3]
result["medians"] = medians
to_answer = "" if answer is None else (
    f"; up to the answers {answer:.3f} ms "
    f"({medians['one_in_flight_answer_over_fdatasync']:.2f} x)")
print(f"{build} medians: 1 in flight {medians['one_in_flight_ms']:.3f} ms per operation "
      f"({medians['one_in_flight_over_fdatasync']:.2f} x one fdatasync{to_answer}), 64 in flight "
      f"{medians['64_in_flight_ms']:.3f} ms, one bare fdatasync {sync:.3f} ms (over zeros synced "
      f"ahead {spare:.3f} ms: {medians['one_in_flight_over_spare_fdatasync']:.2f} x)",
      file=sys.stderr)
print(json.dumps(result, indent=2))
PY
}
summarize this > "$out"
echo "wrote $out"
if [ -n "$before" ]; then
  summarize before > "$out_before"
  echo "wrote $out_before"
fi
