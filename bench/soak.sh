#!/bin/bash
# SPDX-License-Identifier: MIT
# soak.sh: false alarms counted over many runs (`make soak`). Each healthy
# shape of tests/frameworks/healthy.inc, SOAK_RUNS times (default 50): the
# torch shapes on every torch build there is, the MPI, fake-NCCL and JAX
# shapes once over; each a 2-rank job for 8x a 1.5 s deadline under
# --on-stall abort, two jobs at a time, one starting as another ends (four ranks on
# the machine's cores: loaded). SOAK_SHAPES picks shapes. Prints, per shape and build, the runs
# and how many of them had an abort or a nonzero exit, a stall line, a
# declared look, an error verdict; exits 1 when any count is not 0. The
# traces of a failed run are kept under $SOAK_KEEP (default $B/soak).
# limit: none (50 runs of every shape take about 90 minutes on 2 cores)
set -u
B=${B:?B must name the build folder}
set -- "$B"
. "$(dirname "$0")/../tests/lib.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)	# lib.sh's is for tests/<dir>/
TMO=1.5
FW=$ROOT/tests/frameworks
. "$FW/fw.inc"
. "$FW/healthy.inc"
N=${SOAK_RUNS:-50}
KEEP=${SOAK_KEEP:-$B/soak}
torch_builds
runs="" keys=""
for s in ${SOAK_SHAPES:-$TORCH_SHAPES $OTHER_SHAPES}; do
	case " $TORCH_SHAPES " in
	*" $s "*) builds=$(for w in $TORCH_PYS; do echo "${w%%=*}"; done) ;;
	*) why=$(shape_why_not "$s") && builds=x || { echo "soak: $s: SKIP: $why"; continue; } ;;
	esac
	for b in $builds; do
		keys="$keys $b:$s"
		for i in $(seq 1 "$N"); do runs="$runs $b:$s:$i"; done
	done
done
declare -A RUNS BAD STALL DECL ERR
for k in $keys; do RUNS[$k]=0 BAD[$k]=0 STALL[$k]=0 DECL[$k]=0 ERR[$k]=0; done

# tally NAME KEY: counts the run's outcomes, keeps its traces if any is bad.
tally() {
	local n=$1 k=$2 j jobs bad=0
	eval "jobs=\$SHAPE_JOBS_$n"
	RUNS[$k]=$((RUNS[$k] + 1))
	for j in $jobs; do
		[ "$(cat "$T/$j.rc" 2>/dev/null)" = 0 ] || bad=1
	done
	[ $bad = 1 ] && BAD[$k]=$((BAD[$k] + 1))
	local s=0
	for j in $jobs; do no_stall_line "$j" >/dev/null || s=1; done
	[ $s = 1 ] && STALL[$k]=$((STALL[$k] + 1)) && bad=1
	if ! tq "$T/$n" 'not any(x[2] and x[2].get("declared") for p in procs for x in p.dumps)' >/dev/null; then
		DECL[$k]=$((DECL[$k] + 1)); bad=1
	fi
	no_errors "$T/$n" >/dev/null 2>&1 || { ERR[$k]=$((ERR[$k] + 1)); bad=1; }
	if [ $bad = 1 ]; then
		mkdir -p "$KEEP"
		cp -r "$T/$n" "$KEEP/" 2>/dev/null
		for j in $jobs; do cp "$T/$j".* "$KEEP/" 2>/dev/null; done
		echo "soak: $n: not healthy (kept in $KEEP/$n): $(shape_ok "$n" | head -3 | tr '\n' ' ')"
	fi
	rm -rf "${T:?}/$n"
	for j in $jobs; do rm -f "$T/$j".*; done
}

start=$(date +%s)
# ran NAME BUILD SHAPE I: one run ended.
ran() { tally "$1" "$2:$3"; }
shape_pool ran $runs
echo "soak: $(nproc) cores, $N runs a shape, deadline ${TMO} s, 8x it, two jobs at a time, $(( $(date +%s) - start )) s"
printf '%-12s %-26s %5s %6s %6s %8s %6s\n' shape build runs "abort" stall declared error
bad=0
for k in $keys; do
	b=${k%%:*} s=${k#*:}
	name=-
	[ "$b" != x ] && name="$("$(torch_py "$b")" -c 'import torch; print(torch.__version__)' 2>/dev/null) ($b)"
	printf '%-12s %-26s %5d %6d %6d %8d %6d\n' "$s" "$name" "${RUNS[$k]}" "${BAD[$k]}" \
		"${STALL[$k]}" "${DECL[$k]}" "${ERR[$k]}"
	[ $((BAD[$k] + STALL[$k] + DECL[$k] + ERR[$k])) = 0 ] || bad=1
done
exit $bad
