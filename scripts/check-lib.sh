#!/bin/sh
# SPDX-License-Identifier: MIT
# check-lib.sh LIB: the library must stay invisible: no DT_NEEDED beyond
# libc (and the loader, libdl, libpthread), only the interposed names
# exported, and dlsym's RTLD_NEXT path a tail jump (notes Q1 test 6).
set -eu
lib=$1
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
