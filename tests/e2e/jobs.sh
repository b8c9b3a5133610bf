#!/bin/bash
# SPDX-License-Identifier: MIT
# jobs.sh: real jobs broken in common ways, and the FIRST error verdict the
# report gives (SPEC section 8: the root cause first; what follows from it
# names it in `because`). PyTorch on gloo (tests/e2e/torch_job.py): rank 0,
# which hosts the c10d store, still loading a checkpoint while the others
# are refused; one rank with a wrong MASTER_PORT while the others were
# refused once, then connected; a rank that never reaches dist.barrier();
# monitored_barrier timing out on rank 0 because rank 1 never came; a
# helper (`which hipcc | xargs readlink -f`) exiting 1 inside rank 0; a
# job whose rank 1 never reaches the barrier killed by SIGTERM from
# `timeout`, reported while it hung and again after (the same first
# verdict, job.ended killed); a healthy
# job. mpi4py on Open MPI (tests/e2e/mpi_job.py): one rank in
# load_checkpoint before Barrier; one rank raising; a healthy job. JAX on
# CPU (the coordinator address as an argument) from the venv that
# scripts/jax-venv.sh makes, SKIP when it cannot be had.
# limit: 420
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/e2e.inc"

TMO=3
TJ=$ROOT/tests/e2e/torch_job.py
MJ=$ROOT/tests/e2e/mpi_job.py

# Waiting: the rank's latest dump is a timeout dump (in phase ph, if given),
# declared in rendezvous (a look that saw it still moving is followed by another).
W="(lambda p, ph=None: p.dumps and p.dumps[-1][0]['reason'] == 'timeout'
    and p.dumps[-1][2] is not None and ph in (None, p.dumps[-1][0]['phase'])
    and (ph != 'rendezvous' or p.declared))"

# ---- PyTorch on gloo --------------------------------------------------------------

TORCH=1
if ! "$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	TORCH=0
	skip e2e_jobs_torch "python3-torch with gloo is not importable by $PY (scripts/deps.sh test)"
fi

# tj CASE R WS PORT STEPS...: rank R of a WS-rank gloo job on PORT.
tj() {
	local c=$1 r=$2 ws=$3 port=$4
	shift 4
	WS=$ws rank "$c" "$r" MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" STORE_TIMEOUT=60 \
		-- "$PY" "$TJ" "$@"
}

if [ $TORCH = 1 ]; then
	P_OK=$(free_port) P_STORE=$(free_port) P_PORT=$(free_port) P_WRONG=$(free_port)
	P_NOB=$(free_port) P_MON=$(free_port) P_HELP=$(free_port) P_KILL=$(free_port)
	P_ARG=$(free_port)
	for r in 0 1; do tj healthy $r 2 "$P_OK" ok; done
	tj store 0 4 "$P_STORE" ckpt 60 ok
	for r in 1 2 3; do tj store $r 4 "$P_STORE" ok; done
	tj port 0 4 "$P_PORT" ckpt 1.5 ok
	for r in 1 2; do tj port $r 4 "$P_PORT" ok; done
	tj port 3 4 "$P_WRONG" ok
	for r in 0 2 3; do tj nobarrier $r 4 "$P_NOB" init barrier; done
	tj nobarrier 1 4 "$P_NOB" init sleep 60
	tj helper 0 2 "$P_HELP" helper ckpt 60 ok
	tj helper 1 2 "$P_HELP" ok
fi

# ---- settle, report ------------------------------------------------------------------

if [ $TORCH = 1 ]; then
	finished 120 healthy
	settle_tq 90 store "len(procs) >= 4 and $W(proc(rank=0), 'launch')
	                    and all($W(proc(rank=r), 'rendezvous') for r in range(1, 4))"
	settle_tq 60 port "len(procs) >= 4 and all($W(proc(rank=r), 'rendezvous') for r in range(4))
	                   and proc(rank=3).ev('connect', result='refused', count=2)"
	settle_tq 60 nobarrier "len(procs) >= 4 and all($W(proc(rank=r), 'rendezvous') for r in range(4))"
	settle_tq 60 helper "len(procs) >= 2 and $W(proc(rank=0), 'launch')
	                     and $W(proc(rank=1), 'rendezvous')"
	stop store port nobarrier helper
	for c in healthy store port nobarrier helper; do report $c; done
	# monitored_barrier on its own: its 8 s run from the end of
	# init_process_group, so under the load of the jobs above the looks
	# could miss it.
	tj monitored 0 2 "$P_MON" init monitored 8
	tj monitored 1 2 "$P_MON" init sleep 60
	settle_tq 60 monitored "len(procs) >= 2 and proc(rank=0).exit and $W(proc(rank=1), 'rendezvous')"
	stop monitored
	report monitored
	# Then one job killed by `timeout` (its ranks alone on the machine, so
	# that they are hung, not still importing, when the signal comes).
	# All ranks of one job under one `timeout`: its SIGTERM reaches them
	# together (its process group), as a scheduler's time limit does.
	mkdir -p "$T/killed"
	launch killed all timeout -s TERM 40 bash -c "
		for r in 0 1 2 3; do
			if [ \$r = 1 ]; then s='init sleep 120'; else s='init barrier'; fi
			RANK=\$r LOCAL_RANK=\$r WORLD_SIZE=4 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P_KILL \
				STORE_TIMEOUT=300 $(htrun killed) $PY $TJ \$s &
		done
		wait"
	settle_tq 38 killed "len(procs) >= 4 and all($W(proc(rank=r), 'rendezvous') for r in range(4))"
	report killed
	cp "$T/killed.json" "$T/killed-hung.json"
	cp "$T/killed.rc" "$T/killed-hung.rc"
	finished 45 killed
	settle_tq 20 killed "all(proc(rank=r).exit for r in range(4))"
	report killed
	# The store named in an argument (init_method), not in MASTER_ADDR and
	# MASTER_PORT, its host still loading (alone on the machine, so that
	# the waiting ranks wait, not import): they are dumped, and live on.
	targ() { WS=4 rank storearg "$1" INIT_METHOD="tcp://127.0.0.1:$P_ARG" STORE_TIMEOUT=60 \
		-- "$PY" "$TJ" "${@:2}"; }
	targ 0 ckpt 60 ok
	for r in 1 2 3; do targ $r ok; done
	settle_tq 50 storearg "len(procs) >= 4 and $W(proc(rank=0), 'launch')
	                       and all(len(proc(rank=r).dumps) >= 2 for r in range(1, 4))"
	report storearg
	stop storearg
fi

# ---- mpi4py on Open MPI ---------------------------------------------------------------

MPI=1
if ! command -v mpirun >/dev/null 2>&1 || ! "$PY" -c 'import mpi4py' 2>/dev/null; then
	MPI=0
	skip e2e_jobs_mpi "mpirun or mpi4py for $PY is missing (scripts/deps.sh test)"
fi
# mpi CASE ARGS...: a 3-rank mpi4py job; -m mpi4py turns an uncaught
# exception into MPI_Abort, as mpi4py's documentation advises.
mpi() {
	local c=$1
	shift
	launch "$c" run mpirun --allow-run-as-root --oversubscribe -np 3 \
		$(htrun "$c") "$PY" -m mpi4py "$MJ" "$@"
}

if [ $MPI = 1 ]; then
	mpi mpiok ok
	mpi mpickpt ckpt 2 120
	mpi mpiraise raise 1 10
	finished 60 mpiok
	settle_tq 60 mpickpt "len(procs) >= 3 and all($W(proc(rank=r)) for r in range(3))"
	finished 60 mpiraise
	stop mpickpt
	for c in mpiok mpickpt mpiraise; do report $c; done
fi

# ---- what a person reads first --------------------------------------------------------

if [ $TORCH = 1 ]; then
	expect "gloo: healthy 2-rank job: no error verdict, job completed" healthy "
rc == 0 and not errors and d['job']['ended'] == {'how': 'completed'}
and d['job']['framework'] == 'pytorch'"
	expect "gloo: store host rank 0 still loading: straggler [0] first, the refusals follow" store "
rc == 1 and v0['code'] == 'straggler' and v0['ranks'] == [0] and v0['because'] is None
and 'has not opened the store' in v0['summary'] and 'load_checkpoint' in R(0)['doing']
and all(R(r)['waits_for'] == [0] for r in (1, 2, 3))
and all(x['because'] == 'straggler' for x in errors[1:])"
	expect "gloo: the store in init_method, its host still loading: straggler [0] first, the waiting ranks live on" storearg "
rc == 1 and v0['code'] == 'straggler' and v0['ranks'] == [0]
and all(R(r)['exit'] is None for r in (1, 2, 3)) and 'rank_exited' not in [x['code'] for x in errors]"
	check "gloo: no rank interrupted by a dump signal (the store named in init_method)" \
		sh -c "! grep -l 'Interrupted system call' '$T'/storearg.*.out"
	expect "gloo: wrong MASTER_PORT on rank 3, the others refused early: rendezvous_unreachable [3]" port "
rc == 1 and v0['code'] == 'rendezvous_unreachable' and v0['ranks'] == [3]
and '127.0.0.1:$P_WRONG' in v0['summary']
and R(0)['waits_for'] == [3] and all(R(r)['waits_for'] in ([0], [3]) for r in (1, 2))"
	expect "gloo: rank 1 never reaches dist.barrier(): straggler [1]" nobarrier "
rc == 1 and v0['code'] == 'straggler' and v0['ranks'] == [1]
and 'stalled' not in [x['code'] for x in errors[:1]]
and all(R(r)['waits_for'] == [1] for r in (0, 2, 3))"
	expect "gloo: monitored_barrier times out on rank 0: straggler [1], then rank_exited [0] because of it" monitored "
rc == 1 and v0['code'] == 'straggler' and v0['ranks'] == [1]
and V('rank_exited')['ranks'] == [0] and V('rank_exited')['because'] == 'straggler'
and R(0)['exit'] == {'status': 1}"
	HPID=$(head -n 1 "$T/helper.pids")
	expect "gloo: a helper of rank 0 exits 1: not the rank, straggler [0]" helper "
rc == 1 and v0['code'] == 'straggler' and v0['ranks'] == [0] and R(0)['pid'] == $HPID
and 'rank_exited' not in codes and d['job']['processes'] > 2"
	expect "gloo: while hung under timeout: straggler [1]" killed-hung "
v0['code'] == 'straggler' and v0['ranks'] == [1] and d['job']['ended'] is None"
	expect "gloo: killed by SIGTERM from timeout: the same first verdict, job.ended killed" killed "
rc == 1 and v0['code'] == 'straggler' and v0['ranks'] == [1]
and d['job']['ended']['how'] == 'killed' and d['job']['ended']['signal'] == 'SIGTERM'
and 'rank_exited' not in codes"
fi
if [ $MPI = 1 ]; then
	expect "mpi4py: healthy job: no error verdict" mpiok "
rc == 0 and not errors and d['job']['launcher'] == 'openmpi'"
	expect "mpi4py: rank 2 in load_checkpoint before Barrier: straggler [2]" mpickpt "
rc == 1 and v0['code'] == 'straggler' and v0['ranks'] == [2]
and 'MPI_Barrier' in R(0)['doing'] and R(0)['waits_for'] == [2]"
	expect "mpi4py: rank 1 raises: rank_exited [1] first" mpiraise "
rc == 1 and v0['code'] == 'rank_exited' and v0['ranks'] == [1]"
fi

# ---- JAX on CPU -----------------------------------------------------------------------

# scripts/jax-venv.sh BUILD makes (or finds) a venv with JAX under the
# build folder; its python is $B/jax-venv/bin/python (or the last line it
# prints).
JPY="" out=""
why="scripts/jax-venv.sh is not there (it installs JAX into a venv under the build folder)"
if [ -x "$ROOT/scripts/jax-venv.sh" ]; then
	out=$(B=$B "$ROOT/scripts/jax-venv.sh" "$B" 2>"$T/jax-venv.err" | tail -n 1)
	why="scripts/jax-venv.sh gave no python that imports jax: $(tail -n 1 "$T/jax-venv.err")"
fi
for cand in "$out" "$B/jax-venv/bin/python"; do
	if [ -n "$cand" ] && [ -x "$cand" ] && "$cand" -c 'import jax' 2>/dev/null; then
		JPY=$cand
		break
	fi
done
if [ -z "$JPY" ]; then
	for c in "missing process" "wrong port" "coordinator host straggling" "mismatched num_processes"; do
		skip "jax: $c" "$why"
	done
	finish
fi
JJ=$ROOT/tests/e2e/jax_job.py
# jj CASE R N PORT [STEPS]: process R of N, coordinator at 127.0.0.1:PORT
# given as an argument (role other), JAX on CPU.
jj() {
	local c=$1 r=$2 n=$3 port=$4
	shift 4
	WS=$n rank "$c" "$r" JAX_PLATFORMS=cpu -- "$JPY" "$JJ" "127.0.0.1:$port" "$n" "$r" "$@"
}
J_MISS=$(free_port) J_PORT=$(free_port) J_WRONG=$(free_port) J_SLOW=$(free_port) J_NUM=$(free_port)
for r in 0 1 2; do jj jmissing $r 4 "$J_MISS"; done
for r in 0 1 2; do jj jport $r 4 "$J_PORT"; done
jj jport 3 4 "$J_WRONG"
jj jslow 0 3 "$J_SLOW" ckpt 240
for r in 1 2; do jj jslow $r 3 "$J_SLOW"; done
for r in 0 1; do jj jnum $r 3 "$J_NUM"; done
jj jnum 2 4 "$J_NUM"
# In initialize: the latest dump's Python frames are in jax's distributed.py.
# Declared there: a look's window can span the end of the import and the
# start of the wait (that look is not sure yet); a later one declares.
IN="(lambda p: $W(p) and p.dumps[-1][2].get('declared', True)
    and any('distributed' in f for f in p.python_frames(-1)))"
settle_tq 120 jmissing "len(procs) >= 3 and all($IN(proc(rank=r)) for r in range(3))"
settle_tq 60 jport "len(procs) >= 4 and all($IN(proc(rank=r)) for r in range(4))"
settle_tq 60 jslow "len(procs) >= 3 and all($IN(proc(rank=r)) for r in (1, 2))
                    and any('load_checkpoint' in f for f in proc(rank=0).python_frames(-1))"
settle_tq 60 jnum "len(procs) >= 3 and all($IN(p) or p.exit for p in procs)"
stop jmissing jport jslow jnum
for c in jmissing jport jslow jnum; do report $c; done
expect "jax: process 3 of 4 never started: missing_rank [3]" jmissing "
rc == 1 and v0['code'] == 'missing_rank' and v0['ranks'] == [3] and d['job']['framework'] == 'jax'"
expect "jax: process 3 given another coordinator port: rendezvous_unreachable [3]" jport "
rc == 1 and v0['code'] == 'rendezvous_unreachable' and v0['ranks'] == [3]
and 'coordinator' in v0['summary'] and 'MASTER_PORT' not in v0['advice']"
expect "jax: the coordinator's host still loading: straggler [0], its stack first" jslow "
rc == 1 and v0['code'] == 'straggler' and v0['ranks'] == [0]
and groups[0] is G(0) and G(0)['ranks'] == [0] and 'load_checkpoint' in frames(G(0))"
# JAX 0.10 lets such a job finish: then the mismatch is a warning (a
# completed job has no error verdict); stuck, it is the error.
expect "jax: process 2 told num_processes=4: world_size_mismatch [2]" jnum "
v0['code'] == 'world_size_mismatch' and v0['ranks'] == [2]
and (rc == 1 or (rc == 0 and d['job']['ended'] == {'how': 'completed'}))"
finish
