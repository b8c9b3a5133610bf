#!/bin/bash
# SPDX-License-Identifier: MIT
# The collective ring: ten thousand collectives, then a stall: the dump
# holds the last 4096 of them, oldest first, and the total; and the hook
# allocates nothing per call: a malloc counter preloaded after us counts
# none on the calling thread, as many as without the library (the fake
# NCCL's root thread allocates for each collective on its own thread).
# limit: 60
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/helpers.inc"

env LD_PRELOAD="$NT/libmalloc_count.so" ID_FILE=$T/id0 RANK=0 WORLD_SIZE=1 ITERS=10000 \
	"$JOB" ring >"$T/bare.out" 2>&1
bare=$(sed -n 's/.*MALLOCS \([0-9]*\)$/\1/p' "$T/bare.out")

D=$T/ring
env LD_PRELOAD="$LIB:$NT/libmalloc_count.so" HANGTRACE_DIR=$D HANGTRACE_TIMEOUT=2 ID_FILE=$T/id \
	RANK=0 WORLD_SIZE=1 ITERS=10000 STALL_S=5 "$JOB" ring >"$T/ring.out" 2>&1 &
P=$!
SPAWNED="$SPAWNED $P"
wait_dumps "$D" 1 40
# The stall after the collectives is the last dump: wait for it to be taken.
for i in $(seq 1 100); do grep -q '"collectives_total":10000' "$D"/*.jsonl 2>/dev/null && break; sleep 0.1; done
wait $P
check "ring: the program completes" test $? -eq 0
traced=$(sed -n 's/.*MALLOCS \([0-9]*\)$/\1/p' "$T/ring.out")
check "ring: no allocation added to 9999 collectives ($traced with, ${bare:-?} without)" \
	test -n "$bare" -a "$traced" = "$bare" -a "$traced" = 0
check "ring: the dump after the stall holds the last 4096, in order, of 10000" \
	tq "$D" '(lambda d: d["collectives_total"] == 10000 and [c["seq"] for c in d["collectives"]] == list(range(5904, 10000)) and all(c["count"] == c["seq"] and c["op"] == "allreduce" and c["dtype"] == "int64" for c in d["collectives"]))(proc(rank=0).dumps[-1][2])'
check "ring: the stall was taken after the collectives, in stall_after_collectives" \
	tq "$D" 'any("stall_after_collectives" in f for f in proc(rank=0).main_frames(-1))'
finish
