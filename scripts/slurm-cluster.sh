#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for the Slurm launcher's tests: no systemd, every
# file under one state directory, started and stopped by this script.
#
#   scripts/slurm-cluster.sh start [DIR]   start munge, slurmctld and slurmd; wait for an idle node
#   scripts/slurm-cluster.sh stop  [DIR]   cancel every job, then stop the daemons (munge too, if start started it)
#   scripts/slurm-cluster.sh env   [DIR]   print the environment a Slurm client needs (SLURM_CONF)
#
# DIR defaults to $HPSEARCH_SLURM_DIR or /tmp/hpsearch-slurm. Needs root (slurmd runs jobs as
# their submitter) and Debian 12's slurmctld, slurmd, slurm-client and munge (22.05).
# Why each setting is what it is:
#   proctrack/linuxproc, task/none   no cgroup or systemd needed inside a container
#   select/cons_tres with CR_Core    jobs share the node by cores (or they run one at a time)
#   batch_sched_delay=0, sched_interval=1, bf_interval=1
#                                    a job starts about a second after submission, and a
#                                    requeued one as soon as it is eligible again
#   cred_expire=10                   a requeued job restarts after 10 s, not the default 120 s
#   no accounting                    sacct needs slurmdbd; the launcher reads scontrol/squeue
set -euo pipefail

command=${1:-}
dir=${2:-${HPSEARCH_SLURM_DIR:-/tmp/hpsearch-slurm}}
conf="$dir/slurm.conf"

die() { echo "slurm-cluster: $*" >&2; exit 1; }

write_config() {
  local node cpus memory
  node=$(hostname -s)
  # The node line may not promise more than slurmd detects, or the node is drained.
  cpus=$(slurmd -C | sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' | head -1)
  memory=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' | head -1)
  mkdir -p "$dir/state" "$dir/spool" "$dir/log"
  cat > "$conf" <<EOF
ClusterName=hpsearch
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=${HPSEARCH_SLURMCTLD_PORT:-6817}
SlurmdPort=${HPSEARCH_SLURMD_PORT:-6818}
AuthType=auth/munge
AuthInfo=cred_expire=10
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_interval=1,bf_interval=1
JobRequeue=1
ReturnToService=2
MpiDefault=none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
  if munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then return; fi
  mkdir -p /run/munge && chown munge:munge /run/munge && chmod 0755 /run/munge
  # Started here, so stopped here too (stop reads the pid file); a munged that was already
  # running belongs to someone else and is left alone.
  runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/munged.pid
  cp /run/munge/munged.pid "$dir/munged.pid" 2>/dev/null || true
  for _ in $(seq 50); do
    if munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then return; fi
    sleep 0.1
  done
  die "munged did not start"
}

wait_for_idle_node() {
  for _ in $(seq 100); do
    state=$(sinfo -h -o '%T' 2>/dev/null | head -1 || true)
    case "$state" in
      idle|mixed|allocated) return ;;
      drained*|down*) scontrol update nodename="$(hostname -s)" state=resume >/dev/null 2>&1 || true ;;
    esac
    sleep 0.1
  done
  echo "slurm-cluster: no idle node after 10 s; the logs:" >&2
  tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
  exit 1
}

stop_daemon() {
  local pidfile=$1
  [ -f "$pidfile" ] || return 0
  local pid
  pid=$(cat "$pidfile")
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
}

export SLURM_CONF="$conf"
case "$command" in
  start)
    [ "$(id -u)" -eq 0 ] || die "start needs root"
    command -v slurmctld >/dev/null || die "slurmctld is not installed (apt-get install slurmctld slurmd slurm-client munge)"
    write_config
    start_munge
    stop_daemon "$dir/slurmd.pid"
    stop_daemon "$dir/slurmctld.pid"
    slurmctld -i   # -i: ignore state a previous cluster in DIR left behind
    slurmd
    wait_for_idle_node
    echo "slurm-cluster: node $(hostname -s) idle; export SLURM_CONF=$conf"
    ;;
  stop)
    [ -f "$conf" ] || exit 0
    # slurmd leaving does not kill its jobs: cancel them first and let them go.
    scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
    for _ in $(seq 50); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.1
    done
    stop_daemon "$dir/slurmd.pid"
    stop_daemon "$dir/slurmctld.pid"
    stop_daemon "$dir/munged.pid" && rm -f "$dir/munged.pid"
    ;;
  env)
    echo "export SLURM_CONF=$conf"
    ;;
  *)
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    [ "$command" = "-h" ] || [ "$command" = "--help" ] || exit 2
    ;;
esac
