#!/bin/bash
# SPDX-License-Identifier: MIT
# varied.sh: the report says the same of ranks that vary as real ones do
# (bench/gen_traces.py --vary: start skew, per-rank times, CPU and I/O) as
# of ranks that repeat (issue 24's benchmark sets). The exited scenario:
# one rank loads a checkpoint, the others wait in NCCL init and give up
# over several seconds. One rank_exited verdict names every rank that
# gave up, however their exits spread (found on the varied set: two
# verdicts, each saying the other's exited ranks "wait"), and it follows
# from the straggler.
# limit: 60
. "$(dirname "$0")/../lib.sh"

mkdir -p "$T"
for set in repeated varied seed7; do
	case $set in
	repeated) args="" ;;
	varied) args="--vary" ;;
	seed7) args="--vary --seed 7" ;;
	esac
	# shellcheck disable=SC2086
	"$PY" "$ROOT/bench/gen_traces.py" "$T/$set" --ranks 256 --stuck 77 --scenario exited $args >/dev/null
	"$HT" report --json "$T/$set" >"$T/$set.json" 2>"$T/$set.err"
	echo $? >"$T/$set.rc"
	why=$("$PY" "$ROOT/tests/e2e/expect.py" "$T/$set.json" "$(cat "$T/$set.rc")" "
	v0['code'] == 'straggler' and v0['ranks'] == [77]
	and [x['code'] for x in errors] == ['straggler', 'rank_exited']
	and errors[1]['ranks'] == [r for r in range(256) if r != 77]
	and errors[1]['because'] == 'straggler'
	and 'gave up waiting' in errors[1]['summary']
	and ' wait in nccl_init' not in errors[1]['summary']" 2>&1) &&
		pass "$set: straggler [77], then one rank_exited of the other 255, because straggler" ||
		fail "$set: straggler [77], then one rank_exited of the other 255, because straggler" \
			"$(echo "$why" | head -n 3 | tr '\n' ' ')"
done
finish
