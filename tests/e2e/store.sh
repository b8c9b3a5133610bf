#!/bin/bash
# SPDX-License-Identifier: MIT
# store.sh: a stale file store (issue 25, class 4). A job with
# init_method="file://PATH" (PyTorch's FileStore) is killed, leaving its
# store file; an hour later the next job names the same file and fails
# (its ranks connect to the dead run's addresses) or hangs. The first
# verdict is stale_store: the file, that it existed before the job's first
# rank started, and the rm to run; a rank that exited follows because of
# it. A job whose file is new has none. Forms: Debian's torch and torch
# from PyPI with 2 ranks (env launch), torch from PyPI under torchrun
# with 4 workers; live, while it hangs, and after it was killed.
# limit: 150
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/e2e.inc"

TMO=3
TJ=$ROOT/tests/e2e/torch_job.py
VPY=$B/venv-torch/bin/python

# leave_store PY FILE N: a run of N ranks, not traced, that opened FILE's
# store and got past init_process_group, killed with SIGKILL as a
# scheduler ends a job: FileStore keeps its file, with that run's peers'
# addresses (and on torch 1.13 its barrier count); dated an hour ago.
# It runs in a network namespace of its own whose ephemeral ports are
# 10000-10999, below this host's: gloo's side with the higher address is
# the one that connects (gloo/transport/tcp/pair.cc), so a rank of the
# next run that reads a dead peer's address always dials it, as it does
# by chance on a cluster, instead of waiting to be dialled.
leave_store() {
	local p r i
	: >"$2.pids"
	unshare -n sh -c '
		ip link set lo up && sysctl -qw net.ipv4.ip_local_port_range="10000 10999" || exit 1
		for r in $(seq 0 $(($4 - 1))); do
			env RANK=$r WORLD_SIZE=$4 INIT_METHOD="file://$3" STORE_TIMEOUT=30 "$1" "$2" \
				init note "$3.up" sleep 60 >/dev/null 2>&1 &
			echo $! >>"$3.pids"
		done
		wait' sh "$1" "$TJ" "$2" "$3" &
	local sh=$!
	for i in $(seq 300); do
		[ "$(wc -l < "$2.up" 2>/dev/null)" = "$3" ] && break
		sleep 0.1
	done
	for p in $(cat "$2.pids"); do kill -KILL "$p" 2>/dev/null; done
	wait "$sh" 2>/dev/null
	touch -d '1 hour ago' "$2"
}
if ! unshare -n sh -c 'ip link set lo up && sysctl -qw net.ipv4.ip_local_port_range="10000 10999"' 2>/dev/null; then
	skip "a stale file store" "no network namespace here (unshare -n, ip, sysctl)"
	finish
fi

# Rank 0 comes late, as ranks do: the others find its key already there
# (the dead run's) and do not wait for the new one. It starts once another
# rank has read the store (its trace's store line; go_when below), so a
# loaded machine cannot let it come first.
forms=""
env_form() {
	local c=$1 py=$2 r
	leave_store "$py" "$T/$c.store" 2
	for r in 0 1; do
		WS=2 rank "$c" "$r" INIT_METHOD="file://$T/$c.store" STORE_TIMEOUT=30 -- \
			"$py" "$TJ" wait_on 0 "$T/$c.go" init barrier
		WS=2 rank "${c}new" "$r" INIT_METHOD="file://$T/${c}new.store" STORE_TIMEOUT=30 -- \
			"$py" "$TJ" sleep_on 0 3 ok
	done
	forms="$forms $c"
}
if "$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	env_form deb "$PY"
else
	skip "debian torch: a stale file store" "python3-torch with gloo is not importable by $PY"
fi
if [ -x "$VPY" ] && "$VPY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	env_form pypi "$VPY"
	leave_store "$VPY" "$T/trun.store" 4
	# torchrun's agent and its four workers, all under one `hangtrace run`.
	launch trun 0 env INIT_METHOD="file://$T/trun.store" STORE_TIMEOUT=30 $(htrun trun) \
		"$(dirname "$VPY")/torchrun" --nproc-per-node 4 --master-addr 127.0.0.1 \
		--master-port "$(free_port)" \
		"$TJ" wait_on 0 "$T/trun.go" init barrier
	forms="$forms trun"
else
	skip "torch from PyPI: a stale file store" "no $VPY with gloo (scripts/torch-venv.sh)"
fi
[ -n "$forms" ] || finish
# go_when C: rank 0 of C may start once a rank has locked the store, and a
# second more has passed (its read of rank 0's key).
for c in $forms; do
	settle_tq 60 "$c" "any(p.ev('store') for p in procs if p.rank != 0)"
	sleep 1
	touch "$T/$c.go"
done

# stale_expect NAME C RANKS: stale_store leads, naming the ranks that read
# the store (RANKS, a Python expression on set(v0['ranks'])), the file, its
# age and the rm; a rank_exited follows because of it. An error, for the
# job failed or hangs; but on torch 2 (pypi) a rank that read the dead run's
# key may wait to be dialled from it, and accept the new rank 0's dial
# instead when it comes first (1 run in 3 of this script here, whatever
# rank 0 waited for): then the job completed and the stale file is a
# warning, as SPEC section 8 says, and the first verdict still.
stale_expect() {
	local severity="v0['severity'] == 'error' and errors[0] is v0"
	[ "$2" = pypi ] && severity="($severity or (v0['severity'] == 'warning' and not errors
		and (d['job']['ended'] or {}).get('how') == 'completed'))"
	expect "$1: stale_store first, the file, existed before the job, the rm" "$2" "
	v0['code'] == 'stale_store' and $severity and $3
	and '$T/$2.store' in v0['summary'] and 'before the job' in v0['summary']
	and 'last written 60 min before it' in v0['summary']
	and 'rm $T/$2.store' in v0['advice']
	and all(x['because'] == 'stale_store' for x in v[1:] if x['code'] == 'rank_exited')"
}
# Under torchrun the agent ends the workers as soon as one has failed:
# rank 0, still asleep, may never have read the store.
ranks_of() {
	case $1 in
	trun) echo "set(v0['ranks']) in ({1, 2, 3}, {0, 1, 2, 3})" ;;
	*) echo "v0['ranks'] == [0, 1]" ;;
	esac
}
for c in $forms; do
	case $c in trun) n=3 ;; *) n=2 ;; esac
	settle_tq 60 "$c" "len([p for p in procs if p.ev('store')]) >= $n and any(p.declared or p.exit for p in procs)"
	report "$c"
	stale_expect "$c, live" "$c" "$(ranks_of "$c")"
done
# shellcheck disable=SC2086
stop $forms
for c in $forms; do
	report "$c"
	stale_expect "$c, after" "$c" "$(ranks_of "$c")"
done
for c in deb pypi; do
	case " $forms " in *" $c "*) ;; *) continue ;; esac
	finished 40 "${c}new"
	report "${c}new"
	expect "$c: a new store file: no verdict, exit 0" "${c}new" "
	rc == 0 and not errors and 'stale_store' not in codes"
done
finish
