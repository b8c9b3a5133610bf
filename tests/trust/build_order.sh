#!/bin/bash
# SPDX-License-Identifier: MIT
# build_order.sh: `make test` and `make it` install the test dependencies
# before they build anything (issue 22: on a fresh machine the tests were
# built before libopenmpi-dev was there, and tests/frameworks/mpi_c.sh said
# SKIP "built without mpi.h" where a second run passed). What the build
# finds is read when a make starts, so the tests are built by a second make
# after the installs: in a dry run into an empty build folder, every
# scripts/deps.sh and venv line comes before the first compile.
# limit: 60
. "$(dirname "$0")/../lib.sh"
for goal in test it; do
	make -C "$ROOT" -n "$goal" B="$T/b-$goal" >"$T/$goal.n" 2>&1
	first_cc=$(grep -nE '^(cc|gcc|c\+\+|g\+\+|mpicc|\$\(CC\)) ' "$T/$goal.n" | head -1 | cut -d: -f1)
	last_dep=$(grep -nE 'scripts/(deps\.sh (build|test)|jax-venv\.sh|torch-venv\.sh)' "$T/$goal.n" | head -4 | tail -1 | cut -d: -f1)
	check "make $goal: the dry run compiles something (line ${first_cc:-none})" test -n "$first_cc"
	check "make $goal: deps.sh build and test and both venvs come first" \
		test "$(grep -cE 'scripts/(deps\.sh (build|test)|jax-venv\.sh|torch-venv\.sh)' <(head -n "$((first_cc - 1))" "$T/$goal.n"))" -ge 4
	check "make $goal: the installs (up to line $last_dep) precede the first compile (line $first_cc)" \
		test "${last_dep:-999999}" -lt "${first_cc:-0}"
done
finish
