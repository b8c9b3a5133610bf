#!/bin/sh
# SPDX-License-Identifier: MIT
# driver.sh: the wrappers against the fake driver, by every route a program
# takes to it: dlsym on an RTLD_LOCAL handle, the resolver's answers (4 and
# 5 arguments), and linking to libcuda. Every wrapped function returns the
# same value and errno as without the library and reaches the same driver
# function with the same arguments; the 4-argument resolver never writes
# through a fifth; a second interposer using dlsym(RTLD_NEXT) still works.
# limit: 60
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/common.inc"

# A second interposer preloaded after ours wraps puts with dlsym(RTLD_NEXT):
# one line of output, exit 0, whether or not the process is traced.
for traced in idle active; do
	if [ $traced = active ]; then set -- env RANK=0 WORLD_SIZE=1; else set -- env; fi
	out=$(HANGTRACE_DIR=$T/p LD_PRELOAD="$LIB $CT/libputswrap.so" timeout 20 "$@" "$CT/hello" 2>&1)
	check "second_interposer_$traced" [ "$?:$out" = 0:hello ]
done
out=$(LD_PRELOAD="$CT/libputswrap.so $LIB" timeout 20 "$CT/hello" 2>&1)
check second_interposer_first [ "$?:$out" = 0:hello ]

have_fake driver || finish

# RTLD_LOCAL libcuda, cuInit through dlsym: no crash, recorded; the default
# scope finds no cuInit, as without the library (which exports one).
out=$(run_traced "$T/l" "$CT/drv" init 2>&1)
check rtld_local_init [ "$out" = "cuInit -> 0; default scope cuInit absent" ]
check rtld_local_recorded tq "$T/l" "(
	ev('phase', phase='cuda_init', state='end', via='dlsym', result=0) is not None)"

# The pass-through script by each route, traced and not: same lines; the
# driver saw the same calls of the wrapped functions (its log, less the
# calls the library makes itself and the pids).
wrapped='^(cuInit|cuGetProcAddress|cuGetProcAddress_v2|cuDevicePrimaryCtxRetain|cuCtxCreate|cuCtxCreate_v[234]|cuCtxSetCurrent|cuCtxPushCurrent|cuCtxPushCurrent_v2|cuStreamSynchronize|cuStreamSynchronize_ptsz|cuEventSynchronize|cuCtxSynchronize|cuCtxSynchronize_v2) '
for route in dlsym gpa gpa4 linked; do
	if [ $route = linked ]; then set -- "$CT/linked" passthru; else set -- "$CT/drv" passthru $route; fi
	FAKE_CUDA_LOG=$T/bare.$route.log run_bare "$@" >"$T/bare.$route" 2>&1
	rc0=$?
	FAKE_CUDA_LOG=$T/traced.$route.log run_traced "$T/t.$route" "$@" >"$T/traced.$route" 2>&1
	rc1=$?
	if [ $rc0 = 77 ]; then
		skip "passthru_$route" "not linked to the fake libcuda"
		continue
	fi
	if [ $rc0 = 0 ] && [ $rc1 = 0 ] && cmp -s "$T/bare.$route" "$T/traced.$route"; then
		pass "passthru_$route"
	else
		fail "passthru_$route" "rc $rc0/$rc1; $(diff "$T/bare.$route" "$T/traced.$route" | head -5)"
	fi
	for k in bare traced; do
		grep -E "$wrapped" "$T/$k.$route.log" | sed 's/ pid=[0-9]*//; s/0x[0-9a-f]*/PTR/g' >"$T/$k.$route.calls"
	done
	n=$(wc -l <"$T/bare.$route.calls")
	if [ "$n" -ge 30 ] && cmp -s "$T/bare.$route.calls" "$T/traced.$route.calls"; then
		pass "passthru_${route}_driver_calls"
	else
		fail "passthru_${route}_driver_calls" "$n calls; $(diff "$T/bare.$route.calls" "$T/traced.$route.calls" | head -5)"
	fi
	# ...and the library did see them (it is not passing through because
	# off); the second successful cuInit is a cuda line, not a second end.
	check "passthru_${route}_recorded" tq "$T/t.$route" "(
		ev('phase', phase='cuda_init', state='end') is not None
		and ev('phase', phase='device', state='end')['ordinal'] == 0
		and ev('cuda', fn='cuCtxSynchronize_v2', result=201) is not None
		and len(events('phase', phase='cuda_init', state='end')) == 1
		and ev('cuda', fn='cuInit', result=0) is not None)"
done
# The 11030 resolver, from the self-lookup and from dlsym, called with a
# poisoned fifth argument register: nothing written through it.
out=$(run_traced "$T/g" "$CT/drv" gpa4 2>&1)
case $out in
"gpa4 canary intact"*) pass gpa4_no_fifth_argument ;;
*) fail gpa4_no_fifth_argument "$out" ;;
esac

# HANGTRACE_DISABLE=1: the wrappers still pass everything through, no file.
HANGTRACE_DISABLE=1 run_traced "$T/d" "$CT/drv" passthru gpa >"$T/disabled" 2>&1
check disabled_passthru cmp -s "$T/bare.gpa" "$T/disabled"
check disabled_no_file [ ! -e "$T/d" ]

finish
