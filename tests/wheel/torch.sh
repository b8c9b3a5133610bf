#!/bin/bash
# SPDX-License-Identifier: MIT
# torch.sh: the wheel in a fresh venv that sees PyTorch from PyPI (the venv
# of make torch-venv, $B/venv-torch, through a .pth file: installing and
# uninstalling the wheel never touches it): a 2-rank gloo job of
# tests/net/torch_rank.py whose rank 1 never starts, rank 0 under the
# wheel's `hangtrace run`: missing_rank [1] first in `hangtrace report
# --json`, the brief in the job's log, and nothing left after uninstall.
# limit: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../e2e/e2e.inc"
. "$(dirname "$0")/wheel.inc"
need_wheel
TMO=3
TV=$B/venv-torch
if [ ! -f "$TV/.torch-ok" ] || [ ! -x "$TV/bin/python" ]; then
	why=$(tail -n 1 "$B/torch-venv.log" 2>/dev/null)
	skip wheel_torch "no PyTorch from PyPI in $TV: make torch-venv did not make it${why:+ ($why)}"
	finish
fi
TSITE=$(site "$TV")
# Read it only: no bytecode written into it either.
export PYTHONDONTWRITEBYTECODE=1

V=$T/venv
if ! venv "$V" "$TV/bin/python"; then
	fail venv "python -m venv failed: $(tail -n 1 "$V.log")"
	finish
fi
SITE=$(site "$V")
echo "$TSITE" >"$SITE/torch-venv.pth"
find "$V" | sort >"$T/before.txt"
check "pip install of the wheel into a venv that sees torch from PyPI" \
	pipv "$V" install -q --no-index "$WHEEL"
HTW=$V/bin/hangtrace
check "the venv's python imports torch from PyPI" \
	"$V/bin/python" -c 'import sys, torch; sys.exit(not torch.__file__.startswith(sys.argv[1]))' "$TSITE"

port=$(free_port)
launch torch 0 env RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
	STORE_TIMEOUT=60 "$HTW" run --timeout $TMO --dir "$T/torch" -- \
	"$V/bin/python" "$ROOT/tests/net/torch_rank.py" ok
BRIEF="^hangtrace: 1 ERROR missing_rank rank 1: "
end=$(($(date +%s) + 60))
until grep -q "$BRIEF" "$T/torch.0.out"; do
	[ "$(date +%s)" -ge $end ] && { echo "# no brief in 60 s"; break; }
	sleep 0.3
done
stop torch
HT=$HTW report torch
expect "2-rank gloo job, rank 1 never starts: missing_rank [1] first" torch "
rc == 1 and v0['code'] == 'missing_rank' and v0['ranks'] == [1] and d['job']['world_size'] == 2
and R(0)['phase'] == 'rendezvous' and R(0)['stalled'] and d['job']['framework'] == 'pytorch'
and 'init_process_group' in frames(G(0))"
check "the brief in the job's log, from the wheel's command" grep -q "$BRIEF" "$T/torch.0.out"
grep "^hangtrace" "$T/torch.0.out" | sed 's/^/# job: /'

check "pip uninstall hangtrace" pipv "$V" uninstall -q -y hangtrace
find "$V" | sort >"$T/after.txt"
diff "$T/before.txt" "$T/after.txt" | sed 's/^/# left: /'
check "pip uninstall leaves nothing behind (the torch venv untouched)" \
	cmp -s "$T/before.txt" "$T/after.txt"
finish
