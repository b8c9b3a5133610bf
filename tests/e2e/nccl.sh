#!/bin/bash
# SPDX-License-Identifier: MIT
# nccl.sh: end to end on the fake NCCL (and the fake driver): 4-rank jobs of
# tests/nccl/nccl_job under `hangtrace run --timeout 1`, each staged to
# hang (or not) one documented way, stopped with SIGTERM once every rank
# has ended or dumped, then `hangtrace report --json` asserted on: its exit
# status, the first verdict's code and ranks, the phases and stack groups.
# Also mpirun -np 3 of a 4-rank job, the Chrome trace of a hung job and
# the text report's width. All cases run at once.
# limit: 90
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/e2e.inc"

if [ ! -x "$JOB" ] || [ ! -e "$FAKE_NCCL_DIR/libnccl.so.2" ]; then
	skip e2e_nccl "the fake NCCL or nccl_job was not built (no nccl.h / cuda.h)"
	finish
fi
# With the fake driver, a job ends with a context synchronize (steady).
CU=()
[ -e "$FAKE_CUDA_DIR/libcuda.so.1" ] &&
	CU=(FAKE_CUDA_LIB="$FAKE_CUDA_DIR/libcuda.so.1" FAKE_CUDA_DEVICES=4)

# Healthy: init, 3 allreduces, a context synchronize (steady), destroy.
for r in 0 1 2 3; do rank healthy $r "${CU[@]}" -- "$JOB" job; done
# Rank 3 never starts.
for r in 0 1 2; do rank missing $r -- "$JOB" job; done
# Rank 2 makes an id of its own.
for r in 0 1 3; do rank ownid $r -- "$JOB" job; done
rank ownid 2 OWN_ID=1 -- "$JOB" job
# Rank 1 broadcasts where the others allreduce, at seq 0.
for r in 0 1 2 3; do rank collmis $r MISMATCH_RANK=1 -- "$JOB" job; done
# Rank 3 issues 2 allreduces, the others 3; then each idles.
for r in 0 1 2; do rank lag $r ITERS=3 STALL_S=30 -- "$JOB" ring; done
rank lag 3 ITERS=2 STALL_S=30 -- "$JOB" ring
# Rank 1 passes nranks 3 to ncclCommInitRank.
for r in 0 2 3; do rank nranks $r -- "$JOB" job; done
rank nranks 1 NRANKS=3 -- "$JOB" job
# Two processes with RANK=0 at once: the first (its own id file) waits for
# peers that never come, the second runs with ranks 1-3.
launch duprank 0b env RANK=0 WORLD_SIZE=4 LOCAL_RANK=0 ID_FILE="$T/duprank.id2" \
	$(htrun duprank) "$JOB" job
for i in $(seq 50); do ls "$T/duprank/"*.jsonl >/dev/null 2>&1 && break; sleep 0.1; done
for r in 0 1 2 3; do rank duprank $r -- "$JOB" job; done
# Rank 2 spends 30 s in load_checkpoint before it joins.
for r in 0 1 3; do rank straggler $r -- "$JOB" job; done
rank straggler 2 LOAD_S=30 -- "$JOB" job
# Rank 3's launch script fails before the program starts.
for r in 0 1 2; do rank exited $r -- "$JOB" job; done
rank exited 3 -- sh -c 'echo "train.yaml: no such file" >&2; exit 1'
# NCCL_SOCKET_IFNAME names no interface; the job hangs (rank 3 absent).
for r in 0 1 2; do rank ifname $r NCCL_SOCKET_IFNAME=doesnotexist0 -- "$JOB" job; done
# Rank 1 on another NCCL, rank 2 on another driver; the job runs through.
for r in 0 3; do rank versions $r "${CU[@]}" -- "$JOB" job; done
rank versions 1 "${CU[@]}" FAKE_NCCL_VERSION=22703 -- "$JOB" job
rank versions 2 "${CU[@]}" FAKE_CUDA_DRIVER_VERSION=12080 -- "$JOB" job
# mpirun -np 3 of a job whose communicator has 4 ranks. When the first of
# its ranks ends on the SIGTERM of `stop`, Open MPI kills the others, with
# SIGKILL 1 s after its own SIGTERM (odls_base_sigkill_timeout): under load
# a rank still dumping then ends without its exit record (it vanished).
# The ranks get 10 s, as a user's teardown gives them.
MPI=0
if command -v mpirun >/dev/null 2>&1; then
	MPI=1
	launch mpi run mpirun --allow-run-as-root --oversubscribe --mca odls_base_sigkill_timeout 10 -np 3 \
		-x ID_FILE="$T/mpi.id" -x NRANKS=4 $(htrun mpi) "$JOB" job
fi

finished 30 healthy versions
settle 30 missing 3 ownid 4 collmis 4 lag 4 nranks 4 duprank 5 straggler 4 exited 4 ifname 3
[ $MPI = 1 ] && settle 20 mpi 3
stop healthy missing ownid collmis lag nranks duprank straggler exited ifname versions mpi
for c in healthy missing ownid collmis lag nranks duprank straggler exited ifname versions; do
	report $c
done

expect "healthy: no error verdict, exit 0, every rank steady" healthy "
rc == 0 and not errors and sorted(r['rank'] for r in ranks) == [0, 1, 2, 3]
and all(r['phase'] == 'steady' and r['exit'] == {'status': 0} for r in ranks)"
expect "rank 3 never started: missing_rank [3], the others in nccl_init" missing "
rc == 1 and v0['code'] == 'missing_rank' and v0['severity'] == 'error' and v0['ranks'] == [3]
and d['job']['ranks_missing'] == [3] and all(R(r)['phase'] == 'nccl_init' for r in (0, 1, 2))
and G(0)['ranks'] == [0, 1, 2] and G(0)['phase'] == 'nccl_init' and 'CommInitRank' in frames(G(0))"
expect "rank 2 with its own id: unique_id_mismatch [2]" ownid "
rc == 1 and v0['code'] == 'unique_id_mismatch' and v0['ranks'] == [2]
and all(R(r)['phase'] == 'nccl_init' for r in range(4))"
expect "rank 1 broadcasts at seq 0: collective_mismatch [1]" collmis "
rc == 1 and v0['code'] == 'collective_mismatch' and v0['ranks'] == [1]
and all(R(r)['phase'] == 'first_collective' for r in range(4))
and 'Broadcast' in frames(G(1)) and 'AllReduce' in frames(G(0))"
expect "rank 3 issued fewer collectives: collective_lag [3]" lag "
rc == 1 and v0['code'] == 'collective_lag' and v0['ranks'] == [3]
and 'stall_after_collectives' in frames(G(3)) and 'AllReduce' in frames(G(0))"
expect "rank 1 passed nranks 3: world_size_mismatch [1]" nranks "
rc == 1 and v0['code'] == 'world_size_mismatch' and v0['ranks'] == [1]"
expect "two processes with RANK=0: duplicate_rank [0]" duprank "
rc == 1 and v0['code'] == 'duplicate_rank' and v0['ranks'] == [0]"
expect "rank 2 in load_checkpoint: straggler [2], its stack in launch" straggler "
rc == 1 and v0['code'] == 'straggler' and v0['ranks'] == [2] and R(2)['phase'] == 'launch'
and all(R(r)['phase'] == 'nccl_init' for r in (0, 1, 3))
and G(2)['ranks'] == [2] and G(2)['phase'] == 'launch' and 'load_checkpoint' in frames(G(2))
and groups[0] is G(2)"
expect "rank 3's launch failed while the others wait: rank_exited [3]" exited "
rc == 1 and v0['code'] == 'rank_exited' and v0['ranks'] == [3] and R(3)['exit'] == {'status': 1}
and all(R(r)['phase'] == 'nccl_init' and R(r)['stalled'] for r in (0, 1, 2))"
expect "NCCL_SOCKET_IFNAME=doesnotexist0 on a hung job: socket_ifname_missing [0-2]" ifname "
rc == 1 and v0['code'] == 'socket_ifname_missing' and v0['ranks'] == [0, 1, 2]
and 'doesnotexist0' in v0['summary'] and 'missing_rank' in codes"
expect "NCCL and driver versions differ, the job ran: version_mismatch [1], [2], warnings" versions "
rc == 0 and not errors and v0['code'] == 'version_mismatch'
and sorted(x['ranks'] for x in v if x['code'] == 'version_mismatch') == [[1], [2]]
and all(r['phase'] == 'steady' for r in ranks)"

if [ $MPI = 1 ]; then
	report mpi
	expect "mpirun -np 3 of a 4-rank job: missing_rank [3], launcher openmpi" mpi "
rc == 1 and v0['code'] == 'missing_rank' and v0['ranks'] == [3]
and d['job']['launcher'] == 'openmpi'
and d['job']['world_size'] == 4 and sorted(r['rank'] for r in ranks) == [0, 1, 2]
and all(r['exit'] == {'signal': 'SIGTERM', 'after_dump': True} for r in ranks)"
else
	skip "mpirun -np 3 of a 4-rank job" "no mpirun on PATH"
fi

# The text report of the missing rank fits 100 columns; its Chrome trace
# is what Perfetto reads: complete and instant events, one row per rank.
"$HT" report --chrome-trace "$T/missing.trace.json" "$T/missing" >"$T/missing.txt" 2>&1
check "text report of the missing rank: 100 columns, names rank 3" sh -c "
	[ \$(awk '{ if (length(\$0) > m) m = length(\$0) } END { print m + 0 }' '$T/missing.txt') -le 100 ] &&
	grep -q 'missing_rank  rank 3' '$T/missing.txt'"
check "--chrome-trace of the hung job: events Perfetto accepts, a row per rank" "$PY" - \
	"$T/missing.trace.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
assert isinstance(ev, list) and ev
for e in ev:
    assert e["ph"] in ("M", "X", "i", "s", "f"), e
    assert isinstance(e["name"], str) and isinstance(e["pid"], int), e
    if e["ph"] in ("X", "i") or e["name"] == "thread_name":
        assert isinstance(e["tid"], int), e
    if e["ph"] in ("X", "i"):
        assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
    if e["ph"] == "X":
        assert e["dur"] >= 0, e
rows = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
assert sorted(rows) == [0, 1, 2, 3] and rows[3] == "rank 3 (no trace)", rows
assert all(rows[r].startswith("rank %d (host " % r) for r in (0, 1, 2)), rows
# An arrow from each waiting rank to the missing rank 3.
src = {e["id"]: e["pid"] for e in ev if e["ph"] == "s"}
dst = {e["id"]: e["pid"] for e in ev if e["ph"] == "f"}
assert sorted((src[i], dst.get(i)) for i in src) == [(0, 3), (1, 3), (2, 3)], (src, dst)
for r in (0, 1, 2):
    x = [e for e in ev if e["ph"] == "X" and e["pid"] == r]
    assert any(e["name"] == "nccl_init (stalled)" for e in x), x
    assert any(e["ph"] == "i" and e["pid"] == r for e in ev), r
# Each rank's tracks (phases, blocking calls) are threads of its own row.
tracks = {(e["pid"], e["tid"]) for e in ev if e["ph"] in ("X", "i")}
assert {p for p, t in tracks} == {0, 1, 2, 3}, tracks
EOF
finish
