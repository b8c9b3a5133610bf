# SPDX-License-Identifier: MIT
# 1,000 forks while 8 threads are inside hooked calls (issues 2 and 7): no
# deadlock, every child exits as told and writes its own trace file, with
# its header, its launch and its exit record.
# limit: 120
. "$(dirname "$0")/../lib.sh"
out=$(RANK=0 "$HT" run --dir "$T/a" -- "$B/tests/core/fork_storm" 1000)
check "every fork came back with its status" test "$out" = "forks 1000 bad 0"
check "the 1000 storm children each wrote header, launch and exit" tq "$T/a" 'sorted(p.exit["status"] for p in procs if p.header["fork_parent"] == proc(rank=0).pid and p.exit and p.exit["status"] != 0 or False) == sorted(i % 100 for i in range(1000) if i % 100)'
check "over 1000 files, none is missing its exit record" tq "$T/a" 'len(procs) > 1000 and all(p.exit is not None for p in procs)'
finish
