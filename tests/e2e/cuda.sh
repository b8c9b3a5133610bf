#!/bin/bash
# SPDX-License-Identifier: MIT
# cuda.sh: end to end on the fake CUDA driver: the demo's rank program
# (examples/demo/train: cuInit, bind the device of LOCAL_RANK, NCCL id,
# init, allreduce, synchronize) and tests/cuda's drv under `hangtrace run
# --timeout 1`, staged to hang or fail one documented way each; then the
# real CUDA runtime (libcudart.so.13) on a driver older than itself and on
# the toolkit's stub libcuda.so. Each reported on and asserted: exit
# status, first verdict's code and ranks, phases, stack groups.
# limit: 60
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/e2e.inc"

if [ ! -e "$FAKE_CUDA_DIR/libcuda.so.1" ] || [ ! -x "$TRAIN" ]; then
	skip e2e_cuda "the fake driver or examples/demo/train was not built (no cuda.h)"
	finish
fi
DRV=$B/tests/cuda/drv
PROBE=$B/tests/cuda/cudart_probe
CUDART_DIR=
for d in "${CUDA_HOME:-/usr/local/cuda}/lib64" "${CUDA_HOME:-/usr/local/cuda}/lib"; do
	[ -e "$d/libcudart.so.13" ] && CUDART_DIR=$d && break
done
STUB=
CH=${CUDA_HOME:-/usr/local/cuda}
for s in "$CH/lib64/stubs/libcuda.so" "$CH/lib/stubs/libcuda.so"; do
	[ -e "$s" ] && STUB=$s && break
done
export LD_LIBRARY_PATH="$FAKE_CUDA_DIR:$FAKE_NCCL_DIR"
export FAKE_CUDA_HOST_ID=e2e-node

# train CASE R [VAR=VALUE...]: rank R of a $WS-rank job of the demo program.
train() {
	local c=$1 r=$2
	shift 2
	rank "$c" "$r" "$@" -- "$TRAIN" "$T/$c.id"
}

# Two local ranks both on device 0; both then hang in the synchronize.
WS=2
train dupgpu 0 FAKE_CUDA_SYNC_HANG=1
train dupgpu 1 LOCAL_RANK=0 FAKE_CUDA_SYNC_HANG=1
# Three local ranks, two GPUs: rank 2 asks for device 2 and fails.
WS=3
for r in 0 1 2; do train toomany $r; done
# The same with one valid list for all, CUDA_VISIBLE_DEVICES=0,1 (two
# GPUs): too many local ranks, not inconsistent devices.
for r in 0 1 2; do train toomanycvd $r CUDA_VISIBLE_DEVICES=0,1; done
# Overlapping per-rank lists CUDA_VISIBLE_DEVICES=r,r+1 and the device
# picked by LOCAL_RANK: rank 1 lands on GPU 2, rank 2 asks for a third GPU
# of a list of two (the driver sees two) and fails.
for r in 0 1 2; do train cvd $r CUDA_VISIBLE_DEVICES=$r,$((r + 1)); done
# cuInit returns 999 on rank 1.
for r in 0 2; do train initfail $r FAKE_CUDA_DEVICES=4; done
train initfail 1 FAKE_CUDA_DEVICES=4 FAKE_CUDA_INIT_RESULT=999
# Rank 2's cuInit never returns; the others wait for it in NCCL init.
WS=4
for r in 0 1 3; do train inithang $r FAKE_CUDA_DEVICES=4; done
train inithang 2 FAKE_CUDA_DEVICES=4 FAKE_CUDA_INIT_HANG=1
# Fork after cuInit: the child's cuInit gets 3 (CUDA_ERROR_NOT_INITIALIZED).
WS=1
rank fork 0 -- "$DRV" fork
# The real runtime on a driver older than itself; on the toolkit's stub.
if [ -n "$CUDART_DIR" ]; then
	rank old 0 LD_LIBRARY_PATH="$FAKE_CUDA_DIR:$CUDART_DIR" FAKE_CUDA_DRIVER_VERSION=12080 \
		-- "$PROBE" need
	if [ -n "$STUB" ]; then
		mkdir -p "$T/stubdir"
		ln -s "$STUB" "$T/stubdir/libcuda.so.1"
		rank stub 0 LD_LIBRARY_PATH="$T/stubdir:$CUDART_DIR" -- "$PROBE" need
	fi
fi

settle 30 dupgpu 2 toomany 3 toomanycvd 3 cvd 3 initfail 3 inithang 4 fork 2
[ -n "$CUDART_DIR" ] && settle 10 old 1
[ -n "$STUB" ] && settle 10 stub 1
stop dupgpu toomany toomanycvd cvd initfail inithang fork old stub
for c in dupgpu toomany toomanycvd cvd initfail inithang fork; do report $c; done

expect "two local ranks on device 0: duplicate_gpu [1]" dupgpu "
rc == 1 and v0['code'] == 'duplicate_gpu' and v0['severity'] == 'error' and v0['ranks'] == [1]
and R(0)['stalled'] and R(1)['stalled']"
expect "three local ranks on two GPUs: too_many_local_ranks [2]" toomany "
rc == 1 and v0['code'] == 'too_many_local_ranks' and v0['ranks'] == [2]
and R(2)['exit'] == {'status': 1} and all(R(r)['phase'] == 'nccl_init' for r in (0, 1))"
expect "three local ranks on CUDA_VISIBLE_DEVICES=0,1: too_many_local_ranks [2]" toomanycvd "
rc == 1 and v0['code'] == 'too_many_local_ranks' and v0['ranks'] == [2]
and 'visible_devices_inconsistent' not in codes"
expect "overlapping CUDA_VISIBLE_DEVICES lists: visible_devices_inconsistent [2]" cvd "
rc == 1 and v0['code'] == 'visible_devices_inconsistent' and v0['ranks'] == [2]
and '2,3' in v0['summary'] and 'too_many_local_ranks' not in codes"
expect "cuInit returns 999 on rank 1: cuda_init_failed [1]" initfail "
rc == 1 and v0['code'] == 'cuda_init_failed' and v0['ranks'] == [1] and '999' in v0['summary']
and R(1)['phase'] == 'cuda_init' and all(R(r)['phase'] == 'nccl_init' for r in (0, 2))"
expect "rank 2 hangs in cuInit: cuda_init_hang [2], its stack in cuda_init" inithang "
rc == 1 and v0['code'] == 'cuda_init_hang' and v0['ranks'] == [2]
and R(2)['phase'] == 'cuda_init' and G(2)['ranks'] == [2] and G(2)['phase'] == 'cuda_init'
and 'fake_cuda_init_wait' in frames(G(2)) and groups[0] is G(2)
and all(R(r)['phase'] == 'nccl_init' for r in (0, 1, 3))"
# The program ends with status 0 (it handled its child's failure): a
# completed job has no error verdict (SPEC section 8), the risk is a warning.
expect "fork after cuInit, the child's cuInit gets 3: fork_after_cuda_init [0]" fork "
rc == 0 and v0['code'] == 'fork_after_cuda_init' and v0['ranks'] == [0]
and v0['severity'] == 'warning' and d['job']['ended'] == {'how': 'completed'}"
if [ -n "$CUDART_DIR" ]; then
	report old
	expect "libcudart 13 on a 12.8 driver: driver_too_old [0]" old "
rc == 1 and v0['code'] == 'driver_too_old' and v0['ranks'] == [0]
and '12080' in ' '.join(v0['evidence'])"
else
	skip "libcudart 13 on a 12.8 driver" "no libcudart.so.13 under ${CUDA_HOME:-/usr/local/cuda}"
fi
if [ -n "$STUB" ] && [ -n "$CUDART_DIR" ]; then
	report stub
	expect "libcudart on the toolkit's stub libcuda: stub_driver [0]" stub "
rc == 1 and v0['code'] == 'stub_driver' and v0['ranks'] == [0]"
else
	skip "libcudart on the toolkit's stub libcuda" "no stub libcuda.so or no libcudart.so.13"
fi
finish
