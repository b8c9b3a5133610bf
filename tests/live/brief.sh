#!/bin/bash
# SPDX-License-Identifier: MIT
# brief.sh: the verdicts in the job's log (SPEC section 3, HANGTRACE_BRIEF).
# A 4-rank job on the fake NCCL with rank 3 never started (plain LD_PRELOAD:
# the library finds build/hangtrace beside itself), and a 4-rank PyTorch
# gloo job with rank 3 never started (under `hangtrace run`, which names
# the command in HANGTRACE_COMMAND): the brief appears once in all the
# ranks' stderr together, soon after the first stall, names missing_rank
# and rank 3, and ends with the report command; the report it ran wrote no
# trace of its own. HANGTRACE_BRIEF=0 leaves only the stall lines; healthy
# jobs shorter than the deadline print nothing of ours.
# limit: 300
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/nccl/helpers.inc"

# WAIT: how long a wait for the jobs (a brief, the dumps, the slow brief's
# start) may take before it fails: generous, for make test's load. How soon
# the brief comes after the first stall is timing_checks' business, not the
# wait's.
WAIT=90

# now: wall-clock seconds with a fraction.
now() { date +%s.%N; }

# wait_brief SECS FILES...: polls the files every 0.1 s until one holds the
# brief's last line; prints the wall time it was first seen. Name the files
# one by one, not by a glob: right after the launch a glob leaves out the
# logs that a rank's shell, started in the background, has not opened yet.
# Under load the brief then went to a log left out, and the wait ran out
# with the brief in it (make test, with 20 s; here with 60 s and 90 s).
wait_brief() {
	local end i
	end=$(( $(date +%s) + $1 ))
	shift
	while [ "$(date +%s)" -le $end ]; do
		if grep -q '^hangtrace: .*what to try: hangtrace report ' "$@" 2>/dev/null; then
			now
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# brief_checks NAME DIR FILES...: the brief's content across the ranks' logs.
brief_checks() {
	local n=$1 d=$2
	shift 2
	cat "$@" >"$T/$n.all"
	check "$n: the brief appears once for the job, not once per rank" \
		test "$(grep -c '^hangtrace: .*what to try: hangtrace report ' "$T/$n.all")" -eq 1
	check "$n: its first verdict is missing_rank, rank 3" \
		grep -q '^hangtrace: 1 ERROR missing_rank rank 3: ' "$T/$n.all"
	check "$n: it says the job is stuck, ranks stalled, 3 missing" \
		grep -Eq '^hangtrace: the job is stuck.*3 of 4 ranks traced.*[123] stalled.*missing: 3' "$T/$n.all"
	check "$n: at most 12 lines of brief, the report command for the rest" \
		sh -c "[ \$(grep -c '^hangtrace: ' '$T/$n.all') -le 12 ] &&
		       grep -q '^hangtrace: .*hangtrace report $d\$' '$T/$n.all'"
	check "$n: one process claimed it in the trace folder" test -s "$d/.hangtrace-brief"
	check "$n: the report it ran traced nothing of its own (the library was not preloaded)" \
		tq "$d" 'not [p for p in procs if "--brief" in " ".join(p.header.get("cmdline") or [])] and len(procs) == 3'
}

# timing_checks NAME DIR SEEN DEADLINE: the brief within 1 s (plus slack for
# a loaded machine) of the first stall line, and the first look at each
# rank at the deadline. A stall line is a look that declared the rank
# blocked (its dump_end "declared"); a look that found it working declares
# nothing and prints no line: under load a rank still importing torch at
# its launch look (3 s) is one, and the brief, 4 s after that look, came
# 0.3 s after the first stall line.
timing_checks() {
	local n=$1 d=$2 seen=$3 dl=$4
	local lines="[d[0]['ts'] for p in procs for d in p.dumps if d[0].get('reason') == 'timeout' and d[2] is not None and d[2].get('declared', True)]"
	echo "# $n: the brief was seen $(echo "$seen - $(tq "$d" "print(min($lines)) or True" -t)" | bc) s after the first stall line"
	check "$n: the brief came within 1 s (+1 s slack) of the first stall line, the deadline after the phase began" \
		tq "$d" "(lambda s: min(s) + 2.0 >= $seen and min(s) - 1.0 <= $seen)($lines) and all(abs(p.ev('stall', reason='timeout')['phase_age'] - $dl) < 1.5 for p in procs)"
}

# --- fake NCCL: rank 3 never starts
D=$T/nccl
start=$(now)
for r in 0 1 2; do
	rank n$r HANGTRACE_DIR=$D HANGTRACE_TIMEOUT=2 ID_FILE=$T/id1 RANK=$r WORLD_SIZE=4 -- "$JOB" job
done
if seen=$(wait_brief $WAIT "$T"/n{0,1,2}.out); then
	pass "nccl: a brief appeared $(echo "$seen - $start" | bc) s after the launch (deadline 2 s)"
	sleep 1	# a second brief would have come by now
	kill_ranks
	brief_checks nccl "$D" "$T"/n{0,1,2}.out
	timing_checks nccl "$D" "$seen" 2
else
	fail "nccl: a brief" "none within $WAIT s; the logs: $(cat "$T"/n?.out | head -c 600)"
	kill_ranks
fi

# --- HANGTRACE_BRIEF=0: the stall lines only
D=$T/off
for r in 0 1 2; do
	rank o$r HANGTRACE_DIR=$D HANGTRACE_TIMEOUT=1 HANGTRACE_BRIEF=0 ID_FILE=$T/id2 RANK=$r \
		WORLD_SIZE=4 -- "$JOB" job
done
wait_dumps "$D" 3 $WAIT
sleep 1.5
kill_ranks
cat "$T"/o?.out >"$T/off.all"
check "HANGTRACE_BRIEF=0: each rank's stall line, no brief, no claim" \
	sh -c "[ \$(grep -c 'stalled .* in nccl_init' '$T/off.all') -eq 3 ] &&
	       ! grep -q '^hangtrace: ' '$T/off.all' && [ ! -e '$D/.hangtrace-brief' ]"

# --- a folder reused from an earlier job: its marker names a process of
# this host that has ended (stale: replaced, the brief printed once); a
# marker of another host is left alone (no brief).
H=$(ls "$T/nccl" | sed -n 's/^\(.*\)\.[0-9]*\.jsonl$/\1/p' | head -n 1)
sh -c 'exit 0' &
dead=$!
wait $dead
for c in reuse other; do
	mkdir -m 0700 -p "$T/$c"
	if [ $c = reuse ]; then echo "$H $dead" >"$T/$c/.hangtrace-brief"; else echo "elsewhere 1" >"$T/$c/.hangtrace-brief"; fi
	for r in 0 1 2; do
		rank $c$r HANGTRACE_DIR=$T/$c HANGTRACE_TIMEOUT=2 ID_FILE=$T/id-$c RANK=$r WORLD_SIZE=4 -- "$JOB" job
	done
	wait_dumps "$T/$c" 3 $WAIT
	[ $c = reuse ] && wait_brief $WAIT "$T"/reuse{0,1,2}.out >/dev/null
	sleep 1.5
	kill_ranks
	cat "$T"/$c?.out >"$T/$c.all"
done
n=$(grep -c 'what to try: hangtrace report' "$T/reuse.all")
check "a stale marker of this host (pid $dead ended): replaced by this job's, one brief (briefs: $n, marker: $(cat "$T/reuse/.hangtrace-brief" 2>&1))" \
	sh -c "[ $n -eq 1 ] && ! grep -q ' $dead\$' '$T/reuse/.hangtrace-brief'"
[ "$n" -eq 1 ] || sed 's/^/# reuse: /' "$T/reuse.all"
check "another host's marker: kept, no brief here" \
	sh -c "! grep -q '^hangtrace: ' '$T/other.all' && grep -q '^elsewhere 1\$' '$T/other/.hangtrace-brief'"

# --- a brief command that hangs: killed after 5 s; the watchdog of the
# process running it still answers SIGTERM with a dump meanwhile.
printf '#!/bin/sh\necho $$ >>"%s/slow.pids"\necho "slow brief: $*"\nexec sleep 60\n' "$T" >"$T/slow"
chmod +x "$T/slow"
for job in bound term; do
	D=$T/$job
	rm -f "$T/slow.pids"
	for r in 0 1 2; do
		rank $job$r HANGTRACE_DIR=$D HANGTRACE_TIMEOUT=1 HANGTRACE_COMMAND=$T/slow \
			ID_FILE=$T/id$job RANK=$r WORLD_SIZE=4 -- "$JOB" job
	done
	for i in $(seq 1 $((WAIT * 10))); do [ -s "$T/slow.pids" ] && break; sleep 0.1; done
	started=$(now)
	slow=$(head -n 1 "$T/slow.pids" 2>/dev/null)
	claimant=$(cut -d' ' -f2 "$D/.hangtrace-brief" 2>/dev/null)
	if [ $job = bound ]; then
		check "slow brief: started once, as 'report --brief --time-limit 10 DIR'" \
			sh -c "[ \$(wc -l <'$T/slow.pids') -eq 1 ] && cat $T/bound?.out | grep -q '^slow brief: report --brief --time-limit 10 $D\$'"
		for i in $(seq 1 100); do kill -0 "$slow" 2>/dev/null || break; sleep 0.1; done
		gone=$(now)
		check "slow brief: killed and reaped 5 s after it started (+2 s slack)" \
			sh -c "! kill -0 $slow 2>/dev/null && [ \$(echo '$gone - $started < 7 && $gone - $started > 4.5' | bc) = 1 ]"
		check "slow brief: the log says it was stopped, and where the report is" \
			sh -c "cat $T/bound?.out | grep -q 'the brief report took too long and was stopped; run: hangtrace report $D\$'"
	else
		kill -TERM "$claimant"
		for i in $(seq 1 300); do kill -0 "$claimant" 2>/dev/null || break; sleep 0.1; done
		check "slow brief: SIGTERM to the process running it: a whole sigterm dump, then it ends" \
			tq "$D" "(lambda p: p.exit and any(d[0]['reason'] == 'sigterm' and d[2] is not None for d in p.dumps))(proc(pid=$claimant))"
		kill -9 "$slow" 2>/dev/null
	fi
	kill_ranks
done

# --- healthy fake NCCL job, shorter than the deadline: nothing of ours
D=$T/healthy
for r in 0 1 2 3; do
	rank h$r HANGTRACE_DIR=$D HANGTRACE_TIMEOUT=20 ID_FILE=$T/id3 RANK=$r WORLD_SIZE=4 -- "$JOB" job
done
check "healthy nccl: the job completes" reap
check "healthy nccl: no line of ours in any rank's log, no claim" \
	sh -c "! grep -q 'hangtrace' $T/h?.out && [ ! -e '$D/.hangtrace-brief' ]"

# --- PyTorch (gloo): rank 3 never starts; ranks under hangtrace run
if ! "$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	skip torch "python3-torch with gloo is not importable by $PY (scripts/deps.sh test installs it)"
	finish
fi
TR=$ROOT/tests/net/torch_rank.py
free_port() {
	"$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
D=$T/torch
P=$(free_port)
for r in 0 1 2; do
	RANK=$r WORLD_SIZE=4 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P STORE_TIMEOUT=60 \
		"$HT" run --dir "$D" --timeout 3 -- "$PY" "$TR" ok >"$T/t$r.out" 2>"$T/t$r.err" &
	SPAWNED="$SPAWNED $!"
	PIDS="$PIDS $!"
done
if seen=$(wait_brief $WAIT "$T"/t{0,1,2}.err); then
	pass "torch: a brief appeared in the ranks' stderr"
	sleep 1
	kill_ranks
	brief_checks torch "$D" "$T"/t{0,1,2}.err
	timing_checks torch "$D" "$seen" 3
	check "torch: nothing of ours on the ranks' stdout" sh -c "! grep -q hangtrace $T/t?.out"
else
	fail "torch: a brief" "none within $WAIT s; stderr: $(cat "$T"/t?.err | head -c 600)"
	kill_ranks
fi

# --- healthy 2-rank PyTorch job, shorter than the deadline
D=$T/torch_ok
P=$(free_port)
for r in 0 1; do
	RANK=$r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P STORE_TIMEOUT=60 \
		"$HT" run --dir "$D" --timeout 60 -- "$PY" "$TR" ok >"$T/k$r.out" 2>"$T/k$r.err" &
	SPAWNED="$SPAWNED $!"
	PIDS="$PIDS $!"
done
check "healthy torch: the job completes" reap
check "healthy torch: the ranks summed, no line of ours on stderr, no claim" \
	sh -c "grep -q 'sum 3' $T/k0.out && ! grep -q hangtrace $T/k?.err && [ ! -e '$D/.hangtrace-brief' ]"
finish
