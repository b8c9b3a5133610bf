# SPDX-License-Identifier: MIT
# A program that closes, or dup2s over, every descriptor above 2 does not
# lose its trace: the library reopens its file and the dump lands there.
# Closed by a raw close_range and reused: never written to, reopened too.
# limit: 30
. "$(dirname "$0")/../lib.sh"
for how in close dup2 raw; do
	RANK=0 "$HT" run --dir "$T/$how" --timeout 1 -- "$B/tests/core/closer" $how 2 >/dev/null 2>&1
	check "$how: one file, the dump in it" tq "$T/$how" 'len(procs) == 1 and any(f.startswith("wait_after_close (") for f in proc(rank=0).main_frames(1))'
	check "$how: and the exit record" tq "$T/$how" 'proc(rank=0).exit["status"] == 0'
	check "$how: nothing written to /dev/null's place: every line parses" tq "$T/$how" 'all("t" in e for e in proc(rank=0).events)'
done

# After closing everything above 2 (as OpenSSH does at start) the watchdog
# still wakes for SIGTERM and on demand, and does not spin: its wake-ups
# are a futex, no descriptor to lose.
RANK=0 "$HT" run --dir "$T/term" --timeout 100 -- "$B/tests/core/closer" close 4 >/dev/null 2>&1 &
pid=$!; SPAWNED="$SPAWNED $pid"
sleep 1
"$HT" dump "$T/term" >/dev/null
sleep 1
cpu=$(awk '{print $14 + $15}' "/proc/$pid/stat")
kill -TERM $pid; wait $pid
check "an on-demand dump, then a SIGTERM dump, after closefrom" tq "$T/term" '[d[0]["reason"] for d in proc(rank=0).dumps] == ["on_demand", "sigterm"] and any(f.startswith("wait_after_close (") for f in proc(rank=0).main_frames(2))'
check "the watchdog did not spin ($cpu ticks of CPU in 2 s)" test "$cpu" -lt 20
finish
