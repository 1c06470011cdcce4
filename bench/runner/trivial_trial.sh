#!/bin/sh
# A trial that trains instantly: the runner's own cost per operation is all that is left. It is
# one long-lived process per trial that forks nothing per operation: its checkpoint directories
# (one per power of two up to max_length, the rung lengths of bench/runner/overhead.yaml) are
# made once at start-up, and each command is answered with shell builtins only. Its metric is
# 1000/length plus a fraction that falls with the trial's id, so a later trial is better than
# every earlier one at the same length: ASHA promotes nearly every trial through its rungs, and
# each trial answers many operations.
dirs=$HPSEARCH_CHECKPOINT_DIR
length=1
while [ "$length" -le "${HPSEARCH_SEARCHER_MAX_LENGTH:-1024}" ]; do
  dirs="$dirs $HPSEARCH_CHECKPOINT_DIR/$length"
  length=$((length * 2))
done
mkdir -p $dirs
fraction=$((999999 - HPSEARCH_TRIAL_ID % 1000000))
exec <&3
while read -r command; do
  case "$command" in
    *validate_after*)
      length=${command##*\"length\":}
      length=${length%%[!0-9]*}
      printf '{"type":"checkpoint","path":"%s/%s","length":%s}\n' "$HPSEARCH_CHECKPOINT_DIR" "$length" "$length" >&4
      printf '{"type":"validation","length":%s,"metrics":{"%s":%s.%06d}}\n' "$length" "$HPSEARCH_METRIC" "$((1000 / length))" "$fraction" >&4
      ;;
    *) exit 0 ;;
  esac
done
