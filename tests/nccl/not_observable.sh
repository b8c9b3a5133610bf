#!/bin/bash
# SPDX-License-Identifier: MIT
# NCCL linked statically into a framework (conda PyTorch): with its
# symbols hidden no call can be seen, and a dump says NCCL is not
# observable in this build (stacks still dumped); with them exported, it
# does not.
# limit: 30
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/helpers.inc"

D=$T/hidden
rank h HANGTRACE_DIR=$D HANGTRACE_TIMEOUT=1 RANK=0 WORLD_SIZE=1 -- "$NT/framework" "$NT/libtorch_cuda.so" 3
check "hidden: the rank dumps" wait_dumps "$D" 1 10
reap
check "hidden: the dump says NCCL is not observable, naming the framework" \
	tq "$D" 'ev("nccl", fn="not_observable")["provider"] == "'"$NT/libtorch_cuda.so"'" and "statically" in ev("nccl", fn="not_observable")["reason"]'
check "hidden: the stacks are still there" \
	tq "$D" 'any("wait_in_framework" in f for f in proc(rank=0).main_frames(1))'

D=$T/exported
rank x HANGTRACE_DIR=$D HANGTRACE_TIMEOUT=1 RANK=0 WORLD_SIZE=1 -- "$NT/framework" "$NT/exported/libtorch_cuda.so" 3
check "exported: the rank dumps" wait_dumps "$D" 1 10
reap
check "exported: no not_observable line" tq "$D" 'proc(rank=0).dumps and not ev("nccl", fn="not_observable")'
finish
