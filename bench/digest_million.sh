#!/bin/sh
# SPDX-License-Identifier: MIT
# digest_million.sh [NODES]: SPEC section 9's budget for `hangtrace report`
# merging 131,072 node digests (1,048,576 ranks): at most 10 s and 2 GiB on
# 2 cores. The input: the traces of 64 real-shaped nodes (bench/gen_traces.py
# --vary --world-size NODES*8: 8 ranks and a torchrun agent per host, one rank
# stuck loading a checkpoint, the others waiting in ncclCommInitRank with
# three dumps), replicated by bench/dg_replicate.c into NODES nodes with
# their own host names, ranks, pids, boot ids, addresses, GPUs and times
# (a few seconds of start skew, their own uptimes), each node's files read
# and written as one digest by the report's own reader and writer, one line
# per node, in one file. Rank 0's node and the straggler's node (rank
# $DM_STRAGGLER, default 777,777) are written once each; the other nodes
# take turns among the other 62 sources. The input is kept under
# $B/bench/million-NODES and reused while dg_replicate (the reader and the
# writer linked in it) and the parameters are the same (its .complete
# marker says which); it is about 13 KB a node (1.7 GB at 131,072 nodes)
# and takes a few minutes on 2 cores.
#
# First, at 64 nodes (a second): dg_replicate --identity over the sources
# must give the digests `hangtrace digest HOSTDIR` gives, byte for byte;
# the report over 64 replicated nodes must be the report over their trace
# files, and its first verdict and its ranks line those of the report over
# a job of 512 ranks that bench/gen_traces.py made whole, its straggler
# the same rank.
#
# Then `hangtrace report FILE` (text to /dev/null), best of 3 by wall time
# (2 when a run takes over a minute), under `ulimit -v` (the memory
# available less 4 GiB, at most 20 GiB: DM_VMEM_KB overrides) and
# `timeout 600` (DM_TIMEOUT), so that it cannot take the shared machine
# down: a run that hits either is said, with what it measured until then.
set -eu
: "${B:?B must name the build folder}"
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/hosts.inc"
PY=/usr/bin/python3
nodes=${1:-131072}
per=8
straggler=${DM_STRAGGLER:-777777}
tmo=${DM_TIMEOUT:-600}
rep=$B/bench/dg_replicate
[ -x /usr/bin/time ] || { echo "digest_million: /usr/bin/time is missing (apt-get install time)"; exit 0; }
[ -x "$rep" ] || { echo "digest_million: $rep is missing (make $rep)"; exit 1; }
mkdir -p "$B/bench"
[ "$straggler" -lt $((nodes * per)) ] || { echo "digest_million: rank $straggler is not in $nodes nodes" >&2; exit 2; }

# The first verdict line and the ranks line of a report's text.
first_verdict() { sed -n '/^VERDICTS/,$p' "$1" | grep -m 1 -E '^ *1 '; }
ranks_line() { grep -m 1 '^ranks ' "$1"; }

# ---- the check at 64 nodes -------------------------------------------------------------
chk=$B/bench/million-check
rm -rf "$chk"
mkdir -p "$chk/rep" "$chk/hosts"
# The whole job of 512 ranks, its straggler at rank 321 (node 40)...
"$PY" "$root/bench/gen_traces.py" "$chk/whole" --ranks 512 --vary --stuck 321 >/dev/null
"$B/hangtrace" report "$chk/whole" >"$chk/whole.txt" 2>&1 || true
# ... and 16 of its nodes, the straggler on the 9th, replicated into 64.
"$PY" "$root/bench/gen_traces.py" "$chk/src" --ranks 128 --vary --world-size 512 --stuck 65 >/dev/null
host_folders "$chk/src" "$chk/hosts"
: >"$chk/cli.dg"
for h in "$chk/hosts"/*; do "$B/hangtrace" digest "$h" >>"$chk/cli.dg"; done
"$rep" --identity -o "$chk/identity.dg" "$chk/src"
cmp -s "$chk/cli.dg" "$chk/identity.dg" || {
	echo "digest_million: dg_replicate --identity is not what hangtrace digest writes" >&2; exit 1; }
"$rep" -n 64 --place gpu00000:0 --place gpu00008:40 --traces "$chk/rep" -o "$chk/rep.dg" "$chk/src"
"$B/hangtrace" report "$chk/rep.dg" >"$chk/rep.dg.txt" 2>&1 || true
"$B/hangtrace" report "$chk/rep" >"$chk/rep.txt" 2>&1 || true
cmp -s "$chk/rep.txt" "$chk/rep.dg.txt" || {
	echo "digest_million: the report over 64 replicated digests is not the report over their traces" >&2; exit 1; }
want=$(first_verdict "$chk/whole.txt")
got=$(first_verdict "$chk/rep.dg.txt")
if [ -z "$want" ] || [ "$want" != "$got" ] || [ "$(ranks_line "$chk/whole.txt")" != "$(ranks_line "$chk/rep.dg.txt")" ]; then
	echo "digest_million: 64 replicated nodes say '$got', $(ranks_line "$chk/rep.dg.txt");" \
		"the whole job says '$want', $(ranks_line "$chk/whole.txt")" >&2
	exit 1
fi
echo "check at 64 nodes: dg_replicate --identity = hangtrace digest; report over the digests = over the traces; first verdict '$(echo "$got" | sed 's/  */ /g; s/^ //')' as the whole job's"

# ---- the input -----------------------------------------------------------------------------
dir=$B/bench/million-$nodes
dg=$dir/digests.dg
src_hosts=64
src_host=$((src_hosts / 2))		# the source host that holds the straggler
key="nodes=$nodes straggler=$straggler src=$src_hosts seed=24 $(md5sum <"$rep" | cut -c1-32) $(md5sum <"$root/bench/gen_traces.py" | cut -c1-32)"
if [ ! -f "$dir/.complete" ] || [ "$(cat "$dir/.complete")" != "$key" ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	t0=$(date +%s)
	"$PY" "$root/bench/gen_traces.py" "$dir/src" --ranks $((src_hosts * per)) --vary \
		--world-size $((nodes * per)) --stuck $((src_host * per + straggler % per)) >/dev/null
	place=$(printf 'gpu%05d' $src_host):$((straggler / per))
	# Two halves at once (the machine's 2 cores), the second appended to the first.
	/usr/bin/time -f '%e %U %S %M' -o "$dir/gen0.time" "$rep" -n "$nodes" --place gpu00000:0 --place "$place" --part 0/2 -o "$dg" "$dir/src" &
	p0=$!
	/usr/bin/time -f '%e %U %S %M' -o "$dir/gen1.time" "$rep" -n "$nodes" --place gpu00000:0 --place "$place" --part 1/2 -o "$dg.1" "$dir/src"
	wait $p0
	cat "$dg.1" >>"$dg"
	rm -f "$dg.1"
	t1=$(date +%s)
	echo "$((t1 - t0)) s wall; halves (wall user sys KB): $(tail -n 1 "$dir/gen0.time"), $(tail -n 1 "$dir/gen1.time")" >"$dir/gen.log"
	echo "$key" >"$dir/.complete"
fi
size=$(wc -c <"$dg")
count=$(wc -l <"$dg")
echo "input: $count digests, $((size / 1048576)) MiB ($dg; generated in $(cut -d' ' -f1-2 "$dir/gen.log"))"

# ---- the report -----------------------------------------------------------------------------
avail=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
lim=${DM_VMEM_KB:-$(( avail - 4194304 < 20971520 ? avail - 4194304 : 20971520 ))}
echo "guard: ulimit -v $((lim / 1024)) MiB, timeout $tmo s (memory available: $((avail / 1024)) MiB)"
out=$B/bench/million.txt
best=""
runs=3
i=0
while [ $i -lt $runs ]; do
	i=$((i + 1))
	rc=0
	# shellcheck disable=SC3045 # (dash, bash and busybox sh have ulimit -v)
	(ulimit -v "$lim"; exec /usr/bin/time -f '%e %U %S %M' -o "$B/bench/million.time" \
		timeout -k 10 "$tmo" "$B/hangtrace" report "$dg" >"$out" 2>"$out.err") || rc=$?
	# (a non-zero exit adds a line before the numbers: exit 1, the report
	# found an error). timeout's TERM, not KILL: KILL would end timeout
	# itself (it signals its process group) before it reaps the report,
	# and time would count nothing of the report's.
	read -r w u s m <<EOT
$(tail -n 1 "$B/bench/million.time")
EOT
	case $rc in
	0 | 1) what="" ;;
	124 | 137) what="stopped at the timeout ($tmo s)" ;;
	*) what="failed (exit $rc: $(head -n 1 "$out.err"))" ;;	# an abort: out of memory?
	esac
	echo "run $i: wall $w s, user $u s, sys $s s, peak RSS $((m / 1024)) MiB${what:+: $what}"
	if [ -n "$what" ]; then
		echo "report over $count digests: $what; no figure against the budget (10 s, 2048 MiB)"
		exit 0
	fi
	if [ -z "$best" ] || awk "BEGIN { exit !($w < $best) }"; then best=$w; bu=$u; bs=$s; bm=$m; fi
	if awk "BEGIN { exit !($w > 60) }"; then runs=2; fi
done
printf '%-8s %9s %8s %7s %7s %9s %s\n' digests input_MiB wall_s user_s sys_s peak_MiB "ranks"
printf '%-8s %9s %8s %7s %7s %9s %s\n' "$count" $((size / 1048576)) "$best" "$bu" "$bs" $((bm / 1024)) \
	"$(ranks_line "$out" | sed 's/^ranks *//')"
echo "first verdict: $(first_verdict "$out" | sed 's/  */ /g; s/^ //')"
ranks_line "$out" | grep -q " of $((nodes * per)) expected" ||
	echo "digest_million: the report does not expect $((nodes * per)) ranks: $(ranks_line "$out")" >&2
first_verdict "$out" | grep -Eq "ERROR +straggler +rank $straggler\$" ||
	echo "digest_million: the first verdict is not rank $straggler's straggler" >&2
echo "budget (SPEC section 9): 131,072 node digests (1,048,576 ranks) merged in at most 10 s and 2048 MiB on 2 cores"
