#!/bin/sh
# SPDX-License-Identifier: MIT
# deps.sh GROUP...: make sure the Debian packages a build step needs are
# installed. Missing packages are installed with apt-get when we run as root;
# otherwise the exact apt-get line to run is printed. GROUP is build (needed
# to compile: a failure stops make), test or fuzz (needed by some tests:
# those tests say SKIP when a package cannot be had).
set -u

pkgs_build="gcc make pkg-config libc6-dev libunwind-dev check libsubunit-dev libjansson-dev libsodium-dev zlib1g-dev"
pkgs_test="python3 python3-torch python3-mpi4py python3-numpy python3-venv python3-requests openmpi-bin libopenmpi-dev g++ iproute2 iptables procps strace slurm-wlm munge faketime bc util-linux chromium tmux ninja-build"
pkgs_fuzz="afl++"

status=0
for group in "$@"; do
	eval "want=\$pkgs_$group"
	missing=""
	for p in $want; do
		if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed'; then
			missing="$missing $p"
		fi
	done
	[ -z "$missing" ] && continue
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "hangtrace: installing ($group):$missing" >&2
		if [ ! -e /tmp/.hangtrace-apt-updated ]; then
			apt-get update -qq >/dev/null 2>&1 && touch /tmp/.hangtrace-apt-updated
		fi
		if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/tmp/hangtrace-apt.log 2>&1; then
			echo "hangtrace: apt-get could not install:$missing (see /tmp/hangtrace-apt.log)" >&2
			[ "$group" = build ] && status=1
		fi
	else
		echo "hangtrace: missing Debian packages ($group):$missing" >&2
		echo "hangtrace: run: sudo apt-get install -y$missing" >&2
		[ "$group" = build ] && status=1
	fi
done
exit $status
