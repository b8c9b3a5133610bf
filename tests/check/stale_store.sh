#!/bin/bash
# SPDX-License-Identifier: MIT
# stale_store.sh: `hangtrace check` before the job finds the job's file
# store already there (issue 25, class 4): INIT_METHOD names file://PATH,
# and a file with a killed run's content is at PATH. Every rank's store
# check fails with stale_store; the report leads with it, naming the file
# and the rm. With the file absent the check passes; with no file store
# named it is skipped.
# limit: 40
. "$(dirname "$0")/../lib.sh"

free_port() {
	"$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

mkdir -p "$T"
# ck NAME STORE-VARIABLE...: a check run of two ranks; its exit status.
ck() {
	local c=$1 pids="" p r rc=0
	shift
	P=$(free_port)
	for r in 0 1; do
		env RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT="$P" "$@" \
			"$HT" check --dir "$T/$c" --no-nccl --timeout 5 >"$T/$c.out.$r" 2>&1 &
		pids="$pids $!"
	done
	for p in $pids; do wait "$p" || rc=1; done
	"$HT" report --json "$T/$c" >"$T/$c.json" 2>"$T/$c.err"
	echo $? >"$T/$c.rc"
	return $rc
}
expect() {
	local why
	why=$("$PY" "$ROOT/tests/e2e/expect.py" "$T/$2.json" "$(cat "$T/$2.rc")" "$3" 2>&1) &&
		pass "$1" || fail "$1" "$(echo "$why" | head -n 3 | tr '\n' ' ')"
}

printf 'refcount/\0\0\0\0\0\0\0\1' >"$T/old.store"
touch -d '2 hours ago' "$T/old.store"
ck stale INIT_METHOD="file://$T/old.store"
check "check: a stale store fails (exit 1)" [ $? = 1 ]
expect "check: stale_store [0, 1] first, the file and the rm" stale "
rc == 1 and v0['code'] == 'stale_store' and v0['ranks'] == [0, 1]
and '$T/old.store' in v0['summary'] and 'exists before the job' in v0['summary']
and 'INIT_METHOD' in v0['summary'] and 'rm' in v0['advice']"

ck fresh INIT_METHOD="file://$T/new.store"
check "check: a store file not there yet passes (exit 0)" [ $? = 0 ]
expect "check: store passes on every rank, no verdict" fresh "
rc == 0 and not errors"
check "check: store written PASS" tq "$T/fresh" "(len(procs) == 2 and all(
	p.ev('check', check='store')['result'] == 'pass' for p in procs))"

ck none
check "check: no file store named: store skipped" tq "$T/none" "(len(procs) == 2 and all(
	p.ev('check', check='store')['result'] == 'skip' for p in procs))"
finish
