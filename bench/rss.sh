#!/bin/sh
# SPDX-License-Identifier: MIT
# Resident memory added to a traced process (SPEC section 9: at most
# 2 MiB): VmRSS of the same program with and without the library, after
# launch, after a dump (which maps and unmaps its own arena), and after
# 100,000 collectives on the fake NCCL (the ring is full).
set -eu
: "${B:?}"
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
measure() {  # WAIT CMD... (env first): VmRSS after WAIT seconds
	secs=$1; shift
	env "$@" >/dev/null 2>&1 &
	pid=$!
	sleep "$secs"
	r=$(rss $pid)
	kill $pid 2>/dev/null; wait $pid 2>/dev/null || true
	echo "$r"
}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
P=$B/tests/core/wait_for_peer
bare=$(measure 1 RANK=0 "$P" 3 4)
traced=$(measure 1 RANK=0 LD_PRELOAD="$B/libhangtrace.so" HANGTRACE_DIR="$t/a" "$P" 3 4)
dumped=$(measure 2 RANK=0 LD_PRELOAD="$B/libhangtrace.so" HANGTRACE_DIR="$t/b" HANGTRACE_TIMEOUT=1 "$P" 3 4)
echo "resident memory: bare $bare KiB; traced, after launch +$((traced - bare)) KiB; after a dump +$((dumped - bare)) KiB; budget +2048 KiB"
J=$B/tests/nccl/nccl_job
cb=$(measure 3 RANK=0 WORLD_SIZE=1 ID_FILE="$t/id1" ITERS=100000 STALL_S=5 "$J" ring)
ct=$(measure 3 RANK=0 WORLD_SIZE=1 ID_FILE="$t/id2" ITERS=100000 STALL_S=5 LD_PRELOAD="$B/libhangtrace.so" HANGTRACE_DIR="$t/c" "$J" ring)
echo "resident memory after 100,000 collectives: bare $cb KiB, traced +$((ct - cb)) KiB; budget +2048 KiB"
