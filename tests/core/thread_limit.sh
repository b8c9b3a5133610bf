#!/bin/bash
# SPDX-License-Identifier: MIT
# Never blind at the thread limit (SPEC section 6): a rank that cannot
# start its watchdog thread still has its hooked blocking calls watched, by
# a POSIX timer of the calling thread (src/core/stalltimer.c). In both
# forms of the limit, RLIMIT_NPROC as nobody and a cgroup's pids.max (v1 or
# v2), with a 2 s deadline:
#   - a rank blocked in a connect (tests/core/hooked_calls.c block) gets
#     stall dumps at 2 s and 4 s with connect_to_peer in its main thread,
#     the stall line once, the degraded line once; the connect goes on
#     (SA_RESTART); with --on-stall abort it ends by SIGABRT within the
#     deadline plus the dump bounds; `hangtrace report` names it in
#     tracing_degraded and its first verdict is the one the same rank gets
#     with a watchdog thread;
#   - a healthy rank connecting in a loop for 3x the deadline, with a sleep
#     longer than the deadline after its first connect (and taking an EINTR
#     from its poll as fatal, as TCPStore does), exits 0 with its output
#     unchanged, no stall line, no abort, no stall dump.
# limit: 150
. "$(dirname "$0")/../lib.sh"
P=$B/tests/core/hooked_calls
chmod 0755 "$T"

first_verdict() {	# the report's first error verdict: "code ranks"
	"$HT" report --json "$1" 2>/dev/null | "$PY" -c 'import json,sys
v=[v for v in json.load(sys.stdin)["verdicts"] if v["severity"] == "error"]
print(v[0]["code"], v[0]["ranks"] if v else "none")'
}

# The reference: the same blocked rank, watched by its watchdog thread.
RANK=0 WORLD_SIZE=1 HANGTRACE_DIR=$T/ref HANGTRACE_TIMEOUT=2 LD_PRELOAD=$LIB \
	timeout -s TERM 5 "$P" block >/dev/null 2>&1
ref=$(first_verdict "$T/ref")
check "reference (watchdog thread): a first error verdict ($ref)" test -n "$ref" -a "$ref" != none

# at_limit FORM CMD...: execs CMD (which execs the program) at the thread
# limit, so that timeout's signal goes to the program itself.
CG=""
at_limit() {
	form=$1; shift
	if [ "$form" = nproc ]; then
		exec setpriv --reuid=65534 --regid=65534 --clear-groups -- prlimit --nproc=1 "$@"
	else
		# Builtins only: the shell moves itself into the cgroup, caps it at
		# the tasks it has (itself), and execs the program in its place.
		exec sh -c 'echo $$ >"$1/cgroup.procs" && read n <"$1/pids.current" &&
			echo "$n" >"$1/pids.max" && shift && exec "$@"' sh "$CG" "$@"
	fi
}

run_form() {
	form=$1 d=$T/$1
	mkdir -m 0777 "$d"
	e="env RANK=0 WORLD_SIZE=1 HANGTRACE_TIMEOUT=2 LD_PRELOAD=$LIB"

	# Blocked: dumps at 2 and 4 s, then SIGTERM at 5.5 s.
	out=$(timeout -s TERM 5.5 bash -c "$(declare -f at_limit); CG='$CG'; at_limit $form $e HANGTRACE_DIR=$d/b '$P' block" 2>"$d/b.err")
	rc=$?
	check "$form: blocked: still in its connect when SIGTERM came (status $rc, output '$out')" \
		test "$rc" = 124 -a "$out" = waiting
	check "$form: blocked: one degraded line on stderr, saying what still works (EAGAIN)" \
		test "$(grep -c 'not watched by a thread: could not start the watchdog thread; a hooked blocking call .* is still dumped, declared and aborted.*(EAGAIN)' "$d/b.err")" = 1
	check "$form: blocked: one degraded trace line, stalls_seen hooked_calls" \
		tq "$d/b" 'len(proc(rank=0).evs("warning", degraded="watchdog", error="EAGAIN", stalls_seen="hooked_calls")) == 1'
	check "$form: blocked: the stall line on stderr, once" \
		test "$(grep -c 'rank 0 stalled 2s in launch' "$d/b.err")" = 1
	check "$form: blocked: timer dumps at 2 s and 4 s, declared, then the SIGTERM dump" \
		tq "$d/b" '(lambda d: [x[0]["reason"] for x in d] == ["timeout", "timeout", "sigterm"] and all(x[0].get("timer") and x[2]["declared"] and x[2]["blocked"] == "call" for x in d[:2]) and 1.95 < d[0][0]["age"] < 2.5 and 3.95 < d[1][0]["age"] < 4.5)(proc(rank=0).dumps)'
	check "$form: blocked: connect_to_peer in the main thread of both stall dumps" \
		tq "$d/b" 'all(any(f.startswith("connect_to_peer (") for f in proc(rank=0).main_frames(n)) for n in (1, 2))'
	check "$form: blocked: the report names rank 0 in tracing_degraded" \
		"$PY" -c 'import json,sys; v=[v for v in json.load(sys.stdin)["verdicts"] if v["code"] == "tracing_degraded"]; sys.exit(not (v and v[0]["ranks"] == [0] and "hooked blocking call" in v[0]["advice"]))' \
		< <("$HT" report --json "$d/b" 2>/dev/null)
	got=$(first_verdict "$d/b")
	check "$form: blocked: the first verdict is the reference's ($got)" test "$got" = "$ref"

	# Blocked, --on-stall abort: SIGABRT within the deadline + 3 s.
	start=$(date +%s%N)
	timeout -s KILL 20 bash -c "$(declare -f at_limit); CG='$CG'; at_limit $form $e HANGTRACE_DIR=$d/a HANGTRACE_ON_STALL=abort '$P' block" >/dev/null 2>"$d/a.err"
	rc=$?
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	check "$form: abort: SIGABRT (status $rc) within the deadline + 3 s ($ms ms)" test $rc = 134 -a $ms -lt 5000
	check "$form: abort: the dump, then the exit by SIGABRT after it" \
		tq "$d/a" 'len(proc(rank=0).dumps) == 1 and proc(rank=0).dumps[0][2]["declared"] and proc(rank=0).exit["signal"] == "SIGABRT" and proc(rank=0).exit["after_dump"] is True'
	check "$form: abort: stderr says it aborts" grep -q 'aborting (HANGTRACE_ON_STALL=abort)' "$d/a.err"

	# Healthy: connects that return, for 3x the deadline, with abort on.
	out=$(timeout -s KILL 30 bash -c "$(declare -f at_limit); CG='$CG'; at_limit $form $e HANGTRACE_DIR=$d/h HANGTRACE_ON_STALL=abort '$P' loop 6 2500" 2>"$d/h.err")
	rc=$?
	check "$form: healthy: status 0 and its output unchanged ($rc, '$out')" test "$rc" = 0 -a "$out" = done
	check "$form: healthy: at the limit (the degraded line), no stall line, no abort" \
		sh -c "grep -q 'not watched by a thread' '$d/h.err' && ! grep -q 'stalled\|aborting' '$d/h.err'"
	check "$form: healthy: no stall dump, exit status 0" \
		tq "$d/h" 'not proc(rank=0).dumps and proc(rank=0).exit["status"] == 0 and len(proc(rank=0).evs("connect")) > 0'
}

# RLIMIT_NPROC of 1 as nobody (root is exempt from it).
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || ! command -v prlimit >/dev/null; then
	skip "RLIMIT_NPROC" "needs root (to become nobody), setpriv and prlimit (util-linux)"
else
	run_form nproc
	# The limit lifts while a call is in flight with its timer armed: the
	# watchdog starts, the timers are disarmed, and the dumps are the
	# watchdog's alone (none from a timer, none twice).
	mkdir -m 0777 "$T/lift"
	timeout -s TERM 5.5 setpriv --reuid=65534 --regid=65534 --clear-groups -- prlimit --nproc=1:64 \
		env RANK=0 WORLD_SIZE=1 HANGTRACE_TIMEOUT=2 HANGTRACE_DIR=$T/lift/d LD_PRELOAD=$LIB \
		"$P" lift >/dev/null 2>"$T/lift.err"
	check "limit lifted mid-call: degraded, then started after all, once each" \
		sh -c "test \"\$(grep -c 'not watched by a thread' '$T/lift.err')\" = 1 -a \"\$(grep -c 'started after all' '$T/lift.err')\" = 1"
	check "limit lifted mid-call: the watchdog's dumps at 2 s and 4 s, none from a timer" \
		tq "$T/lift/d" '(lambda d: [x[0]["n"] for x in d if x[0]["reason"] == "timeout"] == [1, 2] and not any(x[0].get("timer") for x in d) and any(f.startswith("connect_to_peer (") for f in proc(rank=0).main_frames(1)))(proc(rank=0).dumps)'
fi

# A cgroup of our own with pids.max: cgroup v1's pids hierarchy, or v2
# where the pids controller is enabled for the children of its root.
cg_base=""
why="no writable cgroup v1 pids hierarchy, and no cgroup v2 with the pids controller enabled for its children"
if [ -f /sys/fs/cgroup/pids/cgroup.procs ] && [ -w /sys/fs/cgroup/pids ]; then
	cg_base=/sys/fs/cgroup/pids
elif [ -f /sys/fs/cgroup/cgroup.subtree_control ] && [ -w /sys/fs/cgroup ] &&
	grep -qw pids /sys/fs/cgroup/cgroup.subtree_control; then
	cg_base=/sys/fs/cgroup
fi
if [ -n "$cg_base" ]; then
	CG=$cg_base/hangtrace-test.$$
	if mkdir "$CG" 2>"$T/cg.err" && [ -f "$CG/pids.max" ]; then
		# Removed however the script ends: what is left in it is ours.
		cg_remove() {
			for p in $(cat "$CG/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
			for i in 1 2 3 4 5 6 7 8 9 10; do rmdir "$CG" 2>/dev/null && break; sleep 0.1; done
			cleanup
		}
		trap cg_remove EXIT
		run_form pids
	else
		why="cannot create $CG: $(head -n 1 "$T/cg.err")"
		rmdir "$CG" 2>/dev/null
		cg_base=""
	fi
fi
[ -n "$cg_base" ] || skip "pids.max" "$why"
finish
