#!/bin/sh
# SPDX-License-Identifier: MIT
# torch-venv.sh [B]: a virtual environment under the build folder with
# PyTorch from PyPI, as users install it (the default wheel, built for CUDA,
# which imports and runs gloo on a machine without a GPU). Prints the venv's
# python on success; exits 1 with the reason on stderr when it cannot be had
# (no network to PyPI, no python3-venv): the tests on it then say SKIP.
# Reused when it is there already (the stamp holds the version installed);
# pip's own cache (~/.cache/pip) keeps the download for a new build folder.
set -u
B=${1:-build}
V=$B/venv-torch
stamp=$V/.torch-ok
if [ -f "$stamp" ] && [ -x "$V/bin/python" ]; then
	echo "$V/bin/python"
	exit 0
fi
log=$B/torch-venv.log
mkdir -p "$B"
# One build at a time (two makes at once would write the same files).
exec 9>"$B/.torch-venv.lock"
flock 9
if [ -f "$stamp" ] && [ -x "$V/bin/python" ]; then
	echo "$V/bin/python"
	exit 0
fi
if ! python3 -m venv "$V" >"$log" 2>&1; then
	echo "torch-venv: python3 -m venv failed (python3-venv missing? see $log)" >&2
	exit 1
fi
if ! "$V/bin/python" -m pip install -q --disable-pip-version-check torch numpy >>"$log" 2>&1; then
	echo "torch-venv: pip could not install torch (no network to PyPI? see $log)" >&2
	exit 1
fi
if ! "$V/bin/python" -c 'import torch, torch.distributed as d; assert d.is_gloo_available()' >>"$log" 2>&1; then
	echo "torch-venv: torch installed but gloo does not import (see $log)" >&2
	exit 1
fi
"$V/bin/python" -c 'import torch; print(torch.__version__)' >"$stamp" 2>>"$log"
echo "$V/bin/python"
