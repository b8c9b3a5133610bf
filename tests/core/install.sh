# SPDX-License-Identifier: MIT
# make install (issue 2): the command and the library land in PREFIX/bin and
# PREFIX/lib, and the installed hangtrace finds its library from there.
# limit: 120
. "$(dirname "$0")/../lib.sh"
make -s -C "$ROOT" B="$B" install PREFIX="$T/prefix" >/dev/null 2>&1
check "installed" test -x "$T/prefix/bin/hangtrace" -a -f "$T/prefix/lib/libhangtrace.so"
RANK=0 "$T/prefix/bin/hangtrace" run --dir "$T/a" -- /bin/true
check "the installed command preloads the installed library" tq "$T/a" 'proc(rank=0).header["env"]["LD_PRELOAD"].startswith("'"$T"'/prefix/lib/libhangtrace.so")'
out=$(LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libc.so.6 RANK=0 "$T/prefix/bin/hangtrace" run --dir "$T/b" -- sh -c 'echo "$LD_PRELOAD"')
check "LD_PRELOAD kept, ours first" test "$out" = "$T/prefix/lib/libhangtrace.so:/usr/lib/x86_64-linux-gnu/libc.so.6"
"$T/prefix/bin/hangtrace" run -- /nonexistent/program 2>/dev/null
check "a command that cannot be run: status 127" test $? = 127
"$T/prefix/bin/hangtrace" run --timeout soon -- /bin/true 2>"$T/err"
check "a bad --timeout: status 2 and a message" sh -c "[ $? = 2 ] && grep -q \"timeout 'soon' is not a positive number\" '$T/err'"
mv "$T/prefix/lib/libhangtrace.so" "$T/prefix/lib/moved.so"
"$T/prefix/bin/hangtrace" run -- /bin/true 2>"$T/err2"
check "a missing library: status 2 and where it looked" sh -c "[ $? = 2 ] && grep -q 'cannot find libhangtrace.so' '$T/err2'"
finish
