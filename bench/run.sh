#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: the benchmarks behind SPEC section 9, as ratios against the bare
# case measured in the same run (these machines are noisy). `make bench`.
set -eu
: "${B:?B must name the build folder}"
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$B/bench"
cc -O2 -Wall -Werror -o "$B/bench/startup" "$root/bench/startup.c"
echo "== start-up cost in a process that is not relevant (budget 0.3 ms)"
"$B/bench/startup" "$B/libhangtrace.so" 500 /bin/true
"$B/bench/startup" "$B/libhangtrace.so" 100 /usr/bin/python3 -c pass
echo "== stall to complete dump (budget 100 ms past the deadline)"
"$root/bench/dump_latency.sh" 15
echo "== resident memory added to a traced process (budget 2 MiB)"
"$root/bench/rss.sh"
echo "== a hooked NCCL collective (budget 25 ns added)"
"$root/bench/collective.sh"
echo "== a hooked MPI call (hooks/mpi; Open MPI, SKIP without mpi.h)"
"$root/bench/mpi.sh"
echo "== hooked calls: cost and heap allocations once warm (budget: connect 1 us, no allocation)"
"$root/bench/hooks.sh"
echo "== hangtrace report over a stalled job's traces (budget 3 s and 1 GiB at 16,384 ranks)"
"$root/bench/report_scale.sh"
echo "== hangtrace digest: a node's folder, its size, and the report over every node's digest (budgets 0.2 s, 1/20)"
"$root/bench/digest_scale.sh"
echo "== hangtrace report merging 131,072 node digests, 1,048,576 ranks (budget 10 s and 2 GiB)"
"$root/bench/digest_million.sh"
echo "== hangtrace check over 8 ranks on one host, all passing (budget 3 s)"
"$root/bench/check.sh"
echo "== CPU of the watchdog of a process that is not stalled (budget 0.1% of one core)"
"$root/bench/watchdog_cpu.sh"
