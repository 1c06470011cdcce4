#!/usr/bin/env bash
# CI's real search: examples/sklearn-digits as an adaptive ASHA search through searcher-run;
# the best trial must reach the accuracy a good SGD model gets on digits (>= 0.9).
set -euo pipefail
searcher_run=$1
source_dir=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$searcher_run" run --config "$source_dir/examples/sklearn-digits/config.yaml" --dir "$dir/exp" --slots 2 2>"$dir/err" || {
  cat "$dir/err"; exit 1; }
/usr/bin/python3 - "$dir/exp/experiment.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
best = e["best"]
print(f"best trial {best['trial']}: validation_accuracy {best['metric']:.4f} at {best['length']} epochs, "
      f"{len(e['trials'])} trials, state {e['state']}")
assert e["state"] == "completed", e["state"]
assert best["length"] == 27, best
assert best["metric"] >= 0.9, best["metric"]
PY
