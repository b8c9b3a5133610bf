#!/bin/sh
# SPDX-License-Identifier: MIT
# hang.sh: a driver that hangs in cuInit (stall dump in phase cuda_init,
# the call named), and fork after cuInit: the child that touches CUDA and
# gets CUDA_ERROR_NOT_INITIALIZED, and the one that hangs in it.
# limit: 90
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.inc"

have_fake hang || finish

# wait_for DIR EXPR: polls the traces in DIR until EXPR holds (10 s at most).
wait_for() {
	i=0
	while [ $i -lt 50 ]; do
		tq "$1" "$2" >/dev/null 2>&1 && return 0
		sleep 0.2
		i=$((i + 1))
	done
	tq "$1" "$2"
}

# 1. cuInit never returns: after HANGTRACE_TIMEOUT the dump says the process
#    is in cuda_init, inside cuInit, and the stack shows where.
spawn env HANGTRACE_DIR="$T/h" HANGTRACE_TIMEOUT=1 FAKE_CUDA_INIT_HANG=1 LD_PRELOAD="$LIB" \
	"$CT/drv" hang-init
pid=$!
if wait_for "$T/h" "procs[0].dumps and procs[0].dumps[0][2] is not None"; then
	check init_hang_stall_phase tq "$T/h" "(
		(lambda s: s['phase'] == 'cuda_init' and s['reason'] == 'timeout'
		 and [c['name'] for c in s['calls']] == ['cuInit'])(ev('stall')))"
	check init_hang_call_line tq "$T/h" "ev('call', name='cuInit', state='begin') is not None"
	check init_hang_stack tq "$T/h" "(
		any('fake_cuda_init_wait' in f for f in proc(pid=$pid).main_frames(1)))"
else
	fail init_hang_stall "no dump within 10 s"
fi
kill -9 $pid 2>/dev/null

# 2. Fork after a successful cuInit; the child calls cuInit and gets 3.
out=$(run_traced "$T/f" "$CT/drv" fork 2>&1)
check fork_child_got_3 [ "$out" = "child cuInit -> 3" ]
check fork_parent_event tq "$T/f" "ev('fork', cuda_initialized=True) is not None"
check fork_child_after_fork tq "$T/f" "(
	(lambda c: c.header['cuda_inherited'] is True and c.header['fork_parent'] is not None
	 and c.ev('cuda', after_fork=True, fn='cuInit', result=3,
		  error='CUDA_ERROR_NOT_INITIALIZED') is not None)(
	 next(p for p in procs if p.header['fork_parent'])))"
check fork_child_one_line tq "$T/f" "len(events('cuda', after_fork=True)) == 1"

# 3. Fork after cuInit; the child's cuInit hangs: its own dump says so.
spawn env HANGTRACE_DIR="$T/g" HANGTRACE_TIMEOUT=1 LD_PRELOAD="$LIB" \
	"$CT/drv" fork-hang "$CT/libcuhang.so" >"$T/g.out"
if wait_for "$T/g" "ev('cuda', after_fork=True, hung=True) is not None"; then
	# In-flight ages come from the coarse clock (a tick, 1-4 ms): about the
	# 1 s deadline, not to the microsecond.
	check fork_hang_event tq "$T/g" "(
		(lambda e: e['fn'] == 'cuInit' and e['age'] >= 0.95)(ev('cuda', after_fork=True, hung=True)))"
	check fork_hang_stall_phase tq "$T/g" "(
		next(p for p in procs if p.header['fork_parent']).ev('stall', phase='cuda_init') is not None)"
else
	fail fork_hang_event "no after_fork hung line within 10 s"
fi
child=$(sed -n 's/^child //p' "$T/g.out")
[ -n "$child" ] && kill -9 "$child" 2>/dev/null

finish
