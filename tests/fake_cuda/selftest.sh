#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# selftest.sh BUILD_DIR: checks the fake CUDA driver built by fake_cuda.mk, without
# hangtrace. It builds nothing: it runs $BUILD_DIR/tests/fake_cuda/selftest against
# libcuda.so.1 (and selftest_cudart against the real libcudart, if built), each
# check under `timeout 20`, and reads FAKE_CUDA_LOG to see which variant was reached.
# Prints PASS/FAIL lines (and "# " notes), then "N passed, N failed"; exits 1 on any
# failure, 0 with a SKIP line when the fake was not built.

set -u

B=${1:?usage: selftest.sh BUILD_DIR}
D=$B/tests/fake_cuda
LIB=$D/libcuda.so.1
ST=$D/selftest
CUDART_PROBE=$D/selftest_cudart

if [ ! -f "$LIB" ] || [ ! -x "$ST" ]; then
    echo "SKIP fake_cuda (not built in $D)"
    echo "0 passed, 0 failed"
    exit 0
fi

# The checks set the knobs they need; none may leak in from the caller.
unset FAKE_CUDA_DEVICES FAKE_CUDA_DRIVER_VERSION FAKE_CUDA_INIT_RESULT FAKE_CUDA_INIT_HANG \
    FAKE_CUDA_SYNC_HANG FAKE_CUDA_HOST_ID FAKE_CUDA_LOG

T=$(mktemp -d "${TMPDIR:-/tmp}/fake_cuda_selftest.XXXXXX")
# FAKE_CUDA_SELFTEST_KEEP=1 keeps the logs and outputs for inspection.
if [ -n "${FAKE_CUDA_SELFTEST_KEEP:-}" ]; then
    echo "# logs kept in $T"
else
    trap 'rm -rf "$T"' EXIT
fi

pass=0
fail=0

# check NAME FUNCTION [ARGS...]: FUNCTION's output is shown only on failure.
check() {
    local name=$1
    shift
    if "$@" >"$T/$name.out" 2>&1; then
        echo "PASS $name"
        pass=$((pass + 1))
    else
        echo "FAIL $name"
        sed 's/^/    /' "$T/$name.out"
        fail=$((fail + 1))
    fi
}

st() { timeout 20 "$ST" "$LIB" "$@"; }

# expect_line FILE REGEX: REGEX (grep -E) matches exactly one line of FILE.
expect_line() {
    local n
    n=$(grep -cE "$2" "$1")
    [ "$n" = 1 ] || { echo "expected one line matching '$2' in $1, found $n:"; cat "$1"; return 1; }
}

t_ptsz() {
    local log=$T/ptsz.log
    FAKE_CUDA_LOG=$log st ptsz || return 1
    local f
    for f in cuStreamSynchronize cuStreamQuery; do
        expect_line "$log" "^$f pid=[0-9]+ stream=\(nil\) -> 0$" || return 1
        expect_line "$log" "^${f}_ptsz pid=[0-9]+ stream=\(nil\) -> 0$" || return 1
        expect_line "$log" "^cuGetProcAddress_v2 .*symbol=\"$f\" version=7000 flags=2 -> 0 pfn=${f}_ptsz status=0$" ||
            return 1
    done
    expect_line "$log" "^cuEventRecord pid=[0-9]+ event=0x[0-9a-f]+ stream=\(nil\) -> 0$" || return 1
    expect_line "$log" "^cuEventRecord_ptsz pid=[0-9]+ event=0x[0-9a-f]+ stream=\(nil\) -> 0$"
}

t_ctxsync() {
    local log=$T/ctxsync.log out ctx0 ctx1
    out=$(FAKE_CUDA_LOG=$log st ctxsync) || { echo "$out"; return 1; }
    ctx0=$(echo "$out" | sed -n 's/^ctx0=\([^ ]*\) ctx1=.*/\1/p')
    ctx1=$(echo "$out" | sed -n 's/^ctx0=.* ctx1=\(.*\)$/\1/p')
    [ -n "$ctx0" ] && [ -n "$ctx1" ] && [ "$ctx0" != "$ctx1" ] || { echo "bad output: $out"; return 1; }
    expect_line "$log" "^cuCtxSynchronize pid=[0-9]+ ctx=$ctx0 -> 0$" || return 1
    expect_line "$log" "^cuCtxSynchronize_v2 pid=[0-9]+ ctx=$ctx1 -> 0$" || return 1
    expect_line "$log" "^cuCtxGetDevice_v2 pid=[0-9]+ ctx=$ctx1 -> 0 device=1$" || return 1
    expect_line "$log" "symbol=\"cuCtxSynchronize\" version=13000 flags=0 -> 0 pfn=cuCtxSynchronize_v2 status=0$"
}

t_uuid() {
    local a1 a2 b dflt named
    a1=$(FAKE_CUDA_HOST_ID=hostA st uuid) || { echo "$a1"; return 1; }
    a2=$(FAKE_CUDA_HOST_ID=hostA st uuid) || return 1
    b=$(FAKE_CUDA_HOST_ID=hostB st uuid) || return 1
    dflt=$(st uuid) || return 1
    named=$(FAKE_CUDA_HOST_ID=$(hostname) st uuid) || return 1
    printf 'hostA:\n%s\nhostA again:\n%s\nhostB:\n%s\ndefault:\n%s\n' "$a1" "$a2" "$b" "$dflt"
    [ "$a1" = "$a2" ] || { echo "same host id, different UUIDs"; return 1; }
    [ "$dflt" = "$named" ] || { echo "default host id is not gethostname()"; return 1; }
    local ua0 ua1 ub0
    ua0=$(echo "$a1" | awk '$1=="dev0"{print $2}')
    ua1=$(echo "$a1" | awk '$1=="dev1"{print $2}')
    ub0=$(echo "$b" | awk '$1=="dev0"{print $2}')
    [ ${#ua0} = 32 ] && [ "$ua0" != "$ua1" ] && [ "$ua0" != "$ub0" ] || { echo "UUIDs not distinct"; return 1; }
    echo "$a1" | grep -q '^dev0 [0-9a-f]* 0000:18:00.0$' && echo "$a1" | grep -q '^dev1 [0-9a-f]* 0000:19:00.0$'
}

t_devices() {
    local out
    out=$(FAKE_CUDA_DEVICES=5 st uuid) || { echo "$out"; return 1; }
    echo "$out"
    [ "$(echo "$out" | wc -l)" = 5 ] && echo "$out" | grep -q '^dev4 [0-9a-f]* 0000:1C:00.0$'
}

t_log_concurrent() {
    local log=$T/concurrent.log i
    for i in 1 2 3 4 5 6; do
        FAKE_CUDA_LOG=$log st gpa >/dev/null &
    done
    wait
    local n bad
    n=$(wc -l <"$log")
    bad=$(grep -cvE '^[A-Za-z_0-9]+ pid=[0-9]+ .*-> (-?[0-9]+|HANG)( .*)?$' "$log")
    echo "lines=$n malformed=$bad"
    [ "$n" -gt 100 ] && [ "$bad" = 0 ] && [ $((n % 6)) = 0 ]
}

# hang NAME ENV WHAT FUNCTION WAITFN: the process must block in WAITFN called
# from FUNCTION, after logging "FUNCTION ... -> HANG".
t_hang() {
    local name=$1 envv=$2 what=$3 fn=$4 waitfn=$5 log=$T/$1.log i pid="" tpid
    env "$envv" FAKE_CUDA_LOG="$log" timeout 20 "$ST" "$LIB" hang "$what" &
    tpid=$!
    for i in $(seq 100); do
        pid=$(sed -n "s/^$fn pid=\([0-9]*\) .*-> HANG\$/\1/p" "$log" 2>/dev/null | head -1)
        [ -n "$pid" ] && break
        sleep 0.1
    done
    local ok=0
    if [ -z "$pid" ]; then
        echo "no '$fn ... -> HANG' line"
        cat "$log" 2>/dev/null
        ok=1
    else
        sleep 0.5
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "process $pid is not blocked (exited)"
            ok=1
        elif command -v gdb >/dev/null 2>&1; then
            local bt
            bt=$(timeout 20 gdb -p "$pid" -batch -ex bt 2>/dev/null | grep '^#')
            echo "$bt"
            if [ -z "$bt" ]; then
                echo "# gdb could not attach; stack not checked"
            elif ! echo "$bt" | grep -q " in $waitfn " || ! echo "$bt" | grep -q " in $fn "; then
                echo "stack does not show $waitfn called from $fn"
                ok=1
            fi
        else
            echo "# gdb not installed; stack not checked"
        fi
        kill "$pid" 2>/dev/null
    fi
    kill "$tpid" 2>/dev/null
    wait "$tpid" 2>/dev/null
    return $ok
}

t_query_not_ready() {
    FAKE_CUDA_SYNC_HANG=1 st hang query
}

cuda_lib_dir() {
    local h
    for h in "${CUDA_HOME:-}" /usr/local/cuda; do
        [ -n "$h" ] || continue
        [ -e "$h/lib64/libcudart.so.13" ] && { echo "$h/lib64"; return; }
        [ -e "$h/lib/libcudart.so.13" ] && { echo "$h/lib"; return; }
    done
}

t_cudart() {
    local log=$T/cudart.log dir out
    dir=$(cuda_lib_dir)
    out=$(FAKE_CUDA_LOG=$log LD_LIBRARY_PATH="$D${dir:+:$dir}" timeout 20 "$CUDART_PROBE") || {
        echo "probe failed: $out"
        return 1
    }
    echo "$out"
    echo "$out" | grep -q '^cudaGetDeviceCount -> ' || return 1
    expect_line "$log" '^cuGetProcAddress_v2 .*symbol="" version=0 ' || return 1
    expect_line "$log" '^cuGetProcAddress_v2 .*symbol="cuInit" version=2000 flags=0 -> 0 pfn=cuInit ' || return 1
    expect_line "$log" 'symbol="cuGetProcAddress" version=11030 flags=0 -> 0 pfn=cuGetProcAddress ' || return 1
    expect_line "$log" 'symbol="cuGetProcAddress" version=12000 flags=0 -> 0 pfn=cuGetProcAddress_v2 ' || return 1
    grep -qE '^cuInit pid=[0-9]+ flags=0 -> 0$' "$log" || { echo "cudart never called cuInit"; return 1; }
    echo "lookups=$(grep -c '^cuGetProcAddress' "$log") resolved=$(grep '^cuGetProcAddress' "$log" | grep -vc 'pfn=NULL')"
    grep -v '^cuGetProcAddress' "$log"
}

check gpa_sequence_and_4arg_abi st gpa
check gpa_variant_table st variants
check not_initialized_before_cuInit st preinit
check error_names st errors
check contexts_streams_threads st contexts
check fork_after_init st fork
check ptsz_vs_legacy_log t_ptsz
check ctxsync_2000_vs_13000_log t_ctxsync
check uuid_determinism t_uuid
check knob_devices_5 t_devices
check knob_devices_0 env FAKE_CUDA_DEVICES=0 timeout 20 "$ST" "$LIB" init 100
check knob_init_result env FAKE_CUDA_INIT_RESULT=999 timeout 20 "$ST" "$LIB" init 999
check knob_driver_version_default st driver_version 13000
check knob_driver_version_12040 env FAKE_CUDA_DRIVER_VERSION=12040 timeout 20 "$ST" "$LIB" driver_version 12040
check knob_init_hang t_hang init_hang FAKE_CUDA_INIT_HANG=1 init cuInit fake_cuda_init_wait
check knob_sync_hang_stream_ptsz t_hang hang_ptsz FAKE_CUDA_SYNC_HANG=1 stream_ptsz cuStreamSynchronize_ptsz fake_cuda_sync_wait
check knob_sync_hang_stream t_hang hang_stream FAKE_CUDA_SYNC_HANG=1 stream cuStreamSynchronize fake_cuda_sync_wait
check knob_sync_hang_ctx_v2 t_hang hang_ctx FAKE_CUDA_SYNC_HANG=1 ctx cuCtxSynchronize_v2 fake_cuda_sync_wait
check knob_sync_hang_event t_hang hang_event FAKE_CUDA_SYNC_HANG=1 event cuEventSynchronize fake_cuda_sync_wait
check knob_sync_hang_query_not_ready t_query_not_ready
check log_concurrent_appends t_log_concurrent
if [ -x "$CUDART_PROBE" ]; then
    check real_cudart_13 t_cudart
    sed -n 's/^cudaGetDeviceCount/# cudart: cudaGetDeviceCount/p' "$T/real_cudart_13.out"
else
    echo "# real_cudart_13: selftest_cudart not built (no libcudart); not run"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
