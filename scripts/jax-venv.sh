#!/bin/sh
# SPDX-License-Identifier: MIT
# jax-venv.sh [B]: a virtual environment under the build folder with JAX for
# the CPU (JAX is no Debian package; it comes from PyPI through pip). Prints
# the venv's python on success. Exits 1 with the reason on stderr when it
# cannot be had (no network, no python3-venv): the JAX tests then say SKIP.
# Reused when it is there already (the stamp holds the versions installed).
set -u
B=${1:-build}
V=$B/venv
stamp=$V/.jax-ok
if [ -f "$stamp" ] && [ -x "$V/bin/python" ]; then
	echo "$V/bin/python"
	exit 0
fi
log=$B/jax-venv.log
mkdir -p "$B"
# One build at a time (two makes at once would write the same files).
exec 9>"$B/.jax-venv.lock"
flock 9
if [ -f "$stamp" ] && [ -x "$V/bin/python" ]; then
	echo "$V/bin/python"
	exit 0
fi
if ! python3 -m venv "$V" >"$log" 2>&1; then
	echo "jax-venv: python3 -m venv failed (python3-venv missing? see $log)" >&2
	exit 1
fi
if ! "$V/bin/python" -m pip install -q --disable-pip-version-check 'jax[cpu]' >>"$log" 2>&1; then
	echo "jax-venv: pip could not install jax (no network to PyPI? see $log)" >&2
	exit 1
fi
if ! "$V/bin/python" -c 'import jax; jax.numpy.ones(2).block_until_ready()' >>"$log" 2>&1; then
	echo "jax-venv: jax installed but does not import (see $log)" >&2
	exit 1
fi
"$V/bin/python" -c 'import jax, jaxlib; print(jax.__version__, jaxlib.__version__)' >"$stamp" 2>>"$log"
echo "$V/bin/python"
