#!/bin/bash
# SPDX-License-Identifier: MIT
# JAX on the CPU (from PyPI into $B/venv by scripts/jax-venv.sh) past a 3 s
# deadline (SPEC section 6): two processes that initialize through the
# coordination service and then run a jitted loop for 9 s are never
# declared stalled or aborted, output and status unchanged, no error
# verdict live or after; a process waiting in jax.distributed.initialize
# for a process that never starts is declared stalled (wait point
# jax_initialize) and aborted, and so is one waiting in
# multihost_utils.sync_global_devices for a process that computes.
# limit: 300
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/fw.inc"
if ! VPY=$("$ROOT/scripts/jax-venv.sh" "$B" 2>"$T/venv.err"); then
	skip jax "JAX cannot be had: $(cat "$T/venv.err")"
	
# Process 0 in multihost_utils.sync_global_devices, process 1 computing.
D=$T/s P=$(free_port)
RUN_ARGS="--dir $D --on-stall abort"
for r in 0 1; do
	job "s$r" RANK=$r WORLD_SIZE=2 JAX_COORDINATOR_ADDRESS=127.0.0.1:$P -- "$VPY" "$FW/jax_job.py" sync 60
done
reap_one s0
check "sync: process 0 ended by SIGABRT (status $(cat "$T/s0.rc"))" test "$(cat "$T/s0.rc")" = 134
check "sync: declared in the wait point jax_sync_devices" \
	tq "$D" 'next(d for d in proc(rank=0).dumps if d[2] and d[2].get("declared"))[2]["wait_point"] == "jax_sync_devices"'
check "sync: the process that computes is not declared" \
	tq "$D" 'not any(x[2] and x[2].get("declared") for x in proc(rank=1).dumps)'
finish
fi
export JAX_PLATFORMS=cpu

for mode in abort; do	# the stricter; healthy.sh has every shape under abort
	D=$T/h-$mode P=$(free_port)
	RUN_ARGS="--dir $D --on-stall $mode"
	for r in 0 1; do
		job "h$mode$r" RANK=$r WORLD_SIZE=2 JAX_COORDINATOR_ADDRESS=127.0.0.1:$P -- \
			"$VPY" "$FW/jax_job.py" healthy $((TMO * 3))
	done
	live_check "healthy, on-stall $mode" "$D"
	reap
	healthy_checks "healthy, on-stall $mode" "$D" "h${mode}0" "h${mode}1"
done

D=$T/b P=$(free_port)
RUN_ARGS="--dir $D --on-stall abort"
start=$(date +%s%N)
job b RANK=0 WORLD_SIZE=2 JAX_COORDINATOR_ADDRESS=127.0.0.1:$P -- "$VPY" "$FW/jax_job.py" init 60
reap_one b
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "blocked: ended by SIGABRT (status $(cat "$T/b.rc"))" test "$(cat "$T/b.rc")" = 134
check "blocked: within the deadline + 8 s (took $ms ms; JAX imports for seconds)" \
	test "$ms" -lt $(( (TMO + 8) * 1000 ))
check "blocked: stderr says rank 0 stalled, then aborting" \
	sh -c "grep -q 'rank 0 stalled .* in rendezvous' '$T/b.err' && grep -q 'aborting' '$T/b.err'"
# The first look may come while JAX still imports (launch, working: not
# declared); the first look in rendezvous declares.
check "blocked: declared at the first look in rendezvous, in the wait point jax_initialize" \
	tq "$D" '(lambda d: d[0]["phase"] == "rendezvous" and d[0]["n"] == 1 and d[2]["blocked"] == "wait_point" and d[2]["wait_point"] == "jax_initialize")(next(d for d in proc(rank=0).dumps if d[2] and d[2].get("declared")))'
check "blocked: Python frames show initialize in jax/_src/distributed.py" \
	tq "$D" 'any(f.startswith("initialize (") and "jax/_src/distributed.py" in f for f in [t for t in next(d for d in proc(rank=0).dumps if d[2] and d[2].get("declared"))[1] if t.get("main")][0].get("python", []))'
check "blocked: native frames show XLA's CoordinationServiceAgent" \
	tq "$D" 'any("CoordinationServiceAgent" in f for f in [t for t in next(d for d in proc(rank=0).dumps if d[2] and d[2].get("declared"))[1] if t.get("main")][0].get("frames", []))'

# Process 0 in multihost_utils.sync_global_devices, process 1 computing.
D=$T/s P=$(free_port)
RUN_ARGS="--dir $D --on-stall abort"
for r in 0 1; do
	job "s$r" RANK=$r WORLD_SIZE=2 JAX_COORDINATOR_ADDRESS=127.0.0.1:$P -- "$VPY" "$FW/jax_job.py" sync 60
done
reap_one s0
check "sync: process 0 ended by SIGABRT (status $(cat "$T/s0.rc"))" test "$(cat "$T/s0.rc")" = 134
check "sync: declared in the wait point jax_sync_devices" \
	tq "$D" 'next(d for d in proc(rank=0).dumps if d[2] and d[2].get("declared"))[2]["wait_point"] == "jax_sync_devices"'
check "sync: the process that computes is not declared" \
	tq "$D" 'not any(x[2] and x[2].get("declared") for x in proc(rank=1).dumps)'
finish
