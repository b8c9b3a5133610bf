#!/bin/bash
# SPDX-License-Identifier: MIT
# died.sh: a DataLoader worker of rank 1 dies while rank 1 waits for its
# first batch; the main process notices within 5 s and raises, the job
# fails. Three jobs at once: worker 0 SIGKILLs itself in __getitem__ (no
# exit record), ends with os._exit(1), or (in a private mount namespace
# whose /dev/shm is a 1 MiB tmpfs) dies of SIGBUS writing a 64 MiB batch.
# The report: dataloader_worker_died first, naming rank 1, the worker's pid
# and how it ended (with /dev/shm's size and free space for SIGBUS, and
# shm_too_small after it); the ranks' rank_exited follow from it. And the
# same job whose workers do their work: no error.
# limit: 120
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/e2e/e2e.inc"
. "$(dirname "$0")/dl.inc"

SHM=1
if ! unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm' 2>"$T/unshare.err"; then
	SHM=0
fi
job healthy "$(free_port)" -- -- none
job kill "$(free_port)" -- -- sigkill
job exit1 "$(free_port)" -- -- exit1
[ $SHM = 1 ] && job shm "$(free_port)" -- unshare -m sh -c \
	'mount -t tmpfs -o size=1m tmpfs /dev/shm && exec "$@"' sh -- big
cases="healthy kill exit1"
[ $SHM = 1 ] && cases="$cases shm"
for c in $cases; do
	finished 90 "$c" || echo "# $c: still running"
done
stop $cases
for c in $cases; do report "$c"; first_screen "$c"; done

# The worker that ended badly, from rank 1's workers.
W="(lambda st: [w for w in R(1).get('workers', []) if w['state'] == st])"
# Rank 1's exit follows from its worker's death (rank 0's from rank 1's:
# the report helper's graph, not asserted here).
FOLLOW="all(x['because'] == 'dataloader_worker_died' for x in v
            if x['code'] == 'rank_exited' and 1 in x['ranks'])"
expect "a healthy job with DataLoader workers: no error, the workers exited 0" healthy "
rc == 0 and not errors and len(R(1).get('workers', [])) == 2
and all(w['state'] == 'exited' and w['exit'] == {'status': 0} for w in R(1)['workers'])"
expect "worker SIGKILLed: dataloader_worker_died first, rank 1, its pid, no exit record" kill "
rc == 1 and v0['code'] == 'dataloader_worker_died' and v0['ranks'] == [1]
and len($W('vanished')) == 1 and str($W('vanished')[0]['pid']) in v0['summary']
and 'SIGKILL' in v0['summary'] and 'exit record' in v0['summary'] and $FOLLOW
and not [r for r in ranks if r['rank'] not in (0, 1)]"
expect "worker exits 1: dataloader_worker_died first, rank 1, its pid, status 1" exit1 "
rc == 1 and v0['code'] == 'dataloader_worker_died' and v0['ranks'] == [1]
and len($W('exited')) >= 1 and any(str(w['pid']) in v0['summary'] and w['exit'] == {'status': 1}
                                   for w in $W('exited'))
and 'status 1' in v0['summary'] and $FOLLOW"
if [ $SHM = 1 ]; then
	expect "SIGBUS on a 1 MiB /dev/shm: dataloader_worker_died with the shm facts, shm_too_small after" shm "
	rc == 1 and v0['code'] == 'dataloader_worker_died' and v0['ranks'] == [1]
	and len($W('killed')) == 1 and $W('killed')[0]['exit'] == {'signal': 'SIGBUS'}
	and str($W('killed')[0]['pid']) in v0['summary'] and 'SIGBUS' in v0['summary']
	and '/dev/shm on host' in v0['summary'] and '1 MiB' in v0['summary']
	and 'shm_too_small' in codes[1:] and $FOLLOW"
else
	skip "SIGBUS on a small /dev/shm" "no private mount namespace here: $(head -n 1 "$T/unshare.err")"
fi
finish
