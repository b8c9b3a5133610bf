#!/bin/bash
# SPDX-License-Identifier: MIT
# trace_fails.sh: `hangtrace check` that cannot write its trace is not a
# check that failed (exit 1) but a run that could not be recorded: it says
# which file and why, and exits 2 (SPEC section 3) — a folder that cannot
# be made, and a folder that fills up during the run (a 4 KiB tmpfs,
# already full, in a private mount namespace: unshare -m). A run that
# writes its trace whole still exits 0.
# limit: 30
. "$(dirname "$0")/../lib.sh"
export RANK=0 WORLD_SIZE=1
"$HT" check --dir /dev/full/x --timeout 5 >/dev/null 2>"$T/e1"
rc=$?
check "a folder that cannot be made: exit 2 (got $rc)" test $rc = 2
check "it says which folder and why" grep -q 'cannot write the trace in /dev/full/x: Not a directory' "$T/e1"
if unshare -m true 2>/dev/null; then
	mkdir -p "$T/mnt"
	unshare -m sh -c "mount -t tmpfs -o size=4k tmpfs '$T/mnt' && head -c 4096 /dev/zero >'$T/mnt/fill'; \
		'$HT' check --dir '$T/mnt' --timeout 5 >/dev/null 2>'$T/e2'; echo \$? >'$T/rc2'"
	check "a folder full during the run: exit 2 (got $(cat "$T/rc2"))" test "$(cat "$T/rc2")" = 2
	check "it says the file and the error, once" sh -c "test \$(grep -c 'could not write a trace line: No space left on device' '$T/e2') = 1"
else
	skip "check: a full folder" "unshare -m is not permitted here"
fi
"$HT" check --dir "$T/ok" --timeout 5 >/dev/null 2>&1
check "a trace written whole: exit 0" test $? = 0
finish
