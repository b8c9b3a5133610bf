#!/bin/bash
# SPDX-License-Identifier: MIT
# misc.sh: end to end, one of a kind each, under `hangtrace run --timeout 1`:
#  - a C rank blocked in wait_for_peer with nothing more specific to say
#    -> stalled, naming its stack group, blocked;
#  - a 2-rank fake NCCL job in a private mount namespace whose /dev/shm is
#    a 16 MiB tmpfs -> shm_too_small, a warning (it explains no stall);
#  - the real NCCL 2.28.9 without a GPU: ncclCommInitRank fails at once
#    -> nccl_init_error quoting NCCL's own message.
# limit: 40
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/e2e.inc"

# A rank alone in the world, blocked in wait_for_peer for 30 s.
WS=1
rank alone 0 -- "$B/tests/core/wait_for_peer" 30

# /dev/shm of 16 MiB in a mount namespace of the job's own; both ranks run
# in it (started by the shell that mounted it, their pids in shm.pids).
SHM=0
if [ -x "$JOB" ] &&
	unshare --mount sh -c 'mount -t tmpfs -o size=16m tmpfs /dev/shm' 2>"$T/shm.err"; then
	SHM=1
	launch shm sh unshare --mount sh -c '
		mount -t tmpfs -o size=16m tmpfs /dev/shm || exit 1
		for r in 0 1; do
			env RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r ID_FILE="$1/shm.id" \
				"$2" run --timeout 1 --dir "$1/shm" -- "$3" job >"$1/shm.$r.out" 2>&1 &
			echo $! >>"$1/shm.pids"
		done
		wait' sh "$T" "$HT" "$JOB"
else
	skip "/dev/shm of 16 MiB" \
		"cannot mount a tmpfs in a private mount namespace: $(head -n 1 "$T/shm.err")"
fi

# The real NCCL, one rank, no GPU.
REAL=$B/tests/nccl/real_nccl
REAL_LIB=$(ldd "$REAL" 2>/dev/null | sed -n 's/.*libnccl.so.2 => \([^ ]*\).*/\1/p')
case $REAL_LIB in
"" | */fake_nccl/*) REAL_LIB= ;;
*) rank realnccl 0 NCCL_SOCKET_IFNAME=lo -- "$REAL" ;;
esac

settle_tq 20 alone "len(proc(rank=0).dumps) >= 2 and proc(rank=0).dumps[-1][2] is not None"
[ $SHM = 1 ] && finished 30 shm
[ -n "$REAL_LIB" ] && settle 20 realnccl 1
stop alone shm realnccl

report alone
expect "a rank blocked in wait_for_peer: stalled [0], its group, blocked" alone "
rc == 1 and v0['code'] == 'stalled' and v0['ranks'] == [0] and R(0)['phase'] == 'launch'
and R(0)['state'] == 'blocked' and G(0)['ranks'] == [0] and G(0)['state'] == 'blocked'
and 'wait_for_peer' in frames(G(0))
and 'wait_for_peer' in v0['summary'] and 'blocked' in v0['summary']"
if [ $SHM = 1 ]; then
	report shm
	expect "/dev/shm of 16 MiB under a job that ran: shm_too_small [0, 1], a warning" shm "
rc == 0 and not errors and v0['code'] == 'shm_too_small' and v0['severity'] == 'warning'
and v0['ranks'] == [0, 1] and '16' in v0['summary']
and all(r['exit'] == {'status': 0} for r in ranks)"
fi
if [ -n "$REAL_LIB" ]; then
	report realnccl
	# What the program printed of ncclGetLastError is what the verdict quotes.
	sed -n 's/^last error: //p' "$T/realnccl.0.out" >"$T/realnccl.msg"
	expect "real NCCL without a GPU: nccl_init_error [0] quoting NCCL's message" realnccl "
rc == 1 and v0['code'] == 'nccl_init_error' and v0['ranks'] == [0] and R(0)['phase'] == 'nccl_init'
and len(open('$T/realnccl.msg').read().strip()) > 10
and '\"' + open('$T/realnccl.msg').read().strip() + '\"' in v0['summary']"
else
	skip "real NCCL without a GPU" "real_nccl links no real libnccl.so.2 (none installed)"
fi
finish
