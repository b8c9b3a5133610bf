# SPDX-License-Identifier: MIT
# C++ exceptions keep working under the library, after a dump loaded the
# unwinder, and _Unwind_RaiseException stays bound to libgcc (issue 2).
# limit: 30
. "$(dirname "$0")/../lib.sh"
out=$(RANK=0 LD_DEBUG=bindings LD_DEBUG_OUTPUT="$T/bind" "$HT" run --dir "$T/a" --timeout 0.5 -- "$B/tests/core/thrower" 1.2 2>/dev/null)
check "exceptions caught" test "$out" = "caught 100"
check "a dump happened before the throws" tq "$T/a" 'len(proc(rank=0).dumps) >= 1 and proc(rank=0).dumps[0][2]["unwinder"] == "libunwind"'
binds=$(cat "$T"/bind.* 2>/dev/null | grep "normal symbol \`_Unwind_RaiseException'")
check "_Unwind_RaiseException bound" test -n "$binds"
check "...to libgcc_s only" sh -c "! printf '%s\n' \"\$1\" | grep -v 'libgcc_s' | grep -q ." _ "$binds"
check "library has no DT_NEEDED beyond libc" sh -c "readelf -d '$LIB' | grep NEEDED | grep -v 'libc.so' | grep -q . && exit 1 || exit 0"
finish
