#!/bin/sh
# SPDX-License-Identifier: MIT
# run-all.sh: what `make test` runs: the Check suites (built with
# AddressSanitizer and UBSan), then every integration script; the last line
# is the closing count of both.
set -u
: "${B:?B must name the build folder}"
root=$(cd "$(dirname "$0")/.." && pwd)
out=$B/tests/check.log
mkdir -p "$B/tests"
"$B/tests/check_runner" >"$out" 2>&1
crc=$?
cat "$out"
# Check's summary line: "100%: Checks: 42, Failures: 0, Errors: 0"
cchecks=$(sed -n 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' "$out" | tail -n 1)
set -- $cchecks 0 0 0
cpass=$(( $1 - $2 - $3 )); cfail=$(( $2 + $3 ))
[ $crc -ne 0 ] && [ $cfail -eq 0 ] && cfail=1
B=$B "$root/tests/run-it.sh" | tee "$B/tests/it.log"
line=$(tail -n 1 "$B/tests/it.log")
ip=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped/\1/p')
if_=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped/\2/p')
is=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped/\3/p')
ip=${ip:-0}; if_=${if_:-1}; is=${is:-0}
echo "unit: $cpass passed, $cfail failed"
echo "$((cpass + ip)) passed, $((cfail + if_)) failed, $is skipped"
[ $cfail -eq 0 ] && [ "$if_" -eq 0 ]
