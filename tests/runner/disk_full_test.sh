#!/bin/sh
# searcher-run on a real filesystem that fills up mid-run: the experiment directory on a small
# tmpfs, which another file fills while trials run. The runner must end with exit 1 and a clear
# error (which file, what failed, what to do), leave no trial process behind, and resume once
# space is back, with every validation its journal had recorded.
#   disk_full_test.sh SEARCHER_RUN SOURCE_DIR
# Skipped (77) where mounting a tmpfs is not permitted (not root, or a container without it).
set -u
runner=$1
source_dir=$2
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIPPED: mounting a tmpfs needs root"; exit 77; }
work=$(mktemp -d /tmp/hpsearch-disk-full.XXXXXX)
mnt=$work/mnt
mkdir "$mnt"
if ! mount -t tmpfs -o size=8m tmpfs "$mnt" 2>/dev/null; then
  rm -rf "$work"
  echo "SKIPPED: mount -t tmpfs is not permitted here"
  exit 77
fi
trap 'umount -l "$mnt" 2>/dev/null; rm -rf "$work"' EXIT

cat > "$work/config.yaml" <<EOF
entrypoint: python3 $source_dir/tests/runner/trials/trial.py
searcher:
  name: async_halving
  metric: loss
  num_rungs: 3
  divisor: 3
  max_trials: 12
  max_length: 9
  max_concurrent_trials: 4
hyperparameters:
  x: {type: double, minval: 0, maxval: 1}
  sleep: 0.05
EOF
exp=$mnt/exp
"$runner" run --config "$work/config.yaml" --dir "$exp" --slots 2 > "$work/out" 2> "$work/err" &
pid=$!
tries=0
while [ "$(cat "$exp/journal.jsonl" 2>/dev/null | wc -l)" -lt 30 ]; do
  tries=$((tries + 1))
  [ $tries -lt 1200 ] || fail "the journal never reached 30 records"
  sleep 0.05
done
# Something else fills the filesystem.
dd if=/dev/zero of="$mnt/filler" bs=64k > /dev/null 2>&1
code=0
wait $pid || code=$?
cat "$work/err" | tail -4
[ $code = 1 ] || fail "exit code $code, expected 1"
grep -q "^searcher-run run: cannot write '$exp/.*': No space left on device$" "$work/err" || fail "no 'cannot write FILE: No space left on device'"
grep -q "the filesystem is full, so the run stopped and its trials were killed" "$work/err" || fail "no cause"
grep -q "To go on, free space on it, then: searcher-run resume $exp$" "$work/err" || fail "no advice"
key=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["key"])' "$exp/run.json")
left=$(grep -l "HPSEARCH_EXPERIMENT_KEY=$key" /proc/[0-9]*/environ 2>/dev/null || true)
[ -z "$left" ] || fail "trial processes left behind: $left"

# What the journal recorded (complete lines) must survive the resume.
/usr/bin/python3 - "$exp" > "$work/before" <<'EOF'
import json, sys
for line in open(sys.argv[1] + "/journal.jsonl", "rb"):
    if not line.endswith(b"\n"):
        break
    r = json.loads(line)
    if r.get("in", {}).get("event") == "validation_completed":
        print(r["in"]["request_id"], r["in"]["length"], r["in"]["metric"])
EOF
[ -s "$work/before" ] || fail "no validation was recorded before the disk filled"
rm "$mnt/filler"
"$runner" resume "$exp" --slots 2 > "$work/out" 2> "$work/err2" || { tail "$work/err2"; fail "resume failed"; }
/usr/bin/python3 - "$exp" "$work/before" <<'EOF' || fail "the resumed experiment lost something"
import json, sys
e = json.load(open(sys.argv[1] + "/experiment.json"))
assert e["state"] == "completed", e["state"]
assert len(e["trials"]) == 12, len(e["trials"])
after = {(t["request_id"], v["length"], v["metric"]) for t in e["trials"] for v in t["validations"]}
for line in open(sys.argv[2]):
    request_id, length, metric = line.split()
    assert (request_id, int(length), float(metric)) in after, line
print("resumed: completed, 12 trials, every recorded validation kept")
EOF
left=$(grep -l "HPSEARCH_EXPERIMENT_KEY=$key" /proc/[0-9]*/environ 2>/dev/null || true)
[ -z "$left" ] || fail "trial processes left behind after the resume: $left"
echo "PASS"
