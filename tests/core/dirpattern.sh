#!/bin/bash
# SPDX-License-Identifier: MIT
# dirpattern.sh: HANGTRACE_DIR's %h and %j (SPEC section 3, issue 24): a
# node-local folder per host and job, with no shared file system. Plain
# LD_PRELOAD with Slurm's job id and without one, `hangtrace run --dir`,
# `hangtrace check --dir`, and two ranks under mpirun (Open MPI's job id):
# each process writes in the folder the pattern names, and the report
# reads it. A '%' that is no substitution is said once, with the variable
# and its value, and kept as written.
# limit: 60
. "$(dirname "$0")/../lib.sh"

H=$(uname -n)
mkdir -p "$T"
RANK=0 WORLD_SIZE=1 SLURM_JOB_ID=4242 HANGTRACE_DIR="$T/n/%h/ht-%j" LD_PRELOAD=$LIB /bin/true 2>"$T/n.err"
check "preload, Slurm job 4242: the file is in n/$H/ht-4242" sh -c "ls '$T/n/$H/ht-4242/$H'.*.jsonl"
check "preload: nothing said" test ! -s "$T/n.err"
RANK=0 WORLD_SIZE=1 HANGTRACE_DIR="$T/l/%h-%j-%%" LD_PRELOAD=$LIB /bin/true
check "preload, no job id: %j is local, %% a percent sign" sh -c "ls '$T/l/$H-local-%/$H'.*.jsonl"

RANK=0 WORLD_SIZE=1 "$HT" run --dir "$T/r/%h-%j" -- /bin/true
check "hangtrace run --dir: expanded by the library" sh -c "ls '$T/r/$H-local/$H'.*.jsonl"

RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])') \
	"$HT" check --dir "$T/c/%h" --no-nccl --timeout 5 >/dev/null 2>&1
check "hangtrace check --dir: expanded too" sh -c "ls '$T/c/$H/$H'.*.jsonl"
"$HT" report "$T/c/$H" >"$T/c.report" 2>&1
check "the report reads the node-local check run" grep -q "Check run (hangtrace check)" "$T/c.report"

RANK=0 WORLD_SIZE=1 HANGTRACE_DIR="$T/b/x%qy" LD_PRELOAD=$LIB /bin/true 2>"$T/b.err"
check "a bad %: one line naming the variable, its value and the %" sh -c "
	[ \$(wc -l < '$T/b.err') = 1 ] && grep -q 'HANGTRACE_DIR=$T/b/x%qy: %q is not a substitution' '$T/b.err'"
check "a bad %: kept as written" sh -c "ls '$T/b/x%qy/$H'.*.jsonl"

if command -v mpirun >/dev/null; then
	mpirun --allow-run-as-root --oversubscribe -np 2 -x LD_PRELOAD="$LIB" \
		-x HANGTRACE_DIR="$T/m/%h-%j" /bin/sleep 0.2 >"$T/m.out" 2>&1
	dirs=$(ls -d "$T/m/$H"-* 2>/dev/null)
	check "mpirun -np 2: one folder for the host and Open MPI's job ($dirs)" \
		sh -c "[ \$(echo '$dirs' | wc -w) = 1 ] && [ \$(ls '$dirs' | wc -l) = 2 ] && [ '$dirs' != '$T/m/$H-local' ]"
	check "mpirun: ranks 0 and 1 there" tq "$dirs" "sorted(p.rank for p in procs) == [0, 1]"
else
	skip "mpirun: node-local folder" "no mpirun (scripts/deps.sh test installs Open MPI)"
fi
finish
