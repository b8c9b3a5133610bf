# SPDX-License-Identifier: MIT
# Hostile input (issue 7): trace files with an oversized line, invalid
# UTF-8, deep nesting, huge numbers and a duplicate pid, beside the traces
# of a real rank. hangtrace report must not crash; each bad line is a
# warning naming its file and line; the real rank is still reported.
# limit: 60
. "$(dirname "$0")/../lib.sh"
D=$T/job
mkdir -p "$D"
# One real rank, stalled (so there is something to report).
RANK=0 WORLD_SIZE=1 "$HT" run --dir "$D" --timeout 0.3 -- "$B/tests/core/wait_for_peer" 1 >/dev/null 2>&1
real=$(ls "$D")
"$PY" - "$D" "$D/$real" <<'PY'
import json, sys
d, real = sys.argv[1], sys.argv[2]
header = json.loads(open(real).readline())
def hdr(pid, **kw):
    h = dict(header, pid=pid, rank=1, world_size=2, **kw)
    return json.dumps(h) + "\n"
# An oversized line: a thread line with 200,000 frames (about 12 MiB).
with open(f"{d}/n9.101.jsonl", "w") as f:
    f.write(hdr(101))
    big = {"t": "thread", "ts": 1.0, "mono": 1.0, "dump": 1, "tid": 101, "main": True,
           "answered": True, "frames": ["f%d (libx.so+0x%x)" % (i, i) for i in range(200000)]}
    f.write(json.dumps(big) + "\n")
# Invalid UTF-8 inside a string, then a good line.
with open(f"{d}/n9.102.jsonl", "wb") as f:
    f.write(hdr(102).encode())
    f.write(b'{"t":"warning","ts":1.0,"mono":1.0,"tid":102,"msg":"bad \xff\xfe bytes"}\n')
    f.write(b'{"t":"phase","ts":2.0,"mono":2.0,"tid":102,"phase":"launch","state":"begin"}\n')
# Deep nesting: 100,000 levels.
with open(f"{d}/n9.103.jsonl", "w") as f:
    f.write(hdr(103))
    f.write('{"t":"phase","ts":1.0,"mono":1.0,"x":' + "[" * 100000 + "]" * 100000 + "}\n")
# Huge numbers where integers are expected.
with open(f"{d}/n9.104.jsonl", "w") as f:
    f.write(json.dumps(dict(header, pid=104, rank=10**30, world_size=-5)) + "\n")
    f.write('{"t":"phase","ts":1e400,"mono":-1e308,"tid":99999999999999999999999,"phase":"launch","state":"begin"}\n')
# A duplicate pid: the real rank's file copied under another name.
open(f"{d}/copy.of.{real.split('.')[-2]}.jsonl", "w").write(open(real).read())
PY
"$HT" report --json "$D" >"$T/r.json" 2>"$T/r.err"; rc=$?
check "report did not crash (status $rc)" test $rc -le 2
check "the real rank is still reported, with its dumps and status" "$PY" -c "
import json, sys; d = json.load(open('$T/r.json'))
assert [(r['dumps'], r['exit']) for r in d['ranks'] if r['rank'] == 0] == [(2, {'status': 0})], d['ranks']"
check "its copy is read once, with a warning" grep -q "the same process as" "$T/r.err"
# (The hostile files themselves all claim rank 1: that duplicate is real.)
check "rank 0 and its copy are no duplicate_rank" "$PY" -c "
import json; d = json.load(open('$T/r.json'))
assert not any(v['code'] == 'duplicate_rank' and 0 in v['ranks'] for v in d['verdicts']), d['verdicts']"
check "the invalid UTF-8 line is a warning naming file and line" grep -q "n9.102.jsonl:2" "$T/r.err"
check "the deeply nested line is a warning naming file and line" grep -q "n9.103.jsonl:2" "$T/r.err"
check "the huge numbers are a warning, not a crash" grep -q "n9.104.jsonl" "$T/r.err"
check "the oversized line was read or named, never a crash" sh -c "grep -q 'n9.101.jsonl' '$T/r.err' || grep -q '\"pid\": 101' '$T/r.json' || grep -q 101 '$T/r.json'"
"$HT" report "$D" >"$T/r.txt" 2>&1; rc=$?
check "the text report too (status $rc)" test $rc -le 2
finish
