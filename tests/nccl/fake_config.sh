#!/bin/bash
# SPDX-License-Identifier: MIT
# ncclCommInitRankConfig's config is read only as far as the caller's
# struct goes: NULL, the initializer (blocking INT_MIN means NCCL's
# default), an older NCCL's shorter struct (its size stops before
# commName), and a wrong magic (nothing read, NCCL's refusal quoted).
# limit: 30
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/helpers.inc"

D=$T/cfg
rank c0 HANGTRACE_DIR=$D -- "$JOB" configs
check "the program completes" reap
check "NCCL accepted three configs and refused the wrong magic" \
	sh -c "grep -q 'null: 0' '$T/c0.out' && grep -q 'dflt: 0' '$T/c0.out' && grep -q 'old: 0' '$T/c0.out' && grep -q 'bad: 4' '$T/c0.out'"
check "NULL config: blocking and name unknown" \
	tq "$D" '(lambda e: e["blocking"] is None and e["comm_name"] is None)(events("nccl", fn="ncclCommInitRankConfig", state="end")[0])'
check "initializer: blocking INT_MIN is NCCL's default (null), the name read" \
	tq "$D" '(lambda e: e["blocking"] is None and e["comm_name"] == "dflt")(events("nccl", fn="ncclCommInitRankConfig", state="end")[1])'
check "shorter struct: blocking read, nothing past its size" \
	tq "$D" '(lambda e: e["blocking"] is True and e["comm_name"] is None)(events("nccl", fn="ncclCommInitRankConfig", state="end")[2])'
check "wrong magic: nothing read, NCCL's refusal quoted" \
	tq "$D" '(lambda e: e["blocking"] is None and e["comm_name"] is None and e["result"] == 4 and "NCCL_CONFIG_INITIALIZER" in e["last_error"])(ev("nccl", fn="ncclCommInitRankConfig", state="error"))'
finish
