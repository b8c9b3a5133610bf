# SPDX-License-Identifier: MIT
# hangtrace report as a user runs it (issue 6, SPEC section 8), on the
# hand-written fixtures of tests/fixtures/report: the exit statuses (0, 1,
# 2), the JSON parsed back, the Chrome trace Perfetto opens, warnings on
# stderr naming file and line, per-node folders, 100 columns, no colour
# into a pipe; and the fixtures are exactly what tests/report/fixtures.py
# writes (they are generated once and committed).
# limit: 60
. "$(dirname "$0")/../lib.sh"
F=$ROOT/tests/fixtures/report

"$PY" "$ROOT/tests/report/fixtures.py" "$T/fixtures"
check "fixtures are what fixtures.py writes" diff -r "$F" "$T/fixtures"

status() { "$HT" report "$@" >/dev/null 2>&1; echo $?; }
check "healthy job: exit 0" test "$(status "$F/healthy")" = 0
check "a rank missing: exit 1" test "$(status "$F/missing_rank")" = 1
check "only a warning (rank not there yet): exit 0" test "$(status "$F/missing_rank_early")" = 0
check "nothing readable: exit 2" test "$(status "$F/not_a_trace")" = 2
check "no such folder: exit 2" test "$(status "$T/nowhere")" = 2
check "no folder given: exit 2" test "$(status)" = 2
check "unknown option: exit 2" test "$(status --frobnicate "$F/healthy")" = 2
"$HT" report --help >"$T/help"
check "--help: a man page" sh -c "grep -q '^EXIT STATUS' '$T/help' && grep -q -- '--chrome-trace FILE' '$T/help'"

# The JSON, parsed back.
"$HT" report --json "$F/missing_rank" >"$T/m.json"
check "JSON: format, job, the missing rank" "$PY" - "$T/m.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "hangtrace-report/1"
assert set(["job", "ranks", "verdicts", "stack_groups", "warnings"]) <= set(d)
assert d["job"]["world_size"] == 4 and d["job"]["ranks_seen"] == [0, 1, 3]
v = d["verdicts"][0]
assert v["code"] == "missing_rank" and v["severity"] == "error" and v["ranks"] == [2], v
assert all(isinstance(e, str) for e in v["evidence"]) and v["advice"]
assert [r["rank"] for r in d["ranks"]] == [0, 1, 3]
assert all(r["phase"] == "nccl_init" and r["stalled"] and r["exit"] is None for r in d["ranks"])
assert d["stack_groups"][0]["ranks"] == [0, 1, 3]
PYEOF

# The timeline, as Perfetto reads it.
"$HT" report --chrome-trace "$T/t.json" "$F/straggler" >"$T/text" || true
check "--chrome-trace still prints the text report" grep -q "straggler" "$T/text"
check "Chrome trace: one row per rank, complete events, the stall marked" "$PY" - "$T/t.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
rows = {e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
assert rows == set(range(8)), rows
for e in ev:
    assert e["ph"] in ("M", "X", "i", "s", "f") and isinstance(e["name"], str)
    if e["ph"] == "X":
        assert e["ts"] >= 0 and e["dur"] >= 0 and isinstance(e["tid"], int)
stall = [e for e in ev if e["ph"] == "X" and e["pid"] == 0 and "stalled" in e["name"]]
assert stall and stall[0]["name"] == "launch (stalled)", stall
PYEOF

# Damaged input: warnings naming file and line on stderr, the rest used.
"$HT" report "$F/bad_files" >"$T/bad.out" 2>"$T/bad.err"; rc=$?
check "damaged files: still a report (exit $rc)" test $rc = 0
check "truncated last line named" grep -q "n1.4000.jsonl:25: truncated last line" "$T/bad.err"
check "not JSON named" grep -q "n1.4998.jsonl:2: not JSON" "$T/bad.err"
check "not a trace named" grep -q "notes.jsonl:1: not a hangtrace trace" "$T/bad.err"
check "empty file named" grep -q "n1.4999.jsonl: empty file" "$T/bad.err"
check "both ranks still read" grep -q "2 seen of 2 expected" "$T/bad.out"

# One folder per node, given separately or as a parent folder.
mkdir -p "$T/nodes/n1" "$T/nodes/n2"
cp "$F"/missing_host/n1.* "$T/nodes/n1/"; cp "$F"/missing_host/n2.* "$T/nodes/n2/"
"$HT" report --json "$F/missing_host" >"$T/one.json" 2>/dev/null
"$HT" report --json "$T/nodes/n1" "$T/nodes/n2" >"$T/two.json" 2>/dev/null
"$HT" report --json "$T/nodes" >"$T/parent.json" 2>/dev/null
check "per-node folders: the same verdicts" "$PY" - "$T/one.json" "$T/two.json" "$T/parent.json" <<'PYEOF'
import json, sys
v = [[(x["code"], x["ranks"]) for x in json.load(open(f))["verdicts"]] for f in sys.argv[1:]]
assert v[0] == v[1] == v[2] and ("missing_rank", [4, 5, 6, 7]) in v[0], v
PYEOF

# Text for a person: 100 columns, no colour into a pipe, colour on request.
for c in straggler missing_host rendezvous_refused collective_mismatch bad_files; do
	"$HT" report "$F/$c" 2>/dev/null
done >"$T/all.txt"
check "text fits 100 columns" "$PY" -c "import sys; assert max(len(l.rstrip('\n')) for l in open(sys.argv[1], encoding='utf-8')) <= 100" "$T/all.txt"
check "no colour into a pipe" sh -c "! grep -q \"$(printf '\033')\" '$T/all.txt'"
"$HT" report --color always "$F/straggler" >"$T/colour.txt" 2>/dev/null || true
check "--color always colours" grep -q "$(printf '\033')\[1;31mERROR" "$T/colour.txt"
finish
