#!/usr/bin/env bash
# examples/sklearn-digits/pbt.yaml through searcher-run: population-based training with real
# warm starts. 6 members, 4 rounds, 2 closed and 2 cloned a round (int(0.34 x 6)): 6 + 3 x 2 =
# 12 trials; every clone starts from its parent's checkpoint (train.py says so in its output),
# trains 3 epochs of its own per round, and the best reaches a good SGD model's accuracy.
set -euo pipefail
searcher_run=$1
source_dir=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$searcher_run" run --config "$source_dir/examples/sklearn-digits/pbt.yaml" --dir "$dir/exp" --slots 2 2>"$dir/err" || {
  cat "$dir/err"; exit 1; }
/usr/bin/python3 - "$dir/exp/experiment.json" <<'PY'
import json, pathlib, sys
e = json.load(open(sys.argv[1]))
trials = e["trials"]
by_request = {t["request_id"]: t for t in trials}
clones = [t for t in trials if t.get("parent")]
print(f"{len(trials)} trials, {len(clones)} clones, best {e['best']['metric']:.4f}, state {e['state']}")
assert e["state"] == "completed", e["state"]
assert len(trials) == 12 and len(clones) == 6, (len(trials), len(clones))
for clone in clones:
    parent = by_request[clone["parent"]]
    out = (pathlib.Path(clone["directory"]) / "output.log").read_text()
    assert f"warm start from trial {parent['trial']}'s checkpoint" in out, (clone["trial"], out[-500:])
    assert clone["validations"][0]["length"] == 3, clone["validations"]
assert e["best"]["metric"] >= 0.9, e["best"]
PY
