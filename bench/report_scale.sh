#!/bin/sh
# SPDX-License-Identifier: MIT
# report_scale.sh [--set repeated|varied|both] [RANKS...]: the report's
# budgets of SPEC section 9: `hangtrace report` over the traces of a
# stalled job of 16,384 ranks in at most 3 s and 1 GiB on 2 cores (131,072:
# 6 s and 768 MiB), on traces that repeat and on traces whose ranks differ
# as real ones do. Synthesises the trace folders with bench/gen_traces.py
# (8 ranks per host, a torchrun agent per host, one rank stuck loading a
# checkpoint, the rest waiting in ncclCommInitRank with three dumps of 12
# threads each): the repeated set (every rank the same timings, CPU, I/O,
# pids) under $B/bench/traces-N, the varied set (gen_traces.py --vary: start
# skew, per-rank CPU, I/O, ages, durations, pids, host facts) under
# $B/bench/traces-varied-N, both kept between runs. For each size it runs
# the report 3 times on each set, alternating the sets round by round (the
# machine being shared), then prints one table per set (wall time, CPU
# time and peak memory of the best of 3 by wall time, and how time grows
# per rank) and, for both sets, the ratios varied/repeated. Every run goes
# to $B/bench/report_scale.log. The set may also come from REPORT_SET.
# Default: both sets at 1024, 4096 and 16384 ranks. 131072 ranks take
# several minutes to generate and about 3.6 GB of disk per set.
set -eu
: "${B:?B must name the build folder}"
root=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
set_=${REPORT_SET:-both}
if [ "${1:-}" = "--set" ]; then
	[ $# -ge 2 ] || { echo "report_scale: --set needs repeated, varied or both" >&2; exit 2; }
	set_=$2
	shift 2
fi
case $set_ in
repeated | varied) sets=$set_ ;;
both) sets="repeated varied" ;;
*) echo "report_scale: unknown set '$set_' (repeated, varied or both)" >&2; exit 2 ;;
esac
sizes=${*:-1024 4096 16384}
mkdir -p "$B/bench"
[ -x /usr/bin/time ] || { echo "report_scale: /usr/bin/time is missing (apt-get install time)"; exit 0; }
log=$B/bench/report_scale.log
echo "# $(date -u '+%Y-%m-%dT%H:%M:%SZ') sets: $sets; sizes: $sizes; $(uptime)" >>"$log"

folder() { # set ranks
	if [ "$1" = varied ]; then echo "$B/bench/traces-varied-$2"; else echo "$B/bench/traces-$2"; fi
}

for n in $sizes; do
	for s in $sets; do
		dir=$(folder "$s" "$n")
		if [ ! -f "$dir/.complete" ]; then
			rm -rf "$dir"
			if [ "$s" = varied ]; then
				"$PY" "$root/bench/gen_traces.py" "$dir" --ranks "$n" --vary >/dev/null
			else
				"$PY" "$root/bench/gen_traces.py" "$dir" --ranks "$n" >/dev/null
			fi
			touch "$dir/.complete"
		fi
		rm -f "$B/bench/best.$s.$n"
	done
	for round in 1 2 3; do
		for s in $sets; do
			dir=$(folder "$s" "$n")
			/usr/bin/time -f '%e %U %S %M' -o "$B/bench/time.$s.$n" \
				"$B/hangtrace" report "$dir" >"$B/bench/report.$s.$n" 2>/dev/null || true
			# (a non-zero exit adds a line before the numbers: the report found an error)
			tail -n 1 "$B/bench/time.$s.$n" >"$B/bench/last.$s.$n"
			read -r wall user sys rss <"$B/bench/last.$s.$n"
			echo "$s $n $round $wall $user $sys $rss" >>"$log"
			best=
			[ ! -f "$B/bench/best.$s.$n" ] || read -r best _ <"$B/bench/best.$s.$n"
			if [ -z "$best" ] || awk "BEGIN { exit !($wall < $best) }"; then
				echo "$wall $user $sys $rss" >"$B/bench/best.$s.$n"
			fi
		done
	done
	for s in $sets; do
		grep -q "straggler" "$B/bench/report.$s.$n" ||
			echo "report_scale: the report of $n ranks ($s) does not name the straggler" >&2
	done
done

for s in $sets; do
	if [ "$s" = varied ]; then
		echo "-- varied traces (gen_traces.py --vary: ranks differ as real ones do)"
	else
		echo "-- repeated traces (every rank the same timings, CPU, I/O and pids)"
	fi
	printf '%-7s %7s %9s %9s %9s %9s %10s %12s\n' ranks MiB_in wall_s user_s sys_s cpu_s \
		maxrss_MiB us_per_rank
	for n in $sizes; do
		read -r wall user sys rss <"$B/bench/best.$s.$n"
		printf '%-7s %7s %9s %9s %9s %9s %10s %12s\n' "$n" "$(du -sm "$(folder "$s" "$n")" | cut -f1)" \
			"$wall" "$user" "$sys" "$(awk "BEGIN { printf \"%.2f\", $user + $sys }")" \
			"$((rss / 1024))" "$(awk "BEGIN { printf \"%.1f\", $wall * 1000000 / $n }")"
	done
done
if [ "$sets" = "repeated varied" ]; then
	echo "-- varied / repeated (each the best of 3 by wall time)"
	printf '%-7s %7s %9s %10s\n' ranks wall cpu maxrss
	for n in $sizes; do
		read -r w0 u0 s0 r0 <"$B/bench/best.repeated.$n"
		read -r w1 u1 s1 r1 <"$B/bench/best.varied.$n"
		awk "BEGIN { printf \"%-7s %7.2f %9.2f %10.2f\n\", $n, $w1 / $w0, ($u1 + $s1) / ($u0 + $s0), $r1 / $r0 }"
	done
fi
echo "budget (SPEC section 9): 16384 ranks in at most 3 s and 1024 MiB; 131072 in at most 6 s and 768 MiB; the same on varied traces"
