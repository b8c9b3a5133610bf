#!/bin/bash
# SPDX-License-Identifier: MIT
# Non-blocking init (ncclConfig_t.blocking = 0) on the fake NCCL: the
# nccl_init phase stays open after ncclCommInitRankConfig returns
# ncclInProgress and ends when the application's ncclCommGetAsyncError
# says success; NCCL's own per-enqueue ncclCommGetAsyncError is nested and
# leaves no trace; a pending init that never completes is watched like a
# call in flight; an init given up with ncclCommAbort is an init error.
# limit: 60
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/helpers.inc"

D=$T/ok
for r in 0 1; do
	rank n$r HANGTRACE_DIR=$D ID_FILE=$T/id1 RANK=$r WORLD_SIZE=2 ITERS=4 -- "$JOB" nonblocking
done
check "healthy: the job completes" reap
check "healthy: init returned ncclInProgress (7) to the program" grep -q "INIT_RETURNED 7" "$T/n1.out"
check "healthy: nccl_init ends through ncclCommGetAsyncError, blocking false, the comm's name" \
	tq "$D" 'all((lambda e: e["via"] == "ncclCommGetAsyncError" and e["blocking"] is False and e["comm_name"] == "ht-nonblocking" and e["fn"] == "ncclCommInitRankConfig" and e["result"] == 0)(proc(rank=r).ev("phase", phase="nccl_init", state="end")) for r in range(2))'
check "healthy: four allreduces counted once each, no asynchronous-error line" \
	tq "$D" 'not events("nccl", fn="ncclCommGetAsyncError") and all(proc(rank=r).ev("nccl", fn="ncclCommDestroy", state="end")["seq"] == 4 for r in range(2))'
check "healthy: first_collective is the allreduce (int32 max)" \
	tq "$D" 'all(proc(rank=r).ev("phase", phase="first_collective", state="begin")["redop"] == "max" for r in range(2))'

# Rank 1 never starts: rank 0 polls for ever; the pending init is watched.
D=$T/pending
rank p0 HANGTRACE_DIR=$D HANGTRACE_TIMEOUT=1 ID_FILE=$T/id2 RANK=0 WORLD_SIZE=2 -- "$JOB" nonblocking
check "pending: rank 0 dumps" wait_dumps "$D" 1 15
kill_ranks
# Ages are read on the coarse clock, up to a tick (4 ms) behind the one
# that fired the stall; under load the first dump may come before the init.
check "pending: stalled in nccl_init with the init in flight, no thread blocked in it" \
	tq "$D" '(lambda s: [c["name"] for c in s["calls"]] == ["ncclCommInitRankConfig"] and s["calls"][0]["age"] >= 0.98)(next(d[0] for d in proc(rank=0).dumps if d[0]["phase"] == "nccl_init"))'
check "pending: the dump lists the comm as pending" \
	tq "$D" 'proc(rank=0).ev("nccl", fn="comm")["init"] == "pending" and proc(rank=0).ev("nccl", fn="comm")["age"] >= 0.98'

# Rank 1 never starts; rank 0 gives up after 300 ms with ncclCommAbort.
D=$T/abort
rank a0 HANGTRACE_DIR=$D ID_FILE=$T/id3 RANK=0 WORLD_SIZE=2 ABORT_AFTER_MS=300 -- "$JOB" nonblocking
check "abort: the program ends" reap
check "abort: the init is an error, abandoned by ncclCommAbort" \
	tq "$D" 'proc(rank=0).ev("phase", phase="nccl_init", state="error")["abandoned"] == "ncclCommAbort" and proc(rank=0).ev("nccl", fn="ncclCommAbort", state="end")["pending_init"]'
finish
