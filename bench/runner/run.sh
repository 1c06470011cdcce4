#!/usr/bin/env bash
# The runner's own cost per operation (issue 5: under 1 ms), excluding process start-up: the
# time from a trial's validation report to the next commands sent, journal syncs included,
# with trivial shell trials. Prints the figures from experiment.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release --target searcher-run >/dev/null
dir=$(mktemp -d)
start=$(date +%s.%N)
build/release/runner/searcher-run run --config bench/runner/overhead.yaml --dir "$dir/exp" --slots 2 2>/dev/null | head -1
end=$(date +%s.%N)
/usr/bin/python3 - "$dir/exp/experiment.json" "$start" "$end" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
r = e["runner"]
launches = sum(1 for line in open(sys.argv[1].replace("experiment.json", "runner.log")) if " started (pid " in line)
print(f"{r['validations_handled']} operations answered, mean {r['mean_decision_ms']:.3f} ms each "
      f"(report in -> commands out, journal fsyncs included); {launches} process launches; "
      f"whole run {float(sys.argv[3]) - float(sys.argv[2]):.2f} s")
PY
rm -rf "$dir"
