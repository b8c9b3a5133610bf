#!/bin/bash
# SPDX-License-Identifier: MIT
# html.sh: `hangtrace report --html` opened in headless Chromium (Debian's
# chromium) by tests/live/page_check.py: no fetch of any kind, a silent
# console, the script run to its end, the first verdict's code on the first
# screen, a screenshot that is not blank. On the demo's traces (make demo),
# the 16,384-rank synthetic job of bench/gen_traces.py (a few rows, not
# 16,384), a damaged folder (its warnings on the page) and a hostile one
# (markup in host names, command lines, frames and file names stays text).
# The checker itself must fail on a page whose script breaks and on one
# that fetches. The embedded page is the one page.js/page.css make.
# limit: 240
. "$(dirname "$0")/../lib.sh"

CHECK=$ROOT/tests/live/page_check.py
check "html_assets.c is what scripts/embed-page.py makes of page.js and page.css" \
	sh -c "'$PY' '$ROOT/scripts/embed-page.py' '$T/assets.c' && cmp -s '$T/assets.c' '$ROOT/src/cli/report/render/html_assets.c'"

if ! command -v chromium >/dev/null 2>&1; then
	skip html "chromium is not installed (scripts/deps.sh test installs it)"
	finish
fi
echo '<!DOCTYPE html><p>x</p>' >"$T/probe.html"
if ! timeout 60 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/probe" \
	--dump-dom "file://$T/probe.html" 2>"$T/probe.err" | grep -q '<p>x</p>'; then
	skip html "headless chromium cannot open a page here: $(tail -n 1 "$T/probe.err")"
	finish
fi

# page NAME DIR ARGS...: the page of DIR into $T/NAME.html, then the checker.
page() {
	local n=$1 d=$2
	shift 2
	"$HT" report --html "$T/$n.html" "$d" >"$T/$n.txt" 2>"$T/$n.err"
	"$PY" "$CHECK" "$T/$n.html" "$@" 2>&1 | tee "$T/$n.check"
	[ "${PIPESTATUS[0]}" = 0 ]
}

# --- the demo: rank 3 never starts, ranks 0-2 wait in ncclCommInitRank
if [ -x "$B/examples/demo/train" ]; then
	DEMO_DIR=$T/demo B=$B "$ROOT/examples/demo.sh" >"$T/demo.out" 2>&1
	check "demo: the page loads offline, missing_rank first and on screen, not blank" \
		page demo "$T/demo" --code missing_rank --text "never wrote a trace" \
		--text "rank 3" --text "host " --text "bootstrap_wait_peers (libnccl.so.2)" \
		--png "$T/demo.png"
	check "demo: the page draws a row per rank and one for the missing rank" \
		grep -q ', 4 rows$' "$T/demo.check"
else
	skip demo "no $B/examples/demo/train (make needs the CUDA headers for it)"
fi

# --- 16,384 ranks: rank 7777 loads a checkpoint, the others wait
"$PY" "$ROOT/bench/gen_traces.py" "$T/big" >/dev/null
start=$(date +%s.%N)
check "16k: the page loads offline, straggler first and on screen, not blank" \
	page big "$T/big" --code straggler --text "rank 7777" --text "16384 processes" \
	--png "$T/big.png"
echo "# 16k: $(cat "$T/big.check"), report and check $(echo "$(date +%s.%N) - $start" | bc) s"
check "16k: ranks alike share a row: a few rows, not 16,384" \
	sh -c "[ \$(sed -n 's/.*, \([0-9]*\) rows\$/\1/p' '$T/big.check') -le 10 ]"
check "16k: the page stays small (under 512 KiB)" test "$(stat -c %s "$T/big.html")" -lt 524288

# --- damaged: a truncated line, an unknown event, a file that is no trace
cp -r "$ROOT/tests/fixtures/report/bad_files" "$T/bad"
check "damaged: the page shows the warnings, naming file and line" \
	page bad "$T/bad" --text "Warnings" --text "n1.4000.jsonl:25: truncated last line" \
	--text "notes.jsonl:1: not a hangtrace trace"

# --- hostile: markup wherever a trace holds text
mkdir -p "$T/evil"
"$PY" - "$T/evil" <<'EOF'
import json, os, sys
evil = '</script><script>document.title="pwned"</script><img src=x onerror=alert(1)><!--'
d = sys.argv[1]
def line(t, ts, **f):
    return json.dumps(dict(t=t, ts=1700000000 + ts, mono=100 + ts, **f)) + "\n"
for rank in (0, 1):
    pid = 4000 + rank
    out = [line("header", 0, format="hangtrace/1", host="h" + evil, pid=pid, ppid=1, rank=rank,
                world_size=3, local_rank=rank, launcher="torchrun", relevant="identity",
                timeout=1.0, cmdline=["python3", evil], env={"MASTER_ADDR": evil})]
    out.append(line("phase", 0, tid=pid, phase="launch", state="begin"))
    for n in (1, 2):
        out.append(line("stall", 1 + n, tid=pid, dump=n, reason="timeout", phase="launch", n=n, calls=[]))
        out.append(line("thread", 1 + n, dump=n, tid=pid, name=evil, main=True, state="S", cpu=0.1,
                        answered=True, frames=[evil + " (libc.so.6+0x1)", "main (a.out+0x2)"]))
        out.append(line("dump_end", 1 + n, tid=pid, dump=n, threads=1, io={"rchar": 1, "wchar": 0},
                        collectives=[]))
    out.append('{"t":"%s","ts":1700000005.0,"mono":105.0}\n' % evil.replace('"', "'"))
    open(os.path.join(d, "x%s.%d.jsonl" % (evil.replace("/", "_"), pid)), "w").write("".join(out))
EOF
check "hostile: the page loads, nothing injected runs or renders, the text is shown as text" \
	page evil "$T/evil" --code missing_rank --text '<img src=x onerror=alert(1)>' \
	--text '</script><script>document.title="pwned"</script>'

# --- the checker fails where it must
if [ -f "$T/big.html" ]; then
	sed 's/"verdicts":\[/"verdicts":{/' "$T/big.html" >"$T/broken.html"
	check "checker: a page whose script throws fails (no marker, console error)" \
		sh -c "! '$PY' '$CHECK' '$T/broken.html' 2>'$T/broken.why' && grep -q 'console\|did not finish' '$T/broken.why'"
	sed 's|<main>|<main><img src="http://127.0.0.1:9/x.png">|' "$T/big.html" >"$T/fetch.html"
	check "checker: a page that fetches fails, by the page's source" \
		sh -c "! '$PY' '$CHECK' '$T/fetch.html' 2>'$T/fetch.why' && grep -q 'could fetch' '$T/fetch.why'"
	check "checker: and by Chromium's console when the source check is off (the CSP blocked it)" \
		sh -c "! '$PY' '$CHECK' --no-static '$T/fetch.html' 2>'$T/fetch2.why' && grep -q 'Content Security Policy' '$T/fetch2.why'"
fi
finish
