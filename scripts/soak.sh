#!/bin/sh
# The runner's soak test at full size (docs/runner.md, "Soak test"): an ASHA search of trials
# that crash, hang, break the protocol, stop early and report NaN, with searcher-run SIGKILLed
# 20 times at random moments and resumed each time; --slots 1 (checked against an
# uninterrupted run) and --slots 4. Prints trials, kills, resumes and wall time at the end.
#   scripts/soak.sh [BUILD_DIR] [TRIALS] [extra tests/runner/soak.py options]
# ctest runs the same driver at a reduced size (runner_soak).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build/release}
trials=${2:-1000}
[ $# -gt 2 ] && shift 2 || shift $#
exec nice -n 10 /usr/bin/python3 "$root/tests/runner/soak.py" "$build/runner/searcher-run" "$root" \
    --trials "$trials" --kills 20 --slots 1 4 "$@"
