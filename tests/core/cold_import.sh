#!/bin/bash
# SPDX-License-Identifier: MIT
# cold_import.sh: an import that reads its modules from the disk is
# working (SPEC section 6). torch's shared libraries are evicted from the
# page cache (posix_fadvise DONTNEED on each: nothing else is touched), then
# `import torch` runs under a 0.5 s deadline, --on-stall abort (once:
# make test's 20 minutes). Mapping them, its main thread waits in the disk (state D) with no
# CPU, no read(2) and no wakeup for windows at a time: that is no stall.
# Never declared, never aborted; the looks saw the major faults, the bytes
# fetched from storage, or the thread in the disk.
# limit: 90
. "$(dirname "$0")/../lib.sh"
TPY=""
for p in "$B/venv-torch/bin/python" "$PY"; do
	[ -x "$p" ] && "$p" -c 'import torch' 2>/dev/null && { TPY=$p; break; }
done
if [ -z "$TPY" ]; then
	skip cold_import "no torch: neither $B/venv-torch (scripts/torch-venv.sh) nor python3-torch"
	finish
fi
evict() {
	"$TPY" - <<'PY'
import glob, importlib.util, os
# Found without importing it: a library mapped here would stay cached.
d = os.path.dirname(importlib.util.find_spec("torch").origin)
n = 0
for f in glob.glob(os.path.join(d, "lib", "*.so*")):
    try:
        fd = os.open(f, os.O_RDONLY)
    except OSError:
        continue	# a dangling link
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
    n += 1
print(n)
PY
}
for i in 1; do
	n=$(evict)
	RANK=0 "$HT" run --timeout 0.5 --on-stall abort --dir "$T/d$i" -- "$TPY" -c 'import torch; print("imported")' \
		>"$T/o$i" 2>"$T/e$i"
	rc=$?
	check "run $i ($n libraries evicted): exit 0 (got $rc), output unchanged" sh -c "test $rc = 0 && grep -qx imported '$T/o$i'"
	check "run $i: no stall line, no abort" sh -c "! grep -E 'hangtrace\[[0-9]+\]: .*(stalled|aborting)' '$T/e$i'"
	check "run $i: looked at while importing, no look declared" \
		tq "$T/d$i" 'proc(rank=0).dumps and not any(x[2] and x[2].get("declared") for x in proc(rank=0).dumps)'
	check "run $i: a look saw it read from the disk (major faults, bytes from storage, or in the disk)" \
		tq "$T/d$i" 'any(x[2] and (x[2]["progress"].get("main_majflt", 0) > 0 or x[2]["progress"].get("disk", 0) > 0 or x[2]["progress"].get("disk_wait")) for x in proc(rank=0).dumps)'
done
finish
