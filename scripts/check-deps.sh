#!/bin/sh
# SPDX-License-Identifier: MIT
# check-deps.sh: the direction of dependencies (doc/architecture.md), from
# the #include "..." lines, each resolved as the compiler does (the file's
# own folder, then the -I folders of the Makefile, in order):
#   src/base    includes only src/base and include/
#   src/core    also src/core and the lists of hooks/ (hooks.def, hooks_*.def,
#               hook_types.h) and the family table (hooks/families.h),
#               never a family's own header (hooks/<family>/)
#   src/cli     (the command, its report included) only src/cli, src/base
#               and include/
# Prints every include that breaks a rule and exits 1; run by make.
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
	core:hooks/hooks.def|core:hooks/hooks_*.def|core:hooks/hook_types.h|core:hooks/families.h) return 0 ;;
	cli:src/cli/*|cli:src/base/*|cli:include/*) return 0 ;;
	esac
	return 1
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
		fi
	done
done
exit $bad
