#!/bin/sh
# SPDX-License-Identifier: MIT
# digest_scale.sh [RANKS...]: the digest budgets of SPEC section 9 (issue
# 24), on bench/gen_traces.py --vary traces (8 ranks per host): the time
# to digest one node's folder (budget 0.2 s), each digest's size against
# its node's raw traces (budget 1/20: the first node's, and the largest
# share of any node, with its name), and `hangtrace report` over every
# node's digest against the report over the raw folder at the same size,
# in one run (best of 3 each, the machine being shared). The merge of
# 131,072 node digests (1,048,576 ranks: budget 10 s, 2 GiB) is
# bench/digest_million.sh's.
set -eu
: "${B:?B must name the build folder}"
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/hosts.inc"
PY=/usr/bin/python3
sizes=${*:-4096 16384}
[ -x /usr/bin/time ] || { echo "digest_scale: /usr/bin/time is missing (apt-get install time)"; exit 0; }
mkdir -p "$B/bench"
best() {  # OUT CMD...: the best of 3 wall times, with that run's user, sys, maxrss
	b=""
	for i in 1 2 3; do
		/usr/bin/time -f '%e %U %S %M' -o "$B/bench/dg.time" "$@" >/dev/null 2>&1 || true
		# (a non-zero exit adds a line before the numbers: the report found an error)
		read -r w u s m <<EOT
$(tail -n 1 "$B/bench/dg.time")
EOT
		if [ -z "$b" ] || awk "BEGIN { exit !($w < $b) }"; then b=$w; bu=$u; bs=$s; bm=$m; fi
	done
	echo "$b $bu $bs $bm"
}
printf '%-7s %6s %10s %10s %7s %8s %9s %11s  %s\n' ranks hosts node_dig_s node_ratio raw_s raw_MiB digests_s digests_MiB \
	"worst_node_ratio"
for n in $sizes; do
	dir=$B/bench/vary-$n
	if [ ! -f "$dir/.complete" ]; then
		rm -rf "$dir"
		"$PY" "$root/bench/gen_traces.py" "$dir" --ranks "$n" --vary >/dev/null
		touch "$dir/.complete"
	fi
	dg=$B/bench/vary-$n.digests
	rm -rf "$dg.d"
	mkdir -p "$dg.d"
	host_folders "$dir" "$dg.d"
	first=$(ls -d "$dg.d"/* | head -n 1)
	set -- $(best "$B/hangtrace" digest "$first" -o "$B/bench/one.dg")
	one=$1
	raw1=$(cat "$first"/*.jsonl | wc -c)
	ratio=$(awk "BEGIN { printf \"1/%.1f\", $raw1 / $(wc -c <"$B/bench/one.dg") }")
	: >"$dg"
	worst="" worst_host=""	# every node's digest against its own traces: the largest share
	for h in "$dg.d"/*; do
		"$B/hangtrace" digest "$h" >"$B/bench/node.dg"
		cat "$B/bench/node.dg" >>"$dg"
		r=$(awk "BEGIN { printf \"%.1f\", $(cat "$h"/*.jsonl | wc -c) / $(wc -c <"$B/bench/node.dg") }")
		if [ -z "$worst" ] || awk "BEGIN { exit !($r < $worst) }"; then worst=$r worst_host=${h##*/}; fi
	done
	set -- $(best "$B/hangtrace" report "$dir")
	rw=$1 rm_=$(($4 / 1024))
	set -- $(best "$B/hangtrace" report "$dg")
	printf '%-7s %6s %10s %10s %7s %8s %9s %11s  %s\n' "$n" "$(ls "$dg.d" | wc -l)" "$one" "$ratio" \
		"$rw" "$rm_" "$1" "$(($4 / 1024))" "1/$worst ($worst_host)"

	"$B/hangtrace" report "$dir" >"$B/bench/dg.raw.txt" 2>/dev/null || true
	"$B/hangtrace" report "$dg" >"$B/bench/dg.dig.txt" 2>/dev/null || true
	cmp -s "$B/bench/dg.raw.txt" "$B/bench/dg.dig.txt" ||
		echo "digest_scale: the report over the digests of $n ranks is not the raw report" >&2
done
echo "budget (SPEC section 9): a node's 8 ranks digested in at most 0.2 s, each digest at most 1/20 of its node's raw traces; 131,072 node digests (1,048,576 ranks) merged in at most 10 s and 2 GiB (bench/digest_million.sh)"
