#!/bin/bash
# SPDX-License-Identifier: MIT
# Jobs on the fake NCCL that hang the ways real ones do, each rank stall-
# dumping after HANGTRACE_TIMEOUT=1: rank 3 never started (ranks 0-2 stall
# in nccl_init inside bootstrap_wait_peers), rank 2 given an id of its own
# (unique_id_mismatch: its id_hash and root differ), and rank 1 issuing a
# broadcast where the others allreduce at seq 0 (collective_mismatch).
# limit: 90
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/helpers.inc"

# --- rank 3 never started
D=$T/missing
for r in 0 1 2; do
	rank m$r HANGTRACE_DIR=$D HANGTRACE_TIMEOUT=1 ID_FILE=$T/id1 RANK=$r WORLD_SIZE=4 -- "$JOB" job
done
check "missing: ranks 0-2 dump while waiting" wait_dumps "$D" 3 15
kill_ranks
check "missing: each stalled in nccl_init, inside ncclCommInitRank" \
	tq "$D" 'all(proc(rank=r).dumps[0][0]["phase"] == "nccl_init" and any(c["name"] == "ncclCommInitRank" for c in proc(rank=r).dumps[0][0]["calls"]) for r in range(3))'
check "missing: the stacks show NCCL's bootstrap wait" \
	tq "$D" 'all(any("bootstrap_wait_peers" in f for f in proc(rank=r).main_frames(1)) for r in range(3))'
check "missing: each rank said nranks 4 and began, none ended" \
	tq "$D" 'all(proc(rank=r).ev("nccl", fn="ncclCommInitRank", state="begin")["nranks"] == 4 and not proc(rank=r).ev("phase", phase="nccl_init", state="end") for r in range(3))'
check "missing: no trace for rank 3" tq "$D" 'not [p for p in procs if p.rank == 3]'

# --- the same under mpirun -np 3 for a job of 4; mpirun is then stopped
# with SIGTERM, as a scheduler would, and passes it on to the ranks.
D=$T/mpimissing
if command -v mpirun >/dev/null 2>&1; then
	mpirun --allow-run-as-root --oversubscribe -np 3 -x LD_PRELOAD="$LIB" -x HANGTRACE_DIR="$D" \
		-x HANGTRACE_TIMEOUT=1 -x ID_FILE="$T/id0" -x NRANKS=4 "$JOB" job >"$T/mpi.out" 2>&1 &
	MP=$!
	SPAWNED="$SPAWNED $MP"
	check "mpirun missing: ranks 0-2 dump while waiting" wait_dumps "$D" 3 15
	kill -TERM $MP
	wait $MP
	check "mpirun missing: each stalled in nccl_init in bootstrap_wait_peers, for 4 ranks of 3 launched" \
		tq "$D" 'all(proc(rank=r).dumps[0][0]["phase"] == "nccl_init" and any("bootstrap_wait_peers" in f for f in proc(rank=r).main_frames(1)) and proc(rank=r).header["world_size"] == 3 and proc(rank=r).ev("nccl", fn="ncclCommInitRank", state="begin")["nranks"] == 4 for r in range(3))'
	check "mpirun missing: mpirun's SIGTERM made each rank dump again" \
		tq "$D" 'all(any(d[0]["reason"] == "sigterm" for d in proc(rank=r).dumps) for r in range(3))'
else
	skip "mpirun missing" "mpirun is not installed"
fi

# --- rank 2 given a different id
D=$T/wrongid
for r in 0 1 2 3; do
	own=0
	[ $r = 2 ] && own=1
	rank w$r HANGTRACE_DIR=$D HANGTRACE_TIMEOUT=1 ID_FILE=$T/id2 OWN_ID=$own RANK=$r WORLD_SIZE=4 -- "$JOB" job
done
check "wrongid: all four ranks dump" wait_dumps "$D" 4 15
kill_ranks
check "wrongid: all four stalled in nccl_init" \
	tq "$D" 'all(proc(rank=r).dumps[0][0]["phase"] == "nccl_init" for r in range(4))'
check "wrongid: ranks 0, 1, 3 share an id; rank 2's id and root differ" \
	tq "$D" '(lambda h, rt: h[0] == h[1] == h[3] != h[2] and rt[0] == rt[1] == rt[3] != rt[2])([proc(rank=r).ev("nccl", fn="ncclCommInitRank", state="begin")["id_hash"] for r in range(4)], [proc(rank=r).ev("nccl", fn="ncclCommInitRank", state="begin")["root"] for r in range(4)])'
check "wrongid: rank 2 made its own id and hosts its root" \
	tq "$D" 'proc(rank=2).ev("phase", phase="nccl_id", state="end")["bootstrap_root"] and proc(rank=2).ev("phase", phase="nccl_id", state="end")["id_hash"] == proc(rank=2).ev("nccl", fn="ncclCommInitRank", state="begin")["id_hash"]'

# --- rank 1 broadcasts where the others allreduce
D=$T/mismatch
for r in 0 1 2 3; do
	rank c$r HANGTRACE_DIR=$D HANGTRACE_TIMEOUT=1 ID_FILE=$T/id3 MISMATCH_RANK=1 RANK=$r WORLD_SIZE=4 -- "$JOB" job
done
check "mismatch: all four ranks dump" wait_dumps "$D" 4 15
kill_ranks
check "mismatch: init done, all stalled in first_collective inside the collective" \
	tq "$D" 'all(proc(rank=r).ev("phase", phase="nccl_init", state="end") and proc(rank=r).dumps[0][0]["phase"] == "first_collective" and proc(rank=r).dumps[0][0]["calls"] for r in range(4))'
check "mismatch: seq 0 is a broadcast on rank 1, an allreduce elsewhere" \
	tq "$D" 'proc(rank=1).ev("phase", phase="first_collective", state="begin")["op"] == "broadcast" and proc(rank=1).ev("phase", phase="first_collective", state="begin")["root"] == 0 and all(proc(rank=r).ev("phase", phase="first_collective", state="begin")["op"] == "allreduce" for r in (0, 2, 3))'
check "mismatch: the dumped ring holds that collective (comm, seq 0, op)" \
	tq "$D" 'all((lambda c: len(c) == 1 and c[0]["seq"] == 0 and c[0]["op"] == ("broadcast" if r == 1 else "allreduce") and c[0]["comm"] == proc(rank=r).ev("nccl", fn="ncclCommInitRank", state="end")["comm"])(proc(rank=r).dumps[0][2]["collectives"]) for r in range(4))'
check "mismatch: the stacks show the fake's collective wait" \
	tq "$D" 'all(any("fake_coll_wait" in f for f in proc(rank=r).main_frames(1)) for r in range(4))'
check "mismatch: each dump lists the live comm with 1 collective issued" \
	tq "$D" 'all(proc(rank=r).ev("nccl", fn="comm")["seq"] == 1 and proc(rank=r).ev("nccl", fn="comm")["init"] == "ready" for r in range(4))'
finish
