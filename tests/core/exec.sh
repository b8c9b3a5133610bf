# SPDX-License-Identifier: MIT
# exec and on-demand dumps (issue 2, SPEC sections 6, 7): a shell wrapper
# that execs the program keeps one trace file with an exec event; a program
# exec'd from a traced one without rank variables still continues its
# file; hangtrace dump asks every running traced process of this host.
# limit: 30
. "$(dirname "$0")/../lib.sh"
RANK=2 WORLD_SIZE=4 "$HT" run --dir "$T/a" -- /bin/sh -c "exec '$B/tests/core/wait_for_peer' 0" >/dev/null
check "one file for the wrapper and the program" test "$(ls "$T/a" | wc -l)" = 1
check "an exec event with the new program" tq "$T/a" 'proc(rank=2).ev("exec")["path"].endswith("/wait_for_peer") and proc(rank=2).ev("exec")["cmdline"][-1] == "0"'
check "launch again after exec, then the exit" tq "$T/a" '[e["t"] for e in proc(rank=2).events if e["t"] in ("phase", "exec", "exit")] == ["phase", "exec", "phase", "exit"]'

# On demand: two running ranks, one `hangtrace dump`.
for r in 0 1; do
	RANK=$r "$HT" run --dir "$T/b" --timeout 100 -- "$B/tests/core/wait_for_peer" 3 >/dev/null 2>&1 &
	SPAWNED="$SPAWNED $!"
done
sleep 1
"$HT" dump "$T/b" >"$T/dump.out"
check "hangtrace dump names both ranks" sh -c "grep -c 'for a dump' '$T/dump.out' | grep -qx 2"
wait
check "each has an on_demand dump with its stack" tq "$T/b" 'all(p.dumps[0][0]["reason"] == "on_demand" and any(f.startswith("wait_for_peer (") for f in p.main_frames(1)) for p in procs)'
"$HT" dump "$T/b" >/dev/null 2>"$T/none"
check "nothing left to ask once they ended (status 1)" sh -c "[ $? = 1 ] && grep -q 'no running traced process' '$T/none'"
check "hangtrace dump on a missing folder: status 2" sh -c "'$HT' dump '$T/nope' 2>/dev/null; [ \$? = 2 ]"
finish
