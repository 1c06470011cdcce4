#!/usr/bin/env bash
# Builds examples/go-master against the installed package (pkg-config, as a Go user would),
# plays its search, and replays the lines it fed through the installed `searcher-sim drive`:
# the answers must be byte-identical. Skips (exit 77) only when `go` is not installed.
# usage: go_master_test.sh SOURCE_DIR PREFIX LIBDIR WORK_DIR  (LIBDIR: relative to PREFIX)
set -euo pipefail
source_dir=$1 prefix=$2 libdir=$3 work=$4
if ! command -v go >/dev/null; then
  echo "SKIP: go is not installed (Debian: golang-go, see scripts/install_deps.sh)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
# The Go build cache sits beside the work directory, so a rerun does not rebuild Go's runtime.
export GOCACHE="$work.gocache" GOPATH="$work.gopath" GOPROXY=off GOFLAGS= CGO_ENABLED=1
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
export CGO_LDFLAGS="-Wl,-rpath,$(pkg-config --variable=libdir hpsearch)"
(cd "$source_dir/examples/go-master" && go vet . && go build -o "$work/go-master" .)

config="$source_dir/tests/capi/capi.yaml"
"$work/go-master" "$config" 5 "$work/events.jsonl" "$work/go.jsonl" | tee "$work/stdout.txt"
grep -q '^restarted from a [0-9]*-byte snapshot after 50 events' "$work/stdout.txt"
grep -q '^refused as expected: trial_closed: ' "$work/stdout.txt"
grep -q '^search done: 30 trials, [0-9]* events, progress 1,' "$work/stdout.txt"
"$prefix/bin/searcher-sim" drive --config "$config" --seed 5 < "$work/events.jsonl" > "$work/drive.jsonl"
cmp "$work/go.jsonl" "$work/drive.jsonl"
echo "$(wc -l < "$work/events.jsonl") lines answered identically through Go and searcher-sim drive"
