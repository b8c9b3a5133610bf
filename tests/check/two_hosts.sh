#!/bin/sh
# SPDX-License-Identifier: MIT
# two_hosts.sh: `hangtrace check` over two hosts, each a network namespace
# with its own host name (unshare -u), joined by a veth pair; two ranks on
# each. Staged faults, one run each: the store port dropped on host A
# (rendezvous_unreachable for B's ranks, B in failed-hosts.txt); every new
# connection but the store's dropped on host B (peer_unreachable);
# NCCL_SOCKET_IFNAME naming no interface of B (socket_ifname_missing); a
# bridge with the same address on both hosts as the bootstrap
# interface (address_conflict); host B's clock 10 s ahead under faketime
# (clock_skew); host B given a loopback MASTER_ADDR (master_addr_loopback);
# rank 3 never launched (missing_rank). Every rank ends
# within the bound.
# limit: 240
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../net/ranks.shlib"

NSA=ht-cka-$$
NSB=ht-ckb-$$
VA=hcka$$
VB=hckb$$
A=10.214.0.1
Bip=10.214.0.2
teardown() {
	for p in $SPAWNED; do kill -9 "$p" 2>/dev/null; done
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	cleanup
}
trap teardown EXIT

if ! why=$(two_hosts "$NSA" "$NSB" "$VA" "$VB" "$A" "$Bip"); then
	skip two_hosts "$why"
	finish
fi
if ! command -v unshare >/dev/null 2>&1 || ! unshare -um true 2>/dev/null; then
	skip two_hosts "no UTS namespaces (unshare -u): the hosts would share a name"
	finish
fi
P=29577
TO=8
# Each host resolves both names, as a cluster's /etc/hosts or DNS would.
HOSTS=$T/hosts
printf '127.0.0.1 localhost\n%s hosta-%s\n%s hostb-%s\n' "$A" $$ "$Bip" $$ >"$HOSTS"
export HOSTS

# host NS NAME RANK DIR [VAR=VALUE...] [-- PREFIX...]: one rank on a host.
rank_on() {
	ns=$1; name=$2; r=$3; d=$4; shift 4
	ip netns exec "$ns" unshare -um sh -c 'hostname "$0" && mount --bind "$HOSTS" /etc/hosts &&
		exec "$@"' "$name" \
		env RANK="$r" WORLD_SIZE=4 LOCAL_RANK=$((r % 2)) MASTER_ADDR=$A MASTER_PORT=$P "$@" \
		"$HT" check --dir "$d" --timeout $TO --no-nccl >"$d.out.$r" 2>&1 &
	SPAWNED="$SPAWNED $!"
	PIDS="$PIDS $!"
}

# run_job DIR [B_ENV...]: ranks 0,1 on host A, 2,3 on host B; waits; $SECS.
run_job() {
	d=$1; shift
	mkdir -p "$d"
	PIDS=""
	start=$(date +%s.%N)
	rank_on "$NSA" "hosta-$$" 0 "$d" ${A_ENV:-}
	rank_on "$NSA" "hosta-$$" 1 "$d" ${A_ENV:-}
	rank_on "$NSB" "hostb-$$" 2 "$d" "$@"
	[ -n "${NO_RANK3:-}" ] || rank_on "$NSB" "hostb-$$" 3 "$d" "$@"
	for x in $PIDS; do wait "$x"; done
	SECS=$(echo "$(date +%s.%N) - $start" | bc)
	"$HT" report --json "$d" >"$d.json" 2>"$d.err"
	"$HT" report "$d" >"$d.txt" 2>&1
}

# first_error DIR CODE RANKS: the first error verdict is CODE blaming RANKS.
first_error() {
	"$PY" -c "
import json, sys
r = json.load(open('$1.json'))
v = [x for x in r['verdicts'] if x['severity'] == 'error']
assert v and v[0]['code'] == '$2' and v[0]['ranks'] == $3, [(x['code'], x['ranks']) for x in v]
"
}
failed_hosts() { [ -f "$1/failed-hosts.txt" ] && [ "$(cat "$1/failed-hosts.txt")" = "$2" ]; }

# A healthy two-host run first: everything passes, the peers reach each other.
run_job "$T/ok"
check two_hosts_pass tq "$T/ok" "(len(procs) == 4 and not events('check', result='fail')
	and all(e['result'] == 'pass' for e in events('check', check='peer')))"
check two_hosts_pass_failed_hosts_empty failed_hosts "$T/ok" ""
check two_hosts_pass_within_bound [ "$(echo "$SECS < $TO + 1" | bc)" = 1 ]

# The store port dropped on host A for what comes over the veth.
ip netns exec "$NSA" iptables -A INPUT -i "$VA" -p tcp --dport $P -j DROP
run_job "$T/store"
ip netns exec "$NSA" iptables -D INPUT -i "$VA" -p tcp --dport $P -j DROP
check store_dropped_first_error first_error "$T/store" rendezvous_unreachable "[2, 3]"
check store_dropped_fail_in_table grep -q "FAIL hostb-$$ rendezvous" "$T/store.txt"
check store_dropped_failed_hosts failed_hosts "$T/store" "hostb-$$"
check store_dropped_within_bound [ "$(echo "$SECS < $TO + 1" | bc)" = 1 ]
cp "$T/store.txt" "${HT_TABLE_OUT:-/dev/null}" 2>/dev/null

# Every new connection into host B dropped but the store's port.
ip netns exec "$NSB" iptables -A INPUT -i "$VB" -p tcp --syn ! --dport $P -j DROP
run_job "$T/peer"
ip netns exec "$NSB" iptables -D INPUT -i "$VB" -p tcp --syn ! --dport $P -j DROP
check peer_dropped_first_error first_error "$T/peer" peer_unreachable "[2]"
check peer_dropped_failed_hosts failed_hosts "$T/peer" "hostb-$$"

# NCCL_SOCKET_IFNAME names no interface of host B.
run_job "$T/ifname" NCCL_SOCKET_IFNAME==eth9
check ifname_missing_first_error first_error "$T/ifname" socket_ifname_missing "[2, 3]"
check ifname_missing_failed_hosts failed_hosts "$T/ifname" "hostb-$$"

# The same address on both hosts' bootstrap interface (identical bridges).
for ns in "$NSA" "$NSB"; do
	ip -n "$ns" link add htdup type bridge && ip -n "$ns" addr add 172.31.9.1/24 dev htdup &&
		ip -n "$ns" link set htdup up
done
A_ENV=NCCL_SOCKET_IFNAME=htdup run_job "$T/dup" NCCL_SOCKET_IFNAME=htdup
check address_conflict_first_error first_error "$T/dup" address_conflict "[0, 1, 2, 3]"
check address_conflict_named tq "$T/dup" "'172.31.9.1' in proc(rank=2).ev('check', check='addresses')['why']"

# Host B's clock 10 s ahead.
if command -v faketime >/dev/null 2>&1; then
	run_job "$T/clock" faketime -f +10s
	check clock_skew_first_error first_error "$T/clock" clock_skew "[2, 3]"
	check clock_skew_failed_hosts failed_hosts "$T/clock" "hostb-$$"
	check clock_skew_amount tq "$T/clock" "'10.' in proc(rank=2).ev('check', check='clock')['why']"
else
	skip clock_skew "faketime is not installed"
fi
# Host B told MASTER_ADDR=127.0.0.1 (its own loopback) in a two-host job.
run_job "$T/lo" MASTER_ADDR=127.0.0.1 LOCAL_WORLD_SIZE=2
check master_addr_loopback_first_error first_error "$T/lo" master_addr_loopback "[2, 3]"
check master_addr_loopback_failed_hosts failed_hosts "$T/lo" "hostb-$$"

# Rank 3 never launched: missing_rank, and every other rank ends in time.
NO_RANK3=1 run_job "$T/miss"
check missing_rank_first_error first_error "$T/miss" missing_rank "[3]"
check missing_rank_within_bound [ "$(echo "$SECS < $TO + 1" | bc)" = 1 ]
check missing_rank_others_end tq "$T/miss" "len(procs) == 3 and all(p.exit['status'] == 1 for p in procs)"

echo "--- the report's table for the dropped store port:"
sed -n '/^Check run/,/failing hosts/p' "$T/store.txt"
finish
