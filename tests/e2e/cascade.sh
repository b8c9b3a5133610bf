#!/bin/bash
# SPDX-License-Identifier: MIT
# cascade.sh: the first failure leads (issue 25, class 1). A rank of a gloo
# job raises right after init_process_group; it takes its connections with
# it, so the others' next collective fails ("Connection closed by peer")
# and they exit 1 a fraction of a second later. The report names the one
# that failed first as the cause, rank_exited [it], and the others follow
# with `because` rank_exited. Three forms: Debian's torch with 4 ranks
# (rank 1 raises), torch from PyPI with 2 ranks (rank 0, the store's
# host, raises), and torch from PyPI under torchrun with 4 workers (rank
# 2 raises), where torchrun's own "Root Cause" must name the same rank.
# limit: 150
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/e2e.inc"

# The deadline is well past the cascade: the raiser's Python takes 2 s to
# end (its finalizer, torch's teardown) before its connections close, and
# 3-4 s on a loaded machine, while the others wait in barrier. With a 3 s
# deadline the library declared them stalled there, so their end was
# rightly a timeout giving up, not a consequence (seen in make test; 3
# runs in 3 under two busy loops). No stall is part of this scenario.
TMO=30
TJ=$ROOT/tests/e2e/torch_job.py
VPY=$B/venv-torch/bin/python

# tj CASE PY R WS PORT STEPS...: rank R of a WS-rank gloo job on PORT.
tj() {
	local c=$1 py=$2 r=$3 ws=$4 port=$5
	shift 5
	WS=$ws rank "$c" "$r" MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" STORE_TIMEOUT=60 \
		-- "$py" "$TJ" "$@"
}

# The first verdict blames the raiser; the next one, the others, follows it.
cascade_expect() {
	local name=$1 c=$2 first=$3 rest=$4
	expect "$name: rank_exited [$first] first, status 1" "$c" "
	v0['code'] == 'rank_exited' and v0['ranks'] == [$first] and v0['severity'] == 'error'
	and R($first)['exit'] == {'status': 1}"
	expect "$name: the others follow, because rank_exited" "$c" "
	len(v) >= 2 and v[1]['code'] == 'rank_exited' and v[1]['ranks'] == $rest
	and v[1]['because'] == 'rank_exited' and 'after rank $first ended' in v[1]['summary']"
}

forms=""
if "$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	P=$(free_port)
	for r in 0 1 2 3; do tj deb "$PY" $r 4 "$P" init raise_on 1 barrier all_reduce; done
	forms="$forms deb"
else
	skip "debian torch: rank 1 raises after init" "python3-torch with gloo is not importable by $PY"
fi
if [ -x "$VPY" ] && "$VPY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	P=$(free_port)
	for r in 0 1; do tj pypi "$VPY" $r 2 "$P" init raise_on 0 barrier all_reduce; done
	P=$(free_port)
	# torchrun's agent and its four workers, all under one `hangtrace run`.
	launch trun 0 env $(htrun trun) "$(dirname "$VPY")/torchrun" --nproc-per-node 4 \
		--master-addr 127.0.0.1 --master-port "$P" "$TJ" init raise_on 2 barrier all_reduce
	forms="$forms pypi trun"
else
	skip "torch from PyPI: rank 0 raises after init; torchrun" "no $VPY with gloo (scripts/torch-venv.sh)"
fi
[ -n "$forms" ] || finish
# shellcheck disable=SC2086
finished 100 $forms || stop $forms
for c in $forms; do report "$c"; done

for c in $forms; do
	case $c in
	deb) cascade_expect "debian torch, 4 ranks, rank 1 raises" deb 1 "[0, 2, 3]" ;;
	pypi) cascade_expect "torch from PyPI, 2 ranks, rank 0 raises" pypi 0 "[1]" ;;
	trun)
		# The agent may SIGTERM the others before they fail by
		# themselves: then they were killed while waiting, no verdict
		# of their own. Either way rank 2 leads.
		expect "torchrun, 4 workers, rank 2 raises: rank_exited [2] first" trun "
		v0['code'] == 'rank_exited' and v0['ranks'] == [2] and R(2)['exit'] == {'status': 1}
		and all(x['because'] == 'rank_exited' for x in v[1:] if x['code'] == 'rank_exited')"
		# torchrun's own view: its Root Cause section names the same rank.
		root=$(sed -n '/Root Cause/,/^=\{5,\}/p' "$T/trun.0.out" | sed -n 's/^ *rank *: *\([0-9]*\).*/\1/p' | head -n 1)
		check "torchrun's Root Cause names rank 2 too (it says: ${root:-nothing})" test "$root" = 2
		;;
	esac
done
finish
