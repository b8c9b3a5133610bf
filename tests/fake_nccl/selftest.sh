#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the fake NCCL selftests against an already-built tree: `selftest.sh BUILD_DIR [CHECK...]`
# (build first with `make fake-nccl`; this script builds nothing). Each check runs in a child bash
# under `timeout 20`, starts its ranks as background processes (env RANK/WORLD_SIZE, id via a file),
# and kills every pid it started when it ends, fails, times out or is interrupted. Prints
# PASS/FAIL per check, then "N passed, N failed"; exits non-zero if any check failed.
set -u

ALL_CHECKS="healthy missing_rank mismatch nranks_mismatch duplicate_rank wrong_id nonblocking abort plt_shim
  uniqueid uniqueid_ipv6 comm_id straggler allops group_init p2p split"

# ====================================================================== one check (child process)
if [ "${1:-}" = "--one" ]; then
  name=$2 B=$3 W=$4
  D="$B/tests/fake_nccl"
  BIN="$D/selftest" SHIM="$D/libfake_nccl_shim.so" LOG="$W/fake_nccl.log"
  declare -A RUNNING=() # pid -> 1 while started and not yet reaped
  declare -A P=()       # rank label -> pid
  cleanup() {
    local p
    for p in "${!RUNNING[@]}"; do kill -KILL "$p" 2>/dev/null; done
    for p in "${!RUNNING[@]}"; do wait "$p" 2>/dev/null; done
  }
  trap cleanup EXIT
  trap 'exit 143' TERM INT HUP

  # start LABEL [VAR=value...] -- MODE: run $BIN MODE in the background, output in $W/LABEL.out
  start() {
    local label=$1 envs=()
    shift
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    env FAKE_ID_FILE="$W/id" FAKE_NCCL_LOG="$LOG" ${envs[@]+"${envs[@]}"} "$BIN" "$@" >"$W/$label.out" 2>&1 &
    P[$label]=$!
    RUNNING[$!]=1
  }
  reap() { # reap LABEL -> sets RC
    local p=${P[$1]}
    wait "$p"
    RC=$?
    unset "RUNNING[$p]"
  }
  nap() {
    sleep "$1" &
    local s=$!
    RUNNING[$s]=1
    wait "$s"
    unset "RUNNING[$s]"
  }
  alive() { # running (not exited / zombie)
    local st
    st=$(sed 's/.*) //' "/proc/${P[$1]}/stat" 2>/dev/null | cut -d' ' -f1)
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
  }
  fail() {
    echo "FAILED: $*"
    for f in "$W"/*.out; do [ -f "$f" ] && { echo "--- $(basename "$f")"; tail -n 8 "$f"; }; done
    [ -f "$LOG" ] && { echo "--- FAKE_NCCL_LOG"; tail -n 8 "$LOG"; }
    exit 1
  }
  expect_rc() { # expect_rc CODE LABEL...
    local want=$1 l
    shift
    for l in "$@"; do
      reap "$l"
      [ "$RC" = "$want" ] || fail "$l exited $RC, expected $want"
    done
  }
  ms_of() { sed -n 's/.*INIT_DONE ms=\([0-9]*\).*/\1/p' "$W/$1.out" | head -n 1; }
  dump_stack() { # SIGUSR1 makes selftest print its backtrace (backtrace_symbols_fd, i.e. dladdr names)
    kill -USR1 "${P[$1]}"
    for _ in 1 2 3 4 5 6 7 8 9 10; do grep -q STACK_END "$W/$1.out" && return 0; nap 0.1; done
    fail "$1 did not dump its stack"
  }
  syscall_is_recv() { # soft check: main thread sits in recvfrom(2) (skipped if /proc/PID/syscall unreadable)
    local nr s
    case $(uname -m) in x86_64) nr=45 ;; aarch64) nr=207 ;; *) return 0 ;; esac
    s=$(cut -d' ' -f1 "/proc/${P[$1]}/syscall" 2>/dev/null) || return 0
    [ -z "$s" ] || [ "$s" = "$nr" ] || fail "$1 main thread is in syscall $s, expected recvfrom ($nr)"
  }

  case $name in
  healthy) # 4 ranks: init + 3 allreduces + destroy
    for r in 0 1 2 3; do start r$r RANK=$r WORLD_SIZE=4 -- job; done
    expect_rc 0 r0 r1 r2 r3
    for r in 0 1 2 3; do grep -q DESTROY_DONE "$W/r$r.out" || fail "r$r did not destroy"; done
    grep -q "^seq 2 op allreduce ranks 0,1,2,3 ok" "$LOG" || fail "no 'seq 2 ... ok' line in FAKE_NCCL_LOG"
    ;;
  missing_rank) # rank 3 never starts: 0-2 stay blocked in init (bootstrap_wait_peers -> recv)
    for r in 0 1 2; do start r$r RANK=$r WORLD_SIZE=4 -- job; done
    nap 2
    for r in 0 1 2; do
      alive r$r || fail "r$r exited"
      grep -q INIT_START "$W/r$r.out" || fail "r$r never started init"
      ! grep -q INIT_DONE "$W/r$r.out" || fail "r$r finished init without rank 3"
    done
    syscall_is_recv r1
    dump_stack r1
    grep -q bootstrap_wait_peers "$W/r1.out" || fail "r1 stack does not show bootstrap_wait_peers"
    ;;
  mismatch) # rank 1 broadcasts where the others allreduce at seq 0: everybody blocks
    for r in 0 1 2 3; do start r$r RANK=$r WORLD_SIZE=4 MISMATCH_RANK=1 -- job; done
    nap 2
    for r in 0 1 2 3; do
      alive r$r || fail "r$r exited"
      grep -q INIT_DONE "$W/r$r.out" || fail "r$r did not finish init"
      ! grep -q "COLL_DONE 0" "$W/r$r.out" || fail "r$r completed the mismatched collective"
    done
    grep -q "^seq 0 mismatch rank 1 broadcast vs allreduce" "$LOG" || fail "FAKE_NCCL_LOG lacks the mismatch line"
    syscall_is_recv r1
    dump_stack r1
    grep -q fake_coll_wait "$W/r1.out" || fail "r1 stack does not show fake_coll_wait"
    ;;
  nranks_mismatch) # rank 1 says nranks 3, the others 4: every init fails with NCCL's message
    for r in 0 2 3; do start r$r RANK=$r WORLD_SIZE=4 -- job; done
    start r1 RANK=1 WORLD_SIZE=4 NRANKS=3 -- job
    expect_rc 3 r0 r1 r2 r3
    for r in 0 1 2 3; do
      grep -q "INIT_FAIL rc=5 .*Bootstrap Root : mismatch in info from procs, nranks [34] vs [34]" "$W/r$r.out" ||
        fail "r$r lacks the nranks mismatch error"
    done
    ;;
  duplicate_rank) # two processes claim rank 2
    for r in 0 1 2; do start r$r RANK=$r WORLD_SIZE=4 -- job; done
    start r2b RANK=2 WORLD_SIZE=4 -- job
    expect_rc 3 r0 r1 r2 r2b
    grep -q "rank 2 of 4 ranks has already checked in" "$W/r2b.out" "$W/r2.out" || fail "no duplicate-rank error"
    ;;
  wrong_id) # rank 3 was handed another id (its own root): it and ranks 0-2 all wait forever
    for r in 0 1 2; do start r$r RANK=$r WORLD_SIZE=4 -- job; done
    start r3 RANK=3 WORLD_SIZE=4 OWN_ID=1 -- job
    nap 2
    for r in 0 1 2 3; do
      alive r$r || fail "r$r exited"
      ! grep -q INIT_DONE "$W/r$r.out" || fail "r$r finished init"
    done
    ;;
  nonblocking) # config.blocking=0: ncclInProgress at once, polled to ncclSuccess (rank 1 is 0.5 s late)
    start r0 RANK=0 WORLD_SIZE=2 -- nonblocking
    start r1 RANK=1 WORLD_SIZE=2 FAKE_NCCL_INIT_DELAY_MS=500 -- nonblocking
    expect_rc 0 r0 r1
    polls=$(sed -n 's/.*POLLS \([0-9]*\).*/\1/p' "$W/r0.out")
    [ "${polls:-0}" -gt 1 ] || fail "rank 0 saw ncclInProgress only ${polls:-0} times"
    ;;
  abort) # non-blocking init that cannot finish; ncclCommAbort unblocks it promptly
    start r0 RANK=0 WORLD_SIZE=2 -- abort
    expect_rc 0 r0
    ;;
  plt_shim) # ncclBcast->ncclBroadcast, ncclCommInitAll->ncclGetUniqueId, enqueue->ncclCommGetAsyncError via PLT
    start r0 RANK=0 WORLD_SIZE=1 LD_PRELOAD="$SHIM" -- plt
    expect_rc 0 r0
    grep -q PLT_OK "$W/r0.out" || fail "no PLT_OK"
    ;;
  uniqueid) # id = magic + sockaddr_in 127.0.0.1:port (listening) + zeros; aliases; thread name
    start r0 RANK=0 NCCL_SET_THREAD_NAME=1 -- uid
    expect_rc 0 r0
    ;;
  uniqueid_ipv6) # FAKE_NCCL_ROOT_ADDR=[::1] -> sockaddr_in6 (skipped when ::1 cannot be bound)
    start r0 RANK=0 FAKE_NCCL_ROOT_ADDR='[::1]' EXPECT_FAMILY=6 -- uid
    reap r0
    if [ "$RC" = 77 ]; then echo "SKIPPED: no IPv6 loopback"; exit 0; fi
    [ "$RC" = 0 ] || fail "uid6 exited $RC"
    ;;
  comm_id) # NCCL_COMM_ID: fixed magic, rank 0 hosts the root at init, rank 1 (started first) retries
    port=$("$BIN" freeport) || fail "no free port"
    start r1 RANK=1 WORLD_SIZE=2 NCCL_COMM_ID="127.0.0.1:$port" -- commid
    nap 0.8
    start r0 RANK=0 WORLD_SIZE=2 NCCL_COMM_ID="127.0.0.1:$port" -- commid
    expect_rc 0 r0 r1
    [ "$(ms_of r1)" -ge 500 ] || fail "rank 1 init took $(ms_of r1) ms; expected connect retries"
    ;;
  straggler) # FAKE_NCCL_INIT_DELAY_MS on rank 3 delays everybody's init
    for r in 0 1 2; do start r$r RANK=$r WORLD_SIZE=4 -- job; done
    start r3 RANK=3 WORLD_SIZE=4 FAKE_NCCL_INIT_DELAY_MS=1500 -- job
    expect_rc 0 r0 r1 r2 r3
    [ "$(ms_of r0)" -ge 1400 ] || fail "rank 0 init took only $(ms_of r0) ms"
    ;;
  allops) # the other collectives, argument errors, ncclCommInitRankScalable, finalize + destroy
    for r in 0 1 2; do start r$r RANK=$r WORLD_SIZE=3 -- allops; done
    expect_rc 0 r0 r1 r2
    n=$(grep -c "^seq [0-6] op [a-z]* ranks 0,1,2 ok" "$LOG")
    [ "$n" = 7 ] || fail "expected 7 decided collectives in FAKE_NCCL_LOG, got $n"
    ;;
  group_init) # single process, 4 ranks: ncclCommInitRank x4 inside ncclGroupStart/End, grouped allreduces
    start p RANK=0 WORLD_SIZE=4 -- groupinit
    expect_rc 0 p
    ;;
  p2p) # grouped ring send/recv + allgather, then blocking send/recv
    for r in 0 1 2 3; do start r$r RANK=$r WORLD_SIZE=4 -- p2p; done
    expect_rc 0 r0 r1 r2 r3
    grep -q "^p2p 0->1 #0 send/recv count 256 ok" "$LOG" || fail "no p2p line in FAKE_NCCL_LOG"
    ;;
  split) # ncclCommSplit by parity (reversed keys) and with NCCL_SPLIT_NOCOLOR
    for r in 0 1 2 3; do start r$r RANK=$r WORLD_SIZE=4 -- split; done
    expect_rc 0 r0 r1 r2 r3
    ;;
  *)
    fail "unknown check $name"
    ;;
  esac
  exit 0
fi

# ====================================================================== driver
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [CHECK...]   checks: $(echo $ALL_CHECKS)" >&2
  exit 2
fi
B=$(cd "$1" 2>/dev/null && pwd) || { echo "no build dir $1" >&2; exit 2; }
shift
checks=${*:-$ALL_CHECKS}
for f in selftest libfake_nccl_shim.so libnccl.so.2; do
  [ -e "$B/tests/fake_nccl/$f" ] || { echo "missing $B/tests/fake_nccl/$f (run make fake-nccl)" >&2; exit 2; }
done
unset NCCL_COMM_ID NCCL_COMM_BLOCKING NCCL_SET_THREAD_NAME NCCL_SOCKET_RETRY_CNT NCCL_SOCKET_RETRY_SLEEP_MSEC \
  FAKE_NCCL_LOG FAKE_NCCL_ROOT_ADDR FAKE_NCCL_INIT_DELAY_MS FAKE_NCCL_VERSION LD_PRELOAD RANK WORLD_SIZE LOCAL_RANK
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fake_nccl_selftest.XXXXXX") || exit 2
TPID= KEEP=
driver_cleanup() {
  if [ -n "$TPID" ]; then
    kill -TERM "$TPID" 2>/dev/null
    wait "$TPID" 2>/dev/null
  fi
  [ -n "$KEEP" ] || rm -rf "$WORK"
}
trap driver_cleanup EXIT
trap 'exit 130' INT TERM HUP

npass=0 nfail=0
for c in $checks; do
  mkdir -p "$WORK/$c"
  timeout -k 3 20 bash "$0" --one "$c" "$B" "$WORK/$c" >"$WORK/$c/check.log" 2>&1 &
  TPID=$!
  wait "$TPID"
  rc=$?
  TPID=
  if [ "$rc" = 0 ]; then
    npass=$((npass + 1))
    skip=$(sed -n 's/^SKIPPED: //p' "$WORK/$c/check.log")
    echo "PASS $c${skip:+ (skipped: $skip)}"
  else
    nfail=$((nfail + 1))
    [ "$rc" = 124 ] && why="timed out after 20 s" || why="exit $rc"
    echo "FAIL $c ($why)"
    sed 's/^/    /' "$WORK/$c/check.log" | tail -n 40
  fi
done
echo "$npass passed, $nfail failed"
if [ "$nfail" != 0 ]; then KEEP=1; echo "logs kept in $WORK"; fi
[ "$nfail" = 0 ]
