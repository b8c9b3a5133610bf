#!/bin/bash
# SPDX-License-Identifier: MIT
# Real PyTorch 1.13 on gloo past a 3 s deadline (SPEC section 6): a healthy
# matmul + all_reduce loop for 9 s is never declared stalled, never aborted,
# its output and status unchanged, no error verdict live or after; a rank
# in dist.barrier() its peer never reaches is declared stalled (wait point
# c10d_barrier) and aborted within the deadline plus the dump bounds.
# limit: 150
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/fw.inc"
if ! "$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	skip gloo "python3-torch with gloo is not importable by $PY (scripts/deps.sh test installs it)"
	finish
fi

for mode in dump abort; do
	D=$T/h-$mode P=$(free_port)
	RUN_ARGS="--dir $D --on-stall $mode"
	for r in 0 1; do
		job "h$mode$r" RANK=$r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P -- \
			"$PY" "$FW/gloo_job.py" healthy $((TMO * 3))
	done
	live_check "healthy, on-stall $mode" "$D"
	reap
	healthy_checks "healthy, on-stall $mode" "$D" "h${mode}0" "h${mode}1"
done

D=$T/b P=$(free_port)
RUN_ARGS="--dir $D --on-stall abort"
start=$(date +%s%N)
job b0 RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P -- "$PY" "$FW/gloo_job.py" barrier 60
job b1 RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P -- "$PY" "$FW/gloo_job.py" barrier 60
reap_one b0
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "blocked: rank 0 ended by SIGABRT (status 134)" test "$(cat "$T/b0.rc" 2>/dev/null)" = 134
# The deadline, plus a second of launch, plus the dump bounds and a loaded machine.
check "blocked: within the deadline + 6 s (took $ms ms)" test "$ms" -lt $(( (TMO + 6) * 1000 ))
check "blocked: stderr says rank 0 stalled, then aborting" \
	grep -q 'rank 0 stalled .* in rendezvous.*' "$T/b0.err"
# The first look may come while torch still imports (launch, working: not
# declared); the first look in rendezvous declares.
check "blocked: declared at the first look in rendezvous, in the wait point c10d_barrier" \
	tq "$D" '(lambda d: d[0]["phase"] == "rendezvous" and d[0]["n"] == 1 and d[2]["blocked"] == "wait_point" and d[2]["wait_point"] == "c10d_barrier")(next(d for d in proc(rank=0).dumps if d[2] and d[2].get("declared")))'
check "blocked: its Python frames show dist.barrier" \
	tq "$D" '[t for t in next(d for d in proc(rank=0).dumps if d[2] and d[2].get("declared"))[1] if t.get("main")][0]["python"][0].startswith("barrier (")'
check "blocked: the peer that computes is not declared" \
	tq "$D" 'not any(x[2] and x[2].get("declared") for x in proc(rank=1).dumps)'
check "blocked: no stall line from the peer" no_stall_line b1
v=$(verdicts "$D")
check "blocked: the report's first error is stalled rank 0 (or straggler rank 1): $(echo "$v" | grep "^error" | head -1)" \
	sh -c "echo '$v' | grep '^error' | head -1 | grep -Eq '^error (stalled 0|straggler 1)\$'"
finish
