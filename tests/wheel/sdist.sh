#!/bin/bash
# SPDX-License-Identifier: MIT
# sdist.sh: `pip install hangtrace-<version>.tar.gz` (make sdist) in a fresh
# venv, offline: pip builds it with the system's compiler through the
# tree's own backend (python/hangtrace_build.py, nothing from PyPI); the
# command, its library, a traced rank whose header carries the version.
# Without the headers (a compiler that sees no system include folder) pip
# stops at once and names the Debian and the RPM packages to install.
# Uninstall leaves nothing.
# limit: 150
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/wheel.inc"
if [ ! -f "$SDIST" ]; then
	fail sdist "no $SDIST (make test-dist writes it; python/hangtrace_build.py sdist)"
	finish
fi
check "the sdist holds the sources, the backend and no build output" sh -c "
	tar tzf '$SDIST' >'$T/list' &&
	grep -qx 'hangtrace-$VERSION/pyproject.toml' '$T/list' &&
	grep -qx 'hangtrace-$VERSION/PKG-INFO' '$T/list' &&
	grep -qx 'hangtrace-$VERSION/python/hangtrace_build.py' '$T/list' &&
	grep -qx 'hangtrace-$VERSION/src/core/unwind.c' '$T/list' &&
	! grep -q -e '/build/' -e '/dist/' -e '\\.so\$' -e '\\.o\$' '$T/list'"

V=$T/venv
if ! venv "$V"; then
	fail venv "python3 -m venv failed: $(tail -n 1 "$V.log")"
	finish
fi

# --- the headers missing: a clear message, before any compiling
mkdir -p "$T/nothing"
CC="cc --sysroot=$T/nothing" pipv "$V" install --no-index "$SDIST" >"$T/missing.out" 2>&1
rc=$?
grep '^ *hangtrace:' "$T/missing.out" | sed 's/^ */# /'
check "without the headers pip fails" [ $rc -ne 0 ]
check "... naming libunwind.h, jansson.h, zlib.h and sodium.h" \
	sh -c "grep -q 'libunwind.h' '$T/missing.out' && grep -q 'jansson.h' '$T/missing.out' &&
	       grep -q 'zlib.h' '$T/missing.out' && grep -q 'sodium.h' '$T/missing.out'"
check "... and the Debian and RPM packages to install" \
	sh -c "grep -q 'apt-get install -y libunwind-dev libjansson-dev zlib1g-dev libsodium-dev' '$T/missing.out' &&
	       grep -q 'dnf install -y libunwind-devel jansson-devel zlib-devel libsodium-devel' '$T/missing.out'"

# --- the build
find "$V" | sort >"$T/before.txt"
start=$(date +%s)
if ! pipv "$V" install -q --no-index "$SDIST" >"$T/build.out" 2>&1; then
	fail sdist "pip install $SDIST failed: $(grep -m 1 -i error "$T/build.out")"
	tail -n 20 "$T/build.out" | sed 's/^/# /'
	finish
fi
pass "pip install of the sdist builds it with the system's compiler ($(($(date +%s) - start)) s)"
HTW=$V/bin/hangtrace
PKG=$(site "$V")/hangtrace
same() { [ "$1" = "$2" ]; }
check "hangtrace --version: the VERSION file's" same "$("$HTW" --version)" "hangtrace $VERSION"
check "hangtrace --lib-path: the library it built" same "$("$HTW" --lib-path)" "$PKG/lib/libhangtrace.so"
RANK=0 WORLD_SIZE=1 "$HTW" run --dir "$T/trace" -- /bin/sh -c 'exit 3'
rc=$?
check "hangtrace run: the command's exit status" [ $rc -eq 3 ]
check "hangtrace run: a trace whose header carries the version" \
	sh -c "head -n 1 '$T'/trace/*.jsonl | grep -q '\"version\":\"$VERSION\"'"

check "pip uninstall hangtrace" pipv "$V" uninstall -q -y hangtrace
find "$V" | sort >"$T/after.txt"
diff "$T/before.txt" "$T/after.txt" | sed 's/^/# left: /'
check "pip uninstall leaves nothing behind" cmp -s "$T/before.txt" "$T/after.txt"
finish
