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
# limit: 300
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/e2e.inc"

TMO=3
TJ=$ROOT/tests/e2e/torch_job.py
VPY=$B/venv-torch/bin/python

# The dead run lives in a network namespace of its own whose ephemeral
# ports (DEAD_PORTS: 1024 to 32512, every one reserved but the multiples of
# 256) all compare below this host's (32768 and up) the way gloo compares
# them: gloo/transport/tcp/pair.cc takes `sa->sin_port - sb->sin_port`,
# the network-order values read in host order, so on x86 a port's low byte
# weighs most, and the side that compares higher is the one that connects.
# A rank of the next run that reads a dead peer's address then always
# dials it and is refused, as it does by chance on a cluster. With ports
# 10000-10999 it dialled in about half the runs; in the others it waited
# to be dialled, the new rank 0 came and dialled it, and on Debian's torch
# both then sat in the store's barrier until it timed out: under make
# test's load the report saw those exits, after startup, as warnings.
DEAD_PORTS=$("$PY" -c 'print(",".join("%d-%d" % (h * 256 + 1, h * 256 + 255) for h in range(4, 127)))')
dead_ns='ip link set lo up && sysctl -qw net.ipv4.ip_local_port_range="1024 32512" &&
	sysctl -qw net.ipv4.ip_local_reserved_ports="$DEAD_PORTS"'
# dead_port: tq's words for a connect line to the dead run's address.
dead_port="int(e['dest'].rsplit(':', 1)[1]) % 256 == 0 and int(e['dest'].rsplit(':', 1)[1]) < 32768"

# leave_store PY FILE N: a run of N ranks, not traced, that opened FILE's
# store and got past init_process_group, killed with SIGKILL as a
# scheduler ends a job: FileStore keeps its file, with that run's peers'
# addresses (and on torch 1.13 its barrier count); the next job's caller
# dates it an hour ago. Its ranks get 150 s to be up (Debian's torch 1.13
# took over 30 s to import under make test's load); when they are not, or
# have died, a FAIL line says so and it is false: the next job would find
# no stale store.
leave_store() {
	local p up why end=$(($(date +%s) + 150))
	: >"$2.pids"
	DEAD_PORTS=$DEAD_PORTS unshare -n sh -c "$dead_ns"' || exit 1
		for r in $(seq 0 $(($4 - 1))); do
			env RANK=$r WORLD_SIZE=$4 INIT_METHOD="file://$3" STORE_TIMEOUT=150 "$1" "$2" \
				init note "$3.up" sleep 60 >"$3.$r.out" 2>&1 &
			echo $! >>"$3.pids"
		done
		wait' sh "$1" "$TJ" "$2" "$3" &
	local sh=$!
	until up=$(wc -l 2>/dev/null <"$2.up"); [ "${up:-0}" -ge "$3" ]; do
		alive "$sh" || { why="they ended"; break; }
		[ "$(date +%s)" -lt $end ] || { why="150 s passed"; break; }
		sleep 0.1
	done
	for p in $(cat "$2.pids"); do kill -KILL "$p" 2>/dev/null; done
	wait "$sh" 2>/dev/null
	[ "${up:-0}" -ge "$3" ] && return 0
	fail "${2##*/}: the killed run that leaves it" "${up:-0} of its $3 ranks got past \
init_process_group ($why); rank 0 said: $(tail -n 1 "$2.0.out" 2>/dev/null)"
	return 1
}
if ! DEAD_PORTS=$DEAD_PORTS unshare -n sh -c "$dead_ns" 2>/dev/null; then
	skip "a stale file store" "no network namespace here (unshare -n, ip, sysctl)"
	finish
fi

# The killed runs come first, then the jobs: a job's rank 0 waits for its
# go file at most 120 s (torch_job.py wait_on), which a killed run started
# after it, slow under load, could use up.
dead=""
if "$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	leave_store "$PY" "$T/deb.store" 2 && dead="$dead deb"
else
	skip "debian torch: a stale file store" "python3-torch with gloo is not importable by $PY"
fi
if [ -x "$VPY" ] && "$VPY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	leave_store "$VPY" "$T/pypi.store" 2 && dead="$dead pypi"
	leave_store "$VPY" "$T/trun.store" 4 && dead="$dead trun"
else
	skip "torch from PyPI: a stale file store" "no $VPY with gloo (scripts/torch-venv.sh)"
fi

# Rank 0 comes late, as ranks do: the others find its key already there
# (the dead run's) and do not wait for the new one. It starts once another
# rank has dialled the dead rank 0 (go_when below), so a loaded machine
# cannot let it come first. Each store is dated an hour ago as its job
# starts.
forms=""
env_form() {
	local c=$1 py=$2 r
	for r in 0 1; do
		WS=2 rank "$c" "$r" INIT_METHOD="file://$T/$c.store" STORE_TIMEOUT=30 -- \
			"$py" "$TJ" wait_on 0 "$T/$c.go" init barrier
		WS=2 rank "${c}new" "$r" INIT_METHOD="file://$T/${c}new.store" STORE_TIMEOUT=30 -- \
			"$py" "$TJ" sleep_on 0 3 ok
	done
}
for c in $dead; do
	touch -d '1 hour ago' "$T/$c.store"
	case $c in
	deb) env_form deb "$PY" ;;
	pypi) env_form pypi "$VPY" ;;
	trun)
		# torchrun's agent and its four workers, all under one `hangtrace run`.
		launch trun 0 env INIT_METHOD="file://$T/trun.store" STORE_TIMEOUT=30 $(htrun trun) \
			"$(dirname "$VPY")/torchrun" --nproc-per-node 4 --master-addr 127.0.0.1 \
			--master-port "$(free_port)" \
			"$TJ" wait_on 0 "$T/trun.go" init barrier
		;;
	esac
	forms="$forms $c"
done
[ -n "$forms" ] || finish
# go_when C: rank 0 of C may start once another rank has dialled the dead
# rank 0's address (it read rank 0's key, the dead run's; a second after
# its store line was not always enough under load). A rank 0 that read the
# store before it (its wait_on gave up) fails here, not as a puzzling
# verdict later.
for c in $forms; do
	settle_tq 120 "$c" "any($dead_port for p in procs if p.rank != 0 for e in p.evs('connect'))" ||
		fail "$c: another rank dialled the dead run's rank 0 before rank 0 started" \
			"none within 120 s"
	tq "$T/$c" "not any(p.ev('store') for p in procs if p.rank == 0)" -t >/dev/null ||
		fail "$c: rank 0 waited for its go file" "it read the store before it was told to"
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
	settle_tq 120 "$c" "len([p for p in procs if p.ev('store')]) >= $n and any(p.declared or p.exit for p in procs)" ||
		fail "$c, live: $n ranks read the store, and one was declared stalled or ended" "not within 120 s"
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
	finished 120 "${c}new" || fail "$c: a new store file: the job ended by itself" "not within 120 s"
	report "${c}new"
	expect "$c: a new store file: no verdict, exit 0" "${c}new" "
	rc == 0 and not errors and 'stale_store' not in codes"
done
finish
