#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh: the report reader's fuzz target (tests/fuzz/target/report_fuzz.c).
#   tests/fuzz/run.sh          `make fuzz`: build with libFuzzer (clang), or
#                              AFL++ when libFuzzer is missing, and fuzz for
#                              FUZZ_SECONDS (default 120) from seeds made of
#                              the report fixtures; a crash fails the run and
#                              its input is kept under $B/fuzz/crashes.
#   tests/fuzz/run.sh BUILD    as an integration test (make test): replays
#                              the seeds and tests/fuzz/corpus, never crashing.
# limit: 240
set -u
B=${B:-${1:-}}
: "${B:?B must name the build folder}"
root=$(cd "$(dirname "$0")/../.." && pwd)
mode=fuzz
[ $# -gt 0 ] && mode=replay
out=$B/fuzz
mkdir -p "$out/seeds" "$out/crashes"
srcs="$root/tests/fuzz/target/report_fuzz.c $(ls "$root"/src/cli/report/*.c "$root"/src/cli/report/*/*.c) $root/src/base/names.c $root/src/base/signatures.c $root/src/cli/check/names.c"
flags="-std=gnu11 -D_GNU_SOURCE -g -O1 -I$root/include -I$root/src/base -I$root/src/core -I$root/src/cli -I$root/src/cli/report \
	-DHT_VERSION=\"$(cat "$root/VERSION")\" $(pkg-config --cflags jansson 2>/dev/null)"
libs="$(pkg-config --libs jansson 2>/dev/null || echo -ljansson) $(pkg-config --libs libsodium zlib 2>/dev/null || echo -lsodium -lz) -lm"

say() { if [ $mode = replay ]; then echo "$1 $2"; else echo "fuzz: $2"; fi; }

# Seeds: each fixture case as one input, its files joined by NUL bytes.
for d in "$root"/tests/fixtures/report/*/; do
	name=$(basename "$d")
	first=1
	: >"$out/seeds/$name"
	for f in "$d"*.jsonl; do
		[ -e "$f" ] || continue
		[ $first = 1 ] || printf '\0' >>"$out/seeds/$name"
		head -c 65536 "$f" >>"$out/seeds/$name"
		first=0
	done
done

# Rebuild only when a source changed.
target=$out/report_fuzz
stale=1
if [ -x "$target" ]; then
	stale=0
	for s in $srcs "$root"/src/cli/report/*.h "$root"/src/cli/report/*/*.h "$root"/include/hangtrace.h "$root"/include/signatures.def "$root"/VERSION; do
		[ "$s" -nt "$target" ] && stale=1
	done
fi
engine=libfuzzer
if [ $stale = 1 ]; then
	rm -f "$target"
	if command -v clang >/dev/null 2>&1 &&
	   clang $flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o "$target" $srcs $libs 2>"$out/build.log"; then
		echo libfuzzer >"$out/engine"
	elif command -v afl-clang-fast >/dev/null 2>&1 &&
	     AFL_QUIET=1 afl-clang-fast $flags -fsanitize=fuzzer -o "$target" $srcs $libs \
		2>>"$out/build.log"; then
		echo afl >"$out/engine"
	else
		say SKIP "report_fuzz: cannot build the fuzz target (clang with libFuzzer, or afl++: scripts/deps.sh fuzz); see $out/build.log"
		exit 0
	fi
fi
engine=$(cat "$out/engine" 2>/dev/null || echo libfuzzer)

inputs="$out/seeds"
[ -d "$root/tests/fuzz/corpus" ] && inputs="$inputs $root/tests/fuzz/corpus"

if [ $mode = replay ]; then
	n=$(find $inputs -type f | wc -l)
	if [ "$engine" = libfuzzer ]; then
		"$target" -runs=0 $inputs >"$out/replay.log" 2>&1
	else
		rc=0
		for f in $(find $inputs -type f); do "$target" <"$f" >/dev/null 2>&1 || rc=1; done
		[ $rc = 0 ]
	fi
	if [ $? = 0 ]; then
		say PASS "report_fuzz: the fuzz target replays $n inputs without a crash"
	else
		say FAIL "report_fuzz: a replayed input crashed the report (see $out/replay.log)"
	fi
	exit 0
fi

secs=${FUZZ_SECONDS:-120}
echo "fuzz: $engine, $secs s, seeds from $(ls "$out/seeds" | wc -l) fixture cases"
if [ "$engine" = libfuzzer ]; then
	mkdir -p "$out/corpus"
	"$target" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-dict="$root/tests/fuzz/trace.dict" -artifact_prefix="$out/crashes/" \
		-print_final_stats=1 "$out/corpus" $inputs 2>"$out/fuzz.log"
	rc=$?
	tail -n 12 "$out/fuzz.log" | grep -E "stat::number_of_executed_units|stat::new_units_added|ERROR|SUMMARY" | sed 's/^/fuzz: /'
else
	AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
		afl-fuzz -V "$secs" -x "$root/tests/fuzz/trace.dict" -i "$out/seeds" -o "$out/afl" \
		-- "$target" >"$out/fuzz.log" 2>&1
	rc=$?
	crashes=$(ls "$out"/afl/default/crashes 2>/dev/null | grep -vc README || true)
	[ "${crashes:-0}" -gt 0 ] && rc=1 && cp "$out"/afl/default/crashes/id* "$out/crashes/" 2>/dev/null
fi
if [ $rc = 0 ]; then
	echo "fuzz: no crash in $secs s"
else
	echo "fuzz: CRASH: inputs in $out/crashes (replay: $target FILE); log $out/fuzz.log"
fi
exit $rc
