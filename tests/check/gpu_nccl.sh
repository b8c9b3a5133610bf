#!/bin/sh
# SPDX-License-Identifier: MIT
# gpu_nccl.sh: the GPU checks of `hangtrace check` on the fake driver
# (tests/fake_cuda, found as libcuda.so.1 through LD_LIBRARY_PATH as a real
# driver is): three local ranks on two GPUs (too_many_local_ranks), two
# ranks pinned to one GPU (duplicate_gpu), a driver older than the runtime
# (driver_too_old); then the one-element all-reduce on the fake NCCL
# (tests/fake_nccl, real TCP bootstrap): PASS with every rank, and
# nccl_selftest_failed naming the rank that hangs before it joins.
# limit: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../net/ranks.shlib"

FAKE_CUDA=$B/tests/fake_cuda
FAKE_NCCL=$B/tests/fake_nccl
if [ ! -e "$FAKE_CUDA/libcuda.so.1" ] || [ ! -e "$FAKE_NCCL/libnccl.so.2" ]; then
	skip gpu_checks "the fake driver or NCCL is not built (no cuda.h)"
	finish
fi
CUDART=$(dirname "$(ldconfig -p | sed -n 's/.*libcudart.so.13 .*=> //p' | head -n 1)" 2>/dev/null)

# job DIR N [ARGS...] -- [VAR=VALUE...]: N local ranks on the fake driver.
job() {
	d=$1; n=$2; shift 2
	args=""
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do args="$args $1"; shift; done
	[ $# -gt 0 ] && shift
	p=$(free_port)
	pids=""
	r=0
	while [ $r -lt "$n" ]; do
		env LD_LIBRARY_PATH="$FAKE_CUDA:$FAKE_NCCL${CUDART:+:$CUDART}" RANK=$r WORLD_SIZE=$n \
			LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$p FAKE_CUDA_HOST_ID=nodeA \
			"$@" $(eval echo "\${R$r:-}") "$HT" check --dir "$d" --timeout 8 $args \
			>"$d.out.$r" 2>&1 &
		pids="$pids $!"
		SPAWNED="$SPAWNED $!"
		r=$((r + 1))
	done
	for x in $pids; do wait "$x"; done
	"$HT" report --json "$d" >"$d.json" 2>"$d.err"
}

first_error() {
	"$PY" -c "
import json
r = json.load(open('$1.json'))
v = [x for x in r['verdicts'] if x['severity'] == 'error']
assert v and v[0]['code'] == '$2' and v[0]['ranks'] == $3, [(x['code'], x['ranks'], x['summary']) for x in v]
"
}

mkdir -p "$T"
job "$T/two" 2 --no-nccl --
check gpu_two_ranks_two_gpus_pass tq "$T/two" "(
	all(e['result'] == 'pass' for e in events('check', check='gpu'))
	and all(e['result'] == 'pass' for e in events('check', check='gpus'))
	and (lambda a, b: a['ordinal'] == 0 and b['ordinal'] == 1 and a['device_count'] == 2
	     and a['uuid'].startswith('GPU-') and a['uuid'] != b['uuid']
	     and a['libcuda'].startswith('$FAKE_CUDA/') and a['driver_version'] == 13000)(
	     proc(rank=0).ev('check', check='gpu')['facts'], proc(rank=1).ev('check', check='gpu')['facts']))"

job "$T/many" 3 --no-nccl --
check too_many_local_ranks first_error "$T/many" too_many_local_ranks "[2]"

# Both ranks take ordinal 0 (LOCAL_RANK 0 on both): the same UUID.
job "$T/same" 2 --no-nccl -- LOCAL_RANK=0
check duplicate_gpu first_error "$T/same" duplicate_gpu "[0, 1]"

if [ -n "$CUDART" ]; then
	job "$T/old" 2 --no-nccl -- FAKE_CUDA_DRIVER_VERSION=12020
	check driver_too_old first_error "$T/old" driver_too_old "[0, 1]"
else
	skip driver_too_old "no libcudart.so.13 to give the runtime's version"
fi

# By default (a GPU and libnccl.so.2 on every rank) the self-test runs.
job "$T/dflt" 2 --
check nccl_selftest_by_default tq "$T/dflt" "(len(procs) == 2 and
	all(e['result'] == 'pass' and 'all-reduce' in e['why'] for e in events('check', check='nccl')))"

# The self-test on the fake NCCL: every rank arrives.
job "$T/nccl" 4 --nccl -- FAKE_CUDA_DEVICES=4
check nccl_selftest_pass tq "$T/nccl" "(len(procs) == 4 and
	all(e['result'] == 'pass' for e in events('check', check='nccl')))"
check nccl_selftest_report_exit_0 sh -c "'$HT' report '$T/nccl' >/dev/null 2>&1"

# Rank 3's GPU never answers (its synchronize hangs): it never joins, the
# others wait in ncclCommInitRank; the bound still holds.
start=$(date +%s)
R3=FAKE_CUDA_SYNC_HANG=1 job "$T/hang" 4 --nccl -- FAKE_CUDA_DEVICES=4
secs=$(( $(date +%s) - start ))
R3=
check nccl_selftest_failed_names_rank first_error "$T/hang" nccl_selftest_failed "[3]"
check nccl_selftest_within_bound [ "$secs" -le 10 ]
finish
