#!/usr/bin/env bash
# The runner's own cost per operation (issue 5: under 1 ms), excluding process start-up: the
# time from a trial's validation report to the next commands sent, journal syncs included,
# with trivial shell trials. Three runs by default (RUNS); writes build/bench/runner.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release --target searcher-run >/dev/null
mkdir -p build/bench
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for run in $(seq 1 "${RUNS:-3}"); do
  build/release/runner/searcher-run run --config bench/runner/overhead.yaml --dir "$dir/exp$run" \
    --slots 2 >/dev/null 2>&1
done
/usr/bin/python3 - "$dir" "${RUNS:-3}" <<'PY' > build/bench/runner.json
import json, sys
runs = []
for run in range(1, int(sys.argv[2]) + 1):
    base = f"{sys.argv[1]}/exp{run}"
    r = json.load(open(f"{base}/experiment.json"))["runner"]
    r["launches"] = sum(1 for line in open(f"{base}/runner.log") if " started (pid " in line)
    runs.append(r)
    print(f"run {run}: {r['validations_handled']} operations, {r['mean_decision_ms']:.3f} ms each, "
          f"{r['launches']} launches", file=sys.stderr)
print(json.dumps(runs, indent=2))
PY
echo "wrote build/bench/runner.json"
