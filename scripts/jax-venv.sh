#!/bin/sh
# SPDX-License-Identifier: MIT
# jax-venv.sh [B]: a virtual environment under the build folder with JAX for
# the CPU (JAX is no Debian package; it comes from PyPI through pip). Prints
# the venv's python on success. Exits 1 with the reason on stderr when it
# cannot be had (no network, no python3-venv): the JAX tests then say SKIP.
# Reused when it is there already (the stamp holds the versions installed).
exec "$(dirname "$0")/pypi-venv.sh" jax "${1:-build}/venv" \
	'import jax; jax.numpy.ones(2).block_until_ready()' \
	'import jax, jaxlib; print(jax.__version__, jaxlib.__version__)' 'jax[cpu]'
