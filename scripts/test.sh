#!/usr/bin/env bash
# Builds hpsearch twice and runs every test suite in both builds. This is what CI runs.
#   0. the house style (scripts/check_style.sh): clang-format and pyflakes, before any build.
#   1. g++, release, warnings as errors; clang-tidy over the C++ files changed since
#      .ci/tidy-baseline (scripts/check_tidy.sh); every test, and every fuzz corpus replayed.
#   2. clang, AddressSanitizer + UndefinedBehaviorSanitizer + libFuzzer instrumentation
#      (build/fuzz, the build scripts/fuzz.sh uses): every test again, then each fuzz target
#      for a bounded time (HPSEARCH_FUZZ_SECONDS, default 60; 0 skips), two at a time.
# Both builds compile each target's sources in unity batches (CMakeLists.txt, docs/ci.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
jobs=$(nproc)
bash scripts/check_style.sh

cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPSEARCH_WERROR=ON
cmake --build build/release -j "$jobs"
# clang-tidy reads each source file on its own: its compile database comes from a tree that is
# only configured, file by file (the builds compile in unity batches; docs/ci.md).
cmake -S . -B build/tidy -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPSEARCH_WERROR=ON \
  -DCMAKE_UNITY_BUILD=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
bash scripts/check_tidy.sh build/tidy
ctest --test-dir build/release -j "$jobs" --output-on-failure

cmake -S . -B build/fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHPSEARCH_WERROR=ON -DHPSEARCH_SANITIZE=address,undefined -DHPSEARCH_FUZZ=ON \
  -DHPSEARCH_BUILD_BENCH=OFF
cmake --build build/fuzz -j "$jobs"
UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build/fuzz -j "$jobs" --output-on-failure

seconds=${HPSEARCH_FUZZ_SECONDS:-60}
if [ "$seconds" -gt 0 ]; then
  bash scripts/fuzz.sh all "$seconds"
fi
