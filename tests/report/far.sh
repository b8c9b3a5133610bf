#!/bin/bash
# SPDX-License-Identifier: MIT
# far.sh: lines past a trace file's first 4 GiB (a location keeps 32 bits
# of offset; those are found again by their number, from marks made once
# per file). The missing_rank fixture with a line of 4 GiB of NULs (a
# sparse file) after rank 0's header: the report warns of that line and
# says the rest as before, its lines one further on; the stall line it
# quotes is read there whole; the stacks, parsed from dump lines past
# 4 GiB, are the same; a digest of the folder gives the same report.
# Needs 9 GiB of memory (the reader holds the file); said SKIP without.
# limit: 240
. "$(dirname "$0")/../lib.sh"
avail=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
if [ "$avail" -lt 9437184 ]; then
	skip "lines past 4 GiB" "$((avail / 1024)) MiB of memory available, 9 GiB needed"
	finish
fi
cp -r "$ROOT/tests/fixtures/report/missing_rank" "$T/m"
"$HT" report "$T/m" >"$T/before.txt" 2>&1
"$HT" report --json "$T/m" >"$T/before.json" 2>/dev/null
f=$T/m/n1.4000.jsonl
head -n 1 "$f" >"$f.far"
truncate -s +4295000000 "$f.far"	# line 2: 4 GiB of NULs, not written
printf '\n' >>"$f.far"
tail -n +2 "$f" >>"$f.far"
mv "$f.far" "$f"
check "rank 0's file is past 4 GiB" test "$(stat -c %s "$f")" -gt 4294967296
"$HT" report "$T/m" >"$T/far.txt" 2>&1
check "the 4 GiB line is warned of" grep -q '^hangtrace: n1.4000.jsonl:2: line longer than 16 MiB, ignored$' "$T/far.txt"
check "the stall line past 4 GiB is quoted whole, at its line" \
	grep -q 'n1.4000.jsonl:32: {"t":"stall","dump":3,"reason":"timeout","phase":"nccl_init"' "$T/far.txt"
# The rest as before: the lines of rank 0 past line 1 one further on.
sed 's/n1\.4000\.jsonl:31:/n1.4000.jsonl:32:/' "$T/before.txt" >"$T/want.txt"
check "otherwise the report before, stacks included" \
	diff <(grep -v 'line longer than 16 MiB\|trace files, 3 processes' "$T/far.txt") \
	<(grep -v 'trace files, 3 processes' "$T/want.txt")
"$HT" report --json "$T/m" >"$T/far.json" 2>/dev/null
check "the JSON: the same verdicts, evidence and stacks, one warning more" "$PY" -c '
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert b["warnings"] == ["n1.4000.jsonl:2: line longer than 16 MiB, ignored"], b["warnings"]
b["warnings"] = []
s = json.dumps(b).replace("n1.4000.jsonl:32:", "n1.4000.jsonl:31:")
assert json.loads(s) == a
' "$T/before.json" "$T/far.json"
"$HT" digest "$T/m" >"$T/m.dg" 2>"$T/dg.err"
check "its digest is small" test "$(stat -c %s "$T/m.dg")" -lt 65536
"$HT" report "$T/m.dg" >"$T/dg.txt" 2>&1
check "the report from its digest is the same" cmp "$T/far.txt" "$T/dg.txt"
finish
