#!/bin/sh
# SPDX-License-Identifier: MIT
# ib.sh: InfiniBand/RoCE facts from a fake /sys/class/infiniband, mounted
# in a private mount namespace (unshare -m): NCCL_IB_HCA naming no device,
# a port DOWN, NCCL_IB_GID_INDEX at a link-local GID on a RoCE port, each
# an ib_misconfigured naming host, device and port, both in a traced run
# (the library's "ib" line) and in `hangtrace check`; and GID index 3 on
# one host, 4 on the other: a warning (traced, and checked over two hosts
# in network namespaces).
# limit: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../net/ranks.shlib"

if ! unshare -m true 2>/dev/null; then
	skip ib "no mount namespaces (unshare -m)"
	
# The same in `hangtrace check`: two hosts (network namespaces joined by a
# veth pair, each its own host name), GID index 3 on one and 4 on the other.
NSA=ht-iba-$$ NSB=ht-ibb-$$
teardown() {
	for p in $SPAWNED; do kill -9 "$p" 2>/dev/null; done
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	cleanup
}
trap teardown EXIT
if why=$(two_hosts "$NSA" "$NSB" hiba$$ hibb$$ 10.215.0.1 10.215.0.2); then
	P=$(free_port)
	pids=""
	for r in 0 1; do
		ns=$NSA; [ $r = 1 ] && ns=$NSB
		ip netns exec "$ns" unshare -u sh -c 'hostname "$0" && exec "$@"' "ibchk$r-$$" \
			unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs none /sys/class &&
			mkdir /sys/class/infiniband && mount --bind "$0/infiniband" /sys/class/infiniband &&
			exec "$@"' "$F" env RANK=$r WORLD_SIZE=2 MASTER_ADDR=10.215.0.1 MASTER_PORT=$P \
			NCCL_IB_HCA=mlx5_0 NCCL_IB_GID_INDEX=$((3 + r)) \
			"$HT" check --dir "$T/gidchk" --timeout 8 --no-nccl >"$T/gidchk.out.$r" 2>&1 &
		pids="$pids $!"
		SPAWNED="$SPAWNED $!"
	done
	for x in $pids; do wait "$x"; done
	"$HT" report --json "$T/gidchk" >"$T/gidchk.json" 2>/dev/null
	check checked_gid_index_differs_warning "$PY" -c "
import json
r = json.load(open('$T/gidchk.json'))
v = [x for x in r['verdicts'] if x['code'] == 'ib_misconfigured' and 'memlock' not in x['summary']]
assert len(v) == 1 and v[0]['severity'] == 'warning' and 'is 3 on host ibchk0' in v[0]['summary'] and 'but 4 on host ibchk1' in v[0]['summary'], v
assert len(r['check']['hosts']) == 2, r['check']
"
else
	skip checked_gid_index_differs_warning "$why"
fi
finish
fi
# A sysfs-like tree: mlx5_0 port 1 RoCE ACTIVE (GID 0 link-local, GID 3
# and 4 routable RoCE v2), mlx5_1 port 1 InfiniBand DOWN.
put() { mkdir -p "$(dirname "$1")" && echo "$2" >"$1"; }
F=$T/class
p=$F/infiniband/mlx5_0/ports/1
put "$p/state" "4: ACTIVE"; put "$p/phys_state" "5: LinkUp"; put "$p/link_layer" Ethernet
put "$p/rate" "100 Gb/sec (4X EDR)"
put "$p/gids/0" fe80:0000:0000:0000:0a00:27ff:fe00:0001; put "$p/gid_attrs/types/0" "RoCE v2"
put "$p/gids/3" 0000:0000:0000:0000:0000:ffff:0ad5:0001; put "$p/gid_attrs/types/3" "RoCE v2"
put "$p/gids/4" 0000:0000:0000:0000:0000:ffff:0ad5:0101; put "$p/gid_attrs/types/4" "RoCE v2"
p=$F/infiniband/mlx5_1/ports/1
put "$p/state" "1: DOWN"; put "$p/phys_state" "3: Disabled"; put "$p/link_layer" InfiniBand

# in_ns CMD...: CMD with the fake tree at /sys/class/infiniband. (The
# memlock limit here may be low and cannot be raised without
# CAP_SYS_RESOURCE: that problem is real, and left out of the assertions.)
in_ns() {
	unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs none /sys/class &&
		mkdir /sys/class/infiniband && mount --bind "$0/infiniband" /sys/class/infiniband &&
		exec "$@"' "$F" "$@"
}

# traced DIR VAR=VALUE...: one traced rank (a shell that exits 0) under the fake tree.
traced() {
	d=$1; shift
	in_ns env HANGTRACE_DIR="$d" LD_PRELOAD="$LIB" RANK=0 WORLD_SIZE=1 "$@" /bin/sh -c 'exit 0'
	"$HT" report --json "$d" >"$d.json" 2>/dev/null
}
# checked DIR VAR=VALUE...: a one-rank check under the fake tree.
checked() {
	d=$1; shift
	in_ns env RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT="$(free_port)" "$@" \
		"$HT" check --dir "$d" --timeout 6 --no-nccl >/dev/null 2>&1
	"$HT" report --json "$d" >"$d.json" 2>/dev/null
}
# has DIR SEV TEXT: an ib_misconfigured verdict of severity SEV whose summary has TEXT.
has() {
	"$PY" -c "
import json
r = json.load(open('$1.json'))
v = [x for x in r['verdicts'] if x['code'] == 'ib_misconfigured' and x['severity'] == '$2']
assert v and '$3' in v[0]['summary'] and v[0]['ranks'] == [0], [(x['code'], x['summary']) for x in r['verdicts']]
"
}

for how in traced checked; do
	$how "$T/$how-hca" NCCL_IB_HCA=mlx4_0
	sev=warning; [ $how = checked ] && sev=error
	check ${how}_hca_names_no_device has "$T/$how-hca" $sev "NCCL_IB_HCA=mlx4_0 names no device"
	$how "$T/$how-down" NCCL_IB_HCA==mlx5_1
	check ${how}_port_down has "$T/$how-down" $sev "mlx5_1 port 1: port is DOWN"
	$how "$T/$how-gid" NCCL_IB_HCA=mlx5_0 NCCL_IB_GID_INDEX=0
	check ${how}_gid_link_local has "$T/$how-gid" $sev "mlx5_0 port 1: NCCL_IB_GID_INDEX=0 is the link-local GID"
	$how "$T/$how-ok" NCCL_IB_HCA=mlx5_0 NCCL_IB_GID_INDEX=3
	check ${how}_healthy_port_no_verdict "$PY" -c "
import json
r = json.load(open('$T/$how-ok.json'))
assert not [x for x in r['verdicts'] if x['code'] == 'ib_misconfigured' and 'memlock' not in x['summary']]
"
done
check traced_ib_line_facts tq "$T/traced-ok" "(lambda e: [p['dev'] for p in e['ports']] == ['mlx5_0', 'mlx5_1']
	and e['ports'][0]['link_layer'] == 'Ethernet' and e['ports'][0]['selected']
	and [g['index'] for g in e['ports'][0]['gids']] == [0, 3, 4]
	and e['ports'][0]['gids'][1]['type'] == 'RoCE v2'
	and all('memlock' in x['what'] for x in e['problems']))(ev('ib'))"

# Two hosts (two host names), GID index 3 on one, 4 on the other.
mkdir -p "$T/gids"
for r in 0 1; do
	in_ns unshare -u sh -c 'hostname "$0" && exec "$@"' "ibhost$r-$$" env HANGTRACE_DIR="$T/gids" \
		LD_PRELOAD="$LIB" RANK=$r WORLD_SIZE=2 NCCL_IB_HCA=mlx5_0 NCCL_IB_GID_INDEX=$((3 + r)) \
		/bin/sh -c 'exit 0'
done
"$HT" report --json "$T/gids" >"$T/gids.json" 2>/dev/null
check gid_index_differs_warning "$PY" -c "
import json
r = json.load(open('$T/gids.json'))
v = [x for x in r['verdicts'] if x['code'] == 'ib_misconfigured' and 'memlock' not in x['summary']]
assert len(v) == 1 and v[0]['severity'] == 'warning' and 'is 3 on host' in v[0]['summary'] and 'but 4' in v[0]['summary'], v
"

# The same in `hangtrace check`: two hosts (network namespaces joined by a
# veth pair, each its own host name), GID index 3 on one and 4 on the other.
NSA=ht-iba-$$ NSB=ht-ibb-$$
teardown() {
	for p in $SPAWNED; do kill -9 "$p" 2>/dev/null; done
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	cleanup
}
trap teardown EXIT
if why=$(two_hosts "$NSA" "$NSB" hiba$$ hibb$$ 10.215.0.1 10.215.0.2); then
	P=$(free_port)
	pids=""
	for r in 0 1; do
		ns=$NSA; [ $r = 1 ] && ns=$NSB
		ip netns exec "$ns" unshare -u sh -c 'hostname "$0" && exec "$@"' "ibchk$r-$$" \
			unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs none /sys/class &&
			mkdir /sys/class/infiniband && mount --bind "$0/infiniband" /sys/class/infiniband &&
			exec "$@"' "$F" env RANK=$r WORLD_SIZE=2 MASTER_ADDR=10.215.0.1 MASTER_PORT=$P \
			NCCL_IB_HCA=mlx5_0 NCCL_IB_GID_INDEX=$((3 + r)) \
			"$HT" check --dir "$T/gidchk" --timeout 8 --no-nccl >"$T/gidchk.out.$r" 2>&1 &
		pids="$pids $!"
		SPAWNED="$SPAWNED $!"
	done
	for x in $pids; do wait "$x"; done
	"$HT" report --json "$T/gidchk" >"$T/gidchk.json" 2>/dev/null
	check checked_gid_index_differs_warning "$PY" -c "
import json
r = json.load(open('$T/gidchk.json'))
v = [x for x in r['verdicts'] if x['code'] == 'ib_misconfigured' and 'memlock' not in x['summary']]
assert len(v) == 1 and v[0]['severity'] == 'warning' and 'is 3 on host ibchk0' in v[0]['summary'] and 'but 4 on host ibchk1' in v[0]['summary'], v
assert len(r['check']['hosts']) == 2, r['check']
"
else
	skip checked_gid_index_differs_warning "$why"
fi
finish
