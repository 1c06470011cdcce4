#!/usr/bin/env bash
# searcher-run --launcher slurm on the real one-node Slurm cluster that scripts/slurm-cluster.sh
# starts (ctest's slurm_cluster fixture). One case per run:
#   sklearn    the scikit-learn example as an adaptive ASHA search, every trial a Slurm job
#   scancel    a trial's job cancelled from outside: errored, not restarted; the search goes on
#   restart    a job that fails is restarted from its checkpoint; a forged connection is refused
#   requeue    a requeued (preempted) job: relaunched from its latest checkpoint, no restart counted
#   reattach   the runner SIGKILLed and resumed: it reattaches to the running job, no duplicate
#   ended      the runner SIGKILLed, its job fails meanwhile: resume reads the final state and
#              restarts the trial from its checkpoint
#   pytorch-trial  a PyTorchTrial by Determined's legacy entrypoint (module:Class), as a job
# Exit 77 (skipped) when the Slurm commands are not installed.
set -euo pipefail
searcher_run=$1
source_dir=$2
case_name=$3
export SLURM_CONF=${HPSEARCH_SLURM_DIR:-/tmp/hpsearch-slurm}/slurm.conf
if ! command -v sbatch >/dev/null || ! command -v slurmctld >/dev/null; then
  echo "SKIPPED: the Slurm commands are not installed (scripts/install_deps.sh installs them)"
  exit 77
fi
dir=$(mktemp -d)
runner_pid=
cleanup() {
  [ -n "$runner_pid" ] && kill -9 "$runner_pid" 2>/dev/null
  [ -f "$dir/exp/journal.jsonl" ] && for job in $(jobs_of); do scancel --quiet "$job" 2>/dev/null; done
  rm -rf "$dir"
}
trap cleanup EXIT
trials=$source_dir/tests/runner/trials
python=/usr/bin/python3

fail() {
  echo "FAILED: $*" >&2
  for f in "$dir"/exp/runner.log "$dir"/err; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 40 "$f" >&2; }; done
  exit 1
}

# A config for trials/trial.py: one trial (single searcher) of LENGTH units, SLEEP s each.
trial_config() {  # mode length sleep
  cat > "$dir/config.yaml" <<EOF
name: slurm_$1
entrypoint: $python $trials/trial.py
hyperparameters:
  x: 0.25
  mode: $1
  sleep: $3
  checkpoint_each: true
searcher:
  name: single
  metric: loss
  max_length: $2
max_restarts: 2
EOF
}

# Waits (up to 60 s) until the command succeeds.
wait_for() {
  for _ in $(seq 600); do
    if eval "$1"; then return 0; fi
    sleep 0.1
  done
  fail "timed out waiting for: $1"
}

# The Slurm job ids the journal records for launches, in order.
jobs_of() { $python -c '
import json, sys
# Up to the first zero byte: the spare space of a running journal follows (docs/store.md).
for line in open(sys.argv[1]).read().split("\0")[0].splitlines():
    r = json.loads(line)
    if isinstance(r.get("job"), dict): print(r["job"]["job"])
' "$dir/exp/journal.jsonl"; }

# Checks the experiment's outcome.
expect() {  # python assertions over e (experiment.json) and t (its first trial)
  $python - "$dir/exp/experiment.json" "$1" <<'PY' || fail "experiment.json: $1"
import json, sys
e = json.load(open(sys.argv[1]))
t = e["trials"][0]
assert eval(sys.argv[2]), json.dumps({"state": e["state"], "trial": {k: t.get(k) for k in ("state", "restarts", "launches", "exit_reason", "last_failure")}})
PY
}

start_runner() {  # background run; args appended
  "$searcher_run" run --config "$dir/config.yaml" --dir "$dir/exp" --launcher slurm --channel-address 127.0.0.1 \
    --slots 2 "$@" 2>"$dir/err" &
  runner_pid=$!
}

running_job() {  # the first trial's latest job, if it is RUNNING and has checkpointed
  [ -f "$dir/exp/journal.jsonl" ] || return 1
  local job
  job=$(jobs_of | tail -1)
  [ -n "$job" ] && [ "$(squeue -h -j "$job" -o %T 2>/dev/null)" = RUNNING ] &&
    grep -q '"checkpoint"' "$dir/exp/journal.jsonl" && echo "$job"
}

# Waits (up to 60 s) for running_job and prints its job id.
wait_for_running_job() {
  local job
  for _ in $(seq 600); do
    if job=$(running_job); then
      echo "$job"
      return 0
    fi
    sleep 0.1
  done
  fail "timed out waiting for the trial's job to run and checkpoint"
}

case "$case_name" in
  sklearn)
    sed -e 's/max_length: 27/max_length: 9/' -e 's/max_trials: 24/max_trials: 6/' \
        -e 's/max_concurrent_trials: 4/max_concurrent_trials: 3/' \
        "$source_dir/examples/sklearn-digits/config.yaml" > "$dir/config.yaml"
    "$searcher_run" run --config "$dir/config.yaml" --context "$source_dir/examples/sklearn-digits" --dir "$dir/exp" \
      --launcher slurm --channel-address 127.0.0.1 --slots 3 2>"$dir/err" || fail "the search did not complete"
    launches=$($python -c 'import json,sys; print(sum(t["launches"] for t in json.load(open(sys.argv[1]))["trials"]))' "$dir/exp/experiment.json")
    [ "$(jobs_of | sort -u | wc -l)" -eq "$launches" ] || fail "$launches launches but $(jobs_of | sort -u | wc -l) Slurm jobs"
    grep -q "started (Slurm job" "$dir/exp/runner.log" || fail "no trial started as a Slurm job"
    $python - "$dir/exp/experiment.json" <<'PY' || fail "the search's result"
import json, sys
e = json.load(open(sys.argv[1]))
best = e["best"]
print(f"best trial {best['trial']}: validation_accuracy {best['metric']:.4f} at {best['length']} epochs, "
      f"{len(e['trials'])} trials, {sum(t['launches'] for t in e['trials'])} Slurm jobs")
assert e["state"] == "completed", e["state"]
assert len(e["trials"]) == 6
assert best["length"] == 9, best
assert best["metric"] >= 0.9, best["metric"]
PY
    ;;
  scancel)
    trial_config ok 30 0.5
    start_runner
    job=$(wait_for_running_job)
    scancel "$job"
    wait "$runner_pid" && rc=0 || rc=$?
    runner_pid=
    # The only trial errored: the search ends as failed (exit 1), with nothing restarted.
    [ "$rc" -eq 1 ] || fail "searcher-run exited $rc, expected 1 (every trial errored)"
    grep -q "Slurm job $job was cancelled from outside the runner" "$dir/exp/runner.log" || fail "no log of the scancel"
    expect 't["restarts"] == 0 and t["launches"] == 1 and t["exit_reason"] == "errored"'
    ;;
  restart)
    trial_config crash_once 4 0.3
    start_runner
    wait_for '[ -f "$dir/exp/run.json" ] && grep -q "started (Slurm job" "$dir/exp/runner.log" 2>/dev/null'
    # A forged connection: the channel's address, a token of no trial. Refused and logged.
    address=$($python -c 'import json,sys; print(json.load(open(sys.argv[1]))["launch"]["channel_address"])' "$dir/exp/run.json")
    $python - "$address" <<'PY' || fail "the forged connection was not refused"
import json, socket, sys
host, port = sys.argv[1].rsplit(":", 1)
s = socket.create_connection((host, int(port)))
s.sendall(b'{"type":"hello","token":"0123456789abcdef0123456789abcdef","rank":0}\n{"type":"validation","length":4,"metric":0}\n')
reply = s.makefile().readline()
assert "error" in json.loads(reply), reply
assert s.recv(10) == b"", "the connection stayed open"
PY
    wait "$runner_pid" || fail "the search did not complete"
    runner_pid=
    grep -q "refused a connection from 127.0.0.1:" "$dir/exp/runner.log" || fail "the refusal was not logged"
    grep -q "restarting from its checkpoint at steps_completed 1" "$dir/exp/runner.log" || fail "no restart from the checkpoint"
    expect 'e["state"] == "completed" and t["restarts"] == 1 and t["launches"] == 2'
    [ "$(jobs_of | sort -u | wc -l)" -eq 2 ] || fail "expected 2 Slurm jobs"
    grep -q "starting at 1" "$dir/exp/trials/"*/output.log || fail "the second job did not start from the checkpoint"
    ;;
  requeue)
    trial_config ok 8 0.5
    start_runner
    job=$(wait_for_running_job)
    scontrol requeue "$job"
    wait "$runner_pid" || fail "the search did not complete"
    runner_pid=
    grep -q "Slurm job $job was preempted" "$dir/exp/runner.log" || fail "the requeue was not seen as a preemption"
    expect 'e["state"] == "completed" and t["restarts"] == 0 and t["launches"] == 2'
    second=$(jobs_of | tail -1)
    [ "$second" != "$job" ] || fail "no new job after the requeue"
    # The relaunch started from a checkpoint the first job stored, not from scratch.
    grep "starting at" "$dir/exp/trials/"*/output.log | tail -1 | grep -qv "starting at 0" ||
      fail "the relaunch did not start from the latest checkpoint"
    ;;
  reattach)
    trial_config ok 12 0.5
    start_runner
    job=$(wait_for_running_job)
    kill -9 "$runner_pid"
    wait "$runner_pid" 2>/dev/null || true
    runner_pid=
    sleep 2  # the trial notices and waits for a runner to come back
    [ "$(squeue -h -j "$job" -o %T)" = RUNNING ] || fail "the job did not outlive the runner"
    "$searcher_run" resume "$dir/exp" 2>>"$dir/err" || fail "the resumed search did not complete"
    grep -q "reattached to Slurm job $job" "$dir/exp/runner.log" || fail "no reattach"
    [ "$(jobs_of | sort -u | tr '\n' ' ')" = "$job " ] || fail "jobs $(jobs_of | tr '\n' ' ') for one trial: a duplicate"
    grep -c "starting at" "$dir/exp/trials/"*/output.log | grep -qx 1 || fail "the trial was started more than once"
    expect 'e["state"] == "completed" and t["restarts"] == 0 and t["launches"] == 1'
    ;;
  ended)
    trial_config crash_once 4 3  # checkpoints at 1 after ~3 s, dies (exit 3) at 2 after ~6 s
    start_runner
    job=$(wait_for_running_job)
    kill -9 "$runner_pid"
    wait "$runner_pid" 2>/dev/null || true
    runner_pid=
    wait_for '[ "$(squeue -h -t all -j "$job" -o %T)" = FAILED ]'
    "$searcher_run" resume "$dir/exp" 2>>"$dir/err" || fail "the resumed search did not complete"
    grep -q "reattached to Slurm job $job" "$dir/exp/runner.log" || fail "the ended job was not read"
    grep -q "failed: exit code 3; restarting from its checkpoint at steps_completed 1" "$dir/exp/runner.log" || fail "no restart"
    expect 'e["state"] == "completed" and t["restarts"] == 1 and t["launches"] == 2'
    ;;
  pytorch-trial)
    # Determined's legacy entrypoint (a PyTorchTrial class) as a Slurm job: the same config as
    # on this machine; the one-variable model's weight after 6 batches is derived by hand in
    # tests/trial_api/trial_api_test.py (w6 = 2.05147634375).
    cat > "$dir/config.yaml" <<EOF
name: slurm_pytorch_trial
entrypoint: onevar_trial:OneVarTrial
hyperparameters: {lr: 0.01, global_batch_size: 2}
searcher: {name: single, metric: val_loss, max_length: {batches: 6}}
min_checkpoint_period: {batches: 3}
max_restarts: 0
EOF
    cp -r "$source_dir/tests/trial_api" "$dir/context"
    "$searcher_run" run --config "$dir/config.yaml" --context "$dir/context" --dir "$dir/exp" \
      --launcher slurm --channel-address 127.0.0.1 --slots 1 2>"$dir/err" || fail "the search did not complete"
    grep -q "started (Slurm job" "$dir/exp/runner.log" || fail "the trial did not start as a Slurm job"
    $python - "$dir/exp" <<'PY' || fail "the trial's validation"
import json, pathlib, sys
(trial,) = pathlib.Path(sys.argv[1]).glob("trials/1-*")
(validation,) = [r for r in map(json.loads, (trial / "metrics.jsonl").read_text().splitlines())
                 if r["group"] == "validation"]
assert validation["steps_completed"] == 6 and abs(validation["metrics"]["w"] - 2.05147634375) < 1e-5, validation
PY
    ;;
  *)
    echo "unknown case '$case_name'" >&2
    exit 2
    ;;
esac
echo "slurm $case_name: ok"
