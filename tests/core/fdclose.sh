# SPDX-License-Identifier: MIT
# A program that closes, or dup2s over, every descriptor above 2 does not
# lose its trace: the library reopens its file and the dump lands there.
# Closed by a raw close_range and reused: never written to, reopened too.
# limit: 30
. "$(dirname "$0")/../lib.sh"
for how in close dup2 raw; do
	RANK=0 "$HT" run --dir "$T/$how" --timeout 1 -- "$B/tests/core/closer" $how 2 >/dev/null 2>&1
	check "$how: one file, the dump in it" tq "$T/$how" 'len(procs) == 1 and any(f.startswith("wait_after_close (") for f in proc(rank=0).main_frames(1))'
	check "$how: and the exit record" tq "$T/$how" 'proc(rank=0).exit["status"] == 0'
	check "$how: nothing written to /dev/null's place: every line parses" tq "$T/$how" 'all("t" in e for e in proc(rank=0).events)'
done
finish
