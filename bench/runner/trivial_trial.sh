#!/bin/sh
# A trial that trains instantly: the runner's own cost per operation is all that is left.
# Its metric is 1/length plus a fixed per-trial offset from its seed.
trained=${HPSEARCH_LATEST_CHECKPOINT_LENGTH:-0}
offset=$((HPSEARCH_TRIAL_SEED % 1000))
while read -r command <&3; do
  case "$command" in
    *validate_after*)
      length=${command##*\"length\":}
      length=${length%%[!0-9]*}
      trained=$length
      mkdir -p "$HPSEARCH_CHECKPOINT_DIR/$trained"
      printf '{"type":"checkpoint","path":"%s/%s","length":%s}\n' "$HPSEARCH_CHECKPOINT_DIR" "$trained" "$trained" >&4
      printf '{"type":"validation","length":%s,"metrics":{"%s":%s.%03d}}\n' "$length" "$HPSEARCH_METRIC" "$((1000 / length))" "$offset" >&4
      ;;
    *) exit 0 ;;
  esac
done
