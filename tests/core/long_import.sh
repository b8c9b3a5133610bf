#!/bin/bash
# SPDX-License-Identifier: MIT
# long_import.sh: an activity that outlasts the episode's looks (SPEC
# section 6). A Python rank imports a module for longer than 4x the
# deadline (the episode's last look finds it importing: starting up, not
# blocked, not steady), then either waits idle (blocked: it must still be
# looked at and declared, as a JAX process importing jax on a loaded host
# and then waiting in initialize) or trains (working: never declared).
# limit: 90
. "$(dirname "$0")/../lib.sh"
mkdir -p "$T/mods"
cat > "$T/mods/slowmod.py" <<'PY'
import time
def build_tables(until):
    n = 0
    while time.monotonic() < until:
        n += sum(i * i for i in range(1000))
    return n
build_tables(time.monotonic() + 5.5)
PY
cat > "$T/job.py" <<'PY'
import sys, time
sys.path.insert(0, sys.argv[1])
import slowmod
def wait_for_peer():
    time.sleep(12)
def train(until):
    n = 0
    while time.monotonic() < until:
        n += step(n)
    return n
def step(n):
    return sum(i for i in range(2000)) % 7
if sys.argv[2] == "wait":
    wait_for_peer()
else:
    train(time.monotonic() + 9)
print("done")
PY
RANK=0 WORLD_SIZE=1 "$HT" run --dir "$T/wait" --timeout 1 -- "$PY" "$T/job.py" "$T/mods" wait \
	>"$T/wait.out" 2>"$T/wait.err" &
w=$!
RANK=0 WORLD_SIZE=1 "$HT" run --dir "$T/train" --timeout 1 --on-stall abort -- \
	"$PY" "$T/job.py" "$T/mods" train >"$T/train.out" 2>"$T/train.err" &
t=$!
wait $w; wrc=$?
wait $t; trc=$?

check "waits after a long import: the job completes (status $wrc)" test "$wrc" = 0
check "waits after a long import: output unchanged" test "$(cat "$T/wait.out")" = done
check "waits after a long import: a look found it importing past 4x the deadline" \
	tq "$T/wait" 'any(d[0]["n"] >= 3 and any("slowmod.py" in f for f in proc(rank=0).python_frames(i + 1)) for i, d in enumerate(proc(rank=0).dumps))'
check "waits after a long import: a later look declared it, in wait_for_peer" \
	tq "$T/wait" 'any(d[2].get("declared") and any(f.startswith("wait_for_peer (") for f in proc(rank=0).python_frames(i + 1)) for i, d in enumerate(proc(rank=0).dumps))'
check "waits after a long import: stderr says the rank stalled, once" \
	test "$(grep -c 'rank 0 stalled [0-9]*s in launch' "$T/wait.err")" = 1

check "trains after a long import, on-stall abort: the job completes (status $trc)" test "$trc" = 0
check "trains after a long import: output unchanged" test "$(cat "$T/train.out")" = done
check "trains after a long import: no stall line on stderr" sh -c "! grep -q stalled '$T/train.err'"
check "trains after a long import: no look declared it" \
	tq "$T/train" 'proc(rank=0).dumps and not any(d[2].get("declared") for d in proc(rank=0).dumps)'
finish
