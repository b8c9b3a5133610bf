#!/bin/bash
# SPDX-License-Identifier: MIT
# watch.sh: `hangtrace watch` through a real terminal (tmux, 120x40, a
# server of its own) on a 4-rank PyTorch gloo job whose rank 3 never
# starts, ranks under `hangtrace run --timeout 3`: the screen shows the
# ranks move from launch to rendezvous, then the missing_rank verdict, all
# redrawn in place (one header, no scrollback); once the ranks are killed
# (SIGTERM, as a scheduler does) watch ends by itself. A second watch, on
# the same job through a pipe, appends a frame per change. Ctrl-C ends a
# watch and shows the cursor again.
# limit: 150
. "$(dirname "$0")/../lib.sh"

if ! command -v tmux >/dev/null 2>&1; then
	skip watch "tmux is not installed (scripts/deps.sh test installs it)"
	finish
fi
if ! "$PY" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
	skip watch "python3-torch with gloo is not importable by $PY (scripts/deps.sh test installs it)"
	finish
fi
SOCK=htwatch$$
tm() { tmux -L "$SOCK" "$@"; }
trap 'tm kill-server 2>/dev/null; cleanup' EXIT
screen() { tm capture-pane -p -t "$1"; }

# until_screen SECS SESSION REGEX: polls the pane until it matches; keeps
# every distinct screen in $T/SESSION.screens.
until_screen() {
	local end=$(( $(date +%s) + $1 ))
	while [ "$(date +%s)" -le $end ]; do
		screen "$2" >"$T/cur" 2>/dev/null
		cat "$T/cur" >>"$T/$2.screens"
		grep -Eq "$3" "$T/cur" && return 0
		sleep 0.2
	done
	return 1
}

# exited SESSION STATUS TEXT: watch's shell said it exited with STATUS,
# TEXT is on the screen, and the cursor is visible again.
exited() {
	until_screen 10 "$1" "^watch-exited-$2\$" && grep -q "$3" "$T/cur" &&
		[ "$(tm display -p -t "$1" '#{cursor_flag}')" = 1 ] && return 0
	echo "# screen of $1:"; sed 's/^/# /' "$T/cur"
	return 1
}

D=$T/job
P=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# Each watch runs in an interactive shell of its own pane, which says how
# watch ended and draws its prompt after it.
shell() {
	tm new-session -d -s "$1" -x "$2" -y "$3" "env PS1='$ ' bash --norc --noprofile -i"
	tm send-keys -t "$1" "$4; echo watch-exited-\$?" Enter
}
shell w 120 40 "$HT watch --interval 0.5 $D"
"$HT" watch --interval 0.3 "$D" >"$T/pipe.out" 2>&1 &
PIPE=$!
SPAWNED="$SPAWNED $PIPE"
check "tty: waiting for the trace folder to appear" until_screen 10 w "waiting for trace files under $D"
check "tty: the cursor is hidden while watching" test "$(tm display -p -t w '#{cursor_flag}')" = 0
RANKS=""
for r in 0 1 2; do
	RANK=$r WORLD_SIZE=4 MASTER_ADDR=127.0.0.1 MASTER_PORT=$P STORE_TIMEOUT=60 \
		"$HT" run --dir "$D" --timeout 3 -- "$PY" "$ROOT/tests/net/torch_rank.py" ok \
		>"$T/r$r.out" 2>&1 &
	SPAWNED="$SPAWNED $!"
	RANKS="$RANKS $!"
done
check "tty: a rank shown in launch (importing torch)" until_screen 30 w '^[0-2] +[^ ]+ +launch +[0-9]+s +running'
check "tty: then in rendezvous" until_screen 40 w '^[0-2] +[^ ]+ +rendezvous +[0-9]+s +'
check "tty: then the verdict: missing_rank, rank 3" until_screen 40 w '^1 ERROR missing_rank rank 3: '
check "tty: ranks 0-2 stalled in rendezvous, the job line says rank 3 is missing" \
	until_screen 20 w '^job +3 of 4 ranks traced.*3 stalled in rendezvous.*missing: 3'
cp "$T/cur" "$T/stalled.screen"
check "tty: redrawn in place: one header on the screen, none in the scrollback" \
	sh -c "[ \$(grep -c '^hangtrace watch: ' '$T/stalled.screen') -eq 1 ] &&
	       [ \$(tmux -L '$SOCK' capture-pane -p -S - -E -1 -t w | grep -c '^hangtrace watch: ') -le 1 ]"
check "tty: the time in phase counts up" \
	sh -c "grep -Eq '^[0-2] +[^ ]+ +rendezvous +([3-9]|[1-9][0-9])s +STALLED' '$T/stalled.screen'"
kill -TERM $RANKS
check "tty: watch ends once every rank has ended" \
	until_screen 30 w 'every rank has ended; the whole report: hangtrace report '
check "tty: watch has exited (status 1: an error verdict), the cursor shown again" \
	exited w 1 'every rank has ended'

check "tty: the last screen says how each rank ended" grep -Eq '^[0-2] .*SIGTERM while waiting' "$T/cur"
for i in $(seq 1 100); do kill -0 $PIPE 2>/dev/null || break; sleep 0.1; done
check "pipe: watch ended by itself too" sh -c "! kill -0 $PIPE 2>/dev/null"
check "pipe: appended frames, no escape codes, launch then rendezvous then the verdict" "$PY" - "$T/pipe.out" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
assert "\033" not in text, "escape codes in a pipe"
frames = text.split("hangtrace watch: ")[1:]
assert len(frames) >= 3, len(frames)
at = lambda pat: next(i for i, f in enumerate(frames) if re.search(pat, f, re.M))
# (torch's import may outlast the 3 s deadline: the verdict can come in launch)
assert at(r"^[0-2] +\S+ +launch ") < at(r"^[0-2] +\S+ +rendezvous ") < len(frames) - 1, frames
assert any(re.search(r"^1 ERROR missing_rank rank 3: .* in rendezvous", f, re.M)
           for f in frames[at(r"^[0-2] +\S+ +rendezvous "):]), frames
assert "every rank has ended" in frames[-1]
EOF

# Ctrl-C: a watch of a folder that never appears.
shell c 100 20 "$HT watch --interval 0.5 $T/never"
until_screen 10 c 'waiting for trace files' >/dev/null
check "Ctrl-C: the cursor is hidden while watching" test "$(tm display -p -t c '#{cursor_flag}')" = 0
tm send-keys -t c C-c
# bash drops the rest of a command list that SIGINT ended: ask again.
until_screen 10 c '^\$ $' >/dev/null
tm send-keys -t c "echo watch-exited-\$?" Enter
check "Ctrl-C: watch stops, says so, ends by SIGINT (130), the cursor shown again" \
	exited c 130 'hangtrace watch: stopped'

finish
