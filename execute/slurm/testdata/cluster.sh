#!/bin/bash
# A private one-node Slurm cluster for the tests: munged, slurmctld and
# slurmd as root on loopback, every file under DIR (config, state, spool,
# logs, munge key and socket), and GPUs that are only counted, so that
# jobs can ask for GPUs on a machine without any. Slurm 22.05 drops a GPU
# line of gres.conf that names no device file ("Removing file-less GPU"),
# so each counted GPU is a symlink to /dev/null: a character device that
# Slurm accepts and nothing uses.
#
#   cluster.sh start DIR   prints SLURM_CONF=DIR/slurm.conf once the node is idle
#   cluster.sh stop DIR    stops the three daemons by the pids in DIR, never by name
#
# Nothing outside DIR is touched except /run/munge, which munge's tools
# expect to exist.
set -euo pipefail

usage() { echo "usage: cluster.sh start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
dir=$(realpath -m "$2")
node=$(hostname -s)
gpus=${SERVELAB_SLURM_GPUS:-4}

# A free loopback port: random ports below Linux's ephemeral range
# (32768 and up, where outgoing connections take their local ports)
# until one refuses a connection and no socket of ss's list holds it.
freeport() {
	local p
	for _ in $(seq 50); do
		p=$((10000 + RANDOM % 22000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null &&
			! { command -v ss >/dev/null && ss -Htan | awk '{print $4}' | grep -q ":$p\$"; }; then
			echo "$p"
			return
		fi
	done
	echo "no free port found" >&2
	exit 1
}

# start tries three times: a port found free can be taken before the
# daemons bind it.
start() {
	for try in 1 2 3; do
		if start1; then
			return
		fi
		echo "cluster.sh: try $try failed; logs in $dir/log:" >&2
		tail -n 5 "$dir"/log/*.log >&2 || true
		stop
	done
	exit 1
}

start1() {
	for b in munged slurmctld slurmd sinfo; do
		command -v "$b" >/dev/null || { echo "cluster.sh: $b is not installed (make slurm-deps installs slurm-wlm and munge)" >&2; exit 3; }
	done
	mkdir -p "$dir"/state "$dir"/spool "$dir"/log "$dir"/munge /run/munge
	rm -f "$dir"/log/*.log
	chmod 711 "$dir"/munge
	mkdir -p "$dir"/dev
	for i in $(seq 0 $((gpus - 1))); do ln -sfn /dev/null "$dir/dev/gpu$i"; done
	head -c 1024 /dev/urandom >"$dir"/munge/munge.key
	chmod 400 "$dir"/munge/munge.key
	munged --force --key-file="$dir"/munge/munge.key --socket="$dir"/munge/munge.socket \
		--pid-file="$dir"/munged.pid --log-file="$dir"/log/munged.log --seed-file="$dir"/munge/munged.seed || return 1
	local ctl slurmd_port
	ctl=$(freeport)
	slurmd_port=$(freeport)
	while [ "$slurmd_port" = "$ctl" ]; do slurmd_port=$(freeport); done
	cat >"$dir"/slurm.conf <<CONF
ClusterName=servelab-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctl
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
GresTypes=gpu
ReturnToService=2
MinJobAge=3600
KillWait=5
SchedulerParameters=sched_interval=1
NodeName=$node NodeAddr=127.0.0.1 CPUs=8 RealMemory=4096 Gres=gpu:$gpus State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
	echo "NodeName=$node Name=gpu File=$dir/dev/gpu[0-$((gpus - 1))]" >"$dir"/gres.conf
	export SLURM_CONF="$dir"/slurm.conf
	slurmctld -i || return 1
	slurmd -N "$node" || return 1
	for _ in $(seq 100); do
		if [ "$(sinfo -h -o %t 2>/dev/null)" = idle ]; then
			echo "SLURM_CONF=$SLURM_CONF"
			return 0
		fi
		sleep 0.2
	done
	echo "cluster.sh: the node did not become idle in 20s" >&2
	return 1
}

# stopdaemon NAME: SIGTERM to the pid in DIR/NAME.pid, SIGKILL after 10s.
stopdaemon() {
	local f="$dir/$1.pid" pid
	[ -s "$f" ] || return 0
	pid=$(cat "$f")
	kill -TERM "$pid" 2>/dev/null || { rm -f "$f"; return 0; }
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || { rm -f "$f"; return 0; }
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	rm -f "$f"
}

stop() {
	stopdaemon slurmd
	stopdaemon slurmctld
	stopdaemon munged
}

case $1 in
start) start ;;
stop) stop ;;
*) usage ;;
esac
