#!/bin/bash
# SPDX-License-Identifier: MIT
# cudahang.sh: a cuInit that never returns (issue 25, class 5). One rank's
# driver hangs in cuInit (the fake driver's FAKE_CUDA_INIT_HANG: a GPU
# fallen off the bus, an Xid) while the others take their GPUs and wait
# for it in NCCL's bootstrap. The first verdict is cuda_init_hang, that
# rank, its host, the GPU it was taking, the age of the call and what to
# run on the host; no straggler for it. Forms: 4 ranks launched with
# RANK/WORLD_SIZE (rank 2 hangs), and mpirun -np 3 (rank 1 hangs); each
# reported live, while it hangs, and after the job is stopped.
# limit: 90
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/e2e.inc"

if [ ! -x "$JOB" ] || [ ! -e "$FAKE_NCCL_DIR/libnccl.so.2" ] || [ ! -e "$FAKE_CUDA_DIR/libcuda.so.1" ]; then
	skip cudahang "the fake driver, the fake NCCL or nccl_job was not built (no nccl.h / cuda.h)"
	finish
fi
CU=(FAKE_CUDA_LIB="$FAKE_CUDA_DIR/libcuda.so.1" FAKE_CUDA_DEVICES=4 CUDA_FIRST=1)

for r in 0 1 2 3; do
	h=0
	[ $r = 2 ] && h=1
	rank env $r "${CU[@]}" FAKE_CUDA_INIT_HANG=$h -- "$JOB" job
done
forms=env
if command -v mpirun >/dev/null 2>&1; then
	# Rank 1 of 3 hangs: the variable is set by a shell that knows its rank.
	launch mpi run mpirun --allow-run-as-root --oversubscribe -np 3 \
		-x ID_FILE="$T/mpi.id" -x FAKE_CUDA_LIB="$FAKE_CUDA_DIR/libcuda.so.1" \
		-x FAKE_CUDA_DEVICES=4 -x CUDA_FIRST=1 \
		sh -c '[ "$OMPI_COMM_WORLD_RANK" = 1 ] && export FAKE_CUDA_INIT_HANG=1
		       LOCAL_RANK=$OMPI_COMM_WORLD_LOCAL_RANK exec "$@"' sh $(htrun mpi) "$JOB" job
	forms="$forms mpi"
else
	skip "mpirun: rank 1 hangs in cuInit" "mpirun is not installed"
fi
# The hung rank declared in cuda_init, the others in nccl_init.
WAITS="(lambda p, ph: p and p.declared and p.dumps[-1][0]['phase'] == ph)"
settle_tq 40 env "len(procs) == 4 and $WAITS(proc(rank=2), 'cuda_init')
	and all($WAITS(proc(rank=r), 'nccl_init') for r in (0, 1, 3))"
[ "$forms" = "env mpi" ] && settle_tq 40 mpi "len(procs) >= 3 and $WAITS(proc(rank=1), 'cuda_init')
	and all($WAITS(proc(rank=r), 'nccl_init') for r in (0, 2))"
for c in $forms; do
	report "$c"
	cp "$T/$c.json" "$T/$c.live.json"
	cp "$T/$c.rc" "$T/$c.live.rc"
done
# shellcheck disable=SC2086
stop $forms
for c in $forms; do report "$c"; done

for c in $forms; do
	[ "$c" = env ] && r=2 || r=1
	for k in "$c.live" "$c"; do
		expect "$k: cuda_init_hang [$r] first: cuInit, GPU $r, its age, nvidia-smi; no straggler" "$k" "
		v0['code'] == 'cuda_init_hang' and v0['ranks'] == [$r] and v0['severity'] == 'error'
		and 'cuInit' in v0['summary'] and 'GPU $r' in v0['summary']
		and re.search(r'for [0-9]+ s', v0['summary']) and 'nccl_init' in v0['summary']
		and 'nvidia-smi' in v0['advice'] and 'Xid' in v0['advice'] and 'straggler' not in codes"
	done
done
finish
