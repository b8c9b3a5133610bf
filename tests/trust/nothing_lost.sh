# SPDX-License-Identifier: MIT
# Nothing lost (issue 7): SIGKILL at random moments of a process writing
# events as fast as it can leaves files whose every line parses, none
# interleaved with another; 16 processes appending to one folder at once
# likewise; a trace folder on a full file system leaves the job unchanged
# and says once, on stderr, that tracing stopped and why.
# limit: 90
. "$(dirname "$0")/../lib.sh"
S=$B/tests/trust/event_storm
for i in 1 2 3 4 5 6 7 8; do
	RANK=0 HANGTRACE_DIR="$T/k$i" LD_PRELOAD=$LIB "$S" &
	pid=$!; SPAWNED="$SPAWNED $pid"
	sleep "0.$(( (i * 37) % 9 + 1 ))"
	kill -9 $pid; wait $pid 2>/dev/null
done
# tq parses every line of every file (it fails on any that does not);
# -t allows only a file's very last line to be cut, as SIGKILL may.
check "after 8 random SIGKILLs every complete line parses" sh -c "for d in '$T'/k*; do /usr/bin/python3 '$ROOT/tests/tq.py' -t \"\$d\" 'len(procs) > 1' || exit 1; done"
check "every fork event in the killed parents is whole" sh -c "for d in '$T'/k*; do /usr/bin/python3 '$ROOT/tests/tq.py' -t \"\$d\" 'all(set(e) >= {\"t\", \"ts\", \"mono\", \"tid\", \"child\", \"cuda_initialized\"} for e in events(\"fork\"))' || exit 1; done"

for r in $(seq 0 15); do
	RANK=$r HANGTRACE_DIR="$T/many" LD_PRELOAD=$LIB "$S" 25 &
	SPAWNED="$SPAWNED $!"
done
wait
check "16 processes x 100 forks: 1616 files, all whole" tq "$T/many" 'len(procs) == 16 + 16 * 100 and all(p.exit is not None for p in procs)'

# A full file system: room for a few lines only.
mkdir -p "$T/full"
if mount -t tmpfs -o size=16k tmpfs "$T/full" 2>/dev/null; then
	out=$(RANK=0 "$HT" run --dir "$T/full/traces" --timeout 0.3 -- "$B/tests/core/wait_for_peer" 1 32 2>"$T/err"); rc=$?
	umount "$T/full"
	check "full file system: job output and status unchanged" test $rc = 0 -a "$out" = "$(printf 'waiting 1 s\ndone')"
	check "full file system: said once, with the reason" sh -c "[ \$(grep -c 'tracing stopped' '$T/err') = 1 ] && grep -q 'no space left on device' '$T/err'"
else
	skip "full file system" "cannot mount a tmpfs here"
fi
finish
