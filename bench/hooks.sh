#!/bin/sh
# SPDX-License-Identifier: MIT
# Per-call cost and heap allocations of hooked calls (SPEC section 9):
# cuStreamSynchronize through the runtime's cuGetProcAddress path,
# getsockopt on an unrelated socket, a connect to a closed loopback port
# (budget 1 us added), close. Each: 11 rounds of hooks_bench, bare then
# preloaded (with a malloc counter) back to back; the added cost is the
# median of the 11 paired differences, so load that comes and goes hits
# both sides of a pair alike.
set -eu
: "${B:?}"
root=$(cd "$(dirname "$0")/.." && pwd)
cc -O2 -Wall -Werror -o "$B/bench/hooks_bench" "$root/bench/hooks_bench.c" -ldl
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
run() {  # LABEL ARGS...
	label=$1; shift
	: >"$t/bare"; : >"$t/traced"
	for i in 1 2 3 4 5 6 7 8 9 10 11; do
		"$B/bench/hooks_bench" "$@" >>"$t/bare"
		RANK=0 HANGTRACE_DIR="$t/tr" LD_PRELOAD="$B/libhangtrace.so $B/tests/nccl/libmalloc_count.so" \
			"$B/bench/hooks_bench" "$@" >>"$t/traced"
	done
	/usr/bin/python3 - "$t" "$label" <<'PY'
import statistics, sys
d, label = sys.argv[1], sys.argv[2]
bare = [float(l.split()[0]) for l in open(d + "/bare")]
tr = [l.split() for l in open(d + "/traced")]
traced = [float(x[0]) for x in tr]
added = statistics.median(t - b for b, t in zip(bare, traced))
allocs = max(int(x[1]) for x in tr)
print("%-34s bare %9.2f ns  traced %9.2f ns  added %8.2f ns (median of paired rounds)  ratio %.3f  heap allocations %d"
      % (label, statistics.median(bare), statistics.median(traced), added,
         statistics.median(traced) / statistics.median(bare), allocs))
PY
}
run "cuStreamSynchronize (runtime path)" sync "$B/tests/fake_cuda/libcuda.so.1" 200000
run "getsockopt, unrelated socket" getsockopt 200000
run "connect, closed loopback port" connect 2000
run "close(-1)" close 200000
