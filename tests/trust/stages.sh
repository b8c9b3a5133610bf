#!/bin/bash
# SPDX-License-Identifier: MIT
# stages.sh: scripts/check-deps.sh keeps the report's stages one way
# (read -> model -> rules -> render, issue 22), and the core off its own
# hooks. The tree passes; a copy of it where a stage includes a later
# one's header fails, naming the file; so does one where the core calls
# close by name (our own hook) instead of ht_real.close.
# limit: 30
. "$(dirname "$0")/../lib.sh"

mkdir -p "$T/tree/scripts"
cp -r "$ROOT/include" "$ROOT/src" "$ROOT/hooks" "$T/tree/"
cp "$ROOT/scripts/check-deps.sh" "$T/tree/scripts/"
check "the tree keeps the stages" "$T/tree/scripts/check-deps.sh"

# bad STAGE-FILE HEADER: the copy with one include added fails, naming it.
bad() {
	rm -rf "$T/bad"
	cp -r "$T/tree" "$T/bad"
	sed -i "0,/^#include \"/s|^#include \"|#include \"$2\"\n&|" "$T/bad/$1"
	"$T/bad/scripts/check-deps.sh" >/dev/null 2>"$T/bad.err"
	local rc=$?
	check "$1 including $2 fails" [ "$rc" = 1 ]
	check "$1 including $2: the message names it" grep -q "$1 includes .*$2: against the report's stages" "$T/bad.err"
}
bad src/cli/report/read/parse.c rules/verdicts.h
bad src/cli/report/model/stacks.c rules/verdict.h
bad src/cli/report/rules/order.c render/check_report.h
bad src/cli/report/read/dumps.c report.h

rm -rf "$T/bad"
cp -r "$T/tree" "$T/bad"
sed -i 's/ht_real\.close(fd);/close(fd);/' "$T/bad/src/core/self.c"
"$T/bad/scripts/check-deps.sh" >/dev/null 2>"$T/bad.err"
check "the core calling close by name fails" [ $? = 1 ]
check "the core calling close by name: the message names the line" \
	grep -q "src/core/self.c:[0-9]*:.*close(fd)" "$T/bad.err"
finish
