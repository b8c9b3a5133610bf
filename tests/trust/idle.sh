# SPDX-License-Identifier: MIT
# No signal in steady state (issue 7, SPEC section 6): a rank that reached
# steady and then sits idle for 20 seconds (20x its 1 s deadline), is never
# sent our dump signal (counted by strace) and writes no stall.
# limit: 120
. "$(dirname "$0")/../lib.sh"
J=$B/tests/nccl/nccl_job
if ! command -v strace >/dev/null; then
	skip "idle steady rank" "strace is not installed"
	finish
fi
RANK=0 WORLD_SIZE=1 ID_FILE="$T/id" IDLE_S=20 FAKE_CUDA_LIB="$B/tests/fake_cuda/libcuda.so.1" \
	strace -f -qq -e trace=rt_tgsigqueueinfo,tgkill,tkill,rt_sigqueueinfo,kill -o "$T/strace" \
	"$HT" run --dir "$T/a" --timeout 1 -- "$J" idle >"$T/out" 2>&1
check "the job finished" grep -q "DONE" "$T/out"
check "it reached steady" tq "$T/a" 'proc(rank=0).ev("phase", phase="steady", state="begin")'
check "no stall in 20 s of steady state" tq "$T/a" 'not proc(rank=0).evs("stall")'
check "no signal sent in 20 s (strace: $(grep -c . "$T/strace") calls)" test ! -s "$T/strace"
# The control: the same filter does see our signals when a dump happens.
RANK=0 strace -f -qq -e trace=rt_tgsigqueueinfo,tgkill,tkill,rt_sigqueueinfo,kill -o "$T/strace2" \
	"$HT" run --dir "$T/b" --timeout 0.5 -- "$B/tests/core/wait_for_peer" 1 2 >/dev/null 2>&1
check "control: a stalled rank's dump signals are seen" grep -q rt_tgsigqueueinfo "$T/strace2"
finish
