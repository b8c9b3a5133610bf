#!/bin/sh
# SPDX-License-Identifier: MIT
# Added cost of a hooked MPI call (hooks/mpi): MPI_Allreduce of one int and
# MPI_Barrier on MPI_COMM_SELF (Open MPI, one rank under mpirun: the
# cheapest MPI call, so the wrapper's share shows), and MPI_Allreduce of one
# int between two ranks (shared memory: a real collective), 11
# rounds, bare then traced back to back; the added cost is the median of
# the paired differences, with the ratio of the medians. Says SKIP without
# mpicc's mpi.h (libopenmpi-dev) or mpirun.
set -eu
: "${B:?}"
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v mpirun >/dev/null || ! mpicc --showme:compile >/dev/null 2>&1 ||
   ! mpicc -O2 -Wall -Werror -o "$B/bench/mpi_bench" "$root/bench/mpi_bench.c" 2>/dev/null; then
	echo "SKIP mpi: mpicc with mpi.h (libopenmpi-dev) and mpirun are needed"
	exit 0
fi
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
run() {  # OP N [RANKS]
	MPIRUN="mpirun --allow-run-as-root --oversubscribe -np ${3:-1}"
	: >"$t/bare"; : >"$t/traced"
	for i in 1 2 3 4 5 6 7 8 9 10 11; do
		$MPIRUN "$B/bench/mpi_bench" "$1" "$2" >>"$t/bare"
		$MPIRUN -x LD_PRELOAD="$B/libhangtrace.so" -x HANGTRACE_DIR="$t/tr" \
			"$B/bench/mpi_bench" "$1" "$2" >>"$t/traced"
	done
	/usr/bin/python3 - "$t" "$1" <<'PY'
import statistics, sys
d, op = sys.argv[1], sys.argv[2]
bare = [float(l) for l in open(d + "/bare")]
traced = [float(l) for l in open(d + "/traced")]
added = statistics.median(t - b for b, t in zip(bare, traced))
what = {"world": "MPI_Allreduce on MPI_COMM_WORLD (2 ranks)"}.get(op, "MPI_%s on MPI_COMM_SELF" % op.capitalize())
print("%-42s bare %8.2f ns  traced %8.2f ns  added %7.2f ns (median of paired rounds)  ratio %.3f"
      % (what, statistics.median(bare), statistics.median(traced), added,
         statistics.median(traced) / statistics.median(bare)))
PY
	ls "$t/tr"/*.jsonl >/dev/null	# the traced runs were traced
}
run allreduce 2000000
run barrier 2000000
run world 200000 2
