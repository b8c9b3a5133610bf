#!/bin/sh
# SPDX-License-Identifier: MIT
# netns.sh: a two-host PyTorch job in two network namespaces joined by a
# veth pair. The store's port is dropped by a firewall rule on the server's
# side, as a blocked port on a cluster is: the client's connects must show
# as pending in SYN_SENT (nobody answers), never as refused, and the dumps
# must not end the client. The namespaces go however the script ends.
# limit: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ranks.shlib"

NSA=ht-cli-$$
NSB=ht-srv-$$
VA=htva$$
VB=htvb$$
CLI=10.213.0.1
SRV=10.213.0.2
teardown() {
	for p in $SPAWNED; do kill -9 "$p" 2>/dev/null; done
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	cleanup
}
trap teardown EXIT

if ! "$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	skip two_hosts "python3-torch with gloo is not importable by $PY"
	finish
fi
if ! why=$(two_hosts "$NSA" "$NSB" "$VA" "$VB" "$CLI" "$SRV"); then
	skip two_hosts "$why"
	finish
fi

P=29555
# Only what arrives over the veth is dropped: the server still reaches its
# own store over loopback.
if ! ip netns exec "$NSB" iptables -A INPUT -i "$VB" -p tcp --dport "$P" -j DROP 2>"$T/fw.err"; then
	skip two_hosts "no firewall in the namespace (iptables: $(head -n 1 "$T/fw.err"))"
	finish
fi

MASTER=$SRV
RANK_PREFIX="ip netns exec $NSB"
torch_rank two 0 2 "$P" ok
RANK_PREFIX="ip netns exec $NSA"
torch_rank two 1 2 "$P" ok
RANK_PREFIX=

PENDING="[e for e in proc(rank=1).evs('connect', probe=True) if e['tcp_state'] == 'SYN_SENT']"
wait_tq 60 "$T/two" "len($PENDING) >= 2" || fail blocked_port_pending "no second SYN_SENT probe in 60 s"
alive "$(cat "$T/two.pid.1")" || fail blocked_port_dumps_harmless "the client ended before it was told to"
end_job two 0

check blocked_port_pending_syn_sent tq "$T/two" "(
  $PENDING and all(e['dest'] == '$SRV:$P' and e['role'] == 'rendezvous' and
                   e['result'] == 'pending' and e['dur'] >= 3 for e in $PENDING)
  and proc(rank=1).ev('phase', phase='rendezvous', state='begin')['dest'] == '$SRV:$P'
  and not proc(rank=1).ev('phase', phase='rendezvous', state='end')
  and not proc(rank=1).evs('connect', result='refused'))"
check blocked_port_client_survived_dumps tq "$T/two" "(
  len([s for s, t, e in proc(rank=1).dumps if s['reason'] == 'timeout']) >= 2
  and proc(rank=1).exit.get('signal') == 'SIGTERM')"
check blocked_port_master_not_loopback tq "$T/two" "all(
  p.ev('resolve', what='MASTER_ADDR')['addrs'] == ['$SRV'] and
  not p.ev('resolve', what='MASTER_ADDR')['loopback'] for p in procs)"
check blocked_port_interfaces_recorded tq "$T/two" "(
  ['$VA', '$CLI'] == [[i['name'], i['addrs'][0]] for i in proc(rank=1).ev('host')['ifaces']
                      if i['name'] == '$VA'][0])"
# The store's server saw only itself arrive: the client never did.
check blocked_port_server_names_arrivals tq "$T/two" "(
  proc(rank=0).ev('listen', role='rendezvous')
  and proc(rank=0).evs('accept', role='rendezvous')
  and all(e['peer'].startswith('$SRV:') for e in proc(rank=0).evs('accept', role='rendezvous')))"
finish
