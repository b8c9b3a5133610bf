#!/bin/bash
# SPDX-License-Identifier: MIT
# A DataLoader worker (real torch DataLoader, num_workers=1, forked) blocked
# in __getitem__ on a lock its parent held at fork (SPEC section 6: a
# forked child answers `hangtrace dump` and is dumped when its rank's main
# process is): the worker, which has no watchdog thread, writes its own
# dumps from the signal's handler; its Python frames show __getitem__ at
# the acquire and its native frames the lock wait.
# limit: 150
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/fw.inc"
if ! "$PY" -c 'import torch.utils.data' 2>/dev/null; then
	skip loader "python3-torch is not importable by $PY (scripts/deps.sh test installs it)"
	finish
fi
D=$T/d
RUN_ARGS="--dir $D"
# As torchrun starts a rank: MASTER_ADDR set (a rendezvous is expected, so
# a look while torch imports finds it slow, not steady).
job l RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$(free_port) -- "$PY" "$FW/loader_job.py"
# worker DIR: the pid of the forked worker's trace, once it has one.
worker() { tq "$D" 'print([p.pid for p in procs if p.header.get("relevant") == "fork"][0]) or True' 2>/dev/null; }
# dumps_of PID REASON: how many whole dumps that process wrote for REASON.
dumps_of() {
	tq "$D" "print(sum(1 for d in proc(pid=$1).dumps if d[2] is not None and d[0]['reason'] == '$2')) or True" 2>/dev/null
}
# Until the rank has declared its stall (a look while torch imports finds
# it working and declares nothing).
for i in $(seq 1 300); do
	[ "$(cat "$D"/*."$PID_l".jsonl 2>/dev/null | grep -c '"declared":true')" -ge 1 ] && break
	sleep 0.1
done
W=$(worker)
[ -n "$W" ] && SPAWNED="$SPAWNED $W"	# it waits forever: killed at exit
check "the worker has its own trace, marked as forked from the rank" \
	tq "$D" "proc(pid=${W:-0}).header['fork_parent'] == $PID_l"
check "the rank's stall (wait point dl_try_get_data) was declared" \
	tq "$D" 'next(d for d in proc(pid='"$PID_l"').dumps if d[2] and d[2].get("declared"))[2]["wait_point"] == "dl_try_get_data"'
sleep 0.5
check "the worker was dumped with the rank's stall dumps" test "$(dumps_of "${W:-0}" on_demand)" -ge 1
check "the worker's dump: Python frames show __getitem__ at the acquire (loader_job.py:25)" \
	tq "$D" 'proc(pid='"${W:-0}"').python_frames(1)[0] .startswith("__getitem__ (") and proc(pid='"${W:-0}"').python_frames(1)[0].endswith("loader_job.py:25)")'
check "the worker's dump: native frames show the lock wait" \
	tq "$D" 'any("acquire_lock" in f for f in proc(pid='"${W:-0}"').main_frames(1))'
check "the worker's dump is whole (dump_end)" tq "$D" 'all(d[2] is not None for d in proc(pid='"${W:-0}"').dumps)'
before=$(dumps_of "${W:-0}" on_demand)
"$HT" dump "$D" >"$T/dump.out" 2>&1
check "hangtrace dump asks the worker too" grep -q "asked pid ${W:-0} " "$T/dump.out"
for i in $(seq 1 50); do [ "$(dumps_of "${W:-0}" on_demand)" -gt "$before" ] && break; sleep 0.1; done
check "hangtrace dump: the worker wrote a dump" test "$(dumps_of "${W:-0}" on_demand)" -gt "$before"
before=$(dumps_of "${W:-0}" on_demand)
kill -TERM "$PID_l"
reap
for i in $(seq 1 50); do [ "$(dumps_of "${W:-0}" on_demand)" -gt "$before" ] && break; sleep 0.1; done
check "the rank's SIGTERM dump dumps the worker too" test "$(dumps_of "${W:-0}" on_demand)" -gt "$before"
check "the rank itself got its SIGTERM dump" test "$(dumps_of "$PID_l" sigterm)" = 1
finish
