# SPDX-License-Identifier: MIT
# A fault inside our own dump code (CPython's dumper reading frames that
# change under it) does not kill the job: the dump completes without the
# Python stacks and says why; the program goes on unchanged.
# limit: 30
. "$(dirname "$0")/../lib.sh"
out=$(RANK=0 "$HT" run --dir "$T/a" --timeout 0.5 -- "$B/tests/core/fault_python" 2>/dev/null); rc=$?
check "the program survived the faulting dumper (status $rc)" test $rc = 0 -a "$out" = survived
check "the dump completed, native frames included" tq "$T/a" 'proc(rank=0).dumps[0][2] is not None and any(f.startswith("wait_for_peer (") for f in proc(rank=0).main_frames(1))'
check "and says the Python stacks were lost" tq "$T/a" 'proc(rank=0).dumps[0][2]["python"].startswith("unavailable: the interpreter")'
check "no exit by SIGSEGV recorded" tq "$T/a" 'proc(rank=0).exit["status"] == 0'
finish
