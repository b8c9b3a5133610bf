# SPDX-License-Identifier: MIT
# The application's signal handlers keep working (issue 2, SPEC section 6):
# installed after us with sigaction or signal, queries answer with them,
# SIGTERM dumps and then runs them; a SIGSEGV handler that recovers still
# recovers (a signal event, not an exit); the default action still kills
# (exit by SIGSEGV recorded); an application using our real-time signal
# gets it; a signal ignored by the parent stays ignored.
# limit: 60
. "$(dirname "$0")/../lib.sh"
A=$B/tests/core/sigapp
waitfor() { for i in $(seq 50); do grep -q "$1" "$2" 2>/dev/null && return 0; sleep 0.1; done; return 1; }

for mode in term signalfn; do
	RANK=0 "$HT" run --dir "$T/$mode" --timeout 100 -- "$A" $mode >"$T/$mode.out" 2>&1 &
	pid=$!; SPAWNED="$SPAWNED $pid"
	waitfor query "$T/$mode.out"
	kill -TERM $pid; wait $pid; rc=$?
	check "$mode: query returns the application's handler" grep -q "query app" "$T/$mode.out"
	check "$mode: its handler ran after the dump (status 3)" sh -c "[ $rc = 3 ] && grep -q 'app handler' '$T/$mode.out'"
	check "$mode: a sigterm dump" tq "$T/$mode" 'proc(rank=0).dumps[0][0]["reason"] == "sigterm"'
done

out=$(RANK=0 "$HT" run --dir "$T/segv" -- "$A" segv)
check "SIGSEGV handler recovers" test "$out" = recovered
check "recorded as a signal passed on, then a normal exit" tq "$T/segv" 'proc(rank=0).ev("signal")["signal"] == "SIGSEGV" and proc(rank=0).exit["status"] == 0'

RANK=0 "$HT" run --dir "$T/crash" -- "$A" crash >/dev/null 2>&1
check "default SIGSEGV still kills (status 139)" test $? = 139
check "exit by SIGSEGV recorded" tq "$T/crash" 'proc(rank=0).exit["signal"] == "SIGSEGV"'

# The application takes the very real-time signal we picked for dumps.
RANK=0 "$HT" run --dir "$T/rt0" -- "$A" segv >/dev/null
sig=$(sed -n 's/.*"dump_signal":\([0-9]*\).*/\1/p' "$T"/rt0/*.jsonl | head -n 1)
n=$((sig - $(kill -l RTMIN)))
RANK=0 "$HT" run --dir "$T/rt" -- "$A" rt $n >"$T/rt.out" 2>&1 &
pid=$!; SPAWNED="$SPAWNED $pid"
waitfor ready "$T/rt.out"
"$HT" dump "$T/rt" >/dev/null
wait $pid; rc=$?
check "the application's handler for our signal gets it (status 4)" sh -c "[ $rc = 4 ] && grep -q 'rt handler' '$T/rt.out'"

# A signal the parent ignores stays ignored (and is inherited as ignored).
out=$(bash -c "trap '' TERM; RANK=0 '$HT' run --dir '$T/ign' --timeout 100 -- /bin/sh -c 'kill -TERM \$\$; echo survived'")
check "ignored SIGTERM stays ignored" test "$out" = survived
# Our dump signal: the parent's ignoring it makes us pick another one.
bash -c "trap '' RTMAX-1; RANK=0 '$HT' run --dir '$T/pick' -- /bin/true"
check "a signal the parent ignores is not picked" tq "$T/pick" 'proc(rank=0).header["dump_signal"] != '"$(( $(kill -l RTMAX) - 1 ))"
finish
