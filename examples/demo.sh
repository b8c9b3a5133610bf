#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo and make demo-torch: a 4-rank job in which rank 3 never starts
# (a node that did not come up, a wrong host list). Ranks 0-2 wait for it,
# forever, printing nothing, as real jobs do. Under `hangtrace run
# --timeout 5` each dumps its stacks; then the job is stopped as a
# scheduler would (SIGTERM) and hangtrace report explains it.
#   demo.sh          the C job on the fake CUDA driver and fake NCCL of
#                    tests/ (no GPU needed): ranks wait in ncclCommInitRank
#   demo.sh torch    the same with real PyTorch (Debian's python3-torch,
#                    gloo): ranks wait in init_process_group
set -eu
: "${B:?B must name the build folder}"
kind=${1:-nccl}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/hangtrace-demo.XXXXXX)
dir=$work/hangtrace.demo
pids=""
trap 'for p in $pids; do kill -9 $p 2>/dev/null || true; done; rm -rf "$work"' EXIT

if [ "$kind" = torch ]; then
	if ! /usr/bin/python3 -c 'import torch.distributed' 2>/dev/null; then
		echo "make demo-torch needs Debian's python3-torch (apt-get install python3-torch)" >&2
		exit 1
	fi
	port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	set -- /usr/bin/python3 "$here/demo/train.py"
	wait_s=14	# torch takes a few seconds to import
	what="A 4-rank PyTorch job starts; rank 3 never does. Ranks 0-2 wait in init_process_group."
else
	export LD_LIBRARY_PATH="$B/tests/fake_cuda:$B/tests/fake_nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export FAKE_CUDA_DEVICES=4 NCCL_SOCKET_IFNAME=lo
	port=29500
	set -- "$B/examples/demo/train" "$work/id"
	wait_s=7
	what="A 4-rank job starts; rank 3's node never comes up. Ranks 0-2 wait, silently."
fi

echo "== $what"
for r in 0 1 2; do
	RANK=$r WORLD_SIZE=4 LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
		"$B/hangtrace" run --dir "$dir" --timeout 5 -- "$@" \
		>"$work/rank$r.out" 2>"$work/rank$r.err" &
	pids="$pids $!"
done
sleep $wait_s
echo "== $wait_s s later nothing has moved: the scheduler gives up and sends SIGTERM."
for p in $pids; do kill -TERM $p 2>/dev/null || true; done
wait 2>/dev/null || true
pids=""
echo "== What the ranks printed (the job log: stdout, then stderr):"
cat "$work"/rank*.out "$work"/rank*.err | sed 's/^/   /'
echo
echo "== hangtrace report $dir"
echo
"$B/hangtrace" report "$dir" || true
# DEMO_DIR=D keeps a copy of the trace folder in D (tests/live/html.sh).
[ -z "${DEMO_DIR:-}" ] || cp -r "$dir" "$DEMO_DIR"
