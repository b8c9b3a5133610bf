# SPDX-License-Identifier: MIT
# HANGTRACE_ON_STALL=abort (issue 2): the stalled rank dumps, then ends by
# SIGABRT within the timeout + 2 s, so the job fails fast.
# limit: 30
. "$(dirname "$0")/../lib.sh"
start=$(date +%s%N)
RANK=0 HANGTRACE_ON_STALL=abort "$HT" run --dir "$T/a" --timeout 1 -- "$B/tests/core/wait_for_peer" 20 >/dev/null 2>"$T/err"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "ended by SIGABRT (status 134)" test $rc = 134
check "within timeout + 2 s (took ${ms} ms)" test $ms -lt 3000
check "stderr says it aborts" grep -q 'aborting (HANGTRACE_ON_STALL=abort)' "$T/err"
check "dump, then exit by SIGABRT after the dump" tq "$T/a" 'len(proc(rank=0).dumps) == 1 and proc(rank=0).exit["signal"] == "SIGABRT" and proc(rank=0).exit["after_dump"] is True'
start=$(date +%s%N)
RANK=0 "$HT" run --dir "$T/b" --on-stall abort --timeout 1 -- "$B/tests/core/wait_for_peer" 20 >/dev/null 2>&1
check "hangtrace run --on-stall abort does the same" test $? = 134
finish
