#!/bin/sh
# SPDX-License-Identifier: MIT
# ranks.sh: what the report needs to tell that ranks of one host share a
# GPU (duplicate_gpu), outnumber the GPUs (too_many_local_ranks), or were
# given CUDA_VISIBLE_DEVICES that disagree (visible_devices_inconsistent):
# each rank's device line, on the fake driver. And no steady phase from a
# synchronize while no collective was issued.
# limit: 60
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.inc"

have_fake ranks || finish

# rank LOCAL_RANK WORLD DIR ORDINAL [VAR=VALUE...]: one rank binding ORDINAL.
rank() {
	r=$1; n=$2; d=$3; o=$4; shift 4
	HANGTRACE_DIR=$d LD_PRELOAD=$LIB timeout 20 env RANK="$r" WORLD_SIZE="$n" LOCAL_RANK="$r" \
		FAKE_CUDA_HOST_ID=nodeA "$@" "$CT/drv" bind "$o" >/dev/null 2>&1
}

# Two local ranks, both binding device 0: the same UUID twice.
rank 0 2 "$T/dup" 0
rank 1 2 "$T/dup" 0
check duplicate_gpu_facts tq "$T/dup" "(
	(lambda a, b: a['uuid'] == b['uuid'] and a['uuid'].startswith('GPU-')
	 and a['ordinal'] == b['ordinal'] == 0 and a['device_count'] == b['device_count'] == 2
	 and (a['local_rank'], b['local_rank']) == (0, 1)
	 and a['pci_bus_id'] == b['pci_bus_id'] == '0000:18:00.0')(
	 proc(rank=0).ev('phase', phase='device', state='end'),
	 proc(rank=1).ev('phase', phase='device', state='end')))"

# Each its own device: different UUIDs (so the check above can fail).
rank 0 2 "$T/own" 0
rank 1 2 "$T/own" 1
check distinct_gpu_facts tq "$T/own" "(
	proc(rank=0).ev('phase', phase='device', state='end')['uuid'] !=
	proc(rank=1).ev('phase', phase='device', state='end')['uuid'])"

# Three local ranks, two GPUs, device = local rank: the third cannot bind.
rank 0 3 "$T/many" 0
rank 1 3 "$T/many" 1
rank 2 3 "$T/many" 2
check too_many_local_ranks_facts tq "$T/many" "(
	all(proc(rank=r).ev('phase', phase='device', state='end')['device_count'] == 2 for r in (0, 1))
	and (lambda e: e['result'] == 101 and e['error'] == 'CUDA_ERROR_INVALID_DEVICE'
	     and e['ordinal'] == 2 and e['device_count'] == 2 and e['local_rank'] == 2)(
	     proc(rank=2).ev('phase', phase='device', state='error')))"

# CUDA_VISIBLE_DEVICES as the driver saw it at cuInit, per rank.
rank 0 2 "$T/vis" 0 CUDA_VISIBLE_DEVICES=0,1
rank 1 2 "$T/vis" 0 CUDA_VISIBLE_DEVICES=1
check visible_devices_facts tq "$T/vis" "(
	proc(rank=0).ev('phase', phase='device', state='end')['visible_devices'] == '0,1'
	and proc(rank=1).ev('phase', phase='device', state='end')['visible_devices'] == '1')"

# A synchronize with no collective before it is not the steady phase; the
# synchronize is a blocking call the trace names.
run_traced "$T/s" "$CT/drv" sync >/dev/null 2>&1
check no_steady_without_collective tq "$T/s" "(
	ev('call', name='cuStreamSynchronize', state='end', result=0) is not None
	and ev('phase', phase='steady') is None)"

# A bind the library cannot see (asked for at a cudaVersion past the ABI it
# knows, so handed out unwrapped, as the runtime's private tables would be):
# the first synchronize finds the device from the current context.
run_traced "$T/h" env FAKE_CUDA_DRIVER_VERSION=13010 "$CT/drv" hidden-bind >/dev/null 2>&1
check device_from_current_context tq "$T/h" "(
	ev('call', name='cuDevicePrimaryCtxRetain') is None
	and (lambda e: e['via'] == 'cuCtxGetCurrent' and e['ordinal'] == 0
	     and e['uuid'].startswith('GPU-') and e['device_count'] == 2)(
	     ev('phase', phase='device', state='end')))"

finish
