#!/bin/bash
# SPDX-License-Identifier: MIT
# What the library adds to one collective call (SPEC section 9: at most
# 25 ns median over the bare call), on an NCCL stub that returns at once:
# five rounds, alternating bare and traced, of bench_coll (the median of
# 200 batches of 10000 calls each); the median round of each is reported.
set -eu
: "${B:?}"
NT=$B/tests/nccl
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
for i in 1 2 3 4 5; do
	"$NT/bench_coll" 200 >>"$t/bare"
	LD_PRELOAD=$B/libhangtrace.so HANGTRACE_DIR=$t/tr RANK=0 WORLD_SIZE=1 "$NT/bench_coll" 200 >>"$t/traced"
done
/usr/bin/python3 - "$t" <<'PY'
import statistics, sys
d = sys.argv[1]
bare = statistics.median(float(x) for x in open(d + "/bare"))
traced = statistics.median(float(x) for x in open(d + "/traced"))
print("hooked NCCL collective: bare %.2f ns, traced %.2f ns, added %.2f ns per call (ratio %.2f); budget 25 ns"
      % (bare, traced, traced - bare, traced / bare))
PY
