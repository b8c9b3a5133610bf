#!/bin/bash
# SPDX-License-Identifier: MIT
# port_in_use.sh: `hangtrace check` before the job finds the rendezvous
# port taken (issue 25, class 3): a stray listener holds MASTER_PORT, so
# rank 0 cannot listen where the job's store would. The report of the
# check's traces: port_in_use [0] first, naming the holder's pid.
# limit: 40
. "$(dirname "$0")/../lib.sh"

free_port() {
	"$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

P=$(free_port)
"$PY" -c "import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('0.0.0.0', int(sys.argv[1]))); s.listen(64); time.sleep(60)" "$P" >/dev/null 2>&1 &
holder=$!
SPAWNED="$SPAWNED $holder"
for i in $(seq 50); do
	"$PY" -c "import socket, sys; sys.exit(socket.socket().connect_ex(('127.0.0.1', $P)))" && break
	sleep 0.1
done
pids=""
for r in 0 1; do
	env RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT="$P" \
		"$HT" check --dir "$T/ck" --no-nccl --timeout 5 >"$T/ck.out.$r" 2>&1 &
	pids="$pids $!"
done
rc=0
for p in $pids; do wait "$p" || rc=1; done
check "check: a rank fails (exit 1)" [ "$rc" = 1 ]
"$HT" report --json "$T/ck" >"$T/ck.json" 2>"$T/ck.err"
echo $? >"$T/ck.rc"
why=$("$PY" "$ROOT/tests/e2e/expect.py" "$T/ck.json" "$(cat "$T/ck.rc")" "
rc == 1 and v0['code'] == 'port_in_use' and v0['ranks'] == [0]
and 'pid $holder ' in v0['summary'] and 'port $P' in v0['summary']
and 'MASTER_PORT' in v0['advice']" 2>&1) && pass "check: port_in_use [0] first, the holder pid $holder" ||
	fail "check: port_in_use [0] first, the holder pid $holder" "$(echo "$why" | head -n 3 | tr '\n' ' ')"
finish
