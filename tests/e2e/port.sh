#!/bin/bash
# SPDX-License-Identifier: MIT
# port.sh: the rendezvous port is taken (issue 25, class 3). A stray
# listener, as a job left over from an earlier run, holds MASTER_PORT; rank
# 0 cannot bind ("Address already in use") and exits 1, the others connect
# to the stray listener and wait. The first verdict is port_in_use, rank 0,
# naming the port and the holder's pid and command line (its secret
# argument masked); rank 0's rank_exited follows because port_in_use.
# Forms: Debian's torch with 2 ranks, torch from PyPI with 4 ranks.
# limit: 90
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/e2e.inc"

TMO=3
TJ=$ROOT/tests/e2e/torch_job.py
VPY=$B/venv-torch/bin/python

# stray PORT: a process that listens on PORT of every address and never
# answers, with a secret on its command line; its pid is in $!.
stray() {
	"$PY" -c "import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('0.0.0.0', int(sys.argv[1]))); s.listen(64); time.sleep(120)" "$1" --token=s3cr3t \
		>/dev/null 2>&1 &
	SPAWNED="$SPAWNED $!"
}

forms=""
# form CASE PY WS: a WS-rank job whose port a stray holds; $T/CASE.holder
# has the stray's pid.
form() {
	local c=$1 py=$2 ws=$3 p r
	p=$(free_port)
	stray "$p"
	echo $! >"$T/$c.holder"
	wait_port "$p"
	for r in $(seq 0 $((ws - 1))); do
		WS=$ws rank "$c" "$r" MASTER_ADDR=127.0.0.1 MASTER_PORT="$p" STORE_TIMEOUT=30 \
			-- "$py" "$TJ" ok
	done
	forms="$forms $c"
}

# wait_port PORT: until something listens on PORT (5 s at most).
wait_port() {
	local i
	for i in $(seq 50); do
		"$PY" -c "import socket, sys; s = socket.socket(); sys.exit(s.connect_ex(('127.0.0.1', $1)))" && return 0
		sleep 0.1
	done
	return 1
}

if "$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	form deb "$PY" 2
else
	skip "debian torch: MASTER_PORT taken" "python3-torch with gloo is not importable by $PY"
fi
if [ -x "$VPY" ] && "$VPY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	form pypi "$VPY" 4
else
	skip "torch from PyPI: MASTER_PORT taken" "no $VPY with gloo (scripts/torch-venv.sh)"
fi
[ -n "$forms" ] || finish
for c in $forms; do
	settle_tq 40 "$c" "proc(rank=0) and proc(rank=0).exit and
		all(proc(rank=r).declared for r in range(1, len(procs)) if proc(rank=r))"
done
# Live, while the others wait; then after the job is stopped.
for c in $forms; do
	report "$c"
	cp "$T/$c.json" "$T/$c.live.json"
	cp "$T/$c.rc" "$T/$c.live.rc"
done
stop $forms
for c in $forms; do report "$c"; done

for c in $forms; do
	h=$(cat "$T/$c.holder")
	for k in "$c.live" "$c"; do
		expect "$k: port_in_use [0] first, the holder pid $h, its secret masked" "$k" "
		v0['code'] == 'port_in_use' and v0['ranks'] == [0] and v0['severity'] == 'error'
		and 'pid $h ' in v0['summary'] and 's3cr3t' not in v0['summary']
		and '--token=***' in v0['summary'] and 'kill $h' in v0['advice']
		and V('rank_exited').get('ranks') == [0] and V('rank_exited').get('because') == 'port_in_use'"
	done
done
finish
