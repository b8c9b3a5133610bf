#!/bin/bash
# SPDX-License-Identifier: MIT
# buildlock.sh: torch.utils.cpp_extension.load on rank 1 finds a `lock`
# file in TORCH_EXTENSIONS_DIR/<name>/ left by a build killed hours ago
# and waits for it forever (FileBaton.wait); rank 0 waits in a barrier.
# The report: build_lock_wait first, naming the lock file and the command
# that removes it; no rank_exited for the helpers extension loading runs
# (`which hipcc | xargs readlink -f` exits 123). Then a live build: both
# ranks load one extension, one builds (ninja and a compiler slowed to
# 40 s), the other waits on its lock: build_lock_wait is a warning naming
# the build that runs, and no error at all (slow, not stuck); the building
# rank's doing says it compiles.
# limit: 150
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/e2e/e2e.inc"
. "$(dirname "$0")/dl.inc"

command -v ninja >/dev/null || { skip buildlock "ninja is not installed (scripts/deps.sh test)"; finish; }
mkdir -p "$T/ext/stale/htstale" "$T/ext/live" "$T/bin"
touch -d '3 hours ago' "$T/ext/stale/htstale/lock"
# A compiler that takes its time for compiles (not for -v probes).
cat >"$T/bin/c++" <<'SH'
#!/bin/bash
case " $* " in *" -c "*) sleep 40 ;; esac
exec /usr/bin/c++ "$@"
SH
chmod +x "$T/bin/c++"
job stale "$(free_port)" TORCH_EXTENSIONS_DIR="$T/ext/stale" -- -- ext htstale
job live "$(free_port)" TORCH_EXTENSIONS_DIR="$T/ext/live" BAD_RANK=all CXX="$T/bin/c++" -- -- ext htlive
# Two dumps in the wait (the second at twice the deadline): by then the
# helpers it ran have long ended.
settle_tq 60 stale "len(procs) >= 2 and len(proc(rank=1, main=True).evs('build_lock')) >= 2"
settle_tq 60 live "any(p.ev('build_lock') and p.evs('build_lock')[-1]['builders'] for p in procs)
                   and any(p.dumps and p.dumps[-1][2] is not None
                           and '_run_ninja_build' in ' '.join(p.python_frames(-1)) for p in procs)"
report stale
report live
first_screen stale
first_screen live
stop stale live

LOCK=$T/ext/stale/htstale/lock
check "the library's build_lock line: the lock file, 3 hours old, no builder" tq "$T/stale" "(
[(l['via'], [x['path'] for x in l['locks']], l['builders']) for l in proc(rank=1).evs('build_lock')][-1]
== ('TORCH_EXTENSIONS_DIR', ['$LOCK'], [])
and 10700 < proc(rank=1).evs('build_lock')[-1]['locks'][0]['age'] < 12000)"
check "the library's build_lock line of the live build: ninja or the compiler, below a rank" tq "$T/live" "(
any(b['comm'] in ('ninja', 'c++', 'cc1plus') and b['age'] >= 0
    for p in procs for l in p.evs('build_lock') for b in l['builders']))"
expect "stale lock: build_lock_wait first, rank 1, the lock file and how to remove it" stale "
rc == 1 and v0['code'] == 'build_lock_wait' and v0['ranks'] == [1] and v0['severity'] == 'error'
and '$LOCK' in v0['summary'] and 'no build runs' in v0['summary']
and \"rm -f '$LOCK'\" in v0['advice']
and '$LOCK' in R(1)['waits_for']"
expect "stale lock: no rank_exited for the helpers, only ranks 0 and 1" stale "
'rank_exited' not in codes and sorted(r['rank'] for r in ranks) == [0, 1]"
expect "live build: build_lock_wait is a warning naming the build that runs; no error" live "
V('build_lock_wait') and V('build_lock_wait')['severity'] == 'warning'
and 'a build runs' in V('build_lock_wait')['summary']
and re.search(r'pid \d+ (ninja|c\+\+|cc1plus)', V('build_lock_wait')['summary'])
and not errors and rc == 0"
expect "live build: the building rank is compiling (its doing, from the signature table)" live "
[r for r in ranks if r['doing'] == 'building a C++ extension (ninja)']"
finish
