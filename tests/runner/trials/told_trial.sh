#!/bin/sh
# A shell trial that trains instantly and writes every command it is told, with its request id,
# to its output (trials/N-ID/output.log) before acting on it: the group-commit test checks each
# against the journal left on disk. Its metric is 1000/length plus a per-trial fraction.
fraction=$((HPSEARCH_TRIAL_SEED % 1000))
exec <&3
while read -r command; do
  printf 'told %s %s\n' "$HPSEARCH_REQUEST_ID" "$command"
  case "$command" in
    *validate_after*)
      length=${command##*\"length\":}
      length=${length%%[!0-9]*}
      mkdir -p "$HPSEARCH_CHECKPOINT_DIR/$length"
      printf '{"type":"checkpoint","path":"%s/%s","length":%s}\n' "$HPSEARCH_CHECKPOINT_DIR" "$length" "$length" >&4
      printf '{"type":"validation","length":%s,"metrics":{"%s":%s.%03d}}\n' "$length" "$HPSEARCH_METRIC" "$((1000 / length))" "$fraction" >&4
      ;;
    *) exit 0 ;;
  esac
done
