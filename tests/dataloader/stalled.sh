#!/bin/bash
# SPDX-License-Identifier: MIT
# stalled.sh: rank 1 of a 2-rank gloo job takes its first batch from a
# DataLoader whose 2 fork workers block in __getitem__ on a threading.Lock
# that a thread of the main process held when they were forked (the copy
# in each worker stays locked forever); rank 0 waits in a barrier. The
# report: dataloader_stalled first, naming rank 1, the stuck worker's pid
# and its frames (__getitem__ and the native lock acquire); the workers
# under rank 1 (never ranks of their own) in the JSON, the text and the
# Chrome timeline.
# limit: 120
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/e2e/e2e.inc"
. "$(dirname "$0")/dl.inc"

job lock "$(free_port)" -- -- fork_lock
# Rank 1 dumped twice waiting for its batch, rank 0 in its barrier.
WAIT="(lambda p, f: len(p.dumps) >= 2 and p.dumps[-1][2] is not None
       and any(f in x for x in p.python_frames(-1)))"
settle_tq 60 lock "$WAIT(proc(rank=1, main=True), '_try_get_data')
                   and $WAIT(proc(rank=0, main=True), 'barrier')
                   and len([p for p in procs if p.header.get('fork_parent')]) == 2"
# With worker dumps, the stuck worker's second dump too.
worker_dumps lock && settle_tq 30 lock "any(p.header.get('fork_parent') and len(p.dumps) >= 2
                                          and p.dumps[-1][2] is not None for p in procs)"
report lock
"$HT" report --chrome-trace "$T/lock.chrome.json" "$T/lock" >/dev/null 2>&1
first_screen lock
stop lock

WK="R(1).get('workers', [])"
expect "the workers are under rank 1, not ranks of their own" lock "
sorted(r['rank'] for r in ranks) == [0, 1] and len($WK) == 2
and not [x for x in v if x['code'] in ('duplicate_rank', 'rank_exited')]
and all(w['exit'] is None and w['state'] in ('running', 'stuck', 'busy', 'idle') for w in $WK)"
"$HT" report "$T/lock" >"$T/lock.txt" 2>/dev/null
check "the text shows the workers under rank 1" \
	sh -c "grep -A2 '^WORKERS' '$T/lock.txt' | grep -q '^rank 1 *pid [0-9]'"
check "the timeline has a track per worker in rank 1's row" "$PY" - "$T/lock.chrome.json" <<'PYEOF'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = [e for e in ev if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == 1
         and e["args"]["name"].startswith("DataLoader worker pid ")]
slices = [e for e in ev if e["ph"] == "X" and e.get("cat") == "worker" and e["pid"] == 1]
assert len(names) == 2 and len(slices) == 2, (names, slices)
PYEOF
check "the stuck worker was dumped with its rank (SPEC section 6)" worker_dumps lock
expect "dataloader_stalled first: rank 1, the worker's pid, __getitem__ and the acquire" lock "
v0['code'] == 'dataloader_stalled' and v0['ranks'] == [1]
and any(str(w['pid']) in v0['summary'] and w['state'] == 'stuck' for w in $WK)
and '__getitem__' in v0['summary'] and 'acquire' in v0['summary']
and 'spawn' in v0['advice']"
finish
