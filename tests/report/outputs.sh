#!/bin/bash
# SPDX-License-Identifier: MIT
# outputs.sh: an output of `hangtrace report` asked for and not written is
# a failure of the command, exit 2, whatever the verdicts, with the file
# and the reason on stderr (SPEC section 8): --html and --chrome-trace into
# a folder that does not exist and onto a full disk (/dev/full), and the
# report itself onto a full standard output. Written whole, the statuses
# are the verdicts' (0 healthy, 1 an error).
# limit: 30
. "$(dirname "$0")/../lib.sh"
F=$ROOT/tests/fixtures/report
st() { "$HT" report "$@" >/dev/null 2>"$T/err"; echo $?; }
for opt in --html --chrome-trace; do
	for fx in healthy missing_rank; do
		check "$opt into a missing folder, $fx: exit 2" test "$(st $opt "$T/nowhere/x" "$F/$fx")" = 2
		check "$opt into a missing folder, $fx: the file and why" grep -q "$T/nowhere/x: could not write .*No such file or directory" "$T/err"
		check "$opt onto a full disk, $fx: exit 2" test "$(st $opt /dev/full "$F/$fx")" = 2
		check "$opt onto a full disk, $fx: the file and why" grep -q "/dev/full: could not write .*No space left on device" "$T/err"
	done
done
"$HT" report "$F/missing_rank" >/dev/full 2>"$T/err"
rc=$?
check "the report onto a full standard output: exit 2 (got $rc)" test $rc = 2
check "the report onto a full standard output: says so" grep -q "standard output: could not write the report" "$T/err"
"$HT" report --json "$F/healthy" >/dev/full 2>"$T/err"
check "the JSON onto a full standard output: exit 2" test $? = 2
check "written whole: healthy exit 0, a missing rank exit 1" \
	sh -c "test \$('$HT' report --html '$T/p.html' --chrome-trace '$T/t.json' '$F/healthy' >/dev/null 2>&1; echo \$?) = 0 && \
		test \$('$HT' report --html '$T/p.html' '$F/missing_rank' >/dev/null 2>&1; echo \$?) = 1 && test -s '$T/p.html' && test -s '$T/t.json'"
finish
