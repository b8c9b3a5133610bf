#!/bin/bash
# SPDX-License-Identifier: MIT
# activity.sh: what a rank does when it waits for nobody, named from the
# signature table over real stacks (SPEC section 8, ranks[].doing). Rank 1
# of a 2-rank gloo job, after init, loads a checkpoint with torch.load or
# numpy.load from a FIFO nobody writes, or downloads with urllib or
# requests from a local server that accepts and never answers; rank 0
# waits in a barrier. The report: a straggler, rank 1, that says what it
# does. (Compiling: tests/dataloader/buildlock.sh; the packages not
# installed here, from recorded frames: tests/report/check_dataloader.c.)
# limit: 120
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/e2e/e2e.inc"
. "$(dirname "$0")/dl.inc"

mkfifo "$T/ckpt.pt" "$T/ckpt.npy"
SRV=$(free_port)
# Listens and never accepts: the kernel completes connects, nobody answers.
spawn "$PY" -c "import socket, time
s = socket.socket(); s.bind(('127.0.0.1', $SRV)); s.listen(16); time.sleep(600)"
cases="torch_load numpy_load urlopen"
job torch_load "$(free_port)" -- -- torch_load "$T/ckpt.pt"
job numpy_load "$(free_port)" -- -- numpy_load "$T/ckpt.npy"
job urlopen "$(free_port)" -- -- urlopen "http://127.0.0.1:$SRV/model.bin"
if "$PY" -c 'import requests' 2>/dev/null; then
	job requests "$(free_port)" -- -- requests "http://127.0.0.1:$SRV/model.bin"
	cases="$cases requests"
fi
# The latest dump of rank 1 in the activity, of rank 0 in its barrier,
# declared: a look that found rank 0 still moving (on a slow machine it
# can enter the barrier inside the look's window) is followed by another.
AT="(lambda p, f: p.dumps and p.dumps[-1][2] is not None and f in ' '.join(p.python_frames(-1)))"
for c in $cases; do
	case $c in
	torch_load) f=torch/serialization ;; numpy_load) f=numpy/lib/npyio ;;
	urlopen) f=urllib/request ;; requests) f=requests/ ;;
	esac
	settle_tq 60 "$c" "len(procs) == 2 and $AT(proc(rank=1), '$f') and $AT(proc(rank=0), 'barrier') and proc(rank=0).declared"
done
for c in $cases; do
	report "$c"
	"$HT" report --brief "$T/$c" >"$T/$c.brief" 2>&1
	"$HT" report --html "$T/$c.html" "$T/$c" >/dev/null 2>&1
done
first_screen torch_load
stop $cases

for c in $cases; do
	case $c in
	torch_load) want="loading a checkpoint (torch.load)" f=torch/serialization ;;
	numpy_load) want="loading a checkpoint (numpy.load)" f=numpy/lib/npyio ;;
	urlopen) want="downloading (urllib)" f=urllib/request ;;
	requests) want="downloading (requests)" f=requests/ ;;
	esac
	expect "$c: straggler rank 1, $want" "$c" "
	v0['code'] == 'straggler' and v0['ranks'] == [1] and R(1)['doing'] == '$want'
	and '$want' in v0['summary']"
	# Its own stack, though it is working: first, marked so (SPEC section 8).
	expect "$c: rank 1's stack first, working, in main (dl_rank.py)" "$c" "
	groups[0] is G(1) and G(1)['ranks'] == [1] and G(1)['state'] == 'working'
	and re.search(r'^main \\(.*dl_rank\\.py:\\d+\\)$', frames(G(1)), re.M)
	and R(1)['stack_group'] == 0"
	check "$c: the brief names rank 1's frame of its own code" \
		grep -Eq '^hangtrace:   rank 1 is in main \(.*dl_rank\.py:[0-9]+\)$' "$T/$c.brief"
	check "$c: the HTML page has rank 1's stack" grep -q "$f" "$T/$c.html"
done
# Killed with the job after a look found it working, rank 1 was not
# stalled: its stack is still its own group, working.
report torch_load
expect "torch_load, after the kill: straggler rank 1, not stalled, its stack working" torch_load "
v0['code'] == 'straggler' and v0['ranks'] == [1] and not R(1)['stalled']
and groups[0] is G(1) and G(1)['state'] == 'working'"
"$PY" -c 'import requests' 2>/dev/null ||
	skip "requests: straggler rank 1, downloading (requests)" "python3-requests is not installed"
finish
