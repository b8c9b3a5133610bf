#!/bin/sh
# SPDX-License-Identifier: MIT
# check.sh: `hangtrace check` over 8 ranks on one host, all passing (SPEC
# section 9: at most 3 s), from the first rank's start to the last rank's
# end, against 8 bare starts of the same binary (`hangtrace --version`) in
# the same run. Median of 5 runs.
set -eu
: "${B:?B must name the build folder}"
HT=$B/hangtrace
d=$(mktemp -d /tmp/ht-bench-check.XXXXXX)
trap 'rm -rf "$d"' EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

once() {
	p=$(port)
	rm -rf "$d/run"
	s=$(date +%s.%N)
	pids=""
	for r in 0 1 2 3 4 5 6 7; do
		RANK=$r WORLD_SIZE=8 LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$p \
			"$HT" check --dir "$d/run" --no-nccl --timeout 30 >/dev/null 2>&1 &
		pids="$pids $!"
	done
	rc=0
	for x in $pids; do wait "$x" || rc=1; done
	e=$(date +%s.%N)
	[ $rc = 0 ] || { echo "a rank failed its checks: see $d/run" >&2; exit 1; }
	echo "$e - $s" | bc
}
bare() {
	s=$(date +%s.%N)
	pids=""
	for r in 0 1 2 3 4 5 6 7; do "$HT" --version >/dev/null & pids="$pids $!"; done
	for x in $pids; do wait "$x"; done
	echo "$(date +%s.%N) - $s" | bc
}
median() { sort -n | sed -n 3p; }
c=$(for i in 1 2 3 4 5; do once; done | median)
b=$(for i in 1 2 3 4 5; do bare; done | median)
echo "hangtrace check, 8 ranks on one host, all passing: ${c} s (budget 3 s); 8 bare starts: ${b} s"
[ "$(echo "$c <= 3" | bc)" = 1 ]
