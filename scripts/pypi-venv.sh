#!/bin/sh
# SPDX-License-Identifier: MIT
# pypi-venv.sh NAME VENV CHECK VERSION PACKAGE...: a virtual environment
# VENV with PACKAGEs from PyPI, for what Debian lacks or ships old (JAX,
# PyTorch as users install it). CHECK is Python that must run in it,
# VERSION Python that prints what was installed (kept in VENV/.NAME-ok, the
# stamp: the venv is reused while it is there). Prints the venv's python;
# exits 1 with the reason on stderr when it cannot be had (no python3-venv,
# no network to PyPI): the tests on it then say SKIP. One build at a time
# (two makes at once would write the same files). Called by
# scripts/jax-venv.sh and scripts/torch-venv.sh.
set -u
name=$1 V=$2 check=$3 version=$4
shift 4
stamp=$V/.$name-ok
if [ -f "$stamp" ] && [ -x "$V/bin/python" ]; then
	echo "$V/bin/python"
	exit 0
fi
B=$(dirname "$V")
log=$B/$name-venv.log
mkdir -p "$B"
exec 9>"$B/.$name-venv.lock"
flock 9
if [ -f "$stamp" ] && [ -x "$V/bin/python" ]; then
	echo "$V/bin/python"
	exit 0
fi
if ! python3 -m venv "$V" >"$log" 2>&1; then
	echo "$name-venv: python3 -m venv failed (python3-venv missing? see $log)" >&2
	exit 1
fi
if ! "$V/bin/python" -m pip install -q --disable-pip-version-check "$@" >>"$log" 2>&1; then
	echo "$name-venv: pip could not install $* (no network to PyPI? see $log)" >&2
	exit 1
fi
if ! "$V/bin/python" -c "$check" >>"$log" 2>&1; then
	echo "$name-venv: $* installed but does not work (see $log)" >&2
	exit 1
fi
"$V/bin/python" -c "$version" >"$stamp" 2>>"$log"
echo "$V/bin/python"
