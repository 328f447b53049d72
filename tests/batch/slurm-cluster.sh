#!/usr/bin/env bash
# A one-node SLURM cluster for the integration test, entirely inside one folder: its own munge
# key and socket, slurm.conf, state, spool and logs; slurmctld and slurmd on this host.
#   slurm-cluster.sh start DIR CTLD_PORT SLURMD_PORT   prints the slurm.conf path; exit 0 once
#                                                      the node is idle, non-zero with the reason
#   slurm-cluster.sh stop DIR                          stops the daemons started from DIR
set -uo pipefail

fail() { echo "slurm-cluster: $*" >&2; exit 1; }

stop() {
    local dir="$1"
    for f in slurmd.pid slurmctld.pid munge/munged.pid; do
        [ -f "$dir/$f" ] && kill "$(cat "$dir/$f")" 2>/dev/null
    done
    # Give them a moment, then make sure.
    sleep 1
    for f in slurmd.pid slurmctld.pid munge/munged.pid; do
        [ -f "$dir/$f" ] && kill -9 "$(cat "$dir/$f")" 2>/dev/null
    done
    return 0
}

start() {
    local dir="$1" ctld_port="$2" slurmd_port="$3"
    for p in munged slurmctld slurmd sbatch squeue sinfo; do
        command -v "$p" >/dev/null || fail "$p not found (Debian packages slurm-wlm and munge)"
    done
    local user host cpus
    user="$(id -un)"
    host="$(hostname -s)"
    cpus="$(nproc)"
    local mem_mb
    mem_mb="$(awk '/^MemTotal:/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)"
    mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log" || fail "cannot create $dir"
    chmod 700 "$dir/munge"
    chmod 755 "$dir" # munge wants the socket's folders reachable
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
    chmod 400 "$dir/munge/munge.key"
    munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/sock" \
        --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
        --seed-file="$dir/munge/seed" || fail "munged did not start: $(tail -3 "$dir/munge/munged.log" 2>/dev/null)"
    cat >"$dir/slurm.conf" <<CONF
ClusterName=flumentest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/sock
SlurmUser=$user
SlurmdUser=$user
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
KillWait=5
MaxArraySize=1001
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF="$dir/slurm.conf"
    slurmctld -i || { stop "$dir"; fail "slurmctld did not start: $(tail -3 "$dir/log/slurmctld.log" 2>/dev/null)"; }
    slurmd || { stop "$dir"; fail "slurmd did not start: $(tail -3 "$dir/log/slurmd.log" 2>/dev/null)"; }
    for _ in $(seq 1 60); do
        if sinfo -h -o "%T" 2>/dev/null | grep -qx idle; then
            # Ready only if a job really runs (slurmd may start but be unable to launch).
            if timeout 60 sbatch --wait --quiet --output=/dev/null --wrap=true >/dev/null 2>&1; then
                echo "$dir/slurm.conf"
                return 0
            fi
            local why
            why="$(tail -3 "$dir/log/slurmd.log" 2>/dev/null | tr '\n' ' ')"
            stop "$dir"
            fail "a test job did not run: $why"
        fi
        sleep 0.5
    done
    local why
    why="$(tail -3 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" 2>/dev/null | tr '\n' ' ')"
    stop "$dir"
    fail "the node did not become idle within 30 s: $why"
}

case "${1:-}" in
    start) [ $# -eq 4 ] || fail "usage: $0 start DIR CTLD_PORT SLURMD_PORT"; start "$2" "$3" "$4" ;;
    stop) [ $# -eq 2 ] || fail "usage: $0 stop DIR"; stop "$2" ;;
    *) fail "usage: $0 start DIR CTLD_PORT SLURMD_PORT | stop DIR" ;;
esac
