#!/bin/bash
# SPDX-License-Identifier: MIT
# A healthy 4-rank job on the fake NCCL, launched with plain env variables
# and with mpirun: every rank records nccl_id (rank 0) / nccl_init /
# first_collective with one shared id, the NCCL version and provider, and
# NCCL's own "commId" matches ours.
# limit: 60
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/helpers.inc"

FC=${FAKE_CUDA_LIB:-$B/tests/fake_cuda/libcuda.so.1}
[ -e "$FC" ] || FC=

common_checks() { # NAME DIR
	local n=$1 d=$2
	check "$n: four ranks, each in its own trace" \
		tq "$d" 'sorted(p.rank for p in procs if p.ev("nccl")) == [0, 1, 2, 3]'
	check "$n: rank 0 made the id, its root is a loopback address" \
		tq "$d" 'proc(rank=0).ev("phase", phase="nccl_id", state="end")["root"].startswith("127.0.0.1:") and proc(rank=0).ev("nccl", fn="ncclGetUniqueId")["bootstrap_root"]'
	check "$n: every rank ends nccl_init with the same id, nranks 4, its own rank" \
		tq "$d" 'all(proc(rank=r).ev("phase", phase="nccl_init", state="end")["rank"] == r and proc(rank=r).ev("phase", phase="nccl_init", state="end")["nranks"] == 4 for r in range(4)) and len({proc(rank=r).ev("nccl", fn="ncclCommInitRank", state="end")["id_hash"] for r in range(4)}) == 1 and proc(rank=3).ev("nccl", fn="ncclCommInitRank", state="end")["root"] == proc(rank=0).ev("phase", phase="nccl_id", state="end")["root"]'
	check "$n: every rank reaches first_collective: allreduce seq 0, 1024 float32 sum" \
		tq "$d" 'all((lambda e: e["op"] == "allreduce" and e["seq"] == 0 and e["count"] == 1024 and e["dtype"] == "float32" and e["redop"] == "sum")(proc(rank=r).ev("phase", phase="first_collective", state="begin")) and proc(rank=r).ev("phase", phase="first_collective", state="end")["result"] == 0 for r in range(4))'
	check "$n: three collectives counted on the comm at destroy" \
		tq "$d" 'all(proc(rank=r).ev("nccl", fn="ncclCommDestroy", state="end")["seq"] == 3 for r in range(4))'
	check "$n: NCCL version and provider recorded" \
		tq "$d" 'all(proc(rank=r).ev("version", what="nccl")["value"] == 22809 and proc(rank=r).ev("version", what="nccl")["provider"].endswith("fake_nccl/libnccl.so.2") for r in range(4))'
	if has_cuda_family && [ -n "$FC" ]; then
		check "$n: steady after the collectives (cuda family)" \
			tq "$d" 'all(proc(rank=r).ev("phase", phase="steady", state="begin") for r in range(4))'
	else
		skip "$n: steady after the collectives" "needs the cuda family (ht_cuda_note_collective) merged"
	fi
}

# Plain env launch, with NCCL's own INFO lines.
D=$T/env
for r in 0 1 2 3; do
	rank r$r HANGTRACE_DIR=$D ID_FILE=$T/id RANK=$r WORLD_SIZE=4 NCCL_DEBUG=INFO \
		FAKE_CUDA_LIB=$FC -- "$JOB" job
done
check "env: the job completes" reap
common_checks env "$D"
commid=$(sed -n 's/.*ncclCommInitRank comm .* commId \(0x[0-9a-f]*\) - Init START.*/\1/p' "$T/r1.out" | head -n 1)
check "env: NCCL's own commId ($commid) is the trace's commid_nccl" \
	tq "$D" "int(proc(rank=1).ev('nccl', fn='ncclCommInitRank', state='end')['commid_nccl'], 16) == int('${commid:-0x1}', 16)"

# mpirun
D=$T/mpi
rm -f "$T/id"
if command -v mpirun >/dev/null 2>&1; then
	timeout 40 mpirun --allow-run-as-root --oversubscribe -np 4 \
		-x LD_PRELOAD="$LIB" -x HANGTRACE_DIR="$D" -x ID_FILE="$T/id" -x FAKE_CUDA_LIB="$FC" \
		-x FAKE_NCCL_ROOT_LINGER_MS "$JOB" job >"$T/mpi.out" 2>&1
	check "mpirun: the job completes" test $? -eq 0
	check "mpirun: the identity came from Open MPI" \
		tq "$D" 'all(proc(rank=r).header["launcher"] == "openmpi" for r in range(4))'
	common_checks mpirun "$D"
else
	skip "mpirun" "mpirun is not installed"
fi
finish
