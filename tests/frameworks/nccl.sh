#!/bin/bash
# SPDX-License-Identifier: MIT
# The fake NCCL job past a 3 s deadline: two ranks that init, run a
# collective, synchronize (steady) and then stay idle for 9 s are never
# dumped, declared or aborted (steady is reached the NCCL way), output and
# status unchanged, no error verdict live or after.
# limit: 90
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../nccl/helpers.inc"	# JOB; its reap is replaced by fw.inc's
. "$(dirname "$0")/fw.inc"
FC=$B/tests/fake_cuda/libcuda.so.1
if [ ! -x "$JOB" ] || [ ! -e "$FC" ]; then
	skip nccl "the fake NCCL job and fake CUDA driver are not built (make it)"
	finish
fi

for mode in abort; do	# the stricter; healthy.sh has every shape under abort
	D=$T/h-$mode
	RUN_ARGS="--dir $D --on-stall $mode"
	for r in 0 1; do
		job "h$mode$r" RANK=$r WORLD_SIZE=2 ID_FILE=$T/id-$mode FAKE_CUDA_LIB=$FC \
			IDLE_S=$((TMO * 3)) -- "$JOB" idle
	done
	live_check "healthy, on-stall $mode" "$D"
	reap
	for r in 0 1; do
		check "healthy, on-stall $mode: rank $r exit status 0" test "$(cat "$T/h$mode$r.rc")" = 0
		check "healthy, on-stall $mode: rank $r no stall line" no_stall_line "h$mode$r"
		check "healthy, on-stall $mode: rank $r output unchanged" grep -q DONE "$T/h$mode$r.out"
	done
	check "healthy, on-stall $mode: no error verdict after" no_errors "$D"
	check "healthy, on-stall $mode: both reached steady through the synchronize, no dump" \
		tq "$D" 'all(p.ev("phase", phase="steady") and not p.ev("phase", phase="steady").get("via") and not p.dumps for p in procs if p.rank is not None)'
done
finish
