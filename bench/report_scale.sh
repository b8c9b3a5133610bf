#!/bin/sh
# SPDX-License-Identifier: MIT
# report_scale.sh [RANKS...]: the report's budget of SPEC section 9:
# `hangtrace report` over the traces of a stalled job of 16,384 ranks in at
# most 3 s and 1 GiB on 2 cores. Synthesises the trace folders with
# bench/gen_traces.py (8 ranks per host, a torchrun agent per host, one rank
# stuck loading a checkpoint, the rest waiting in ncclCommInitRank with
# three dumps of 12 threads each), kept under $B/bench/traces-N between
# runs, then prints wall time, CPU time and peak memory for each size (the
# best of 3 runs, the machine being shared) and how time grows per rank.
set -eu
: "${B:?B must name the build folder}"
root=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3
sizes=${*:-1024 4096 16384}
mkdir -p "$B/bench"
[ -x /usr/bin/time ] || { echo "report_scale: /usr/bin/time is missing (apt-get install time)"; exit 0; }
printf '%-7s %7s %9s %9s %9s %10s %12s\n' ranks MiB_in wall_s user_s sys_s maxrss_MiB us_per_rank
for n in $sizes; do
	dir=$B/bench/traces-$n
	if [ ! -f "$dir/.complete" ]; then
		rm -rf "$dir"
		"$PY" "$root/bench/gen_traces.py" "$dir" --ranks "$n" >/dev/null
		touch "$dir/.complete"
	fi
	mib=$(du -sm "$dir" | cut -f1)
	best=""
	for i in 1 2 3; do
		/usr/bin/time -f '%e %U %S %M' -o "$B/bench/time.$n" \
			"$B/hangtrace" report "$dir" >"$B/bench/report.$n" 2>/dev/null || true
		# (a non-zero exit adds a line before the numbers: the report found an error)
		set -- $(tail -n 1 "$B/bench/time.$n")
		if [ -z "$best" ] || awk "BEGIN { exit !($1 < $best) }"; then
			best=$1; user=$2; sys=$3; rss=$4
		fi
	done
	grep -q "straggler" "$B/bench/report.$n" || echo "report_scale: the report of $n ranks does not name the straggler" >&2
	printf '%-7s %7s %9s %9s %9s %10s %12s\n' "$n" "$mib" "$best" "$user" "$sys" \
		"$((rss / 1024))" "$(awk "BEGIN { printf \"%.1f\", $best * 1000000 / $n }")"
done
echo "budget (SPEC section 9): 16384 ranks in at most 3 s and 1024 MiB; 131072 in at most 6 s and 768 MiB"
