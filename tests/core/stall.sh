# SPDX-License-Identifier: MIT
# Stall dumps of a C rank (issue 2): a rank blocked in wait_for_peer with a
# 2 s deadline dumps at 2 s and 4 s naming wait_for_peer in its main thread;
# with 64 threads, one blocking every signal, the dump completes, the masked
# thread is described by its wchan, every other thread has frames, and the
# masked thread is never sent a second signal.
# limit: 60
. "$(dirname "$0")/../lib.sh"
P=$B/tests/core/wait_for_peer

out=$(RANK=0 WORLD_SIZE=2 "$HT" run --dir "$T/a" --timeout 2 -- "$P" 5 64 2>"$T/err")
rc=$?
check "job output and status unchanged" test "$rc" = 0 -a "$out" = "$(printf 'waiting 5 s\ndone')"
check "stderr says the rank stalled, once" test "$(grep -c 'rank 0 stalled 2s in launch' "$T/err")" = 1
check "header names rank 0 of 2" tq "$T/a" 'proc(rank=0).header["world_size"] == 2 and proc(rank=0).header["launcher"] == "env"'
check "launch phase written" tq "$T/a" 'proc(rank=0).ev("phase", phase="launch", state="begin")'
check "two dumps, at 2 s and 4 s" tq "$T/a" '[d[0]["n"] for d in proc(rank=0).dumps] == [1, 2] and 1.9 < proc(rank=0).dumps[0][0]["age"] < 2.5 and 3.9 < proc(rank=0).dumps[1][0]["age"] < 4.5'
check "dump names wait_for_peer in the main thread" tq "$T/a" 'any(f.startswith("wait_for_peer (") for f in proc(rank=0).main_frames(1))'
check "second dump too" tq "$T/a" 'any(f.startswith("wait_for_peer (") for f in proc(rank=0).main_frames(2))'
check "dump has all 66 threads and completes" tq "$T/a" 'proc(rank=0).dumps[0][2]["threads"] == 66 and len(proc(rank=0).dumps[0][1]) == 66'
check "the masked thread is reported with its wchan" tq "$T/a" 'sum(1 for t in proc(rank=0).dumps[0][1] if not t["answered"] and not t.get("hangtrace") and t.get("wchan")) == 1'
check "every other thread has frames" tq "$T/a" 'all(t.get("frames") for t in proc(rank=0).dumps[0][1] if t["answered"])'
check "idle threads show idle_thread" tq "$T/a" 'sum(1 for t in proc(rank=0).dumps[0][1] if any(f.startswith("idle_thread (") for f in t.get("frames", []))) == 63'
check "dump took under 100 ms" tq "$T/a" 'proc(rank=0).dumps[0][2]["dur"] < 0.1'
check "exit record with status 0" tq "$T/a" 'proc(rank=0).exit["status"] == 0'

# Three dumps (1, 2, 4 s) and the masked thread holds at most one of our signals.
RANK=0 "$HT" run --dir "$T/b" --timeout 1 -- "$P" 5 2 >/dev/null 2>&1 &
pid=$!
SPAWNED="$SPAWNED $pid"
sleep 4.6
masked=""
for t in /proc/$pid/task/*; do
	[ "$(cat "$t/comm" 2>/dev/null)" = hangtrace ] && continue
	# sigfillset leaves out what cannot be blocked: fffffffe7ffbfeff
	grep -q '^SigBlk:[[:space:]]*fffffff' "$t/status" 2>/dev/null && masked=$t
done
pending=$(grep '^SigPnd' "$masked/status" 2>/dev/null | awk '{print $2}')
wait $pid
check "three dumps at 1, 2, 4 s" tq "$T/b" '[d[0]["n"] for d in proc(rank=0).dumps] == [1, 2, 3]'
check "the masked thread was found" test -n "$masked"
# Real-time signals queue: three dumps must not pile three of ours on the
# masked thread. It blocks our signal, so it is described from /proc and
# never signalled: nothing of ours pending, nothing queued.
check "masked thread: none of our signals pending (SigPnd $pending)" test "$pending" = 0000000000000000
check "masked thread reported from /proc in every dump" tq "$T/b" 'all(sum(1 for t in d[1] if not t["answered"] and not t.get("hangtrace") and t.get("wchan")) == 1 for d in proc(rank=0).dumps)'

# A thread stuck in vfork (uninterruptible until its child exits at 3 s)
# gets our signal late: dumps 1 and 2 describe it from /proc and do not
# signal it again; dump 3 (4 s) gets its fresh stack, not the stale answer.
RANK=0 "$HT" run --dir "$T/c" --timeout 1 -- "$B/tests/core/late_answer" >/dev/null 2>&1
check "three dumps" tq "$T/c" 'len(proc(rank=0).dumps) == 3'
check "dumps 1 and 2: the vfork thread unanswered, in D state" tq "$T/c" 'all(any(t["name"] == "vforker" and not t["answered"] and t["state"] == "D" for t in d[1]) for d in proc(rank=0).dumps[:2])'
check "dump 3: fresh frames in after_vfork" tq "$T/c" 'any(t["name"] == "vforker" and t["answered"] and any(f.startswith("after_vfork (") for f in t["frames"]) for t in proc(rank=0).dumps[2][1])'
# The process ends (returns from main at 1.03 s) while dump 1 waits for the
# vfork thread (up to 60 ms from 1 s): exit lets the dump finish first, and
# no new dump starts once the process is ending.
RANK=0 "$HT" run --dir "$T/e" --timeout 1 -- "$B/tests/core/late_answer" 1030 >/dev/null 2>&1
check "exit during a dump: the dump is whole" tq "$T/e" 'len(proc(rank=0).dumps) == 1 and proc(rank=0).dumps[0][2] is not None'
check "exit during a dump: the exit record comes after it" tq "$T/e" 'proc(rank=0).exit["status"] == 0 and proc(rank=0).exit["mono"] >= proc(rank=0).dumps[0][2]["mono"]'
finish
