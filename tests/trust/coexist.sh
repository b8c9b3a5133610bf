# SPDX-License-Identifier: MIT
# Coexists (issue 7): with another preload that overrides dlsym and wraps
# puts through dlsym(RTLD_NEXT), in both orders, output comes once and
# nothing recurses; with a malloc interposer whose own initialisation calls
# dlsym, in both orders, the job runs and its dumps complete.
# limit: 60
. "$(dirname "$0")/../lib.sh"
C=$B/tests/trust/churn
O=$B/tests/trust/libother_dlsym.so
M=$B/tests/trust/libmalloc_count.so
check "the interposers exist (tests that cannot fail otherwise)" test -f "$O" -a -f "$M"
n=$(MALLOC_COUNT_REPORT=1 LD_PRELOAD="$LIB:$M" /bin/true 2>&1 | sed -n 's/^mallocs //p')
check "the malloc interposer is really in use (counted $n)" test -n "$n"
for order in "$LIB:$O" "$O:$LIB"; do
	out=$(RANK=0 HANGTRACE_DIR="$T/p" LD_PRELOAD="$order" "$C" puts 2>&1); rc=$?
	check "dlsym interposer, order ${order##*/}..: puts once, status 0" sh -c "[ $rc = 0 ] && [ '$out' = 'hello once' ]"
done
i=0
for order in "$LIB:$M" "$M:$LIB"; do
	i=$((i + 1))
	out=$(RANK=0 HANGTRACE_DIR="$T/m$i" HANGTRACE_TIMEOUT=0.45 LD_PRELOAD="$order" "$C" malloc 2 2>/dev/null); rc=$?
	check "malloc interposer, order $i: runs (status $rc)" test $rc = 0 -a "$out" = "done threads=0 loads=0"
	check "malloc interposer, order $i: dumps complete" tq "$T/m$i" 'len(proc(rank=0).dumps) >= 2 and all(d[2] is not None for d in proc(rank=0).dumps)'
	py=$(RANK=0 HANGTRACE_DIR="$T/py$i" LD_PRELOAD="$order" /usr/bin/python3 -c 'import json; print(json.dumps({"a": 1}))' 2>&1)
	check "malloc interposer, order $i: python runs" test "$py" = '{"a": 1}'
done
finish
