#!/bin/bash
# SPDX-License-Identifier: MIT
# evidence.sh: a verdict's evidence cites FILE:LINE and shows that line's
# own bytes (issue 22): the missing_rank fixture with one quoted line's
# numbers written as the library writes them (6.040001, 2.50), in
# the JSON, the text and the HTML data, never as a parser prints them back
# (6.0400010000000002); its members those of the line, ts, mono and tid
# left out; cut to the width with "...".
# limit: 30
. "$(dirname "$0")/../lib.sh"
cp -r "$ROOT/tests/fixtures/report/missing_rank" "$T/m"
f=$T/m/n1.4000.jsonl
sed -i '31s/"phase_age":[0-9.]*/"phase_age":6.040001/; 31s/"tid":4000,"age":[0-9.]*/"tid":4000,"age":2.50/' "$f"
check "the fixture's line 31 has the numbers" grep -q '"phase_age":6.040001.*"age":2.50' <(sed -n 31p "$f")
"$HT" report --json "$T/m" >"$T/r.json"
ev=$("$PY" -c 'import json,sys; [print(e) for v in json.load(open(sys.argv[1]))["verdicts"] for e in v["evidence"]]' "$T/r.json" | grep '^n1.4000.jsonl:31: ')
check "the JSON quotes n1.4000.jsonl:31" test -n "$ev"
check "its bytes: phase_age 6.040001, age 2.50" sh -c "echo '$ev' | grep -q '\"phase_age\":6.040001,.*\"age\":2.50}'"
check "never printed back by a parser" sh -c "! echo '$ev' | grep -q '6.04000100\|2.5[,}]'"
check "no ts, mono or tid of the line" sh -c "! echo '$ev' | grep -q '\"ts\":\|\"mono\":\|\"tid\":[0-9]*,\"dump\"'"
"$HT" report "$T/m" >"$T/r.txt"
# The text cuts to its width: what it shows is the line's, up to "...".
check "the text quotes the same bytes, cut to its width" grep -q 'n1.4000.jsonl:31: {"t":"stall","dump":3,"reason":"timeout","phase":"nccl_init","phase_age":6\.\.\.$' "$T/r.txt"
"$HT" report --html "$T/r.html" "$T/m" >/dev/null
check "the page's data quotes the same bytes" grep -q 'n1.4000.jsonl:31: .*phase_age\\\\*":6.040001,' "$T/r.html"
finish
