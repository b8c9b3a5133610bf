#!/bin/bash
# SPDX-License-Identifier: MIT
# Real mpi4py on Open MPI (mpirun) past a 3 s deadline (SPEC section 6): a
# healthy compute + Allreduce loop for 9 s is never declared stalled, never
# aborted, output and status unchanged, no error verdict live or after; a
# rank in MPI_Barrier its peer never reaches (Open MPI spins there: its CPU
# alone does not tell) is declared stalled at the first look (a spin: on a
# CPU, no wakeup, no I/O, no MPI call returning) and aborted; the peer that
# computes is not.
# limit: 150
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/fw.inc"
if ! command -v mpirun >/dev/null || ! "$PY" -c 'import mpi4py.MPI' 2>/dev/null; then
	skip mpi "mpirun and python3-mpi4py are needed (scripts/deps.sh test installs them)"
	finish
fi
MPIRUN="mpirun --allow-run-as-root --oversubscribe -np 2"

for mode in abort; do	# the stricter; healthy.sh has every shape under abort
	D=$T/h-$mode
	RUN_ARGS="--dir $D --on-stall $mode"
	job "h$mode" -- $MPIRUN "$PY" "$FW/mpi_job.py" healthy $((TMO * 3))
	live_check "healthy, on-stall $mode" "$D"
	reap
	check "healthy, on-stall $mode: both ranks done" \
		test "$(grep -o 'rank [01] done True' "$T/h$mode.out" | sort -u | wc -l)" = 2	# mpirun may join the lines
	healthy_checks "healthy, on-stall $mode" "$D" "h$mode"
done

D=$T/b
RUN_ARGS="--dir $D --on-stall abort"
start=$(date +%s%N)
job b -- $MPIRUN "$PY" "$FW/mpi_job.py" barrier 60
reap_one b
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "blocked: mpirun fails (status $(cat "$T/b.rc"))" test "$(cat "$T/b.rc")" != 0
# Open MPI catches SIGABRT itself (its "Process received signal" report),
# so the trace has the chained signal rather than an exit line.
check "blocked: rank 0 got SIGABRT" \
	tq "$D" 'proc(rank=0).ev("signal", signal="SIGABRT") or (proc(rank=0).exit or {}).get("signal") == "SIGABRT"'
check "blocked: within twice the deadline + 6 s (took $ms ms)" test "$ms" -lt $(( (2 * TMO + 6) * 1000 ))
check "blocked: stderr says rank 0 stalled, then aborting" \
	sh -c "grep -q 'rank 0 stalled .* in launch' '$T/b.err' && grep -q 'aborting (HANGTRACE_ON_STALL=abort)' '$T/b.err'"
check "blocked: the first look declares the spin: at MPI_Barrier, on a CPU, no wakeup, no I/O, no MPI call returning" \
	tq "$D" '(lambda d: d[0][2]["declared"] and d[0][2]["blocked"] in ("spin", "call") and d[0][2]["wait_point"] == "mpi_barrier" and d[0][2]["progress"]["main_wakeups"] <= 4 and d[0][2]["progress"]["io"] == 0 and d[0][2]["progress"].get("calls_done", 0) == 0)(proc(rank=0).dumps)'
check "blocked: its native frames show MPI_Barrier" \
	tq "$D" 'any("MPI_Barrier (" in f for f in proc(rank=0).main_frames(-1))'
check "blocked: the peer that computes is not declared" \
	tq "$D" 'not any(x[2] and x[2].get("declared") for x in proc(rank=1).dumps)'
finish
