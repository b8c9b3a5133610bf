#!/bin/sh
# SPDX-License-Identifier: MIT
# local.sh: `hangtrace check` with 4 ranks on one host, launched by
# environment variables and by mpirun: every check passes or is skipped
# with its reason, every rank exits 0 within 3 s, the report shows the
# table and writes an empty failed-hosts.txt. Then a rank that is never
# launched: missing_rank, and the others still end within the bound.
# limit: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../net/ranks.shlib"

# env_ranks DIR N PORT [SKIP_RANK] [ARGS...]: N ranks by RANK/WORLD_SIZE; waits for all.
env_ranks() {
	d=$1; n=$2; p=$3; s=$4; shift 4
	pids=""
	r=0
	while [ $r -lt "$n" ]; do
		if [ "$r" != "$s" ]; then
			RANK=$r WORLD_SIZE=$n LOCAL_RANK=$r LOCAL_WORLD_SIZE=$n MASTER_ADDR=127.0.0.1 \
				MASTER_PORT=$p "$HT" check --dir "$d" --no-nccl "$@" \
				>"$d.out.$r" 2>&1 &
			pids="$pids $!"
			echo $! >"$d.pid.$r"
		fi
		r=$((r + 1))
	done
	rc=0
	for x in $pids; do wait "$x" || rc=1; done
	return $rc
}

P=$(free_port)
mkdir -p "$T"
start=$(date +%s.%N)
env_ranks "$T/env" 4 "$P" none --timeout 20
rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
check env_all_pass_exit_0 [ "$rc" = 0 ]
check env_within_3s [ "$(echo "$secs < 3" | bc)" = 1 ]
check env_every_check_written tq "$T/env" "(len(procs) == 4 and all(
	sorted(set(e['check'] for e in p.evs('check'))) == sorted(['identity', 'gpu', 'ifname',
	  'resolve', 'shm', 'ib', 'rendezvous', 'arrivals', 'versions', 'gpus', 'addresses',
	  'clock', 'peer', 'nccl', 'store'])
	and not p.evs('check', result='fail') and p.exit['status'] == 0 for p in procs))"
"$HT" report "$T/env" >"$T/env.report" 2>&1
check env_report_exit_0 [ $? = 0 ]
check env_report_table grep -Eq '^  [^ ]+ +PASS +(SKIP|PASS) +PASS +PASS +PASS' "$T/env.report"
check env_report_no_fail sh -c "! grep -q '^  FAIL' '$T/env.report'"
check env_failed_hosts_empty sh -c "[ -f '$T/env/failed-hosts.txt' ] && [ ! -s '$T/env/failed-hosts.txt' ]"

# mpirun: Open MPI's own rank variables, no RANK.
if command -v mpirun >/dev/null 2>&1; then
	P=$(free_port)
	start=$(date +%s.%N)
	MASTER_ADDR=127.0.0.1 MASTER_PORT=$P timeout 60 mpirun --allow-run-as-root --oversubscribe \
		-np 4 -x MASTER_ADDR -x MASTER_PORT "$HT" check --dir "$T/mpi" --no-nccl --timeout 20 \
		>"$T/mpi.out" 2>&1
	rc=$?
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	check mpirun_all_pass_exit_0 [ "$rc" = 0 ]
	check mpirun_ranks_by_openmpi tq "$T/mpi" "(sorted(p.header['rank'] for p in procs) == [0, 1, 2, 3]
		and all(p.header['launcher'] == 'openmpi' for p in procs)
		and not [e for p in procs for e in p.evs('check', result='fail')])"
	"$HT" report "$T/mpi" >"$T/mpi.report" 2>&1
	check mpirun_report_exit_0 [ $? = 0 ]
	check mpirun_failed_hosts_empty sh -c "[ -f '$T/mpi/failed-hosts.txt' ] && [ ! -s '$T/mpi/failed-hosts.txt' ]"
	echo "mpirun: 4 ranks in $secs s (with mpirun's own start)"
else
	skip mpirun "mpirun is not installed"
fi

# Rank 3 never launched: the others end by themselves within the bound.
P=$(free_port)
start=$(date +%s.%N)
env_ranks "$T/miss" 4 "$P" 3 --timeout 6
rc=$?
secs=$(echo "$(date +%s.%N) - $start" | bc)
check missing_exit_1 [ "$rc" = 1 ]
check missing_within_bound [ "$(echo "$secs < 6.5" | bc)" = 1 ]
check missing_named_by_each tq "$T/miss" "(len(procs) == 3 and all(
	p.ev('check', check='arrivals')['result'] == 'fail' and
	p.ev('check', check='arrivals')['ranks'] == [3] for p in procs))"
"$HT" report --json "$T/miss" >"$T/miss.json" 2>"$T/miss.err"
check missing_report_exit_1 [ $? = 1 ]
check missing_rank_first "$PY" -c "
import json, sys
r = json.load(open('$T/miss.json'))
v = [x for x in r['verdicts'] if x['severity'] == 'error']
assert v and v[0]['code'] == 'missing_rank' and v[0]['ranks'] == [3], v
assert r['check']['ranks_never_seen'] == [3], r['check']
"
echo "4 ranks, all passing: ${secs} s for the missing case; see env timing above"
finish
