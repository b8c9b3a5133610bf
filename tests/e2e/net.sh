#!/bin/bash
# SPDX-License-Identifier: MIT
# net.sh: end to end across network namespaces joined by a veth pair (as
# tests/net/netns.sh): PyTorch gloo ranks (tests/net/torch_rank.py) under
# `hangtrace run --timeout 3`:
#  - the store's port dropped by a firewall rule: the client's connect stays
#    in SYN_SENT -> rendezvous_unreachable, a timeout, not a refusal;
#  - the /etc/hosts trap: two hosts (each its own UTS and mount namespace:
#    its hostname, its /etc/hosts) where MASTER_ADDR resolves to the master
#    on one and to 127.0.1.1 on the other -> master_addr_loopback naming the
#    second host's ranks.
# The namespaces go however the script ends.
# limit: 60
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/e2e.inc"

TR=$ROOT/tests/net/torch_rank.py
TMO=3
if ! "$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	skip e2e_net "python3-torch with gloo is not importable by $PY"
	finish
fi
NSA=ht-e2ea-$$
NSB=ht-e2eb-$$
VA=hte2a$$
VB=hte2b$$
A=10.214.0.1
S=10.214.0.2
teardown() {
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	e2e_teardown
}
trap teardown EXIT

# Two namespaces, a veth pair: A (10.214.0.1) and S (10.214.0.2).
if ! why=$(two_hosts "$NSA" "$NSB" "$VA" "$VB" "$A" "$S"); then
	skip e2e_net "$why"
	finish
fi

# ---- the store's port dropped --------------------------------------------------------
P=29561
FW=1
if ! ip netns exec "$NSB" iptables -A INPUT -i "$VB" -p tcp --dport $P -j DROP 2>"$T/fw.err"; then
	FW=0
	skip "store port dropped by a firewall" \
		"no firewall in the namespace (iptables: $(head -n 1 "$T/fw.err"))"
fi
if [ $FW = 1 ]; then
	# Rank 0 (the store) in the server's namespace, rank 1 in the client's.
	launch dropped 0 ip netns exec "$NSB" env RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=$S \
		MASTER_PORT=$P STORE_TIMEOUT=60 $(htrun dropped) "$PY" "$TR" ok
	launch dropped 1 ip netns exec "$NSA" env RANK=1 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=$S \
		MASTER_PORT=$P STORE_TIMEOUT=60 $(htrun dropped) "$PY" "$TR" ok
fi

# ---- the /etc/hosts trap ---------------------------------------------------------------
# host_rank CASE R NS HOST HOSTS: rank R of 4 in namespace NS, as host HOST
# (its own hostname) seeing HOSTS as /etc/hosts, MASTER_ADDR=master.
host_rank() {
	local c=$1 r=$2 ns=$3 h=$4 hosts=$5
	launch "$c" "$r" ip netns exec "$ns" unshare --mount --uts sh -c \
		'mount --bind "$1" /etc/hosts && hostname "$2" && shift 2 && exec "$@"' sh "$hosts" "$h" \
		env RANK="$r" WORLD_SIZE=4 LOCAL_RANK=$((r % 2)) MASTER_ADDR=master MASTER_PORT=29562 \
		STORE_TIMEOUT=60 $(htrun "$c") "$PY" "$TR" ok
}
printf '127.0.0.1 localhost\n%s master hosta\n' "$A" >"$T/hosts.a"
printf '127.0.0.1 localhost\n127.0.1.1 master hostb\n' >"$T/hosts.b"
UNSHARE=1
if ! ip netns exec "$NSA" unshare --mount --uts sh -c \
	"mount --bind '$T/hosts.a' /etc/hosts && hostname hosta && getent hosts master" \
	>"$T/unshare.out" 2>&1 || ! grep -q "^$A" "$T/unshare.out"; then
	UNSHARE=0
	skip "MASTER_ADDR loopback on one of two hosts" \
		"cannot give a namespace its own hostname and /etc/hosts: $(head -n 1 "$T/unshare.out")"
fi
if [ $UNSHARE = 1 ]; then
	for r in 0 1; do host_rank hosts $r "$NSA" hosta "$T/hosts.a"; done
	for r in 2 3; do host_rank hosts $r "$NSB" hostb "$T/hosts.b"; done
fi

# Waiting: the rank's latest dump is a whole timeout dump in rendezvous, declared.
W="(lambda p: p.dumps and p.dumps[-1][0]['reason'] == 'timeout'
    and p.dumps[-1][0]['phase'] == 'rendezvous' and p.dumps[-1][2] is not None
    and p.declared)"
[ $FW = 1 ] && settle_tq 40 dropped "len(procs) == 2 and all($W(p) for p in procs)
	and proc(rank=1).ev('connect', probe=True, tcp_state='SYN_SENT')"
[ $UNSHARE = 1 ] && settle_tq 40 hosts "len(procs) == 4 and all($W(p) for p in procs)
	and all(proc(rank=r).ev('connect', result='refused') for r in (2, 3))"
stop dropped hosts

if [ $FW = 1 ]; then
	report dropped
	expect "store port dropped: rendezvous_unreachable [1], pending in SYN_SENT, not refused" dropped "
rc == 1 and v0['code'] == 'rendezvous_unreachable' and v0['ranks'] == [1]
and '$S:$P' in v0['summary'] and 'refused' not in v0['summary']
and any('SYN_SENT' in e for e in v0['evidence']) and R(0)['phase'] == 'rendezvous'"
fi
if [ $UNSHARE = 1 ]; then
	report hosts
	expect "MASTER_ADDR is 127.0.1.1 on hostb: master_addr_loopback [2, 3]" hosts "
rc == 1 and v0['code'] == 'master_addr_loopback' and v0['ranks'] == [2, 3]
and sorted(d['job']['hosts']) == ['hosta', 'hostb'] and 'hostb' in v0['summary']
and R(2)['host'] == R(3)['host'] == 'hostb' and R(0)['host'] == 'hosta'"
fi
finish
