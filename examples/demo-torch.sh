#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo-torch: the same story with real PyTorch (Debian's python3-torch,
# gloo, CPU only): a 4-rank job of which rank 3 never starts. Ranks 0-2
# wait in init_process_group for it; under `hangtrace run --timeout 5` each
# dumps its native and Python stacks; the job is stopped with SIGTERM and
# hangtrace report explains it.
set -eu
: "${B:?B must name the build folder}"
if ! /usr/bin/python3 -c 'import torch.distributed' 2>/dev/null; then
	echo "make demo-torch needs Debian's python3-torch (apt-get install python3-torch)" >&2
	exit 1
fi
work=$(mktemp -d /tmp/hangtrace-demo-torch.XXXXXX)
dir=$work/hangtrace.demo-torch
pids=""
trap 'for p in $pids; do kill -9 $p 2>/dev/null || true; done; rm -rf "$work"' EXIT
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
root=$(cd "$(dirname "$0")" && pwd)

echo "== A 4-rank PyTorch job starts; rank 3 never does. Ranks 0-2 wait in init_process_group."
for r in 0 1 2; do
	RANK=$r WORLD_SIZE=4 LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
		"$B/hangtrace" run --dir "$dir" --timeout 5 -- /usr/bin/python3 "$root/demo/train.py" \
		>"$work/rank$r.out" 2>"$work/rank$r.err" &
	pids="$pids $!"
done
sleep 14
echo "== 14 s later nothing has moved: the scheduler gives up and sends SIGTERM."
for p in $pids; do kill -TERM $p 2>/dev/null || true; done
wait 2>/dev/null || true
pids=""
echo "== What the ranks printed:"
cat "$work"/rank*.out | sed 's/^/   /'
echo
echo "== hangtrace report $dir"
echo
"$B/hangtrace" report "$dir" || true
