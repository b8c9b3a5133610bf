#!/bin/sh
# SPDX-License-Identifier: MIT
# Resident memory added to a traced process (SPEC section 9: at most
# 2 MiB): VmRSS of the same program with and without the library, after
# launch, and after a dump (which maps and unmaps its own arena).
set -eu
: "${B:?}"
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
measure() {  # LABEL WAIT ENV...
	label=$1; secs=$2; shift 2
	env "$@" "$B/tests/core/wait_for_peer" 3 4 >/dev/null 2>&1 &
	pid=$!
	sleep "$secs"
	echo "$label $(rss $pid)"
	kill $pid 2>/dev/null; wait $pid 2>/dev/null || true
}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
bare=$(measure bare 1 RANK=0 | awk '{print $2}')
traced=$(measure traced 1 RANK=0 LD_PRELOAD="$B/libhangtrace.so" HANGTRACE_DIR="$t/a" | awk '{print $2}')
dumped=$(measure dumped 2 RANK=0 LD_PRELOAD="$B/libhangtrace.so" HANGTRACE_DIR="$t/b" HANGTRACE_TIMEOUT=1 | awk '{print $2}')
echo "resident memory: bare $bare KiB, traced after launch $traced KiB (+$((traced - bare)) KiB), after a dump $dumped KiB (+$((dumped - bare)) KiB); budget +2048 KiB"
