# SPDX-License-Identifier: MIT
# fork and friends (issue 2): a forked child gets its own trace file marked
# with its parent's pid; vfork, posix_spawn and _Fork neither crash nor
# hang; Python's subprocess works; a Python 3.12 os.fork() under
# -W error::DeprecationWarning behaves as without the library.
# limit: 60
. "$(dirname "$0")/../lib.sh"
out=$(RANK=0 "$HT" run --dir "$T/a" -- "$B/tests/core/forker")
check "every child ran and exited as told" test "$out" = "$(printf 'fork child 7\nvfork child 8\nspawn child 9\n_Fork child 10')"
check "parent recorded the fork" tq "$T/a" 'len(proc(rank=0).evs("fork")) == 1'
check "child has its own file marked with the parent" tq "$T/a" 'any(p.header["fork_parent"] == proc(rank=0).pid and p.header["relevant"] == "fork" and p.exit["status"] == 7 for p in procs)'
check "the vfork child left no exit record in the parent" tq "$T/a" '[e["status"] for e in proc(rank=0).evs("exit")] == [0]'

cat > "$T/sub.py" <<'PY'
import subprocess, sys
r = subprocess.run(["/bin/sh", "-c", "echo from-child; exit 6"], capture_output=True, text=True)
print(r.stdout.strip(), r.returncode)
try:
    subprocess.run(["/nonexistent/program"])
except FileNotFoundError:
    print("not found, as expected")
PY
out=$(RANK=0 "$HT" run --dir "$T/b" -- /usr/bin/python3 "$T/sub.py")
check "python subprocess (vfork) works" test "$out" = "$(printf 'from-child 6\nnot found, as expected')"
check "the failed exec did not end the parent's record" tq "$T/b" '[e.get("status") for e in proc(rank=0).evs("exit")] == [0]'

py312=$(ls -d /root/.pyenv/versions/3.12.*/bin/python3.12 2>/dev/null | head -n 1)
if [ -z "$py312" ]; then
	skip "python 3.12 fork warning" "no CPython 3.12 under /root/.pyenv"
else
	cat > "$T/fork312.py" <<'PY'
import os
pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
print("forked without warning")
PY
	"$py312" -W error::DeprecationWarning "$T/fork312.py" >"$T/o1" 2>"$T/e1"; r1=$?
	RANK=0 "$HT" run --dir "$T/c" -- "$py312" -W error::DeprecationWarning "$T/fork312.py" >"$T/o2" 2>"$T/e2"; r2=$?
	check "python 3.12 fork under -W error: same status ($r1)" test $r1 = $r2
	check "python 3.12 fork under -W error: same output" cmp -s "$T/o1" "$T/o2"
	check "python 3.12 fork under -W error: no warning" cmp -s "$T/e1" "$T/e2"
	# The watchdog came back after the fork: a stall is still caught.
	cat > "$T/fork_stall.py" <<'PY'
import os, time
pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
def load_checkpoint():
    time.sleep(2)
load_checkpoint()
PY
	RANK=0 "$HT" run --dir "$T/d" --timeout 1 -- "$py312" "$T/fork_stall.py" >/dev/null 2>&1
	check "watchdog back after the fork: stall still dumped" tq "$T/d" 'any(f.startswith("load_checkpoint (") for f in proc(rank=0).python_frames(1))'
fi
finish
