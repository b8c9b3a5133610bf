#!/bin/bash
# SPDX-License-Identifier: MIT
# NCCL calling its own exports through the PLT, on the fake NCCL:
# ncclBcast (which calls ncclBroadcast) counts once; ncclCommInitAll's own
# ncclGetUniqueId is recorded as nested and opens no phase. Also inits
# inside ncclGroupStart/End (complete at ncclGroupEnd) and ncclCommSplit.
# limit: 60
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/helpers.inc"

D=$T/bcast
for r in 0 1; do
	rank b$r HANGTRACE_DIR=$D ID_FILE=$T/id1 RANK=$r WORLD_SIZE=2 ITERS=5 -- "$JOB" bcast
done
check "bcast: the job completes" reap
check "bcast: five ncclBcast are five collectives, not ten" \
	tq "$D" 'all(proc(rank=r).ev("nccl", fn="ncclCommDestroy", state="end")["seq"] == 5 for r in range(2))'
check "bcast: recorded as ncclBcast, never as the inner ncclBroadcast" \
	tq "$D" 'proc(rank=0).ev("phase", phase="first_collective", state="begin")["fn"] == "ncclBcast" and not [e for e in events() if e.get("name") == "ncclBroadcast" or e.get("fn") == "ncclBroadcast"]'

D=$T/initall
rank i0 HANGTRACE_DIR=$D NDEV=2 -- "$JOB" initall
check "initall: the program completes" reap
check "initall: NCCL's own ncclGetUniqueId is nested and opens no nccl_id phase" \
	tq "$D" 'ev("nccl", fn="ncclGetUniqueId")["nested"] is True and not ev("phase", phase="nccl_id")'
check "initall: one end per communicator (rank 0 and 1 of 2), with the id NCCL made" \
	tq "$D" 'sorted(e["rank"] for e in events("nccl", fn="ncclCommInitAll", state="end")) == [0, 1] and all(e["root"] == ev("nccl", fn="ncclGetUniqueId")["root"] and e["nranks"] == 2 for e in events("nccl", fn="ncclCommInitAll", state="end"))'
check "initall: the process took its identity from nowhere (no rank): relevant because of NCCL" \
	tq "$D" 'procs[0].header["relevant"] == "nccl" and ev("phase", phase="nccl_init", state="end")'

D=$T/group
for r in 0 1; do
	rank g$r HANGTRACE_DIR=$D ID_FILE=$T/id2 RANK=$r WORLD_SIZE=2 -- "$JOB" group
done
check "group: the job completes" reap
check "group: the init made inside the group ends at ncclGroupEnd" \
	tq "$D" 'all(proc(rank=r).ev("phase", phase="nccl_init", state="end")["via"] == "ncclGroupEnd" and proc(rank=r).ev("nccl", fn="ncclCommInitRank", state="begin")["in_group"] for r in range(2))'
check "group: grouped send and recv take seq 0 and 1 with their peers" \
	tq "$D" 'proc(rank=0).ev("phase", phase="first_collective", state="begin")["op"] == "send" and proc(rank=0).ev("phase", phase="first_collective", state="begin")["peer"] == 1 and proc(rank=1).ev("nccl", fn="ncclCommDestroy", state="end")["seq"] == 2'

D=$T/split
for r in 0 1 2 3; do
	rank s$r HANGTRACE_DIR=$D ID_FILE=$T/id3 RANK=$r WORLD_SIZE=4 -- "$JOB" split
done
check "split: the job completes" reap
check "split: ncclCommSplit ends with parent, color, key and the new size and rank" \
	tq "$D" 'all((lambda e: e["parent"] == proc(rank=r).ev("nccl", fn="ncclCommInitRank", state="end")["comm"] and e["color"] == r % 2 and e["key"] == r and e["nranks"] == 2 and e["rank"] == r // 2)(proc(rank=r).ev("nccl", fn="ncclCommSplit", state="end")) for r in range(4))'
check "split: each communicator has its own sequence numbers" \
	tq "$D" 'all(e["seq"] == 1 for e in events("nccl", fn="ncclCommDestroy", state="end"))'
finish
