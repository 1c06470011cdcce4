#!/usr/bin/env bash
# Fuzzes hpsearch's parsers (docs/fuzzing.md).
#
#   scripts/fuzz.sh TARGET SECONDS     one target: config, drive, restore, table, workload_name, cli,
#                                      trial_report, journal
#   scripts/fuzz.sh all SECONDS        every target for SECONDS each, two at a time
#
# Builds the clang ASan+UBSan+libFuzzer build in build/fuzz if needed (the one scripts/test.sh
# runs its sanitized tests in), then fuzzes with the checked-in corpus fuzz/corpus/TARGET as
# seeds. New inputs go to build/fuzz-corpus/TARGET (kept between runs), findings (crash-*,
# timeout-*, leak-*, oom-*) to build/fuzz-findings/TARGET/. Exit status 0: no finding.
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(config drive restore table workload_name cli trial_report journal)
if [ $# -ne 2 ] || ! [[ "$2" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz.sh TARGET|all SECONDS   (targets: ${targets[*]})" >&2
  exit 2
fi
target=$1
seconds=$2
build=build/fuzz

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DHPSEARCH_SANITIZE=address,undefined -DHPSEARCH_FUZZ=ON -DHPSEARCH_BUILD_BENCH=OFF >/dev/null
fi

run_one() {
  local name=$1
  local corpus=build/fuzz-corpus/$name findings=build/fuzz-findings/$name
  mkdir -p "$corpus" "$findings"
  # -timeout: an input that takes this long is a finding (a parser must not hang).
  # -rss_limit_mb: the machine is shared; no parser needs more on these small inputs.
  # ASan: a 16 MB quarantine and 5-frame allocation stacks keep memory low on a shared
  # machine; replay a finding with the fuzzer alone for full stacks.
  ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16:malloc_context_size=5} \
  UBSAN_OPTIONS=print_stacktrace=1 "$build/fuzz/${name}_fuzzer" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -use_value_profile=1 \
    -dict="fuzz/dict/$name.dict" -artifact_prefix="$findings/" -print_final_stats=1 \
    "$corpus" "fuzz/corpus/$name"
}

if [ "$target" = all ]; then
  names=("${targets[@]}")
else
  if [[ ! " ${targets[*]} " =~ " $target " ]]; then
    echo "scripts/fuzz.sh: unknown target '$target' (targets: ${targets[*]})" >&2
    exit 2
  fi
  names=("$target")
fi
cmake --build "$build" -j "$(nproc)" --target $(printf '%s_fuzzer ' "${names[@]}")
if [ ${#names[@]} -eq 1 ]; then
  run_one "$target"
  exit
fi

# Two at a time (CI machines have two cores); a failing target's log is shown.
mkdir -p build/fuzz-logs
export -f run_one
export build seconds
status=0
printf '%s\n' "${names[@]}" |
  xargs -P 2 -I{} bash -c "run_one {} >build/fuzz-logs/{}.log 2>&1 \
    && echo 'fuzz {}: no finding in $seconds s' \
    || { echo 'fuzz {}: FINDING (build/fuzz-logs/{}.log, build/fuzz-findings/{}/)'; \
         tail -n 60 build/fuzz-logs/{}.log; exit 1; }" || status=1
for name in "${names[@]}"; do
  echo "  $name: $(grep -h -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' \
    "build/fuzz-logs/$name.log" | tr '\n' ' ')corpus $(ls "build/fuzz-corpus/$name" | wc -l) new"
done
exit $status
