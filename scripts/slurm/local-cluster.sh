#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for tests and for trying
# docs/cluster.md on a laptop; not for a real site (no accounting, no
# cgroups, every daemon as root).
#
#   scripts/slurm/local-cluster.sh start    install slurm-wlm and munge if missing,
#                                           write the configuration, start munged,
#                                           slurmctld and slurmd, wait for the node
#   scripts/slurm/local-cluster.sh stop     stop them all (nothing of Slurm or munge is left running)
#   scripts/slurm/local-cluster.sh status   say what runs and what sinfo says
#
# Idempotent: start on a running cluster checks it and returns. Works without
# systemd (proctrack/linuxproc, task/none): daemons are started directly.
# Variables: RB_SLURM_STATE (state, spool and logs; default
# /var/tmp/reasonbench-slurm), RB_SLURM_MEMORY (the node's RealMemory in MB;
# default 2048, modest, since CR_CPU does not schedule memory).
set -euo pipefail

STATE=${RB_SLURM_STATE:-/var/tmp/reasonbench-slurm}
MEMORY=${RB_SLURM_MEMORY:-2048}
CONF=/etc/slurm/slurm.conf
MARK="# written by reasonbench scripts/slurm/local-cluster.sh"
NODE=$(hostname -s)

say() { echo "local-cluster: $*"; }
die() { echo "local-cluster: $*" >&2; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 && exec sudo "$0" "$@"
	die "run as root (the daemons run as root here), e.g. sudo $0 ${1:-start}"
fi

# pids of a daemon by its executable's name, exactly (pgrep -x, never a pattern).
pids() { pgrep -x "$1" || true; }

install() {
	local need=()
	command -v slurmctld >/dev/null 2>&1 && command -v slurmd >/dev/null 2>&1 && command -v sinfo >/dev/null 2>&1 || need+=(slurm-wlm)
	command -v munged >/dev/null 2>&1 || need+=(munge)
	[ ${#need[@]} -eq 0 ] && return
	say "installing ${need[*]}"
	# Packages must not start daemons of their own (there is no init system
	# to stop them); this script starts them with its configuration.
	local policy=/usr/sbin/policy-rc.d made=""
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy" && made=1
	fi
	local ok=1
	apt-get update -qq || true
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null || ok=""
	[ -z "$made" ] || rm -f "$policy"
	[ -n "$ok" ] || die "apt-get install ${need[*]} failed"
}

write_config() {
	if [ -f "$CONF" ] && ! grep -qF "$MARK" "$CONF"; then
		die "$CONF exists and was not written by this script; move it away to use the one-node test cluster"
	fi
	mkdir -p /etc/slurm "$STATE/ctld" "$STATE/d" "$STATE/log"
	local tmp
	tmp=$(mktemp "$CONF.XXXXXX")
	cat > "$tmp" <<EOF
$MARK
ClusterName=reasonbench
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
# A cancelled task gets SIGTERM, then SIGKILL this many seconds later.
KillWait=10
# Finished jobs stay visible to scontrol for this long (there is no accounting).
MinJobAge=600
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$MEMORY State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
	if [ -f "$CONF" ] && cmp -s "$tmp" "$CONF"; then
		rm -f "$tmp"
	else
		mv "$tmp" "$CONF" && chmod 644 "$CONF"
	fi
}

start_munge() {
	if [ ! -s /etc/munge/munge.key ]; then
		mkdir -p /etc/munge
		if command -v mungekey >/dev/null 2>&1; then
			mungekey --create --keyfile=/etc/munge/munge.key
		else
			dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
		fi
		say "created /etc/munge/munge.key"
	fi
	chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
	mkdir -p /run/munge /var/lib/munge /var/log/munge
	chown munge:munge /run/munge /var/lib/munge /var/log/munge
	if [ -z "$(pids munged)" ]; then
		runuser -u munge -- /usr/sbin/munged
	fi
	for _ in $(seq 50); do
		munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 && return
		sleep 0.1
	done
	die "munged does not answer (see /var/log/munge/munged.log)"
}

node_state() { sinfo -h -N -n "$NODE" -o %T 2>/dev/null | head -n1; }

start() {
	install
	write_config
	start_munge
	[ -n "$(pids slurmctld)" ] || slurmctld
	for _ in $(seq 100); do
		scontrol ping 2>/dev/null | grep -q UP && break
		sleep 0.1
	done
	scontrol ping 2>/dev/null | grep -q UP || die "slurmctld is not up (see $STATE/log/slurmctld.log)"
	[ -n "$(pids slurmd)" ] || slurmd -N "$NODE"
	local st=""
	for _ in $(seq 300); do
		st=$(node_state)
		case "$st" in
		idle* | mixed* | allocated*) say "node $NODE $st ($(nproc) CPUs, ${MEMORY} MB); logs in $STATE/log"; return ;;
		down* | drain*) scontrol update nodename="$NODE" state=resume >/dev/null 2>&1 || true ;;
		esac
		sleep 0.1
	done
	die "node $NODE is ${st:-unknown}, not idle, after 30 s (see $STATE/log/slurmd.log and slurmctld.log)"
}

# pid of a daemon from its pid file, if it runs.
pidof_file() { local p; p=$(cat "$1" 2>/dev/null || true); [ -n "$p" ] && kill -0 "$p" 2>/dev/null && echo "$p" || true; }

left() { for d in slurmstepd slurmd slurmctld munged; do [ -z "$(pids "$d")" ] || echo "$d"; done; }

stop() {
	local f p
	# Cancel every job first, so that no slurmstepd (which outlives slurmd
	# by design) and no job process stays behind.
	if [ -n "$(pids slurmctld)" ] && command -v squeue >/dev/null 2>&1; then
		squeue -h -o %A 2>/dev/null | xargs -r scancel 2>/dev/null || true
		for _ in $(seq 150); do
			[ -z "$(squeue -h -o %A 2>/dev/null)" ] && [ -z "$(pids slurmstepd)" ] && break
			sleep 0.1
		done
	fi
	for f in "$STATE/slurmd.pid" "$STATE/slurmctld.pid" /run/munge/munged.pid; do
		p=$(pidof_file "$f")
		[ -n "$p" ] && kill "$p" 2>/dev/null || true
	done
	for _ in $(seq 100); do
		[ -z "$(left)" ] && { say "stopped"; return; }
		sleep 0.1
	done
	die "still running: $(left | tr '\n' ' ')(not started by this script, or stuck)"
}

status() {
	local d up=0
	for d in munged slurmctld slurmd; do
		if [ -n "$(pids "$d")" ]; then
			say "$d running (pid $(pids "$d" | tr '\n' ' '| sed 's/ $//'))"
			up=$((up + 1))
		else
			say "$d not running"
		fi
	done
	if [ "$up" -eq 3 ] && command -v sinfo >/dev/null 2>&1; then
		sinfo
		return 0
	fi
	return 3
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) status ;;
*) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
