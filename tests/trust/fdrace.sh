#!/bin/bash
# SPDX-License-Identifier: MIT
# fdrace.sh: a traced shell that moves its own descriptors still works.
# dash runs `echo err >&2` as fcntl(1, F_DUPFD, 10), close(1), dup2(2, 1);
# a file the library opened in another thread between the close and the
# dup2 took number 1, and dup2 failed with EBUSY ("/bin/sh: 1: 2: Device
# or resource busy"): about 1 run in 300 when the watchdog thread loaded
# the unwinder at its start (seen in tests/trust/invisible.sh). A traced
# Python runs 3000 traced shells, as subprocess does (the old library failed
# one such test in 3 with 1000 shells): every one's output as bare.
# limit: 90
. "$(dirname "$0")/../lib.sh"

mkdir -p "$T"
cat >"$T/shells.py" <<'PY'
import os, subprocess, sys
env = dict(os.environ, LD_PRELOAD=sys.argv[1], RANK="0", WORLD_SIZE="1", HANGTRACE_DIR=sys.argv[2])
bad, last = 0, ""
for i in range(3000):
    r = subprocess.run(["/bin/sh", "-c", "echo sub; echo err >&2"], capture_output=True, text=True,
                       env=env)
    if r.stdout != "sub\n" or r.stderr != "err\n" or r.returncode != 0:
        bad, last = bad + 1, r.stderr.strip()
print(bad, last)
PY
out=$(LD_PRELOAD=$LIB RANK=0 WORLD_SIZE=1 HANGTRACE_DIR="$T/tr" "$PY" "$T/shells.py" "$LIB" "$T/tr")
check "3000 traced shells redirecting stderr: all as bare (not: ${out#0 })" test "${out%% *}" = 0
finish
