#!/usr/bin/env bash
# hpsearch beside Optuna (Debian's python3-optuna, the real library), in one invocation so the
# machine is the same: cost per trial at 1,000 / 4,000 / 8,000 trials (peers.py) and the cost of
# proposing a configuration (decision_cost.py), which regenerate their sections of
# docs/PERFORMANCE.md; about 15 minutes on 2 cores. With QUALITY=1 also the quality at equal
# budget (quality.py, then quality_report.py for docs/samplers.md and README.md): about 2 CPU hours
# (the GP runs and Optuna's TPE dominate); SEEDS (default 0-29) and JOBS (default 2) bound it.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/install_deps.sh
if ! dpkg-query -W -f='${Status}' python3-optuna 2>/dev/null | grep -q "install ok installed"; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-optuna >/dev/null
fi
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$(nproc)" --target searcher-sim peer_inprocess peer_workload samplers_bench hpsearch_python
mkdir -p build/peers
/usr/bin/python3 bench/peers/peers.py --sim build/release/simulator/searcher-sim \
  --inprocess build/release/bench/peer_inprocess --python-module build/release/python --out build/peers/results.json \
  --trials "${TRIALS:-1000,4000,8000}"
/usr/bin/python3 bench/report.py --peers build/peers/results.json --docs docs/PERFORMANCE.md
/usr/bin/python3 bench/peers/decision_cost.py --bench build/release/bench/samplers_bench \
  --workload-server build/release/bench/peer_workload --out bench/peers/results/decision_cost.json \
  --docs docs/PERFORMANCE.md
if [ "${QUALITY:-0}" = 1 ]; then
  nice -n 19 /usr/bin/python3 bench/peers/quality.py --sim build/release/simulator/searcher-sim \
    --workload-server build/release/bench/peer_workload --out bench/peers/results/quality.csv \
    --seeds "${SEEDS:-0-29}" --jobs "${JOBS:-2}"
  /usr/bin/python3 bench/peers/quality_report.py --results bench/peers/results/quality.csv \
    --costs bench/peers/results/quality_costs.csv --summary bench/peers/results/quality_summary.json --samplers-doc docs/samplers.md --readme README.md
fi
