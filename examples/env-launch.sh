#!/bin/sh
# SPDX-License-Identifier: MIT
# A PyTorch job launched by hand on one machine, one process per rank with
# RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT (what torchrun sets), each under
# hangtrace run. After the job (or after Ctrl-C on a hang), the report.
#     NPROC=4 examples/env-launch.sh train.py [ARGS...]
set -u
n=${NPROC:-4}
dir=${HANGTRACE_DIR:-$PWD/hangtrace.local}
export MASTER_ADDR=${MASTER_ADDR:-127.0.0.1} MASTER_PORT=${MASTER_PORT:-29500} WORLD_SIZE=$n
pids=""
trap 'kill -TERM $pids 2>/dev/null' INT TERM
r=0
while [ $r -lt "$n" ]; do
	RANK=$r LOCAL_RANK=$r hangtrace run --dir "$dir" --timeout "${TIMEOUT:-300}" -- python3 "$@" &
	pids="$pids $!"
	r=$((r + 1))
done
wait
hangtrace report "$dir"
