#!/bin/bash
# SPDX-License-Identifier: MIT
# The real NCCL (2.28.9 here) on a machine without a GPU: ncclGetUniqueId
# on loopback is recorded with its root decoded, NCCL_COMM_ID's fixed
# magic is recognised, ncclCommInitRank fails and the trace quotes NCCL's
# own message, HANGTRACE_NCCL_LOG puts NCCL's log beside the trace; and
# the program sees exactly what it sees without the library.
# limit: 60
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/helpers.inc"

P=$NT/real_nccl
REAL=$(ldd "$P" 2>/dev/null | sed -n 's/.*libnccl.so.2 => \([^ ]*\).*/\1/p')
case $REAL in
"" | "$FAKE_LIB" | */fake_nccl/*)
	skip "real NCCL" "no real libnccl.so.2 installed (real_nccl links the fake)"
	finish ;;
esac
export NCCL_SOCKET_IFNAME=lo

# Without, then with the library (no rank identity: NCCL makes it relevant).
ROOT_FILE=$T/root0 "$P" >"$T/bare.out" 2>&1
rc0=$?
D=$T/tr
LD_PRELOAD=$LIB HANGTRACE_DIR=$D ROOT_FILE=$T/root1 "$P" >"$T/traced.out" 2>&1
rc1=$?
check "the program sees the same output and status ($rc0) with and without the library" \
	sh -c "[ $rc0 = $rc1 ] && cmp -s '$T/bare.out' '$T/traced.out'"
check "the init failed without a GPU (status 3)" test $rc1 -eq 3
root=$(cat "$T/root1")
check "nccl_id: the root the program decoded ($root), on loopback" \
	tq "$D" 'procs[0].ev("phase", phase="nccl_id", state="end")["root"] == "'"$root"'" and "'"$root"'".startswith("127.0.0.1:") and not procs[0].ev("phase", phase="nccl_id", state="end")["fixed_magic"]'
check "the version and the real provider" \
	tq "$D" 'procs[0].ev("version", what="nccl")["value"] == 22809 and procs[0].ev("version", what="nccl")["provider"] == "'"$REAL"'" and procs[0].header["relevant"] == "nccl"'
last=$(sed -n 's/^last error: //p' "$T/traced.out")
check "nccl_init error quotes NCCL's own message: $last" \
	tq "$D" '(lambda e: e["result"] == 1 and e["last_error"] == '"$(printf '%s' "$last" | "$PY" -c 'import json,sys; print(json.dumps(sys.stdin.read()))')"' and e["error"].startswith("unhandled cuda error"))(procs[0].ev("phase", phase="nccl_init", state="error"))'
check "the rank identity came from ncclCommInitRank" \
	tq "$D" 'procs[0].ev("identity")["source"] == "nccl" and procs[0].ev("identity")["rank"] == 0 and procs[0].ev("identity")["world_size"] == 1'

# NCCL_COMM_ID: the fixed magic.
D=$T/commid
LD_PRELOAD=$LIB HANGTRACE_DIR=$D NCCL_COMM_ID=127.0.0.1:29512 "$P" >"$T/commid.out" 2>&1
check "NCCL_COMM_ID: the program saw the fixed magic" grep -q "fixed_magic 1" "$T/commid.out"
check "NCCL_COMM_ID: fixed magic and that root recorded, not a bootstrap root here" \
	tq "$D" '(lambda e: e["fixed_magic"] and e["magic"] == "0x280028002800280" and e["root"] == "127.0.0.1:29512" and e["bootstrap_root"] is False)(procs[0].ev("phase", phase="nccl_id", state="end"))'

# HANGTRACE_NCCL_LOG=1: NCCL's log beside the trace; not when the job set NCCL_DEBUG.
D=$T/log
LD_PRELOAD=$LIB HANGTRACE_DIR=$D HANGTRACE_NCCL_LOG=1 "$P" >"$T/log.out" 2>&1
check "NCCL_LOG: the program's output is unchanged" cmp -s "$T/bare.out" "$T/log.out"
pid=$(tq "$D" 'print(procs[0].pid) or True' 2>/dev/null | head -n 1)
check "NCCL_LOG: nccl.<host>.<pid>.log holds NCCL's INFO lines" \
	sh -c "grep -q 'NCCL INFO' '$D'/nccl.*.$pid.log"
D=$T/nolog
LD_PRELOAD=$LIB HANGTRACE_DIR=$D HANGTRACE_NCCL_LOG=1 NCCL_DEBUG=VERSION "$P" >"$T/nolog.out" 2>&1
check "NCCL_LOG: left alone when the job set NCCL_DEBUG" sh -c "! ls '$D'/nccl.*.log >/dev/null 2>&1"
finish
