#!/bin/sh
# SPDX-License-Identifier: MIT
# torch.sh: real PyTorch (Debian's python3-torch, gloo) jobs on loopback,
# ranks launched with RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT, each under
# `hangtrace run --timeout 3`: a healthy job, a missing rank, a wrong
# MASTER_PORT, a rank that raises before init, a rank loading a checkpoint.
# Two jobs at a time, on their own ports, to stay short on 2 cores.
# limit: 240
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/ranks.shlib"

if ! "$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	skip torch "python3-torch with gloo is not importable by $PY (scripts/deps.sh test installs it)"
	finish
fi

# ---- a healthy job, and the same job without hangtrace ---------------------------
P=$(free_port)
BP=$(free_port)
for r in 0 1 2 3; do
	torch_rank healthy $r 4 "$P" ok
	launch base $r env RANK=$r WORLD_SIZE=4 MASTER_ADDR=127.0.0.1 MASTER_PORT="$BP" \
		"$PY" "$NET/torch_rank.py" ok
done
end_job healthy 60
end_job base 30
same=1
for r in 0 1 2 3; do
	cmp -s "$T/healthy.out.$r" "$T/base.out.$r" || same=0
	[ "$(rc healthy $r)" = "$(rc base $r)" ] && [ "$(rc healthy $r)" = 0 ] || same=0
done
grep -q '^rank 3 of 4: sum 10$' "$T/healthy.out.3" || same=0
check healthy_output_and_status_unchanged [ $same = 1 ]
check healthy_rendezvous_opened_and_closed tq "$T/healthy" "
len(procs) == 4 and all(
  p.ev('phase', phase='rendezvous', state='begin')['dest'] == '127.0.0.1:$P' and
  p.ev('phase', phase='rendezvous', state='begin')['role'] == 'rendezvous' and
  p.ev('phase', phase='rendezvous', state='end')['dur'] >= 0 and
  p.ev('connect', dest='127.0.0.1:$P', result='ok') and
  p.exit['status'] == 0 for p in procs)"
# The store's server (rank 0) saw the clients arrive: its own two, 2 per other rank.
check healthy_store_accepts_named tq "$T/healthy" "(
proc(rank=0).ev('listen', role='rendezvous')['addr'].endswith(':$P') and
len(proc(rank=0).evs('accept', role='rendezvous')) == 8 and
all(e['peer'].startswith('127.0.0.1:') for e in proc(rank=0).evs('accept', role='rendezvous')))"

# ---- WORLD_SIZE=4, three ranks; and a rank that raises before init -----------------
P=$(free_port)
RP=$(free_port)
for r in 0 1 2; do
	torch_rank missing $r 4 "$P" ok
	torch_rank raise $r 4 "$RP" ok
done
torch_rank raise 3 4 "$RP" raise
WAITING="all(any(s['phase'] == 'rendezvous' and s['reason'] == 'timeout' and e is not None
                 for s, t, e in proc(rank=r).dumps) for r in range(3))"
wait_tq 60 "$T/missing" "$WAITING" || fail missing_rank_waits "no rendezvous stall dump in 60 s"
wait_tq 30 "$T/raise" "$WAITING" || fail raise_others_wait "no rendezvous stall dump in 30 s"
end_job missing 0
end_job raise 0
check missing_rank_every_trace_waits tq "$T/missing" "
len(procs) == 3 and sorted(p.rank for p in procs) == [0, 1, 2] and all(
  p.header['world_size'] == 4 and
  p.ev('phase', phase='rendezvous', state='end') and
  [s for s, t, e in p.dumps if s['phase'] == 'rendezvous' and s['reason'] == 'timeout'] and
  any('init_process_group' in f for f in
      next(t for s, ts, e in p.dumps if s['reason'] == 'timeout' and s['phase'] == 'rendezvous'
           for t in ts if t['main']).get('python', [])) and
  p.exit.get('signal') == 'SIGTERM' for p in procs)"
check raise_trace_ends_with_exit_status tq "$T/raise" "(
proc(rank=3).events[-1]['t'] == 'exit' and proc(rank=3).exit['status'] == 1 and
not proc(rank=3).ev('phase', phase='rendezvous'))"
check raise_rank_status_is_the_jobs [ "$(rc raise 3)" = 1 ]
grep -q 'RuntimeError: rank 3: bad configuration before init' "$T/raise.err.3" ||
	fail raise_traceback_kept "the rank's own traceback is missing from its stderr"

# ---- a wrong MASTER_PORT; and a rank sleeping in load_checkpoint ------------------
# The wrong-port rank runs in a network namespace of its own (loopback only),
# so the kernel's count of TCP connects it made is an independent check of ours.
P=$(free_port)
WRONG=$(free_port)
NS=ht-torch-$$
trap 'ip netns del $NS 2>/dev/null; cleanup' EXIT
if ip netns add "$NS" 2>/dev/null && ip -n "$NS" link set lo up 2>/dev/null; then
	OWNNS=1
else
	OWNNS=0
	ip netns del "$NS" 2>/dev/null
fi
for r in 0 1 2; do
	torch_rank wrongport $r 4 "$P" ok
done
[ $OWNNS = 1 ] && RANK_PREFIX="ip netns exec $NS"
torch_rank wrongport 3 4 "$WRONG" ok
RANK_PREFIX=
CP=$(free_port)
MARK=$T/checkpoint-loaded
for r in 0 1 2; do
	torch_rank ckpt $r 4 "$CP" ok
done
torch_rank ckpt 3 4 "$CP" load_checkpoint "$MARK"
wait_tq 60 "$T/wrongport" "proc(rank=3).ev('connect', result='refused', count=8)" ||
	fail wrong_port_retries "no 8th refused connect in 60 s"
wait_tq 30 "$T/ckpt" "any('load_checkpoint' in f for s, ts, e in proc(rank=3).dumps
	for t in ts if t['main'] for f in t.get('python', []))" ||
	fail load_checkpoint_dumped "no dump inside load_checkpoint in 30 s"
touch "$MARK"
end_job wrongport 0
end_job ckpt 60

DEST=127.0.0.1:$WRONG
check wrong_port_refusals_aggregated tq "$T/wrongport" "(
[e['count'] for e in proc(rank=3).evs('connect', dest='$DEST', result='refused')
 if not e.get('summary') and not e.get('probe')] == [2 ** k for k in range(
   len([e for e in proc(rank=3).evs('connect', dest='$DEST') if not e.get('summary') and not e.get('probe')]))]
and 4 <= len([e for e in proc(rank=3).evs('connect') if not e.get('summary') and not e.get('probe')]) <= 5
and all(e['role'] == 'rendezvous' and e['errno'] == 111
        for e in proc(rank=3).evs('connect') if not e.get('probe'))
and proc(rank=3).ev('phase', phase='rendezvous', state='begin')
and not proc(rank=3).ev('phase', phase='rendezvous', state='end'))"
# The last dump (SIGTERM's) restates the exact count of attempts.
N=$("$PY" -c "
import sys; sys.path.insert(0, '$ROOT/tests'); import tq
p = [p for p in tq.load('$T/wrongport', False) if p.rank == 3][0]
print(p.evs('connect', dest='$DEST', summary=True)[-1]['count'])")
if [ $OWNNS = 1 ]; then
	KERNEL=$(ip netns exec "$NS" cat /proc/net/snmp | awk '/^Tcp: [0-9]/ {print $6}')
	check wrong_port_count_exact [ "$N" -ge 8 ] && [ "$N" = "$KERNEL" ]
	echo "# wrong port: $N refused connects in the trace, kernel ActiveOpens $KERNEL"
else
	skip wrong_port_count_exact "no network namespace (ip netns add failed): the kernel count is not separable"
fi
check wrong_port_others_wait tq "$T/wrongport" "all(
  [s for s, t, e in proc(rank=r).dumps if s['phase'] == 'rendezvous'] for r in range(3))"

check load_checkpoint_frame_in_dump tq "$T/ckpt" "any(re.match(r'load_checkpoint \(.*torch_rank\.py:\d+\)$', f) and s['phase'] == 'launch'
    for s, ts, e in proc(rank=3).dumps for t in ts if t['main'] for f in t.get('python', []))"
check load_checkpoint_job_completes [ "$(rc ckpt 0)$(rc ckpt 1)$(rc ckpt 2)$(rc ckpt 3)" = 0000 ]
check load_checkpoint_others_waited_in_rendezvous tq "$T/ckpt" "all(
  [s for s, t, e in proc(rank=r).dumps if s['phase'] == 'rendezvous'] and
  proc(rank=r).ev('phase', phase='rendezvous', state='end') for r in range(3))"
finish
