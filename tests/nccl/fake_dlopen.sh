#!/bin/bash
# SPDX-License-Identifier: MIT
# NCCL reached without linking it: the JAX/XLA way (dlopen RTLD_LOCAL, then
# dlsym of "ncclX" or "pncclX": only the dlsym hook sees it) and the Python
# way (an extension library that links libnccl, itself loaded RTLD_LOCAL:
# dlsym(RTLD_NEXT) finds no NCCL, the provider is found among the loaded
# objects). Each is a 2-rank job on the fake NCCL.
# limit: 60
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/helpers.inc"

observed() { # NAME DIR
	check "$1: every rank's init and first collective observed" \
		tq "$2" 'all(proc(rank=r).ev("phase", phase="nccl_init", state="end") and proc(rank=r).ev("phase", phase="first_collective", state="end") and proc(rank=r).ev("nccl", fn="ncclCommDestroy", state="end")["seq"] == 3 for r in range(2))'
	check "$1: the provider is the fake libnccl" \
		tq "$2" 'all(proc(rank=r).ev("version", what="nccl")["provider"] == "'"$FAKE_LIB"'" for r in range(2))'
}

for prefix in nccl pnccl; do
	D=$T/jax_$prefix
	for r in 0 1; do
		rank j$prefix$r HANGTRACE_DIR=$D ID_FILE=$T/id_$prefix RANK=$r WORLD_SIZE=2 NCCL_LIB=$FAKE_LIB -- \
			"$NT/nccl_dlopen" $prefix
	done
	check "jax ($prefix names): the job completes" reap
	check "jax ($prefix names): the program has no NCCL of its own" \
		sh -c "! readelf -d '$NT/nccl_dlopen' | grep -q libnccl"
	observed "jax ($prefix names)" "$D"
done

# No rank identity: the first NCCL call, reached through dlsym, makes the
# process relevant.
D=$T/jax_norank
rank jn HANGTRACE_DIR=$D ID_FILE=$T/id_norank NCCL_LIB=$FAKE_LIB -- "$NT/nccl_dlopen" pnccl
check "jax, no rank identity: the program completes" reap
check "jax, no rank identity: relevant because of NCCL, rank learnt from the init" \
	tq "$D" 'procs[0].header["relevant"] == "nccl" and procs[0].ev("identity")["source"] == "nccl" and procs[0].ev("phase", phase="first_collective", state="end") and procs[0].ev("version", what="nccl")["provider"] == "'"$FAKE_LIB"'"'

D=$T/python
for r in 0 1; do
	rank py$r HANGTRACE_DIR=$D ID_FILE=$T/id_py RANK=$r WORLD_SIZE=2 -- "$NT/nccl_pyway" "$NT/libncclext.so"
done
check "python: the job completes" reap
observed python "$D"
check "python: reduce_scatter (avg) recorded" \
	tq "$D" 'proc(rank=0).ev("phase", phase="first_collective", state="begin")["op"] == "reducescatter" and proc(rank=0).ev("phase", phase="first_collective", state="begin")["redop"] == "avg"'
finish
