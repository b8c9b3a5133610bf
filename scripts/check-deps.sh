#!/bin/sh
# SPDX-License-Identifier: MIT
# check-deps.sh: the direction of dependencies (doc/architecture.md), from
# the #include "..." lines, each resolved as the compiler does (the file's
# own folder, then the -I folders of the Makefile, in order):
#   src/base    includes only src/base and include/
#   src/core    also src/core and the lists of hooks/ (hooks.def, hooks_*.def,
#               hook_types.h, the filter hooks_of.h) and the family table
#               (hooks/families.h),
#               never a family's own header (hooks/<family>/)
#   src/cli     (the command, its report included) only src/cli, src/base
#               and include/
#   src/cli/report/<stage>/, the report's stages in the order they run:
#               read -> model -> rules -> render. A stage includes its own
#               headers and those of the stages before it, never a later
#               one: read/ only model/model.h (the records it fills), model/
#               no rules/ or render/, rules/ no render/; the driver's
#               report.h (every stage) only render/ and the driver.
# And src/core calls a function the library interposes (hooks/hooks.def,
# family LIBC) only through ht_real, never by its name, which would reach
# our own hook.
# Prints every include or call that breaks a rule and exits 1; run by make.
set -u
cd "$(dirname "$0")/.." || exit 2
dirs="include src/base src/core hooks hooks/net hooks/cuda hooks/nccl hooks/ib src/cli src/cli/report"
bad=0

resolve() {  # FILE HEADER -> the path it includes, or nothing
	for d in "$(dirname "$1")" $dirs; do
		if [ -f "$d/$2" ]; then echo "$d/$2"; return; fi
	done
}

allowed() {  # LAYER PATH
	case $1:$2 in
	base:src/base/*|base:include/*) return 0 ;;
	core:src/base/*|core:src/core/*|core:include/*) return 0 ;;
	core:hooks/hooks.def|core:hooks/hooks_*.def|core:hooks/hooks_of.h|core:hooks/hook_types.h|core:hooks/families.h) return 0 ;;
	cli:src/cli/*|cli:src/base/*|cli:include/*) return 0 ;;
	esac
	return 1
}

stage_of() {  # PATH -> 1 read, 2 model, 3 rules, 4 render, 0 other
	case $1 in
	src/cli/report/read/*) echo 1 ;;
	src/cli/report/model/*) echo 2 ;;
	src/cli/report/rules/*) echo 3 ;;
	src/cli/report/render/*) echo 4 ;;
	*) echo 0 ;;
	esac
}

stage_allowed() {  # FILE PATH
	from=$(stage_of "$1")
	[ "$from" = 0 ] && return 0
	case $2 in
	src/cli/report/report.h) [ "$from" = 4 ]; return ;;
	src/cli/report/model/model.h) return 0 ;;	# the records every stage reads and fills
	esac
	to=$(stage_of "$2")
	[ "$to" -le "$from" ]
}

for f in src/base/*.[ch] src/base/*.def src/core/*.[ch] src/core/*.def \
	 src/cli/*.[ch] src/cli/*/*.[ch] src/cli/*/*/*.[ch]; do
	[ -f "$f" ] || continue
	case $f in src/base/*) layer=base ;; src/core/*) layer=core ;; *) layer=cli ;; esac
	for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		p=$(resolve "$f" "$h")
		if [ -z "$p" ]; then
			echo "check-deps: $f includes \"$h\", which is not in the tree" >&2
			bad=1
		elif ! allowed "$layer" "$p"; then
			echo "check-deps: $f ($layer) includes $p: not allowed (doc/architecture.md)" >&2
			bad=1
		elif ! stage_allowed "$f" "$p"; then
			echo "check-deps: $f includes $p: against the report's stages (read -> model -> rules -> render)" >&2
			bad=1
		fi
	done
done
names=$(sed -n 's/^HT_HOOK(LIBC, [^,]*, \([A-Za-z_0-9]*\),.*/\1/p' hooks/hooks.def hooks/hooks_*.def |
	tr '\n' '|' | sed 's/|$//')
if [ -n "$names" ] &&
   grep -nE "(^|[^.a-zA-Z0-9_>])($names)\(" src/core/*.c | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*)' >&2; then
	echo "check-deps: src/core calls an interposed function by name: call it as ht_real.<name>" >&2
	bad=1
fi
exit $bad
