# SPDX-License-Identifier: MIT
# SIGTERM (issue 2): a job killed with timeout -s TERM leaves a complete
# dump, then dies of SIGTERM as it would have; a Python script with its own
# SIGTERM handler still runs it; every line of every file parses.
# limit: 60
. "$(dirname "$0")/../lib.sh"
RANK=1 WORLD_SIZE=2 timeout -s TERM 2 "$HT" run --dir "$T/a" --timeout 100 -- "$B/tests/core/wait_for_peer" 20 4 >/dev/null 2>&1
rc=$?
check "status is timeout's 124" test $rc = 124
check "a sigterm dump" tq "$T/a" 'proc(rank=1).dumps[0][0]["reason"] == "sigterm" and proc(rank=1).dumps[0][2] is not None'
check "main thread stack taken past the handler" tq "$T/a" 'proc(rank=1).main_frames(1)[0].startswith(("poll", "__poll")) and any(f.startswith("wait_for_peer (") for f in proc(rank=1).main_frames(1))'
check "trace ends with exit by SIGTERM" tq "$T/a" 'proc(rank=1).events[-1]["t"] == "exit" and proc(rank=1).events[-1]["signal"] == "SIGTERM"'

cat > "$T/handler.py" <<'PY'
import signal, sys, time
def on_term(sig, frame):
    print("handler ran", flush=True)
    sys.exit(5)
signal.signal(signal.SIGTERM, on_term)
assert signal.getsignal(signal.SIGTERM) is on_term
print("ready", flush=True)
def serve():
    time.sleep(30)
serve()
PY
RANK=0 "$HT" run --dir "$T/b" --timeout 100 -- /usr/bin/python3 "$T/handler.py" >"$T/out" 2>&1 &
pid=$!
SPAWNED="$SPAWNED $pid"
for i in $(seq 50); do grep -q ready "$T/out" && break; sleep 0.1; done
kill -TERM $pid
wait $pid
rc=$?
check "Python's own SIGTERM handler ran" grep -q "handler ran" "$T/out"
check "and decided the exit status" test $rc = 5
check "the dump is there, with the Python frame" tq "$T/b" 'proc(rank=0).dumps[0][0]["reason"] == "sigterm" and any(f.startswith("serve (") for f in proc(rank=0).python_frames(1))'
check "exit record with status 5" tq "$T/b" 'proc(rank=0).exit["status"] == 5'
finish
