#!/bin/bash
# SPDX-License-Identifier: MIT
# digest_mpi.sh: node-local traces gathered through mpirun (issue 24). A
# 3-rank mpi4py job on Open MPI whose rank 2 loads a checkpoint while the
# others wait in MPI_Barrier; each rank writes to a folder of its own, as
# a node's local disk would hold them. While it hangs, a second mpirun
# runs `hangtrace digest` of each rank's folder, through mpirun's standard
# output (which cuts long lines of several ranks into each other: under
# mpirun a digest goes in part lines, which the report joins): the report
# over them names the straggler first. After the job is ended (mpirun ends the other ranks as
# it likes: what the report says of that is jobs.sh's), the same gathering
# gives the report the folders give, byte for byte (text and --json).
# limit: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/e2e.inc"

TMO=3
MJ=$ROOT/tests/e2e/mpi_job.py
if ! command -v mpirun >/dev/null 2>&1 || ! "$PY" -c 'import mpi4py' 2>/dev/null; then
	skip "mpirun: digests gathered" "mpirun or mpi4py for $PY is missing (scripts/deps.sh test)"
	finish
fi
MPIRUN="mpirun --allow-run-as-root --oversubscribe -np 3"
mkdir -p "$T/job"
# shellcheck disable=SC2016
launch job 0 $MPIRUN sh -c 'exec "$0" run --timeout "$1" --dir "$2/node$OMPI_COMM_WORLD_RANK" -- \
	"$3" -m mpi4py "$4" ckpt 2 120' "$HT" "$TMO" "$T/job" "$PY" "$MJ"
W="(lambda p: p.dumps and p.dumps[-1][0]['reason'] == 'timeout')"
settle_tq 60 job "len(procs) >= 3 and all($W(proc(rank=r)) for r in range(3))
	and all(proc(rank=r).declared for r in (0, 1))"

# gather OUT: one digest per rank folder, through mpirun's standard output.
gather() {
	# shellcheck disable=SC2016
	timeout 60 $MPIRUN sh -c 'exec "$0" digest "$1/node$OMPI_COMM_WORLD_RANK"' "$HT" "$T/job" \
		>"$1" 2>"$1.err"
}
gather "$T/live.digests"
check "live: every line a digest's part, three digests" "$PY" -c "
import json, sys
ids = set()
for l in open('$T/live.digests'):
    ids.add(json.loads(l)['digest_part'])
sys.exit(len(ids) != 3)"
"$HT" report --json "$T/live.digests" >"$T/live.json" 2>"$T/live.err"
echo $? >"$T/live.rc"
check "live: every digest whole (no missing part said)" test ! -s "$T/live.err"
expect "live: straggler [2] first, through the digests" live "
rc == 1 and v0['code'] == 'straggler' and v0['ranks'] == [2] and 'load_checkpoint' in R(2)['doing']"

stop job
gather "$T/after.digests"
"$HT" report "$T/job"/node* >"$T/raw.txt" 2>&1
"$HT" report "$T/after.digests" >"$T/dg.txt" 2>&1
check "after: the report over the digests is the folders' (text)" cmp -s "$T/raw.txt" "$T/dg.txt"
"$HT" report --json "$T/job"/node* >"$T/raw.json" 2>/dev/null
"$HT" report --json "$T/after.digests" >"$T/dg.json" 2>/dev/null
check "after: the same (--json)" cmp -s "$T/raw.json" "$T/dg.json"
finish
