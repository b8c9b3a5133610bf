# SPDX-License-Identifier: MIT
# Without libunwind the dumps fall back to libgcc's unwinder (issue 2): a
# libunwind.so.8 that lacks the functions is put first on the search path.
# limit: 30
. "$(dirname "$0")/../lib.sh"
mkdir -p "$T/lib"
printf 'int hangtrace_not_libunwind;\n' > "$T/lib/x.c"
cc -shared -fPIC -o "$T/lib/libunwind.so.8" "$T/lib/x.c"
RANK=0 LD_LIBRARY_PATH="$T/lib" "$HT" run --dir "$T/a" --timeout 0.5 -- "$B/tests/core/wait_for_peer" 1 4 >/dev/null 2>&1
check "libgcc's unwinder was used" tq "$T/a" 'proc(rank=0).dumps[0][2]["unwinder"] == "libgcc"'
check "and still names wait_for_peer under main" tq "$T/a" 'proc(rank=0).main_frames(1)[0].startswith("poll (") and [f.split(" ")[0] for f in proc(rank=0).main_frames(1)][1:3] == ["wait_for_peer", "main"]'
RANK=1 LD_LIBRARY_PATH="$T/lib" timeout -s TERM 1 "$HT" run --dir "$T/b" --timeout 100 -- "$B/tests/core/wait_for_peer" 5 >/dev/null 2>&1
check "libgcc: SIGTERM stack taken past our handler too" tq "$T/b" 'proc(rank=1).main_frames(1)[0].startswith("poll (") and proc(rank=1).main_frames(1)[1].startswith("wait_for_peer (")'
finish
