#!/bin/bash
# SPDX-License-Identifier: MIT
# vanished.sh: a process that vanished is named as soon as it is gone
# (issue 25, class 2). A rank is SIGKILLed while the others wait on it;
# its trace ends without an exit record. Where the report runs on its host
# (same boot, same pid namespace), its pid and start time say it is gone:
# the live report, and watch, name it rank_exited (vanished) at the first
# look after the kill, never what its last dump saw it doing. Forms: a
# 2-rank gloo job on Debian's torch (rank 1 killed while it sleeps after
# init, rank 0 in a barrier), and 3 JAX processes on CPU (process 2 killed
# after initialize, the others in cross-process all-gathers).
# limit: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/e2e.inc"

TMO=3
# kill_and_look CASE R: SIGKILL rank R, then at once a report and a watch
# frame (watch piped: a frame whenever it changes).
kill_and_look() {
	local c=$1 r=$2 pid
	pid=$("$PY" -c "import sys; sys.path.insert(0, '$ROOT/tests'); import tq
print(next(p.header['pid'] for p in tq.load('$T/$c', True) if p.header.get('rank') == $r))")
	kill -KILL "$pid"
	echo "$pid" >"$T/$c.killed"
	sleep 0.5
	report "$c"
	"$HT" watch --interval 0.2 "$T/$c" >"$T/$c.watch" 2>&1 &
	local w=$!
	sleep 1.5
	kill "$w" 2>/dev/null
	wait "$w" 2>/dev/null
}

VANISHED="v0['code'] == 'rank_exited' and 'vanished' in v0['summary']"

if "$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	TJ=$ROOT/tests/e2e/torch_job.py P=$(free_port)
	WS=2 rank gloo 0 MASTER_ADDR=127.0.0.1 MASTER_PORT="$P" -- "$PY" "$TJ" init barrier
	WS=2 rank gloo 1 MASTER_ADDR=127.0.0.1 MASTER_PORT="$P" -- "$PY" "$TJ" init sleep 60
	# Rank 0 declared in its barrier: rank 1 has long passed init.
	settle_tq 60 gloo "len(procs) == 2 and proc(rank=0).declared and proc(rank=1).dumps"
	kill_and_look gloo 1
	stop gloo
	expect "gloo: rank 1 SIGKILLed: rank_exited [1], vanished, at once" gloo "
	$VANISHED and v0['ranks'] == [1] and 'torch_job.py' not in v0['summary']"
	check "gloo: watch shows rank 1 vanished and the verdict" sh -c "
		tail -n 20 '$T/gloo.watch' | grep -q 'rank_exited rank 1' &&
		tail -n 20 '$T/gloo.watch' | grep -Eq '^ *1 .*(vanished|gone)'"
else
	skip "gloo: rank 1 SIGKILLed" "python3-torch with gloo is not importable by $PY"
fi

JPY=""
[ -x "$ROOT/scripts/jax-venv.sh" ] && JPY=$("$ROOT/scripts/jax-venv.sh" "$B" 2>"$T/venv.err")
if [ -n "$JPY" ] && "$JPY" -c 'import jax' 2>/dev/null; then
	P=$(free_port)
	for r in 0 1 2; do
		WS=3 rank jax "$r" JAX_PLATFORMS=cpu JAX_COORDINATOR_ADDRESS="127.0.0.1:$P" -- \
			"$JPY" "$ROOT/tests/frameworks/jax_job.py" allgather 600
	done
	# After initialize: every process has connected to the coordinator
	# and its rendezvous phase has ended.
	settle_tq 90 jax "len(procs) >= 3 and all(proc(rank=r) and proc(rank=r).ev('phase', phase='rendezvous', state='end') for r in range(3))"
	sleep 1
	kill_and_look jax 2
	stop jax
	expect "jax: process 2 SIGKILLed: rank_exited [2], vanished, at once" jax "
	$VANISHED and v0['ranks'] == [2] and 'importing' not in v0['summary']"
	check "jax: watch shows process 2 vanished and the verdict" sh -c "
		tail -n 20 '$T/jax.watch' | grep -q 'rank_exited rank 2' &&
		tail -n 20 '$T/jax.watch' | grep -Eq '^ *2 .*(vanished|gone)'"
else
	skip "jax: process 2 SIGKILLed" "JAX cannot be had: $(cat "$T/venv.err" 2>/dev/null)"
fi
finish
