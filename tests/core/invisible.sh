# SPDX-License-Identifier: MIT
# Irrelevant processes are untouched (issue 2, SPEC section 4): preloaded
# into common programs without rank variables, the library changes neither
# stdout, stderr nor the exit status, creates no file and starts no thread.
# limit: 60
. "$(dirname "$0")/../lib.sh"
printf 'int main(void){return 0;}\n' > "$T/x.c"
printf 'b\na\nc\n' > "$T/s.txt"
n=0
same() {  # NAME CMD...: same bytes and status with and without the library
	name=$1; shift
	n=$((n + 1))
	(cd "$T" && "$@") >"$T/o1" 2>"$T/e1"; r1=$?
	(cd "$T" && env LD_PRELOAD="$LIB" HANGTRACE_DIR="$T/never" "$@") >"$T/o2" 2>"$T/e2"; r2=$?
	if [ $r1 = $r2 ] && cmp -s "$T/o1" "$T/o2" && cmp -s "$T/e1" "$T/e2"; then
		pass "$name: identical output and status ($r1)"
	else
		fail "$name" "status $r1 vs $r2, or output differs: $(diff "$T/o1" "$T/o2" | head -3) $(diff "$T/e1" "$T/e2" | head -3)"
	fi
}
same "bash -c" bash -c 'echo hi; echo err >&2; grep Threads /proc/$$/status; exit 3'
same "python3 -c" /usr/bin/python3 -c 'import os,sys; print(open("/proc/self/status").read().split("Threads:")[1].split()[0]); sys.exit(4)'
check "python counts its own threads: 1" grep -qx "1" "$T/o2"
same "gcc" gcc -c -o x.o x.c
same "gcc error" gcc -c -o y.o nonexistent.c
same "ls" ls -la /etc/hostname /nonexistent
same "sort" sort s.txt
same "true" /bin/true
same "false" /bin/false
check "no trace folder created" test ! -e "$T/never"
# Even with a malformed variable: an irrelevant process prints nothing.
env LD_PRELOAD="$LIB" HANGTRACE_TIMEOUT=soon HANGTRACE_BOGUS=1 /bin/true 2>"$T/e3"
check "no warning from an irrelevant process" test ! -s "$T/e3"
finish
