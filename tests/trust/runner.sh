#!/bin/bash
# SPDX-License-Identifier: MIT
# runner.sh: tests/run-it.sh counts what a script says, and a script that
# says nothing fails: in a copy of the runner over a tree of three
# scripts (one that passes, one that skips, one that exits 0 without a
# line), the silent one is a FAIL and the run exits nonzero; without it,
# the run passes.
# limit: 30
. "$(dirname "$0")/../lib.sh"
mkdir -p "$T/tree/tests/a" "$T/b"
cp "$ROOT/tests/run-it.sh" "$T/tree/tests/"
printf '#!/bin/sh\necho "PASS one"\n' >"$T/tree/tests/a/one.sh"
printf '#!/bin/sh\necho "SKIP two: not here"\n' >"$T/tree/tests/a/two.sh"
printf '#!/bin/sh\necho "it ran"\nexit 0\n' >"$T/tree/tests/a/silent.sh"
B=$T/b sh "$T/tree/tests/run-it.sh" >"$T/out" 2>&1
rc=$?
check "a script that exits 0 without PASS, FAIL or SKIP fails the run (exit $rc)" test $rc -ne 0
check "it is named as a FAIL" grep -q 'FAIL tests/a/silent.sh: exited 0 without a PASS, FAIL or SKIP line' "$T/out"
check "the closing count has it failed" grep -q '^integration: 1 passed, 1 failed, 1 skipped$' "$T/out"
rm "$T/tree/tests/a/silent.sh"
B=$T/b sh "$T/tree/tests/run-it.sh" >"$T/out2" 2>&1
check "without it, the run passes" test $? -eq 0
finish
