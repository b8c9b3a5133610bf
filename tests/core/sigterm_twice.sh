#!/bin/bash
# SPDX-License-Identifier: MIT
# SIGTERM twice, 2 ms apart (coreutils timeout signals the child, then its
# group; Slurm signals every task), to a rank stalled past its 1 s deadline,
# 20 runs in a row (SPEC section 6: a
# second SIGTERM never starts an empty dump): each time the last dump of
# the file is whole and the report shows the rank's main-thread stack. The
# rank has 8 threads, so the second signal finds a thread that does not
# block it while the first is being handled.
# limit: 300
. "$(dirname "$0")/../lib.sh"
P=$B/tests/core/wait_for_peer
bad_whole=0 bad_report=0 runs=20
for i in $(seq 1 $runs); do
	D=$T/r$i
	RANK=0 WORLD_SIZE=1 HANGTRACE_DIR=$D HANGTRACE_TIMEOUT=1 LD_PRELOAD=$LIB "$P" 30 8 >/dev/null 2>&1 &
	pid=$!
	SPAWNED="$SPAWNED $pid"
	for k in $(seq 1 100); do
		grep -q '"t":"dump_end"' "$D"/*.jsonl 2>/dev/null && break
		sleep 0.05
	done
	kill -TERM $pid; sleep 0.002; kill -TERM $pid
	wait $pid 2>/dev/null
	tq "$D" '(lambda d: d[-1][2] is not None and not d[-1][2].get("cut") and any(f.startswith("wait_for_peer (") for f in [x for t in d[-1][1] if t.get("main") for x in t.get("frames", [])]))(proc(rank=0).dumps)' >/dev/null 2>&1 ||
		bad_whole=$((bad_whole + 1))
	"$HT" report "$D" >"$T/rep$i" 2>&1
	grep -q 'wait_for_peer' "$T/rep$i" || bad_report=$((bad_report + 1))
done
check "the last dump of the file is whole and holds the main stack ($bad_whole of $runs runs not)" test $bad_whole = 0
check "every report shows the rank's stack, wait_for_peer ($bad_report of $runs runs not)" test $bad_report = 0
check "a SIGTERM dump, once, per run" tq "$T/r1" 'len([d for d in proc(rank=0).dumps if d[0]["reason"] == "sigterm"]) == 1'

# A dump request, then SIGTERM 2 ms later (during the on-demand dump), 10 runs.
bad=0
for i in $(seq 1 10); do
	D=$T/q$i
	RANK=0 WORLD_SIZE=1 HANGTRACE_DIR=$D HANGTRACE_TIMEOUT=30 LD_PRELOAD=$LIB "$P" 30 8 >/dev/null 2>&1 &
	pid=$!
	SPAWNED="$SPAWNED $pid"
	for k in $(seq 1 100); do
		[ "$(ls /proc/$pid/task 2>/dev/null | wc -l)" -ge 10 ] && [ -n "$(ls "$D" 2>/dev/null)" ] && break
		sleep 0.05
	done
	sig=$("$PY" -c 'import json,sys,glob; print(json.loads(open(glob.glob(sys.argv[1] + "/*.jsonl")[0]).readline())["dump_signal"])' "$D")
	kill -s "$sig" $pid; sleep 0.002; kill -TERM $pid
	wait $pid 2>/dev/null
	tq "$D" '(lambda d: d and d[-1][2] is not None and not d[-1][2].get("cut") and any(f.startswith("wait_for_peer (") for f in [x for t in d[-1][1] if t.get("main") for x in t.get("frames", [])]))(proc(rank=0).dumps)' >/dev/null 2>&1 ||
		bad=$((bad + 1))
done
check "dump request, then SIGTERM during its dump: the last dump is whole ($bad of 10 runs not)" test $bad = 0
finish
