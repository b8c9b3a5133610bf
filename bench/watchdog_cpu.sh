#!/bin/sh
# SPDX-License-Identifier: MIT
# watchdog_cpu.sh [SECS]: CPU time of the watchdog thread of a traced
# process that is not stalled, as a share of one core over the run (SPEC
# section 9: at most 0.1%). Cases: a Python rank that computes with the
# default deadline (the watchdog sleeps on its futex); the same with a 3 s
# deadline (it samples progress, takes Python looks, dumps at 3, 6 and
# 12 s as evidence and finds it working); a fake-NCCL rank idle in steady
# state with a 3 s deadline. Read from /proc/PID/task/TID/schedstat (ns on
# a CPU, of the thread named "hangtrace"; stat's clock ticks are too coarse)
# just before the process ends.
set -eu
: "${B:?B must name the build folder}"
secs=${1:-20}
dir=$(mktemp -d /tmp/ht-bench-wd.XXXXXX)
trap 'rm -rf "$dir"' EXIT

# measure NAME CMD...: runs CMD in the background, reads the watchdog's
# CPU just before SECS are up, prints the share of one core.
measure() {
	name=$1
	shift
	"$@" >/dev/null 2>&1 &
	pid=$!
	sleep $((secs - 1))
	wd=0 all=0
	for t in /proc/$pid/task/*; do
		c=$(cut -d' ' -f1 "$t/schedstat" 2>/dev/null) || continue
		all=$((all + c))
		[ "$(cat "$t/comm" 2>/dev/null)" = hangtrace ] && wd=$((wd + c))
	done
	wait $pid || true
	awk -v n="$name" -v wd="$wd" -v all="$all" -v s="$((secs - 1))" 'BEGIN {
		printf "%-44s watchdog %7.2f ms CPU in %d s: %.4f%% of one core (process %.1f s)\n",
		       n, wd / 1e6, s, 100 * wd / 1e9 / s, all / 1e9 }'
}

work="import time
end = time.monotonic() + $secs
x = 0
while time.monotonic() < end:
    x = (x * 31 + 7) % 1000003"
measure "python computing, deadline 300 s" \
	env RANK=0 HANGTRACE_DIR="$dir/a" LD_PRELOAD="$B/libhangtrace.so" python3 -c "$work"
measure "python computing, deadline 3 s (3 looks)" \
	env RANK=0 HANGTRACE_DIR="$dir/b" HANGTRACE_TIMEOUT=3 LD_PRELOAD="$B/libhangtrace.so" python3 -c "$work"
if [ -x "$B/tests/nccl/nccl_job" ] && [ -e "$B/tests/fake_cuda/libcuda.so.1" ]; then
	measure "fake NCCL rank idle in steady, deadline 3 s" \
		env RANK=0 WORLD_SIZE=1 ID_FILE="$dir/id" FAKE_CUDA_LIB="$B/tests/fake_cuda/libcuda.so.1" \
		IDLE_S=$secs HANGTRACE_DIR="$dir/c" HANGTRACE_TIMEOUT=3 LD_PRELOAD="$B/libhangtrace.so" \
		"$B/tests/nccl/nccl_job" idle
fi
