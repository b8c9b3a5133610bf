#!/bin/bash
# SPDX-License-Identifier: MIT
# Real PyTorch on gloo past a 3 s deadline (SPEC section 6); the healthy
# jobs are healthy.sh's (every shape, on both builds, under abort). On
# each torch build (Debian's 1.13, PyPI's in $B/venv-torch), every
# blocked case is declared within the deadline plus one look and aborted:
# a rank in dist.barrier() its peer never reaches (wait point
# c10d_barrier); a rank in all_reduce its peer never reaches; ranks waiting
# for the store whose host, rank 0, is in load_checkpoint (the host is not
# declared: a checkpoint load).
# limit: 240
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/fw.inc"
. "$(dirname "$0")/healthy.inc"	# torch_builds

# end_case: ends the case's jobs still running (a peer that computes and
# then sleeps), by pid, and reaps them all.
end_case() {
	local e pid
	for e in $PIDS; do
		[ -e "$T/${e%%:*}.rc" ] || kill "${e#*:}" 2>/dev/null
	done
	reap
}

# case_run TAG MODE R: a 2-rank job of gloo_job.py MODE (jobs TAG0, TAG1,
# traces in $T/TAG, on-stall abort); waits for rank R to end, its time in
# $ms. first R: the first look of rank R that declared, for tq.
case_run() {
	local tag=$1 mode=$2 r=$3 start
	D=$T/$tag
	local p
	p=$(free_port)
	RUN_ARGS="--dir $D --on-stall abort"
	start=$(date +%s%N)
	job "${tag}0" RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$p -- "$TPY" "$FW/gloo_job.py" "$mode" 60
	job "${tag}1" RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$p -- "$TPY" "$FW/gloo_job.py" "$mode" 60
	reap_one "$tag$r"
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
}
first() { echo "next(d for d in proc(rank=$1).dumps if d[2] and d[2].get(\"declared\"))"; }

torch_builds
for w in $TORCH_PYS; do
	build=${w%%=*} TPY=${w#*=}
	v="torch $("$TPY" -c 'import torch; print(torch.__version__)' 2>/dev/null) ($build)"

	case_run "b$build" barrier 0
	check "barrier, $v: rank 0 ended by SIGABRT (status 134)" test "$(cat "$T/b${build}0.rc" 2>/dev/null)" = 134
	# The deadline, plus a second of launch, plus the dump bounds and a loaded machine.
	check "barrier, $v: within the deadline + 6 s (took $ms ms)" test "$ms" -lt $(( (TMO + 6) * 1000 ))
	check "barrier, $v: stderr says rank 0 stalled, then aborting" \
		grep -q 'rank 0 stalled .* in rendezvous.*' "$T/b${build}0.err"
	# The first look may come while torch still imports (launch, working: not
	# declared); the first look in rendezvous declares.
	check "barrier, $v: declared at the first look in rendezvous, in the wait point c10d_barrier" \
		tq "$D" '(lambda d: d[0]["phase"] == "rendezvous" and d[0]["n"] == 1 and d[2]["blocked"] == "wait_point" and d[2]["wait_point"] == "c10d_barrier")('"$(first 0)"')'
	check "barrier, $v: its Python frames show dist.barrier" \
		tq "$D" '[t for t in '"$(first 0)"'[1] if t.get("main")][0]["python"][0].startswith("barrier (")'
	check "barrier, $v: the peer that computes is not declared" \
		tq "$D" 'not any(x[2] and x[2].get("declared") for x in proc(rank=1).dumps)'
	check "barrier, $v: no stall line from the peer" no_stall_line "b${build}1"
	vs=$(verdicts "$D")
	check "barrier, $v: the report's first error is stalled rank 0 (or straggler rank 1): $(echo "$vs" | grep "^error" | head -1)" \
		sh -c "echo '$vs' | grep '^error' | head -1 | grep -Eq '^error (stalled 0|straggler 1)\$'"
	end_case

	case_run "s$build" skip 0
	check "all_reduce never reached, $v: rank 0 ended by SIGABRT (status 134)" test "$(cat "$T/s${build}0.rc" 2>/dev/null)" = 134
	check "all_reduce never reached, $v: within the deadline + 6 s (took $ms ms)" test "$ms" -lt $(( (TMO + 6) * 1000 ))
	check "all_reduce never reached, $v: declared within the deadline plus one look, at a wait point, idle" \
		tq "$D" '(lambda d: d[0]["n"] <= 2 and d[2]["blocked"] == "wait_point" and d[2]["progress"]["idle"])('"$(first 0)"')'
	check "all_reduce never reached, $v: its Python frames show all_reduce" \
		tq "$D" 'any(f.startswith("all_reduce (") for f in proc(rank=0).python_frames(-1))'
	check "all_reduce never reached, $v: the peer that computes is not declared" \
		tq "$D" 'not any(x[2] and x[2].get("declared") for x in proc(rank=1).dumps)'
	end_case

	case_run "k$build" store 1
	check "store host loading, $v: rank 1 ended by SIGABRT (status 134)" test "$(cat "$T/k${build}1.rc" 2>/dev/null)" = 134
	check "store host loading, $v: within the deadline + 6 s (took $ms ms)" test "$ms" -lt $(( (TMO + 6) * 1000 ))
	check "store host loading, $v: rank 1 declared within the deadline plus one look, at a wait point" \
		tq "$D" '(lambda d: d[0]["n"] <= 2 and d[2]["blocked"] in ("wait_point", "no_progress") and d[2]["wait_point"])('"$(first 1)"')'
	check "store host loading, $v: the host in load_checkpoint is not declared" \
		tq "$D" 'not any(x[2] and x[2].get("declared") for x in proc(rank=0).dumps) and any("load_checkpoint" in f for f in proc(rank=0).python_frames(-1))'
	check "store host loading, $v: no stall line from the host" no_stall_line "k${build}0"
	end_case
done
[ -z "$TORCH_PYS" ] && skip gloo "no torch with gloo: neither python3-torch nor $B/venv-torch (scripts/deps.sh test, scripts/torch-venv.sh)"
finish
