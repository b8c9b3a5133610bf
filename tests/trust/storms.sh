# SPDX-License-Identifier: MIT
# Storms (issue 7): 200 threads created and ended during dumps; dumps while
# another thread loops on dlopen/dlclose (the loader lock): every dump
# completes, bounded in time, and the job goes on.
# limit: 60
. "$(dirname "$0")/../lib.sh"
C=$B/tests/trust/churn
out=$(RANK=0 "$HT" run --dir "$T/t" --timeout 0.5 -- "$C" threads 3 2>/dev/null)
check "thread churn: job unchanged" test "$out" = "done threads=1 loads=0"
check "thread churn: three dumps, each complete and under 200 ms" tq "$T/t" 'len(proc(rank=0).dumps) == 3 and all(d[2] is not None and d[2]["dur"] < 0.2 for d in proc(rank=0).dumps)'
check "thread churn: main thread named in every dump" tq "$T/t" 'all(any(f.startswith("wait_for_peer (") for f in proc(rank=0).main_frames(n)) for n in (1, 2, 3))'
out=$(RANK=0 "$HT" run --dir "$T/d" --timeout 0.5 -- "$C" dlopen 3 "$B/tests/trust/libother_dlsym.so" 2>/dev/null)
check "dlopen loop: job unchanged" test "$out" = "done threads=0 loads=1"
check "dlopen loop: three dumps, each complete and under 200 ms" tq "$T/d" 'len(proc(rank=0).dumps) == 3 and all(d[2] is not None and d[2]["dur"] < 0.2 for d in proc(rank=0).dumps)'
# A thread caught in code without unwind info (the _init of the library
# being loaded has no FDE) ends its stack at that frame: every dump has the
# looping thread answering with frames, and the dumps name its loop.
check "dlopen loop: the looping thread answered every dump with frames" tq "$T/d" 'all(any(t.get("answered") and t.get("frames") and not t.get("main") and not t.get("hangtrace") for t in d[1]) for d in proc(rank=0).dumps)'
check "dlopen loop: its frames name the loop" tq "$T/d" 'sum(any("dlopen_churn (" in " ".join(t.get("frames", [])) for t in d[1]) for d in proc(rank=0).dumps) >= 2'
finish
