#!/usr/bin/env bash
# clang-tidy (.clang-tidy: the naming rules and a few bug and performance checks, every finding
# an error) over the C++ files a change touched: each built .cpp whose content is not what
# .ci/tidy-baseline records (the tree as it was when the check came in, formatted once) is
# checked, two at a time. A file once changed is checked from then on.
# usage: scripts/check_tidy.sh BUILD_DIR   (configured with CMAKE_EXPORT_COMPILE_COMMANDS=ON and
#        CMAKE_UNITY_BUILD=OFF; it need not be built: no header is generated)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/check_tidy.sh BUILD_DIR}
[ -f "$build/compile_commands.json" ] || { echo "no $build/compile_commands.json" >&2; exit 2; }
# A unity build's database names the batches, not the files: no file would be checked.
if grep -q '/Unity/unity_' "$build/compile_commands.json"; then
  echo "$build is a unity build: configure it with -DCMAKE_UNITY_BUILD=OFF" >&2
  exit 2
fi
mapfile -t changed < <(/usr/bin/python3 - "$build/compile_commands.json" <<'PY'
import json, os, subprocess, sys
root = os.getcwd()
built = {os.path.relpath(e["file"], root) for e in json.load(open(sys.argv[1]))}
baseline = set()
for line in open(".ci/tidy-baseline"):
    blob, path = line.split()
    baseline.add((blob, path))
tracked = subprocess.run(["git", "ls-files", "-s", "--", "*.cpp"], capture_output=True, text=True,
                         check=True).stdout.splitlines()
for line in tracked:
    meta, path = line.split("\t")
    if path not in built:
        continue
    blob = subprocess.run(["git", "hash-object", path], capture_output=True, text=True,
                          check=True).stdout.strip()
    if (blob, path) not in baseline:
        print(path)
PY
)
echo "clang-tidy: ${#changed[@]} changed files"
[ ${#changed[@]} -gt 0 ] || exit 0
printf '%s\n' "${changed[@]}" |
  xargs -P "$(nproc)" -n 1 clang-tidy -p "$build" --quiet 2>/dev/null
