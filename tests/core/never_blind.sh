#!/bin/bash
# SPDX-License-Identifier: MIT
# Never blind (SPEC section 6): in a rank linked with a library holding
# 1 MiB of static TLS (tests/core/libbigtls.c), which a 256 KiB thread stack
# cannot hold, stall dumps, SIGTERM dumps and abort work; so they do under
# `ulimit -s unlimited` and a small stack limit; at the thread limit
# (RLIMIT_NPROC of 1 as a non-root user) the process says once on stderr
# and in its trace that it is not watched, SIGTERM still dumps it (from the
# signal's handler), and the report's tracing_degraded names the rank.
# limit: 90
. "$(dirname "$0")/../lib.sh"
P=$B/tests/core/bigtls
W=$B/tests/core/wait_for_peer

out=$(RANK=0 WORLD_SIZE=1 "$HT" run --dir "$T/a" --timeout 1 -- "$P" 3 2>"$T/a.err")
check "1 MiB TLS: output and status unchanged" test "$?" = 0 -a "$out" = "$(printf 'waiting 3 s\ndone')"
check "1 MiB TLS: the watchdog runs: two stall dumps, declared, wait_for_peer in the main thread" \
	tq "$T/a" 'len(proc(rank=0).dumps) == 2 and all(d[2]["declared"] for d in proc(rank=0).dumps) and any(f.startswith("wait_for_peer (") for f in proc(rank=0).main_frames(1))'
check "1 MiB TLS: the stall line on stderr" grep -q 'rank 0 stalled 1s in launch' "$T/a.err"
check "1 MiB TLS: no degraded warning" tq "$T/a" 'not proc(rank=0).ev("warning")'

start=$(date +%s%N)
RANK=0 "$HT" run --dir "$T/b" --timeout 1 --on-stall abort -- "$P" 30 >/dev/null 2>"$T/b.err"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "1 MiB TLS: abort: SIGABRT (status $rc) within the deadline + 3 s ($ms ms)" test $rc = 134 -a $ms -lt 4000

RANK=0 HANGTRACE_DIR=$T/c HANGTRACE_TIMEOUT=30 LD_PRELOAD=$LIB "$P" 30 >/dev/null 2>&1 &
pid=$!
SPAWNED="$SPAWNED $pid"
for i in $(seq 1 50); do [ -n "$(ls "$T/c" 2>/dev/null)" ] && break; sleep 0.1; done
sleep 0.3
kill -TERM $pid
wait $pid
check "1 MiB TLS: a SIGTERM dump, whole, with wait_for_peer" \
	tq "$T/c" '(lambda d: len(d) == 1 and d[0][0]["reason"] == "sigterm" and d[0][2] is not None and any(f.startswith("wait_for_peer (") for f in proc(rank=0).main_frames(1)))(proc(rank=0).dumps)'

for lim in unlimited 256; do
	out=$(ulimit -s $lim && RANK=0 "$HT" run --dir "$T/s$lim" --timeout 1 -- "$W" 3 2>/dev/null)
	check "ulimit -s $lim: status unchanged, two stall dumps" \
		sh -c "test '$out' = \"\$(printf 'waiting 3 s\ndone')\" && '$PY' '$ROOT/tests/tq.py' '$T/s$lim' 'len(proc(rank=0).dumps) == 2'"
done

# The thread limit: as nobody, RLIMIT_NPROC 1 (root is exempt from it).
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || ! command -v prlimit >/dev/null; then
	skip "thread limit" "needs root (to become nobody), setpriv and prlimit (util-linux)"
	finish
fi
mkdir -m 0777 "$T/n"
chmod 0755 "$T"
setpriv --reuid=65534 --regid=65534 --clear-groups -- prlimit --nproc=1 \
	env RANK=0 WORLD_SIZE=1 HANGTRACE_DIR=$T/n/d HANGTRACE_TIMEOUT=1 LD_PRELOAD=$LIB "$P" 30 \
	>/dev/null 2>"$T/n.err" &
pid=$!
SPAWNED="$SPAWNED $pid"
for i in $(seq 1 50); do grep -q degraded "$T"/n/d/*.jsonl 2>/dev/null && break; sleep 0.1; done
sleep 1.5	# past the deadline: nobody watches, so no stall dump
kill -TERM $pid
wait $pid
check "thread limit: one stderr line says it is not watched, and why" \
	test "$(grep -c 'not watched by a thread: could not start the watchdog thread.*(EAGAIN)' "$T/n.err")" = 1
check "thread limit: one trace line says so (warning, degraded watchdog, EAGAIN)" \
	tq "$T/n/d" 'len(proc(rank=0).evs("warning", degraded="watchdog", error="EAGAIN")) == 1'
check "thread limit: the SIGTERM dump is written from the handler, whole, with wait_for_peer" \
	tq "$T/n/d" '(lambda d: len(d) == 1 and d[0][0]["reason"] == "sigterm" and d[0][2] is not None and any(f.startswith("wait_for_peer (") for f in proc(rank=0).main_frames(1)))(proc(rank=0).dumps)'
"$HT" report --json "$T/n/d" >"$T/n.json" 2>/dev/null
check "thread limit: the report's tracing_degraded warning names rank 0" \
	"$PY" -c 'import json,sys; v=[v for v in json.load(open(sys.argv[1]))["verdicts"] if v["code"] == "tracing_degraded"]; sys.exit(not (v and v[0]["severity"] == "warning" and v[0]["ranks"] == [0]))' "$T/n.json"

# The limit lifts (soft limit raised to the hard one): the next close()
# starts the watchdog after all, and the stall that follows is seen.
mkdir -m 0777 "$T/l"
setpriv --reuid=65534 --regid=65534 --clear-groups -- prlimit --nproc=1:64 \
	env RANK=0 WORLD_SIZE=1 HANGTRACE_DIR=$T/l/d HANGTRACE_TIMEOUT=1 LD_PRELOAD=$LIB \
	"$B/tests/core/nproc_lift" 4 >/dev/null 2>"$T/l.err"
check "limit lifted: the watchdog starts after all, and says so once" \
	sh -c "grep -q 'not watched' '$T/l.err' && test \"\$(grep -c 'started after all' '$T/l.err')\" = 1"
check "limit lifted: a recovered line, then a declared stall dump in wait_for_peer" \
	tq "$T/l/d" 'proc(rank=0).ev("warning", recovered="watchdog") and any(d[2] and d[2].get("declared") and any(f.startswith("wait_for_peer (") for f in [x for t in d[1] if t.get("main") for x in t.get("frames", [])]) for d in proc(rank=0).dumps)'
"$HT" report --json "$T/l/d" >"$T/l.json" 2>/dev/null
check "limit lifted: no tracing_degraded in the report" \
	"$PY" -c 'import json,sys; sys.exit(any(v["code"] == "tracing_degraded" for v in json.load(open(sys.argv[1]))["verdicts"]))' "$T/l.json"
finish
