# SPDX-License-Identifier: MIT
# Python frames in dumps (issue 2): a Python rank stuck in load_checkpoint
# shows that frame, on the system python3 and every pyenv CPython there is
# (3.8 to 3.13: the dumper is exported in some, local in others).
# limit: 120
. "$(dirname "$0")/../lib.sh"
cat > "$T/stuck.py" <<'PY'
import threading, time
def worker():
    time.sleep(30)
def load_checkpoint():
    time.sleep(3)
threading.Thread(target=worker, daemon=True).start()
load_checkpoint()
print("loaded")
PY
run_one() {  # NAME PYTHON
	d=$T/$1
	out=$(RANK=0 WORLD_SIZE=1 "$HT" run --dir "$d" --timeout 1 -- "$2" "$T/stuck.py" 2>/dev/null)
	check "$1: output unchanged" test "$out" = loaded
	check "$1: main thread's Python frames show load_checkpoint" tq "$d" 'proc(rank=0).python_frames(1)[0].startswith("load_checkpoint (") and proc(rank=0).python_frames(1)[0].endswith("stuck.py:5)")'
	check "$1: the worker thread's Python frame too" tq "$d" 'any(any(f.startswith("worker (") for f in t.get("python", [])) for t in proc(rank=0).dumps[0][1])'
	check "$1: dump_end says python ok" tq "$d" 'proc(rank=0).dumps[0][2]["python"] == "ok"'
}
run_one system /usr/bin/python3
for v in 3.8 3.9 3.10 3.11 3.12 3.13; do
	exe=$(ls -d /root/.pyenv/versions/$v.*/bin/python$v 2>/dev/null | head -n 1)
	if [ -z "$exe" ]; then
		skip "python$v" "no CPython $v under /root/.pyenv"
		continue
	fi
	run_one "python$v" "$exe"
done
# A process that is not Python says nothing about Python.
RANK=0 "$HT" run --dir "$T/c" --timeout 1 -- "$B/tests/core/wait_for_peer" 2 >/dev/null 2>&1
check "no python field in a C process" tq "$T/c" '"python" not in proc(rank=0).dumps[0][2]'
finish
