# SPDX-License-Identifier: MIT
# Invisible (issue 7): under the library, with rank variables set and
# unset, common programs behave byte for byte as without it (a dlsym
# probe for MPI included: the library exports MPI wrappers): stdout,
# stderr and exit status. With rank variables they are traced (a file),
# without they are not.
# limit: 120
. "$(dirname "$0")/../lib.sh"
cd "$T" || exit 1
printf 'all:\n\t@echo built $(X)\n\t@false\n' > Makefile
mkdir -p tree/a && echo data > tree/a/f
cat > forks.py <<'PY'
import os, subprocess, sys
pid = os.fork()
if pid == 0:
    print("child", flush=True)
    os._exit(3)
_, st = os.waitpid(pid, 0)
print("parent saw", os.waitstatus_to_exitcode(st))
r = subprocess.run(["/bin/sh", "-c", "echo sub; echo err >&2; exit 2"], capture_output=True, text=True)
print(r.stdout.strip(), r.stderr.strip(), r.returncode)
os.posix_spawn("/bin/true", ["true"], os.environ)
print(os.wait()[1])
sys.exit(7)
PY
py312=$(ls -d /root/.pyenv/versions/3.12.*/bin/python3.12 2>/dev/null | head -n 1)
printf 'import os\npid = os.fork()\nif pid == 0:\n    os._exit(0)\nos.waitpid(pid, 0)\nprint("forked")\n' > fork312.py

same() {  # LABEL ENVSET CMD...: identical with and without the library
	label=$1; rankvars=$2; shift 2
	"$@" >o1 2>e1 </dev/null; r1=$?
	if [ "$rankvars" = yes ]; then
		env LD_PRELOAD="$LIB" HANGTRACE_DIR="$T/traces" RANK=0 WORLD_SIZE=1 "$@" >o2 2>e2 </dev/null; r2=$?
	else
		env LD_PRELOAD="$LIB" HANGTRACE_DIR="$T/never" "$@" >o2 2>e2 </dev/null; r2=$?
	fi
	if [ $r1 = $r2 ] && cmp -s o1 o2 && cmp -s e1 e2; then
		pass "$label (rank vars $rankvars): same output, status $r1"
	else
		fail "$label (rank vars $rankvars)" "status $r1/$r2; $(diff o1 o2 | head -3); $(diff e1 e2 | head -3)"
	fi
}
for rv in no yes; do
	same "bash -c" $rv bash -c 'echo out; echo err >&2; exit 3'
	same "python3 -c" $rv /usr/bin/python3 -c 'import sys; print("py"); sys.stderr.write("e\n"); sys.exit(4)'
	same "gcc" $rv gcc -c -o x.o -x c /dev/null
	same "make" $rv make X=1
	same "tar" $rv tar cf - tree
	same "ssh -V" $rv ssh -V
	same "static binary" $rv "$B/tests/trust/static_hello"
	same "python fork, subprocess, posix_spawn" $rv /usr/bin/python3 forks.py
	# The library exports MPI wrappers (hooks/mpi): a probe for MPI in a
	# process without an MPI library must still find none.
	same "a dlsym probe for MPI_Init, PMPI_Init, MPI_Allreduce" $rv /usr/bin/python3 -c \
		'import ctypes; l = ctypes.CDLL(None); print([hasattr(l, n) for n in ("MPI_Init", "PMPI_Init", "MPI_Allreduce")])'
	if [ -n "$py312" ]; then
		same "python3.12 -W error fork" $rv "$py312" -W error::DeprecationWarning fork312.py
	else
		skip "python3.12 -W error fork" "no CPython 3.12 under /root/.pyenv"
	fi
done
check "without rank variables: no folder" test ! -e "$T/never"
check "with rank variables: traced" test -n "$(ls "$T/traces" 2>/dev/null)"
finish
