#!/usr/bin/env bash
# The main job: install, build, simulate a search on 16 workers in virtual time (with plots),
# compare two strategies over 20 seeds, and play a search end to end through the protocol.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$(nproc)" --target searcher-sim
sim=build/release/simulator/searcher-sim
config=${1:-examples/random.yaml}

echo "== searcher-sim run --config examples/asha_hartmann6.yaml --workload mf-hartmann6 --workers 16 (with crashes)"
"$sim" run --config examples/asha_hartmann6.yaml --workload mf-hartmann6 --workers 16 \
  --startup 5 --checkpoint 2 --restore 3 --crash-rate 0.001 --stragglers 0.05 --out build/demo-run
echo "   open build/demo-run/workers.svg (Gantt chart of the workers), rungs.svg and best_so_far.svg"
echo

echo "== searcher-sim compare: adaptive ASHA against random search, 20 seeds each"
"$sim" compare --configs examples/asha_hartmann6.yaml examples/random_hartmann6.yaml \
  --workload mf-hartmann6 --workers 16 --seeds 20 --target 1.0 --out build/demo-compare
echo "   open build/demo-compare/compare.svg (median and quartile band of the regret over time)"
echo

echo "== searcher-sim preview --config $config"
"$sim" preview --config "$config" --order random --metric random --trace build/demo-trace.jsonl
echo
echo "== every event and the operations it caused are in build/demo-trace.jsonl; the first steps:"
head -n 4 build/demo-trace.jsonl
echo
echo "== replaying the trace's events through 'searcher-sim drive' gives the same operations:"
python3 - build/demo-trace.jsonl <<'PY' > build/demo-events.jsonl
import json, sys
for line in open(sys.argv[1]):
    print(json.dumps(json.loads(line)["in"], separators=(",", ":")))
PY
"$sim" drive --config "$config" < build/demo-events.jsonl > build/demo-answers.jsonl
python3 - build/demo-trace.jsonl build/demo-answers.jsonl <<'PY'
import json, sys
expected = [json.loads(l)["out"] for l in open(sys.argv[1])]
answers = [json.loads(l) for l in open(sys.argv[2])]
same = expected == answers
print(f"{len(answers)} events replayed, answers identical: {same}")
sys.exit(0 if same else 1)
PY
