#!/bin/bash
# SPDX-License-Identifier: MIT
# torch.sh: end to end with real PyTorch (Debian's python3-torch, gloo):
# 4-rank jobs of tests/net/torch_rank.py launched with RANK, WORLD_SIZE,
# MASTER_ADDR and MASTER_PORT under `hangtrace run --timeout 3`: a healthy
# job (no error verdict), WORLD_SIZE=4 with three ranks launched, a rank
# raising before init_process_group, a rank sleeping in load_checkpoint,
# a rank given a wrong MASTER_PORT. All five jobs at once, on their own
# ports; each stopped with SIGTERM once its ranks wait, then reported on.
# limit: 90
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/e2e.inc"

if ! "$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	skip e2e_torch \
		"python3-torch with gloo is not importable by $PY (scripts/deps.sh test installs it)"
	finish
fi
TMO=3
TR=$ROOT/tests/net/torch_rank.py

# free_port: a loopback TCP port nobody listens on (right now).
# torch CASE R PORT MODE [ARG]: rank R of a 4-rank gloo job on PORT.
torch() {
	local c=$1 r=$2 port=$3
	shift 3
	rank "$c" "$r" MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" STORE_TIMEOUT=60 \
		-- "$PY" "$TR" "$@"
}

P_OK=$(free_port) P_MISS=$(free_port) P_RAISE=$(free_port) P_CKPT=$(free_port)
P_PORT=$(free_port) P_WRONG=$(free_port)
for r in 0 1 2 3; do torch healthy $r "$P_OK" ok; done
for r in 0 1 2; do
	torch missing $r "$P_MISS" ok
	torch raise $r "$P_RAISE" ok
	torch ckpt $r "$P_CKPT" ok
	torch port $r "$P_PORT" ok
done
torch raise 3 "$P_RAISE" raise
torch ckpt 3 "$P_CKPT" load_checkpoint "$T/never"
torch port 3 "$P_WRONG" ok

# Waiting: the rank's latest dump is a timeout dump in that phase, declared
# in rendezvous (a look that saw it still moving is followed by another).
W="(lambda p, ph: p.dumps and p.dumps[-1][0]['reason'] == 'timeout'
    and p.dumps[-1][0]['phase'] == ph and p.dumps[-1][2] is not None
    and (ph != 'rendezvous' or p.declared))"
OTHERS="len(procs) >= 4 and all($W(proc(rank=r), 'rendezvous') for r in range(3))"
finished 60 healthy
settle_tq 60 missing "len(procs) == 3 and all($W(p, 'rendezvous') for p in procs)"
settle_tq 30 raise "$OTHERS and proc(rank=3).exit"
settle_tq 30 ckpt "$OTHERS and $W(proc(rank=3), 'launch')"
settle_tq 30 port "$OTHERS and $W(proc(rank=3), 'rendezvous')
                   and proc(rank=3).ev('connect', result='refused', count=2)"
stop healthy missing raise ckpt port
for c in healthy missing raise ckpt port; do report $c; done

expect "healthy 4-rank job: no error verdict, exit 0" healthy "
rc == 0 and not errors and sorted(r['rank'] for r in ranks) == [0, 1, 2, 3]
and all(r['exit'] == {'status': 0} and not r['stalled'] for r in ranks)
and d['job']['framework'] == 'pytorch'"
expect "WORLD_SIZE=4, three ranks launched: missing_rank [3]" missing "
rc == 1 and v0['code'] == 'missing_rank' and v0['ranks'] == [3] and d['job']['world_size'] == 4
and all(R(r)['phase'] == 'rendezvous' and R(r)['stalled'] for r in range(3))
and 'init_process_group' in frames(G(0))"
expect "rank 3 raises before init_process_group: rank_exited [3]" raise "
rc == 1 and v0['code'] == 'rank_exited' and v0['ranks'] == [3] and R(3)['exit'] == {'status': 1}
and all(R(r)['phase'] == 'rendezvous' for r in range(3))"
expect "rank 3 sleeps in load_checkpoint: straggler [3], its Python frame in its group" ckpt "
rc == 1 and v0['code'] == 'straggler' and v0['ranks'] == [3] and R(3)['phase'] == 'launch'
and G(3)['ranks'] == [3] and groups[0] is G(3)
and re.search(r'load_checkpoint \(.*torch_rank\.py:\d+\)', frames(G(3)))"
expect "rank 3 with a wrong MASTER_PORT: rendezvous_unreachable [3], refused, counted" port "
rc == 1 and v0['code'] == 'rendezvous_unreachable' and v0['ranks'] == [3]
and '127.0.0.1:$P_WRONG' in v0['summary'] and 'refused' in v0['summary']
and re.search(r'\b([2-9]|\d\d+) (times|attempts|connects)',
              v0['summary'] + ' '.join(v0['evidence']))"
finish
