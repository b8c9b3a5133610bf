#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: a 4-rank job in which rank 3 never starts (a node that did not
# come up, a wrong host list). Ranks 0-2 initialise CUDA, bind their GPU and
# wait in ncclCommInitRank for rank 3, forever, printing nothing, as real
# jobs do. Under `hangtrace run --timeout 5` each dumps its stacks at 5 s;
# then the job is stopped as a scheduler would (SIGTERM) and hangtrace
# report explains it. Runs on the fake CUDA driver and fake NCCL of tests/,
# so it needs no GPU.
set -eu
: "${B:?B must name the build folder}"
work=$(mktemp -d /tmp/hangtrace-demo.XXXXXX)
dir=$work/hangtrace.demo
trap 'for p in $pids; do kill -9 $p 2>/dev/null || true; done; rm -rf "$work"' EXIT
pids=""
export LD_LIBRARY_PATH="$B/tests/fake_cuda:$B/tests/fake_nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export FAKE_CUDA_DEVICES=4 NCCL_SOCKET_IFNAME=lo

echo "== A 4-rank job starts; rank 3's node never comes up. Ranks 0-2 wait, silently."
for r in 0 1 2; do
	RANK=$r WORLD_SIZE=4 LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 \
		"$B/hangtrace" run --dir "$dir" --timeout 5 -- "$B/examples/demo/train" "$work/id" \
		>"$work/rank$r.out" 2>"$work/rank$r.err" &
	pids="$pids $!"
done
sleep 7
echo "== 7 s later nothing has moved: the scheduler gives up and sends SIGTERM."
for p in $pids; do kill -TERM $p 2>/dev/null || true; done
wait 2>/dev/null || true
pids=""
echo "== What the ranks printed:"
cat "$work"/rank*.out | sed 's/^/   /'
echo
echo "== hangtrace report $dir"
echo
"$B/hangtrace" report "$dir" || true
