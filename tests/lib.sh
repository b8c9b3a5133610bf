# SPDX-License-Identifier: MIT
# lib.sh: sourced by every integration script. Gives: $B (build folder),
# $ROOT, $LIB, $HT, a scratch folder $T removed at exit, pass/fail/skip
# lines, `tq DIR EXPR` (tests/tq.py: assertions over trace files), `spawn`
# (a background process killed at exit, by pid), and `finish`.
set -u
B=${B:-${1:-}}
[ -n "$B" ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=$B/libhangtrace.so
HT=$B/hangtrace
PY=/usr/bin/python3
T=$(mktemp -d /tmp/ht-test.XXXXXX)
PASSES=0
FAILS=0
SPAWNED=""

cleanup() {
	for p in $SPAWNED; do kill -9 "$p" 2>/dev/null; done
	[ -n "${HT_KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

pass() { echo "PASS $1"; PASSES=$((PASSES + 1)); }
fail() { echo "FAIL $1: $2"; FAILS=$((FAILS + 1)); }
skip() { echo "SKIP $1: $2"; }
finish() { [ $FAILS -eq 0 ]; exit $?; }

# check NAME CMD...: PASS when CMD succeeds.
check() {
	name=$1; shift
	if "$@"; then pass "$name"; else fail "$name" "$*"; fi
}

# tq DIR EXPR: evaluates EXPR over the traces in DIR (see tests/tq.py).
tq() { "$PY" "$ROOT/tests/tq.py" "$@"; }

# spawn CMD...: runs CMD in the background; its pid is in $! and it is
# killed (by pid) when the script ends.
spawn() { "$@" & SPAWNED="$SPAWNED $!"; }

# preload CMD...: runs CMD under the library with the environment given.
preload() { LD_PRELOAD=$LIB "$@"; }

# two_hosts NS_A NS_B VETH_A VETH_B ADDR_A ADDR_B: two network namespaces
# joined by a veth pair, addressed in one /24, loopback and veth up. When
# that cannot be done, prints why and fails (the caller skips; it deletes
# the namespaces however it ends).
two_hosts() {
	if ! ip netns add "$1" 2>"$T/ip.err" || ! ip netns add "$2" 2>>"$T/ip.err"; then
		echo "cannot create network namespaces: $(head -n 1 "$T/ip.err")"
		return 1
	fi
	if ! ip link add "$3" netns "$1" type veth peer name "$4" netns "$2" 2>"$T/ip.err"; then
		echo "cannot create a veth pair: $(head -n 1 "$T/ip.err")"
		return 1
	fi
	ip -n "$1" addr add "$5/24" dev "$3" && ip -n "$2" addr add "$6/24" dev "$4" &&
		ip -n "$1" link set lo up && ip -n "$2" link set lo up &&
		ip -n "$1" link set "$3" up && ip -n "$2" link set "$4" up ||
		{ echo "cannot address or raise the veth pair"; return 1; }
}
