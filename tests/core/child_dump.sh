#!/bin/bash
# SPDX-License-Identifier: MIT
# child_dump.sh: a forked child (a DataLoader worker: no watchdog thread,
# its dumps run in the signal handler) dumped while its threads allocate
# all the time is never deadlocked by the dump (SPEC section 6: a dump
# never blocks the process). The dump looks nothing up in the handler:
# the Python traceback dumper was found as the fork returned (a dlsym
# from a handler that interrupted malloc waited forever on malloc's lock:
# a loader rank hung in tests/frameworks/healthy.sh). 40 dumps asked with
# `hangtrace dump`: the child answers every one with its Python frames,
# and it still runs.
# limit: 90
. "$(dirname "$0")/../lib.sh"
cat >"$T/job.py" <<'PY'
import ctypes, os, threading, time
libc = ctypes.CDLL(None)
libc.mallopt(-3, 65536)   # M_MMAP_THRESHOLD, fixed: every 1 MiB block is an mmap
def churn():
    # The main thread inside malloc (its lock held across the mmap) most
    # of the time, with Python frames around it.
    # Small blocks held and freed in bulk keep the thread's cache of small
    # blocks empty: a small malloc in the handler goes to the locked arena.
    m, f = libc.malloc, libc.free
    m.restype = ctypes.c_void_p
    f.argtypes = [ctypes.c_void_p]
    held = []
    while True:
        f(m(1 << 20))
        for size in (24, 40, 56, 72, 88, 104, 120):
            held.append(m(size))
        if len(held) > 700:
            for p in held:
                f(p)
            held = []
pid = os.fork()
if pid == 0:
    # A second thread, as a worker has (its queue's feeder): malloc locks
    # only in a process with threads.
    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
    churn()
print("parent", pid, flush=True)
time.sleep(120)
PY
RANK=0 HANGTRACE_DIR="$T/d" LD_PRELOAD="$LIB" "$PY" "$T/job.py" >"$T/out" 2>"$T/err" &
SPAWNED="$SPAWNED $!"
for i in $(seq 1 50); do grep -q '^parent' "$T/out" && break; sleep 0.1; done
child=$(sed -n 's/^parent \([0-9]*\)$/\1/p' "$T/out")
SPAWNED="$SPAWNED $child"
check "the child runs (pid $child)" test -n "$child" -a -d "/proc/$child"
# A dump: the child's trace gains a dump_end (answered) within 5 s.
ends() { cat "$T/d"/*."$child".jsonl 2>/dev/null | grep -c '"t":"dump_end"'; }
answered=0
for i in $(seq 1 40); do
	before=$(ends)
	"$HT" dump "$T/d" >/dev/null 2>&1
	for j in $(seq 1 50); do [ "$(ends)" -gt "$before" ] && break; sleep 0.1; done
	[ "$(ends)" -gt "$before" ] && answered=$((answered + 1)) || break
done
check "the child answered 40 of 40 dumps (answered $answered)" test "$answered" = 40
check "its dumps have its Python frames (churn)" \
	tq "$T/d" 'any("churn (" in f for f in proc(pid='"$child"').python_frames(-1))'
cpu() { awk '{print $14 + $15}' "/proc/$child/stat" 2>/dev/null; }
c0=$(cpu); sleep 1; c1=$(cpu)
check "the child still runs, not blocked on a lock (CPU ticks $c0 -> $c1)" test "${c1:-0}" -gt "${c0:-0}"
finish
