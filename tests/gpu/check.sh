#!/bin/bash
# SPDX-License-Identifier: MIT
# check.sh [BUILD_DIR]: the checks that need a real NVIDIA GPU, its driver,
# PyTorch with CUDA and NCCL; not part of `make test` (tests/run-it.sh
# skips tests/gpu/). Build first (`make all` and the test programs, e.g.
# `make it IT=none`). Prints one PASS, FAIL or SKIP line per check and a
# closing count; finishes in well under 5 minutes.
#   torch_1rank   a 1-rank PyTorch NCCL job: phases cuda_init through
#                 steady, real driver codes, the device's real UUID, and
#                 NCCL's own "commId" equal to the trace's commid_nccl
#   duplicate_gpu 2 ranks bound to the one GPU: NCCL's duplicate-GPU error
#                 recorded (and reported, where the report knows it)
#   c_missing     a C job of 2 ranks on the real NCCL, rank 1 never starts:
#                 rank 0 stalls in nccl_init, the dump shows NCCL's
#                 bootstrap frames or threads
#   fork_cuinit   fork after cuInit, cuInit in the child: the real code
#   check_1rank   `hangtrace check` on one rank: the GPU its local rank takes
#                 (the driver's UUID, as nvidia-smi gives it) and the
#                 one-element all-reduce on the real NCCL both PASS, exit 0
#   check_dup_gpu two ranks of `hangtrace check` on the one GPU:
#                 duplicate_gpu first, both ranks end within the bound
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "${1:-${B:-$ROOT/build}}" && pwd)
LIB=$B/libhangtrace.so
HT=$B/hangtrace
PY=${PYTHON:-python3}
T=$(mktemp -d /tmp/ht-gpu.XXXXXX)
PASSES=0 FAILS=0 SKIPS=0 PIDS=""
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
	[ -n "${HT_KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
pass() { echo "PASS $1"; PASSES=$((PASSES + 1)); }
fail() { echo "FAIL $1: $2"; FAILS=$((FAILS + 1)); }
skip() { echo "SKIP $1: $2"; SKIPS=$((SKIPS + 1)); }
tq() { "$PY" "$ROOT/tests/tq.py" "$@"; }
verdict() { # NAME DIR EXPR
	if out=$(tq "$2" "$3" 2>&1); then pass "$1"; else fail "$1" "$(echo "$out" | head -n 3 | tr '\n' ' ')"; fi
}
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

if [ ! -e "$LIB" ]; then
	echo "check.sh: build first (no $LIB)" >&2
	exit 2
fi
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	for c in torch_1rank duplicate_gpu c_missing fork_cuinit check_1rank check_dup_gpu; do
		skip $c "no NVIDIA GPU or driver"
	done
	echo "$PASSES passed, $FAILS failed, $SKIPS skipped"
	exit 0
fi
UUID=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i 0 | head -n 1 | tr -d ' ')
DRV=$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9]*\)\.\([0-9]*\).*/\1 \2/p' | head -n 1)
DRV_CODE=$(echo "$DRV" | awk '{print $1 * 1000 + $2 * 10}')
HAVE_TORCH=0
"$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() and torch.distributed.is_nccl_available() else 1)' \
	2>/dev/null && HAVE_TORCH=1

cat >"$T/job.py" <<'PYEOF'
import os, torch, torch.distributed as dist
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
torch.cuda.set_device(int(os.environ.get("DEVICE", "0")))
dist.init_process_group("nccl", rank=rank, world_size=world)
t = torch.ones(4, device="cuda")
dist.all_reduce(t)
torch.cuda.synchronize()
print("rank %d sum %g" % (rank, t[0].item()), flush=True)
dist.destroy_process_group()
PYEOF

# ---- torch_1rank
if [ $HAVE_TORCH = 1 ]; then
	D=$T/one
	env LD_PRELOAD="$LIB" HANGTRACE_DIR="$D" RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 \
		MASTER_PORT=$(free_port) NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT \
		timeout 120 "$PY" "$T/job.py" >"$T/one.out" 2>&1
	rc=$?
	[ $rc = 0 ] && pass "torch_1rank: the job completes" || fail "torch_1rank: the job completes" "status $rc: $(tail -n 3 "$T/one.out" | tr '\n' ' ')"
	verdict "torch_1rank: phases cuda_init, device, nccl_id, nccl_init, first_collective, steady" "$D" \
		'(lambda p: all(p.ev("phase", phase=ph, state="begin") for ph in ("cuda_init", "device", "nccl_id", "nccl_init", "first_collective", "steady")) and p.ev("phase", phase="nccl_init", state="end") and p.ev("phase", phase="cuda_init", state="end")["result"] == 0)(proc(rank=0))'
	verdict "torch_1rank: the device's real UUID ($UUID)" "$D" \
		'proc(rank=0).ev("phase", phase="device")["uuid"] == "'"$UUID"'"'
	verdict "torch_1rank: the driver version ($DRV_CODE from nvidia-smi)" "$D" \
		'any(e["value"] == '"${DRV_CODE:-0}"' for e in proc(rank=0).evs("version", what="cuda_driver"))'
	commid=$(sed -n 's/.*commId \(0x[0-9a-f]*\) - Init START.*/\1/p' "$T/one.out" | head -n 1)
	verdict "torch_1rank: NCCL's own commId (${commid:-none}) is the trace's commid_nccl" "$D" \
		"int(proc(rank=0).ev('nccl', state='end', rank=0)['commid_nccl'], 16) == int('${commid:-0x1}', 16)"
else
	skip torch_1rank "PyTorch with CUDA and NCCL is not installed"
fi

# ---- duplicate_gpu
if [ $HAVE_TORCH = 1 ]; then
	D=$T/dup
	port=$(free_port)
	for r in 0 1; do
		env LD_PRELOAD="$LIB" HANGTRACE_DIR="$D" HANGTRACE_TIMEOUT=60 RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r \
			DEVICE=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port timeout 120 "$PY" "$T/job.py" >"$T/dup$r.out" 2>&1 &
		PIDS="$PIDS $!"
	done
	for p in $PIDS; do wait "$p"; done
	PIDS=""
	verdict "duplicate_gpu: NCCL's duplicate-GPU error recorded" "$D" \
		'any("Duplicate GPU" in (e.get("last_error") or "") for e in events("nccl", state="error"))'
	if [ -x "$HT" ] && "$HT" report --json "$D" >"$T/dup.json" 2>/dev/null || [ -s "$T/dup.json" ]; then
		if "$PY" -c 'import json,sys; v=[x["code"] for x in json.load(open(sys.argv[1]))["verdicts"]]; sys.exit(0 if "duplicate_gpu" in v or "nccl_init_error" in v else 1)' "$T/dup.json"; then
			pass "duplicate_gpu: reported"
		else
			fail "duplicate_gpu: reported" "verdicts: $("$PY" -c 'import json,sys; print([x["code"] for x in json.load(open(sys.argv[1]))["verdicts"]])' "$T/dup.json" 2>&1)"
		fi
	else
		skip "duplicate_gpu: reported" "hangtrace report gave no JSON"
	fi
else
	skip duplicate_gpu "PyTorch with CUDA and NCCL is not installed"
fi

# ---- c_missing: the C job linked to the NCCL torch uses, else the system's
NCCL_SO=$("$PY" -c 'import glob, os, nvidia.nccl as n; print(sorted(glob.glob(os.path.join(list(n.__path__)[0], "lib", "libnccl.so*")))[0])' 2>/dev/null)
[ -n "$NCCL_SO" ] || NCCL_SO=$(ldconfig -p 2>/dev/null | sed -n 's/.*libnccl.so.2 .*=> \(.*\)/\1/p' | head -n 1)
[ -n "$NCCL_SO" ] || NCCL_SO=$(ls /usr/local/cuda/lib*/libnccl.so.2 2>/dev/null | head -n 1)
if [ -n "$NCCL_SO" ]; then
	INC=$(dirname "$(dirname "$NCCL_SO")")/include
	cc -std=gnu11 -D_GNU_SOURCE -O0 -g -pthread -rdynamic -I"$ROOT/tests" -I"$INC" \
		-I/usr/local/cuda/include -o "$T/nccl_job" "$ROOT/tests/nccl/nccl_job.c" "$NCCL_SO" \
		-Wl,-rpath,"$(dirname "$NCCL_SO")" -ldl 2>"$T/cc.err"
	if [ -x "$T/nccl_job" ]; then
		D=$T/miss
		env LD_PRELOAD="$LIB" HANGTRACE_DIR="$D" HANGTRACE_TIMEOUT=5 RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 \
			ID_FILE="$T/id" "$T/nccl_job" job >"$T/miss.out" 2>&1 &
		P=$!
		PIDS="$PIDS $P"
		for i in $(seq 1 300); do grep -q '"t":"dump_end"' "$D"/*.jsonl 2>/dev/null && break; sleep 0.1; done
		kill -9 $P 2>/dev/null
		wait $P 2>/dev/null
		PIDS=""
		verdict "c_missing: rank 0 stalls in nccl_init inside ncclCommInitRank" "$D" \
			'proc(rank=0).dumps[0][0]["phase"] == "nccl_init" and any(c["name"] == "ncclCommInitRank" for c in proc(rank=0).dumps[0][0]["calls"])'
		verdict "c_missing: the dump shows NCCL's bootstrap (frames or thread names)" "$D" \
			'any("bootstrap" in f.lower() for t in proc(rank=0).dumps[0][1] for f in t.get("frames", [])) or any("Bootstrap" in (t.get("name") or "") for t in proc(rank=0).dumps[0][1])'
	else
		fail c_missing "cannot build the C job against $NCCL_SO: $(head -n 2 "$T/cc.err" | tr '\n' ' ')"
	fi
else
	skip c_missing "no libnccl.so.2 found"
fi

# ---- fork_cuinit
if [ -x "$B/tests/gpu/fork_cuinit" ]; then
	D=$T/fork
	env LD_PRELOAD="$LIB" HANGTRACE_DIR="$D" RANK=0 WORLD_SIZE=1 timeout 60 "$B/tests/gpu/fork_cuinit" >"$T/fork.out" 2>&1
	crc=$(sed -n 's/^child cuInit //p' "$T/fork.out")
	prc=$(sed -n 's/^parent cuInit //p' "$T/fork.out")
	[ "$prc" = 0 ] && pass "fork_cuinit: the parent's cuInit succeeds" || fail "fork_cuinit: the parent's cuInit succeeds" "$(cat "$T/fork.out")"
	verdict "fork_cuinit: the child's cuInit and its real code (${crc:-?}) recorded, after a fork with CUDA initialised" "$D" \
		'any(e["cuda_initialized"] for e in events("fork")) and any(p.header.get("cuda_inherited") and any(e.get("result") == '"${crc:--99}"' for e in p.evs("cuda") + p.evs("phase", phase="cuda_init")) for p in procs)'
else
	skip fork_cuinit "tests/gpu/fork_cuinit is not built"
fi

# ---- check_1rank, check_dup_gpu: `hangtrace check` on the real driver and NCCL
if [ -n "$NCCL_SO" ]; then
	NCCL_DIR=$(dirname "$NCCL_SO")
	D=$T/check1
	env LD_LIBRARY_PATH="$NCCL_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" RANK=0 WORLD_SIZE=1 \
		LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT="$(free_port)" CUDA_VISIBLE_DEVICES=0 \
		timeout 90 "$HT" check --dir "$D" --timeout 60 >"$T/check1.out" 2>&1
	rc=$?
	[ $rc = 0 ] && pass "check_1rank: exit 0" || fail "check_1rank: exit 0" "exit $rc: $(tail -n 3 "$T/check1.out" | tr '\n' ' ')"
	verdict "check_1rank: the GPU check names the driver's UUID $UUID" "$D" \
		'(lambda e: e["result"] == "pass" and "'"$UUID"'".lower() in e["why"].lower())(ev("check", check="gpu"))'
	verdict "check_1rank: the NCCL all-reduce passes on the real NCCL" "$D" \
		'ev("check", check="nccl")["result"] == "pass"'
	D=$T/check2
	P=$(free_port)
	PIDS=""
	start=$(date +%s)
	for r in 0 1; do
		env LD_LIBRARY_PATH="$NCCL_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" RANK=$r WORLD_SIZE=2 \
			LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P CUDA_VISIBLE_DEVICES=0 \
			timeout 90 "$HT" check --dir "$D" --timeout 30 >"$T/check2.out.$r" 2>&1 &
		PIDS="$PIDS $!"
	done
	for p in $PIDS; do wait "$p"; done
	PIDS=""
	secs=$(( $(date +%s) - start ))
	[ $secs -le 32 ] && pass "check_dup_gpu: both ranks end within the bound" ||
		fail "check_dup_gpu: both ranks end within the bound" "${secs} s"
	"$HT" report --json "$D" >"$T/check2.json" 2>/dev/null
	if "$PY" -c "
import json
r = json.load(open('$T/check2.json'))
v = [x for x in r['verdicts'] if x['severity'] == 'error']
assert v and v[0]['code'] == 'duplicate_gpu' and v[0]['ranks'] == [0, 1], [(x['code'], x['ranks']) for x in v]
" 2>"$T/check2.err"; then
		pass "check_dup_gpu: duplicate_gpu first, ranks 0,1"
	else
		fail "check_dup_gpu: duplicate_gpu first, ranks 0,1" "$(tail -n 1 "$T/check2.err")"
	fi
else
	skip check_1rank "no libnccl.so.2 found"
	skip check_dup_gpu "no libnccl.so.2 found"
fi

echo "$PASSES passed, $FAILS failed, $SKIPS skipped"
[ $FAILS -eq 0 ]
