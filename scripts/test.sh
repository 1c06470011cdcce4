#!/usr/bin/env bash
# Builds hpsearch twice (warnings as errors; then AddressSanitizer + UndefinedBehaviorSanitizer)
# and runs every test suite in both builds. This is what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
jobs=$(nproc)

cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPSEARCH_WERROR=ON
cmake --build build/release -j "$jobs"
ctest --test-dir build/release -j "$jobs" --output-on-failure

cmake -S . -B build/sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHPSEARCH_WERROR=ON \
  -DHPSEARCH_SANITIZE=address,undefined -DHPSEARCH_BUILD_BENCH=OFF
cmake --build build/sanitize -j "$jobs"
UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build/sanitize -j "$jobs" --output-on-failure
