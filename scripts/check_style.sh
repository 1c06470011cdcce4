#!/usr/bin/env bash
# The house style, checked (STYLE.md): every tracked C++ file as clang-format 14 lays it out
# (.clang-format), every Python file free of pyflakes findings (unused imports, undefined
# names), and the runner's rooms including only the rooms below them (scripts/check_rooms.py).
# Prints each finding and exits 1 on any. Run by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
mapfile -t cxx < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.c')
if ! clang-format --dry-run --Werror "${cxx[@]}" 2>/tmp/hpsearch-format.$$; then
  grep -o '^[^:]*:[0-9]*:[0-9]*: error' /tmp/hpsearch-format.$$ | cut -d: -f1 | sort -u |
    sed 's/^/not clang-formatted: /'
  echo "fix: clang-format -i FILE (clang-format 14, the repository's .clang-format)"
  status=1
fi
rm -f /tmp/hpsearch-format.$$
# The runner's rooms: no include points back up (docs/architecture.md).
# Issue 23: no library source file over 700 lines (tests, benchmarks and fuzz targets aside):
# a file that long has more than one job; split it along its seams.
while read -r count file; do
  [ "$file" = total ] && continue
  if [ "$count" -gt 700 ]; then
    echo "over 700 lines ($count): $file (split it along its seams)"
    status=1
  fi
done < <(printf '%s\n' "${cxx[@]}" | grep -v -E '^(tests|bench|fuzz)/' | xargs wc -l)
if ! /usr/bin/python3 scripts/check_rooms.py; then
  status=1
fi
mapfile -t py < <(git ls-files '*.py')
if ! /usr/bin/python3 -m pyflakes "${py[@]}"; then
  status=1
fi
exit "$status"
