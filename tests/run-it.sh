#!/bin/sh
# SPDX-License-Identifier: MIT
# run-it.sh [NAME...]: runs the integration scripts tests/*/*.sh (or those
# whose path contains a NAME), each under a hard time limit (a line
# "# limit: SECONDS" in the script, default 300), logs each to
# $B/tests/logs, echoes its PASS/FAIL/SKIP lines and ends with one count. A
# script that exits 0 without one of those lines fails.
set -u
: "${B:?B must name the build folder}"
root=$(cd "$(dirname "$0")/.." && pwd)
logs=$B/tests/logs
mkdir -p "$logs"
passed=0; failed=0; skipped=0
for s in $(ls "$root"/tests/*/*.sh | sort); do
	rel=${s#"$root"/}
	case $rel in tests/fake_*/selftest.sh) ;; esac
	case $rel in tests/gpu/*) continue ;; esac	# needs a GPU: tests/gpu/check.sh
	if [ $# -gt 0 ]; then
		want=0
		for n in "$@"; do case $rel in *"$n"*) want=1 ;; esac; done
		[ $want = 1 ] || continue
	fi
	limit=$(sed -n 's/^# limit: *\([0-9]*\).*/\1/p' "$s" | head -n 1)
	limit=${limit:-300}
	log=$logs/$(echo "$rel" | tr '/' '_').log
	start=$(date +%s)
	B=$B timeout -k 10 "$limit" bash "$s" "$B" >"$log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	grep -E '^(PASS|FAIL|SKIP) ' "$log" | sed "s|^|  |"
	p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log"); k=$(grep -c '^SKIP ' "$log")
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then why="timed out after ${limit}s"; else why="exited $rc"; fi
		echo "  FAIL $rel: $why (log: $log)"
		tail -n 15 "$log" | sed 's/^/    | /'
		f=1
	elif [ "$f" -gt 0 ]; then
		echo "  (log: $log)"
	elif [ "$p" -eq 0 ] && [ "$k" -eq 0 ]; then
		# A script that says nothing tested nothing.
		echo "  FAIL $rel: exited $rc without a PASS, FAIL or SKIP line (log: $log)"
		f=1
	fi
	echo "$rel: $p passed, $f failed, $k skipped (${secs}s)"
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + k))
done
echo "integration: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
