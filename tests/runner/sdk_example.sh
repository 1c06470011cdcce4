#!/usr/bin/env bash
# CI's run of examples/sklearn-digits/sdk_search.py: the search through the Python SDK in a
# fresh store; the best checkpoint's model must score >= 0.9 on the held-out digits.
set -euo pipefail
searcher_run=$1
source_dir=$2
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
output=$(HPSEARCH_HOME="$home" HPSEARCH_SEARCHER_RUN="$searcher_run" PYTHONPATH="$source_dir/python" \
           /usr/bin/python3 "$source_dir/examples/sklearn-digits/sdk_search.py")
echo "$output"
accuracy=$(sed -n 's/^held-out accuracy of the best model ([0-9]* epochs): \([0-9.]*\) on .*/\1/p' <<<"$output")
[[ -n "$accuracy" ]] || { echo "no held-out accuracy in the output"; exit 1; }
/usr/bin/python3 -c "import sys; a = float(sys.argv[1]); sys.exit(0 if a >= 0.9 else f'held-out accuracy {a} < 0.9')" "$accuracy"
