#!/bin/bash
# SPDX-License-Identifier: MIT
# Healthy jobs whose hot spot is a collective (SPEC section 6: working
# means progress, never stalled, never aborted). Each shape of
# healthy.inc runs for 8x a 1.5 s deadline under --on-stall abort, two jobs
# at a time, one starting as another ends (four ranks on the test
# machine's two cores: loaded): the
# torch shapes three times on one torch build (PyPI's where it is there)
# and once on the other, the MPI, fake-NCCL and JAX shapes once. Zero
# aborts, zero stall lines, zero declared looks, zero error verdicts.
# `make soak` runs each shape 50 times (bench/soak.sh).
# limit: 600
. "$(dirname "$0")/../lib.sh"
TMO=1.5
. "$(dirname "$0")/fw.inc"
. "$(dirname "$0")/healthy.inc"
torch_builds
set -- $TORCH_PYS
main="" other=""
[ $# -gt 0 ] && main=${!#}	# PyPI's when there, else Debian's
[ $# -gt 1 ] && other=$1
runs=""
if [ -z "$main" ]; then
	skip "healthy: the torch shapes" "no torch with gloo: neither python3-torch nor $B/venv-torch (scripts/torch-venv.sh)"
else
	[ -z "$other" ] && skip "healthy: the torch shapes on a second torch build" "only ${main%%=*} is there"
	for s in $TORCH_SHAPES; do
		for i in 1 2 3; do runs="$runs ${main%%=*}:$s:$i"; done
		[ -n "$other" ] && runs="$runs ${other%%=*}:$s:1"
	done
fi
for s in $OTHER_SHAPES; do
	if why=$(shape_why_not "$s"); then
		runs="$runs -:$s:1"
	else
		skip "healthy: $s" "$why"
	fi
done

# label BUILD: what a user calls the build the run was on.
label() {
	[ "$1" = - ] && return
	echo " on torch $("$(torch_py "$1")" -c 'import torch; print(torch.__version__)' 2>/dev/null) ($1)"
}

# ran NAME BUILD SHAPE I: the checks of one run, as it ends.
ran() {
	check "$3$(label "$2"), run $4: exit 0, both ranks done, no stall line, no abort, nothing declared, no error verdict" \
		shape_ok "$1"
}
shape_pool ran $runs
finish
