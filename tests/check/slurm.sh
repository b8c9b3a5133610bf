#!/bin/sh
# SPDX-License-Identifier: MIT
# slurm.sh: a single-host Slurm cluster started here (Debian's slurm-wlm
# and munge: munged, slurmctld and slurmd on this host, every file in the
# scratch folder, the daemons ended by pid), then `srun -n 4 hangtrace
# check` passes on every rank, and `srun -n 4 hangtrace run -- <a PyTorch
# job>` whose rank 3 never starts its program is cancelled (scancel: the
# job's SIGTERM), dumped, and reported with missing_rank first. Each task
# writes to a folder of its own, as a node's local disk would hold them
# (issue 24); `srun hangtrace digest` gathers them through its standard
# output, and the report over the digests says what the report over the
# folders says, byte for byte. SKIP with the reason when the cluster
# cannot start.
# limit: 240
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../net/ranks.shlib"

DAEMONS=""
teardown() {
	[ -n "${JOBID:-}" ] && scancel "$JOBID" 2>/dev/null
	for p in $DAEMONS; do kill "$p" 2>/dev/null; done
	sleep 1
	for p in $DAEMONS; do kill -9 "$p" 2>/dev/null; done
	cleanup
}
trap teardown EXIT

for c in munged slurmctld slurmd srun sinfo scancel; do
	if ! command -v "$c" >/dev/null 2>&1; then
		skip slurm "$c is not installed (slurm-wlm, munge)"
		finish
	fi
done

S=$T/slurm
mkdir -p "$S/state" "$S/spool" "$S/munge"
chmod 700 "$S/munge"
dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$S/munge/munge.key"
munged --force --key-file="$S/munge/munge.key" --socket="$S/munge/sock" \
	--pid-file="$S/munge/pid" --log-file="$S/munge/log" --seed-file="$S/munge/seed" \
	2>"$S/munged.err"
sleep 0.5
if [ ! -s "$S/munge/pid" ]; then
	skip slurm "munged does not start: $(head -n 1 "$S/munged.err")"
	finish
fi
DAEMONS="$(cat "$S/munge/pid")"

HOST=$(hostname -s)
CP=$(free_port)
DP=$(free_port)
cat >"$S/slurm.conf" <<CONF
ClusterName=ht$$
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CP
SlurmdPort=$DP
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$S/munge/sock
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/linear
SchedulerType=sched/builtin
ReturnToService=2
KillWait=5
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=ht Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$S/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$S/slurmctld.out" 2>&1 &
DAEMONS="$DAEMONS $!"
slurmd -D -f "$SLURM_CONF" >"$S/slurmd.out" 2>&1 &
DAEMONS="$DAEMONS $!"
up=0
for i in $(seq 1 60); do
	if sinfo -h -o %T 2>/dev/null | grep -Eq '^(idle|mixed|allocated)'; then up=1; break; fi
	sleep 0.5
done
if [ $up = 0 ]; then
	skip slurm "the cluster did not come up in 30 s: $(tail -n 1 "$S/slurmctld.log" 2>/dev/null) / $(tail -n 1 "$S/slurmd.log" 2>/dev/null)"
	finish
fi

# The check, on every rank, under srun.
start=$(date +%s)
timeout 90 srun -n 4 "$HT" check --dir "$T/pre" --port "$(free_port)" --timeout 30 --no-nccl \
	>"$T/pre.out" 2>&1
rc=$?
check srun_check_passes [ $rc = 0 ]
check srun_check_ranks_from_slurm tq "$T/pre" "(sorted(p.header['rank'] for p in procs) == [0, 1, 2, 3]
	and all(p.header['launcher'] == 'slurm' for p in procs)
	and not events('check', result='fail'))"
"$HT" report "$T/pre" >"$T/pre.report" 2>&1
check srun_check_report_exit_0 [ $? = 0 ]
check srun_check_failed_hosts_empty sh -c "[ -f '$T/pre/failed-hosts.txt' ] && [ ! -s '$T/pre/failed-hosts.txt' ]"

# A job whose rank 3 never starts its program; cancelled while it hangs.
if "$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	P=$(free_port)
	srun -n 4 --job-name=ht-hang$$ sh -c '
		if [ "$SLURM_PROCID" = 3 ]; then exec sleep 600; fi
		exec env RANK=$SLURM_PROCID WORLD_SIZE=$SLURM_NTASKS MASTER_ADDR=127.0.0.1 \
			MASTER_PORT='"$P"' STORE_TIMEOUT=300 "$0" run --dir "$1/node$SLURM_PROCID" --timeout 4 -- \
			"$2" "$3" ok' "$HT" "$T/job" "$PY" "$NET/torch_rank.py" >"$T/job.out" 2>&1 &
	SRUN=$!
	SPAWNED="$SPAWNED $SRUN"
	JOBID=""
	for i in $(seq 1 40); do
		JOBID=$(squeue -h -n "ht-hang$$" -o %i 2>/dev/null | head -n 1)
		[ -n "$JOBID" ] && break
		sleep 0.5
	done
	# Ranks 0-2 wait in the store (rank 0 serves it), stalled past their
	# timeout (a dump each), then the cancel.
	WAITING="[p for p in procs if p.ev('listen', role='rendezvous') or
		p.ev('phase', phase='rendezvous', state='begin')]"
	wait_tq 120 "$T/job" "len($WAITING) == 3 and all(
		[s for s, t, e in p.dumps if s['phase'] == 'rendezvous' or p.rank == 0] for p in $WAITING)" ||
		fail slurm_job_stalled "ranks 0-2 did not all stall in the store in 120 s"
	scancel "$JOBID"
	for i in $(seq 1 40); do alive "$SRUN" || break; sleep 0.5; done
	JOBID=""
	"$HT" report --json "$T/job"/node* >"$T/job.json" 2>"$T/job.err"
	check srun_job_missing_rank_first "$PY" -c "
import json
r = json.load(open('$T/job.json'))
v = [x for x in r['verdicts'] if x['severity'] == 'error']
assert v and v[0]['code'] == 'missing_rank' and v[0]['ranks'] == [3], [(x['code'], x['ranks']) for x in v]
e = r['job'].get('ended')
assert e is None or e.get('how') == 'killed', e
"
	check srun_job_sigterm_dumps tq "$T/job" "sorted(p.rank for p in procs if
		[e for e in p.evs('stall') if e['reason'] == 'sigterm']) == [0, 1, 2]"
	# Each task digests its own folder; rank 3's has none (its task
	# never started the program): that task says so and fails, the
	# others' digests come through srun's standard output, in parts
	# (srun cuts long lines of several tasks into each other).
	timeout 60 srun -n 4 sh -c 'exec "$0" digest "$1/node$SLURM_PROCID"' "$HT" "$T/job" \
		>"$T/job.digests" 2>"$T/digest.err"
	check srun_digest_three_in_parts "$PY" -c "
import json, sys
sys.exit(len(set(json.loads(l)['digest_part'] for l in open('$T/job.digests'))) != 3)"
	"$HT" report --json "$T/job.digests" >"$T/dg.json" 2>"$T/dg.err"
	check srun_digest_report_same_json cmp -s "$T/job.json" "$T/dg.json"
	"$HT" report "$T/job"/node* >"$T/job.txt" 2>&1
	"$HT" report "$T/job.digests" >"$T/dg.txt" 2>&1
	check srun_digest_report_same_text cmp -s "$T/job.txt" "$T/dg.txt"
else
	skip slurm_job "python3-torch with gloo is not importable by $PY"
fi
finish
