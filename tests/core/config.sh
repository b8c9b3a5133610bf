# SPDX-License-Identifier: MIT
# Configuration (issue 2, SPEC section 3): HANGTRACE_DISABLE=1 does nothing
# at all; a malformed value and an unknown name give one stderr line each,
# naming them and the default used, in a relevant process; the folder is
# created 0700 and the file 0600; a symlink planted where the trace file
# goes is not followed; a folder owned by someone else is refused.
# limit: 30
. "$(dirname "$0")/../lib.sh"
P=$B/tests/core/wait_for_peer
out=$(RANK=0 HANGTRACE_DISABLE=1 HANGTRACE_DIR="$T/off" HANGTRACE_TIMEOUT=0.2 LD_PRELOAD=$LIB "$P" 1 2>&1)
check "disabled: no file, no output of ours" sh -c "[ ! -e '$T/off' ] && [ '$out' = \"\$(printf 'waiting 1 s\ndone')\" ]"

RANK=0 HANGTRACE_DIR="$T/bad" HANGTRACE_TIMEOUT=soon HANGTRACE_TIMOUT=5 LD_PRELOAD=$LIB "$P" 0 >/dev/null 2>"$T/err"
check "malformed value named, with the default used" grep -q "HANGTRACE_TIMEOUT=soon is not a positive number of seconds; using 300" "$T/err"
check "unknown name named" grep -q "unknown variable HANGTRACE_TIMOUT ignored" "$T/err"
check "one line each" test "$(wc -l < "$T/err")" = 2
check "lines prefixed hangtrace[pid]" sh -c "grep -c '^hangtrace\[[0-9]*\]: ' '$T/err' | grep -qx 2"
check "warnings in the header too" tq "$T/bad" 'len(proc(rank=0).header["warnings"]) == 2'
check "folder 0700, file 0600" sh -c "[ \$(stat -c %a '$T/bad') = 700 ] && [ \$(stat -c %a '$T'/bad/*.jsonl) = 600 ]"

# A symlink where the trace file will be: not followed, nothing written there.
mkdir -p "$T/sym"; chmod 700 "$T/sym"
echo precious > "$T/target"
# The shell plants the link at its own pid, then becomes the program.
RANK=0 HANGTRACE_DIR="$T/sym" sh -c 'ln -s "$1" "$2/$(uname -n).$$.jsonl"; LD_PRELOAD=$3 exec /bin/true' _ "$T/target" "$T/sym" "$LIB" 2>"$T/symerr"
check "the symlinked file was not written through" test "$(cat "$T/target")" = precious
check "...and the library said why" grep -q "not tracing: cannot create" "$T/symerr"

mkdir -p "$T/other"; chown nobody "$T/other"; chmod 777 "$T/other"
RANK=0 HANGTRACE_DIR="$T/other" LD_PRELOAD=$LIB /bin/true 2>"$T/othererr"
check "a folder owned by another user is refused with a message" sh -c "grep -q 'not tracing: cannot create $T/other' '$T/othererr' && [ -z \"\$(ls '$T/other')\" ]"
finish
