#!/bin/bash
# SPDX-License-Identifier: MIT
# install.sh: the wheel of `make wheel`, copied away from the build folder
# and installed by pip into a fresh venv: the version everywhere, ldd of
# what it carries resolving inside the wheel or the base system, no run
# path into the tree; then the demo's 4-rank job (rank 3 never starts) on
# the fake driver and fake NCCL three ways at once: the tree's `hangtrace
# run`, the wheel's `hangtrace run`, and the job-script way (`export
# LD_PRELOAD=$(hangtrace --lib-path)`), the last two with LD_LIBRARY_PATH
# empty and the build folder and the tree hidden (a mount namespace). The
# same first verdict, the brief in the job's log from the wheel's command,
# the wheel's libunwind in the ranks. Then pip uninstall leaves nothing.
# limit: 120
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../e2e/e2e.inc"
. "$(dirname "$0")/wheel.inc"
need_wheel
TMO=2

# --- install, from a copy: nothing may lead back to $B
mkdir -p "$T/w"
cp "$WHEEL" "$T/w/"
V=$T/venv
if ! venv "$V"; then
	fail venv "python3 -m venv failed: $(tail -n 1 "$V.log")"
	finish
fi
find "$V" | sort >"$T/before.txt"
t0=$(date +%s.%N)
check "pip install of the wheel into a fresh venv (offline, nothing else)" \
	pipv "$V" install -q --no-index "$T/w/$(basename "$WHEEL")"
rm -rf "$T/w"
SITE=$(site "$V")
PKG=$SITE/hangtrace
HTW=$V/bin/hangtrace
[ -x "$HTW" ] || { fail install "no $HTW after pip install"; finish; }

same() { [ "$1" = "$2" ]; }
check "hangtrace --version: the VERSION file's" same "$("$HTW" --version)" "hangtrace $VERSION"
check "hangtrace --version: the tree's command says the same" same "$("$HT" --version)" "hangtrace $VERSION"
check "python -m hangtrace is the same command" \
	same "$("$V/bin/python" -m hangtrace --version)" "hangtrace $VERSION"
check "the wheel's metadata carries the same version" same "$("$V/bin/python" -c \
	'import importlib.metadata as m; print(m.version("hangtrace"))')" "$VERSION"
check "hangtrace --lib-path prints the wheel's library" \
	same "$("$HTW" --lib-path)" "$PKG/lib/libhangtrace.so"

# --- what the wheel carries
elves="$PKG/bin/hangtrace $PKG/lib/libhangtrace.so $PKG/lib/libunwind.so.8 $(ls "$SITE"/hangtrace.libs/* 2>/dev/null)"
for f in $elves; do ldd_outside "$f" "$SITE" | sed "s|^|$f: |"; done >"$T/outside.txt"
sed 's/^/# outside: /' "$T/outside.txt"
check "ldd: the command, the library and what they carry resolve in the wheel or the base system" \
	[ ! -s "$T/outside.txt" ]
check "ldd: the command's jansson is the wheel's (hangtrace.libs)" \
	sh -c "LD_LIBRARY_PATH= ldd '$PKG/bin/hangtrace' | grep -q 'libjansson-[0-9a-f]*\\.so.* => $SITE/'"
host_jansson() { ldd_outside "$HT" "$SITE" | grep -q libjansson; }
check "ldd: the checker sees the host's jansson in the tree's command" host_jansson
check "the library needs libc alone (libunwind is dlopened at the first dump)" \
	same "$(readelf -d "$PKG/lib/libhangtrace.so" | grep NEEDED | grep -o '\[.*\]')" "[libc.so.6]"
for f in $elves; do readelf -d "$f" | grep -E 'RPATH|RUNPATH' | sed "s|^|$f: |"; done >"$T/runpath.txt"
sed 's/^/# run path: /' "$T/runpath.txt"
check "run paths: only \$ORIGIN, none into the build folder or the tree" \
	sh -c "! grep -v '\\[\\\$ORIGIN' '$T/runpath.txt' && ! grep -q -e '$B' -e '$ROOT' '$T/runpath.txt'"
check "no installed file is a link" same "$(find "$PKG" "$SITE/hangtrace.libs" -type l)" ""
lic=$SITE/hangtrace-$VERSION.dist-info/licenses
missing_lic=""
for f in $PKG/lib/libunwind.so.8 "$SITE"/hangtrace.libs/*; do
	n=$(basename "$f")
	n=${n%%.so*}
	n=${n%-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]}
	[ -s "$(ls "$lic/$n"/* 2>/dev/null | head -n 1)" ] || missing_lic="$missing_lic $n"
done
check "a licence for every library carried (libunwind, jansson, liblzma, libsodium)" \
	sh -c "[ -z '$missing_lic' ] && [ -d '$lic/libunwind' ] && [ -d '$lic/libjansson' ] && [ -d '$lic/libsodium' ]"

# --- the demo's job, three ways
if [ ! -x "$TRAIN" ]; then
	skip demo "no $TRAIN (make builds it where the CUDA headers are)"
else
	# The rank program and the fake libraries, copied, found through
	# $ORIGIN: the job needs neither LD_LIBRARY_PATH nor the build folder.
	mkdir -p "$T/job"
	cp "$TRAIN" "$FAKE_CUDA_DIR/libcuda.so.1" "$FAKE_NCCL_DIR/libnccl.so.2" "$T/job/"
	"$PATCHELF" --set-rpath '$ORIGIN' "$T/job/train"
	if hidden_ok; then
		H=("${HIDDEN[@]}")
	else
		H=()
		skip hidden "cannot hide the build folder in a mount namespace (unshare -m); the wheel's jobs see it"
	fi
	JOBENV="FAKE_CUDA_DEVICES=4 NCCL_SOCKET_IFNAME=lo WORLD_SIZE=4 MASTER_ADDR=127.0.0.1"
	p_tree=$(free_port) p_wheel=$(free_port) p_pre=$(free_port)
	for r in 0 1 2; do
		launch tree $r env $JOBENV RANK=$r LOCAL_RANK=$r MASTER_PORT="$p_tree" \
			LD_LIBRARY_PATH="$FAKE_CUDA_DIR:$FAKE_NCCL_DIR" \
			"$HT" run --timeout $TMO --dir "$T/tree" -- "$TRAIN" "$T/tree.id"
		launch wheel $r env $JOBENV RANK=$r LOCAL_RANK=$r MASTER_PORT="$p_wheel" LD_LIBRARY_PATH= \
			${H[@]+"${H[@]}"} "$HTW" run --timeout $TMO --dir "$T/wheel" -- "$T/job/train" "$T/wheel.id"
		launch preload $r env $JOBENV RANK=$r LOCAL_RANK=$r MASTER_PORT="$p_pre" LD_LIBRARY_PATH= \
			HANGTRACE_DIR="$T/preload" HANGTRACE_TIMEOUT=$TMO \
			${H[@]+"${H[@]}"} bash -c 'export LD_PRELOAD=$("$0" --lib-path) && exec "$@"' \
			"$HTW" "$T/job/train" "$T/preload.id"
	done
	settle 40 tree 3 wheel 3 preload 3
	# The brief, from the rank that claimed it, lands a moment after.
	BRIEF="^hangtrace: 1 ERROR missing_rank rank 3: "
	end=$(($(date +%s) + 15))
	until grep -q "$BRIEF" "$T"/wheel.*.out && grep -q "$BRIEF" "$T"/preload.*.out; do
		[ "$(date +%s)" -ge $end ] && break
		sleep 0.2
	done
	echo "# pip install to the wheel's verdict in the job's log: $(echo "$(date +%s.%N) - $t0" | bc) s"
	pid=$(rank_pids wheel | head -n 1)
	check "the ranks of the wheel run its own libunwind, its liblzma from hangtrace.libs" \
		sh -c "grep -q ' $PKG/lib/libunwind.so.8\$' /proc/$pid/maps && grep -q ' $SITE/hangtrace.libs/liblzma-' /proc/$pid/maps"
	stop tree wheel preload
	report tree
	${H[@]+"${H[@]}"} "$HTW" report --json "$T/wheel" >"$T/wheel.json" 2>"$T/wheel.err"
	echo $? >"$T/wheel.rc"
	HT=$HTW report preload
	first=$("$PY" -c 'import json, sys; v = json.load(open(sys.argv[1]))["verdicts"][0]
print(repr((v["code"], v["ranks"], v["summary"])))' "$T/tree.json" 2>/dev/null)
	echo "# the tree's first verdict: $first"
	expect "the tree's demo: missing_rank [3] first" tree "
rc == 1 and v0['code'] == 'missing_rank' and v0['ranks'] == [3]"
	expect "the wheel's hangtrace run: the tree's first verdict, the ranks stalled in nccl_init" wheel "
rc == 1 and (v0['code'], v0['ranks'], v0['summary']) == ${first:-None}
and all(R(r)['phase'] == 'nccl_init' and R(r)['stalled'] for r in range(3))"
	expect "the job-script way (LD_PRELOAD=\$(hangtrace --lib-path)): the same first verdict" preload "
rc == 1 and (v0['code'], v0['ranks'], v0['summary']) == ${first:-None}"
	headers_have_version() {
		local f
		for f in "$T"/wheel/*.jsonl "$T"/preload/*.jsonl; do
			head -n 1 "$f" | grep -q "\"version\":\"$VERSION\"" || return 1
		done
	}
	check "every trace header of the wheel's ranks carries the version" headers_have_version
	check "the wheel's dumps unwound with libunwind" grep -q '"unwinder":"libunwind"' "$T"/wheel/*.jsonl
	check "the brief in the job's log, from the wheel's command (hangtrace run)" \
		grep -q "$BRIEF" "$T"/wheel.*.out
	check "the brief in the job's log, from the command beside the wheel's library (LD_PRELOAD)" \
		grep -q "$BRIEF" "$T"/preload.*.out
	grep -h "^hangtrace" "$T"/wheel.*.out | sed 's/^/# wheel job: /'
fi

# --- uninstall
check "pip uninstall hangtrace" pipv "$V" uninstall -q -y hangtrace
find "$V" | sort >"$T/after.txt"
diff "$T/before.txt" "$T/after.txt" | sed 's/^/# left: /'
check "pip uninstall leaves nothing behind" cmp -s "$T/before.txt" "$T/after.txt"
finish
