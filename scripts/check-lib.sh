#!/bin/sh
# SPDX-License-Identifier: MIT
# check-lib.sh LIB [MAP]: the library must stay invisible: no DT_NEEDED
# beyond libc (and the loader, libdl, libpthread), only the interposed names
# exported, and dlsym's RTLD_NEXT path a tail jump (tests/core/install.sh
# interposes a second library through dlsym(RTLD_NEXT) over it). With MAP,
# the version script made from the .def lists (scripts/exports.sh): every
# name it lists must be defined and exported by LIB, since GNU ld silently
# skips a listed name that no object defines (a hook lost to a typo or an
# #if would otherwise go unnoticed), and LIB exports nothing else.
set -eu
lib=$1
map=${2:-}
needed=$(readelf -d "$lib" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
for n in $needed; do
	case $n in
	libc.so.*|ld-linux*|libdl.so.*|libpthread.so.*) ;;
	*) echo "check-lib: $lib needs $n: a preload may depend on libc only" >&2; exit 1 ;;
	esac
done
bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -E '^(ht_|unw_|_U|_Unwind|json|fake)' || true)
if [ -n "$bad" ]; then
	echo "check-lib: $lib exports internal symbols: $bad" >&2
	exit 1
fi
if nm -D --undefined-only "$lib" | grep -qE ' (__libc_dlsym|_dl_sym)$'; then
	echo "check-lib: $lib references __libc_dlsym/_dl_sym (gone in glibc 2.34)" >&2
	exit 1
fi
if command -v objdump >/dev/null 2>&1; then
	# The first branch taken for RTLD_NEXT must be a jump, not a call.
	if ! objdump -d --no-show-raw-insn "$lib" | awk '/<dlsym>:$/,/^$/' | grep -qE 'jmp +\*'; then
		echo "check-lib: dlsym's RTLD_NEXT path is not a tail jump" >&2
		exit 1
	fi
fi
if [ -n "$map" ]; then
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);$/\1/p' "$map" | sort -u >"$t/listed"
	nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u >"$t/exported"
	missing=$(comm -23 "$t/listed" "$t/exported")
	extra=$(comm -13 "$t/listed" "$t/exported")
	for n in $missing; do
		echo "check-lib: $n is listed in hooks/*.def but $lib does not export it (no HT_EXPORT definition of it was linked)" >&2
	done
	for n in $extra; do
		echo "check-lib: $lib exports $n, which no hooks/*.def list names" >&2
	done
	[ -z "$missing" ] && [ -z "$extra" ] || exit 1
fi
