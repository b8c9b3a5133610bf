#!/bin/sh
# SPDX-License-Identifier: MIT
# torch-venv.sh [B]: a virtual environment under the build folder with
# PyTorch from PyPI, as users install it (the default wheel, built for CUDA,
# which imports and runs gloo on a machine without a GPU). Prints the venv's
# python on success; exits 1 with the reason on stderr when it cannot be had
# (no network to PyPI, no python3-venv): the tests on it then say SKIP.
# Reused when it is there already (the stamp holds the version installed);
# pip's own cache (~/.cache/pip) keeps the download for a new build folder.
exec "$(dirname "$0")/pypi-venv.sh" torch "${1:-build}/venv-torch" \
	'import torch, torch.distributed as d; assert d.is_gloo_available()' \
	'import torch; print(torch.__version__)' torch numpy
