#!/usr/bin/env bash
# hpsearch beside Optuna (Debian's python3-optuna, the real library), in one invocation so the
# machine is the same: cost per trial at 1,000 / 4,000 / 8,000 trials, and regret at equal
# budget over 20 seeds. Writes build/peers/results.json and regenerates the comparison in
# docs/PERFORMANCE.md. About 10 minutes on 2 cores.
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
cmake --build build/release -j "$(nproc)" --target searcher-sim peer_inprocess hpsearch_python
mkdir -p build/peers
/usr/bin/python3 bench/peers/peers.py --sim build/release/simulator/searcher-sim \
  --inprocess build/release/bench/peer_inprocess --python-module build/release/python --out build/peers/results.json \
  --trials "${TRIALS:-1000,4000,8000}" --seeds "${SEEDS:-20}"
/usr/bin/python3 bench/report.py --peers build/peers/results.json --docs docs/PERFORMANCE.md
