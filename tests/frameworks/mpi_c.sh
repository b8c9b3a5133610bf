#!/bin/bash
# SPDX-License-Identifier: MIT
# A C-only MPI job on Open MPI (tests/frameworks/mpi_loop.c, 3 ranks under
# mpirun, `hangtrace run --timeout 2`): no Python, so the library sees only
# native stacks. Healthy for 3x the deadline with --on-stall abort: a
# compute + MPI_Allreduce loop, and a tight MPI_Allreduce-only loop (like
# osu_allreduce: the main thread is inside MPI_Allreduce at nearly every
# look, one stack each time) are never declared stalled (the MPI calls
# that complete are progress, SPEC section 6): exit 0, output unchanged, no
# stall line, no error verdict live or after. Blocked: rank 2 spins in its
# own code (late_work) for 4x the deadline before MPI_Barrier; ranks 0-1
# in MPI_Barrier are declared stalled (the hooked call in flight past the
# deadline, nothing completing) and, with abort, aborted; the first
# verdict names rank 2 (straggler), live and, with abort, after. Without
# abort the job then completes: no error verdict after.
# limit: 150
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/fw.inc"
TMO=2
PROG=$B/tests/frameworks/mpi_loop
if ! command -v mpirun >/dev/null; then
	skip mpi_c "mpirun is needed (openmpi-bin, scripts/deps.sh test)"
	finish
fi
if [ ! -x "$PROG" ] || "$PROG" 2>/dev/null | grep -q '^SKIP'; then
	skip mpi_c "$PROG was built without mpi.h (libopenmpi-dev, scripts/deps.sh test)"
	finish
fi
MPIRUN="mpirun --allow-run-as-root --oversubscribe -np 3"

# first_verdict DIR: "code ranks" of the first error verdict.
first_verdict() {
	"$HT" report --json "$1" 2>/dev/null | "$PY" -c '
import json, sys
e = [v for v in json.load(sys.stdin)["verdicts"] if v["severity"] == "error"]
print(e[0]["code"], ",".join(map(str, e[0]["ranks"])) if e else "none")'
}

for prog in compute tight; do
	D=$T/h-$prog
	RUN_ARGS="--dir $D --on-stall abort"
	job "h$prog" -- $MPIRUN "$PROG" "$prog" $((TMO * 3))
	live_check "healthy $prog, on-stall abort" "$D"
	reap
	check "healthy $prog: every rank done" \
		test "$(grep -o 'rank [012] done True' "$T/h$prog.out" | sort -u | wc -l)" = 3
	healthy_checks "healthy $prog" "$D" "h$prog"
	check "healthy $prog: the looks saw MPI calls complete" \
		tq "$D" 'all(any(x[2]["progress"].get("calls_done", 0) > 0 for x in p.dumps if x[2]) for p in procs if p.rank is not None)'
done

# Blocked, abort: ranks 0-1 in MPI_Barrier, rank 2 late for 4x the deadline.
D=$T/late-abort
RUN_ARGS="--dir $D --on-stall abort"
start=$(date +%s%N)
job la -- $MPIRUN "$PROG" late $((TMO * 4)) 2
reap_one la
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "late, abort: mpirun fails (status $(cat "$T/la.rc"))" test "$(cat "$T/la.rc")" != 0
check "late, abort: within twice the deadline + 6 s (took $ms ms)" test "$ms" -lt $(( (2 * TMO + 6) * 1000 ))
check "late, abort: stderr says a barrier rank stalled, then aborting" \
	sh -c "grep -q 'rank [01] stalled .* in launch' '$T/la.err' && grep -q 'aborting (HANGTRACE_ON_STALL=abort)' '$T/la.err'"
check "late, abort: a barrier rank got SIGABRT" \
	tq "$D" 'any(proc(rank=r).ev("signal", signal="SIGABRT") or (proc(rank=r).exit or {}).get("signal") == "SIGABRT" for r in (0, 1))'
# Declared at the second look (the hooked call in flight past the
# deadline), or at the first where the rank is idle at the barrier (Open
# MPI yields when oversubscribed).
check "late, abort: declared in MPI_Barrier (in flight, at the wait point), no MPI call completing" \
	tq "$D" 'any(x[2] and x[2]["declared"] and x[2]["blocked"] in ("call", "wait_point", "spin") and x[2]["wait_point"] == "mpi_barrier" and "calls_done" not in x[2]["progress"] and any(c["name"] == "MPI_Barrier" for c in x[0]["calls"]) for r in (0, 1) for x in proc(rank=r).dumps)'
check "late, abort: native frames show MPI_Barrier" \
	tq "$D" 'any("MPI_Barrier (" in f for f in proc(rank=0).main_frames(-1))'
check "late, abort: the late rank is not declared" \
	tq "$D" 'not any(x[2] and x[2].get("declared") for x in proc(rank=2).dumps)'
v=$(first_verdict "$D")
check "late, abort: first verdict straggler [2] (got $v)" test "$v" = "straggler 2"

# Blocked, dump: declared, named live; then rank 2 reaches the barrier.
D=$T/late-dump
RUN_ARGS="--dir $D"
job ld -- $MPIRUN "$PROG" late $((TMO * 4)) 2
sleep $((TMO * 3))
v=$(first_verdict "$D")
check "late, live at 3x the deadline: first verdict straggler [2] (got $v)" test "$v" = "straggler 2"
reap_one ld
check "late, dump: the job completes (status $(cat "$T/ld.rc"))" test "$(cat "$T/ld.rc")" = 0
check "late, dump: every rank done" \
	test "$(grep -o 'rank [012] done True' "$T/ld.out" | sort -u | wc -l)" = 3
check "late, dump: stderr says a barrier rank stalled" grep -q 'rank [01] stalled .* in launch' "$T/ld.err"
check "late, dump: no error verdict after it completed" no_errors "$D"
finish
