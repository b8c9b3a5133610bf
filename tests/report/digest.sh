#!/bin/bash
# SPDX-License-Identifier: MIT
# digest.sh: `hangtrace report` over digests says what it says over the
# traces (SPEC section 1, issue 24). Every report fixture is split by host
# (the file name up to its first '.'), each host's files digested on their
# own (`hangtrace digest FILES -o HOST.dg`), and the report over the
# digests concatenated in one file, over the digests given one by one in
# the other order with the first host's files mixed in raw, and over the
# digests merged into one (`hangtrace digest` of digests) is compared with
# the report over the fixture's folder: the text, --json and --brief (its
# last line names the inputs: compared without them) byte for byte, the
# warnings on stderr and the exit status; and the page (--html) and the
# timeline (--chrome-trace) over the concatenated digests. A trace cut short in its last
# line gives the same warning through a digest.
# limit: 300
. "$(dirname "$0")/../lib.sh"
F=$ROOT/tests/fixtures/report

# report MODE OUT INPUTS...: stdout in OUT.out (the brief's inputs cut),
# stderr in OUT.err (the program's name and the inputs cut), status in OUT.rc.
report() {
	mode=$1 out=$2
	shift 2
	"$HT" report $mode "$@" >"$out.out" 2>"$out.err"
	echo $? >"$out.rc"
	if [ "$mode" = --brief ]; then
		sed -i 's/\(the evidence, the stacks and what to try: hangtrace report\) .*/\1 INPUTS/' "$out.out"
	fi
}

same_as_raw() {  # RAW DIG: the same output, warnings and status
	cmp -s "$1.out" "$2.out" && cmp -s "$1.err" "$2.err" && cmp -s "$1.rc" "$2.rc"
}

same_file() {  # A B: the same bytes, or neither written (nothing to report)
	if [ -e "$1" ] || [ -e "$2" ]; then cmp -s "$1" "$2"; fi
}

files_of() {  # DIR HOST: the trace files of HOST in DIR
	for f in "$1"*.jsonl; do
		b=$(basename "$f")
		[ "${b%%.*}" = "$2" ] && echo "$f"
	done
}

total=0 identical=0 differ=""
for d in "$F"/*/; do
	name=$(basename "$d")
	ls "$d"*.jsonl >/dev/null 2>&1 || continue
	total=$((total + 1))
	o=$T/$name
	mkdir -p "$o"
	hosts=$(for f in "$d"*.jsonl; do b=$(basename "$f"); echo "${b%%.*}"; done | sort -u)
	: >"$o/all.dg"
	dgs=""
	ok=1
	for h in $hosts; do
		# shellcheck disable=SC2046
		if ! "$HT" digest $(files_of "$d" "$h") -o "$o/$h.dg" 2>"$o/$h.digest.err"; then
			ok=0
			echo "$name: hangtrace digest of host $h failed: $(head -n 3 "$o/$h.digest.err")"
		fi
		cat "$o/$h.dg" >>"$o/all.dg"
		dgs="$o/$h.dg $dgs"	# the other order
	done
	first=$(echo "$hosts" | head -n 1)
	rest=$(for h in $hosts; do [ "$h" = "$first" ] || echo "$o/$h.dg"; done | sort -r)
	"$HT" digest "$o/all.dg" -o "$o/merged.dg" 2>"$o/merge.err" || ok=0
	why=""
	for mode in "" --json --brief; do
		m=${mode:-text}
		m=${m#--}
		report "$mode" "$o/raw.$m" "$d"
		report "$mode" "$o/dg.$m" "$o/all.dg"
		same_as_raw "$o/raw.$m" "$o/dg.$m" || why="$why $m(concatenated)"
		# shellcheck disable=SC2086
		report "$mode" "$o/split.$m" $dgs
		same_as_raw "$o/raw.$m" "$o/split.$m" || why="$why $m(one by one)"
		# shellcheck disable=SC2046,SC2086
		report "$mode" "$o/mixed.$m" $rest $(files_of "$d" "$first")
		same_as_raw "$o/raw.$m" "$o/mixed.$m" || why="$why $m(mixed with raw)"
		report "$mode" "$o/merged.$m" "$o/merged.dg"
		same_as_raw "$o/raw.$m" "$o/merged.$m" || why="$why $m(merged)"
	done
	"$HT" report --html "$o/raw.html" --chrome-trace "$o/raw.trace" "$d" >/dev/null 2>&1
	"$HT" report --html "$o/dg.html" --chrome-trace "$o/dg.trace" "$o/all.dg" >/dev/null 2>&1
	same_file "$o/raw.html" "$o/dg.html" || why="$why html"
	same_file "$o/raw.trace" "$o/dg.trace" || why="$why chrome-trace"
	if [ $ok = 1 ] && [ -z "$why" ]; then
		identical=$((identical + 1))
	else
		differ="$differ $name"
		echo "$name differs:$why"
		diff "$o/raw.json.out" "$o/dg.json.out" | head -n 10
		diff "$o/raw.json.err" "$o/dg.json.err" | head -n 4
	fi
done
echo "$identical of $total fixtures byte-identical through digests${differ:+; differ:$differ}"
check "every report fixture digested per host: the same report as raw ($identical of $total)" \
	test "$identical" = "$total"

# A trace cut short: the same warning, through a digest as raw.
mkdir -p "$T/cut"
cp "$F/missing_rank/"*.jsonl "$T/cut/"
f=$T/cut/n1.4001.jsonl
size=$(wc -c <"$f")
head -c $((size - 40)) "$f" >"$T/cut/x" && mv "$T/cut/x" "$f"
touch -d '2 hours ago' "$T/cut/"*.jsonl
"$HT" digest "$T/cut" -o "$T/cut.dg" 2>/dev/null
report --json "$T/cut.raw" "$T/cut"
report --json "$T/cut.dg" "$T/cut.dg"
check "a cut last line: warned raw" grep -q 'n1.4001.jsonl:[0-9]*: truncated last line' "$T/cut.raw.err"
check "a cut last line: the same warnings and report through a digest" \
	same_as_raw "$T/cut.raw" "$T/cut.dg"

# Under a launcher onto a pipe, a digest goes in parts: in any order, the
# report joins them; a part lost is said, naming the digest.
SLURM_PROCID=0 "$HT" digest "$F/missing_rank" | cat >"$T/parts.dg"
check "under a launcher, onto a pipe: part lines of under 1 KB" "$PY" -c "
import json, sys
ls = open('$T/parts.dg').read().splitlines()
ok = len(ls) > 1 and all(len(l) < 1024 and json.loads(l)['n'] == len(ls) for l in ls)
sys.exit(not ok)"
"$PY" -c "
import random
ls = open('$T/parts.dg').read().splitlines(True)
random.Random(7).shuffle(ls)
open('$T/shuffled.dg', 'w').writelines(ls)
open('$T/lost.dg', 'w').writelines(ls[1:])"
report --json "$T/raw.parts" "$F/missing_rank"
report --json "$T/shuffled" "$T/shuffled.dg"
check "parts in another order: the report of the folder" same_as_raw "$T/raw.parts" "$T/shuffled"
"$HT" report "$T/lost.dg" >/dev/null 2>"$T/lost.err"
check "a part lost: said, with how many came" grep -q "lost.dg: digest .*: [0-9]* of its [0-9]* parts, not read" "$T/lost.err"

# What is not a digest is said so; a digest is one JSON line of its format.
check "a digest is one line" test "$(wc -l <"$T/missing_rank/all.dg")" = 1
check "a digest names its format first" \
	grep -q '^{"digest":"hangtrace-digest/5",' "$T/missing_rank/all.dg"
printf '{"digest":"hangtrace-digest/9"}\n' >"$T/other.dg"
"$HT" report "$T/other.dg" >/dev/null 2>"$T/other.err"
check "a digest of another format: exit 2" test $? = 2
check "a digest of another format: said so, with the format it names" \
	grep -q 'other.dg: not a digest of format hangtrace-digest/5 (its first line says "hangtrace-digest/9")' "$T/other.err"
# Digests through a pipe or as standard input (-): read as they come, the
# quoted lines kept; the report of the file. What is not a digest there
# is said, naming what a stream may hold.
cat "$T/missing_rank/all.dg" | "$HT" report --json - >"$T/piped.out" 2>"$T/piped.err"
check "digests through a pipe (-): the report over their file" \
	cmp -s "$T/piped.out" "$T/missing_rank/dg.json.out"
"$HT" report --json /dev/stdin <"$T/missing_rank/all.dg" >"$T/stdin.out" 2>/dev/null
check "digests as standard input redirected from their file: the report over it" \
	cmp -s "$T/stdin.out" "$T/missing_rank/dg.json.out"
cat "$T/missing_rank/all.dg" | "$HT" digest - | "$HT" report --json - >"$T/pipe2.out" 2>/dev/null
check "digests merged from a pipe into a pipe: the report over their file" \
	cmp -s "$T/pipe2.out" "$T/missing_rank/dg.json.out"
echo '{"t":"header"}' | "$HT" report - >/dev/null 2>"$T/notdg.err"
check "a stream of no digest: exit 2" test $? = 2
check "a stream of no digest: said, with what a stream may hold" \
	grep -q -- '-: read as it comes (not a file or a folder), and no digest of format hangtrace-digest/5 in it' "$T/notdg.err"
# "xat" says where the quoted lines begin, "pat" where the stacks and the
# records do: a wrong one is said, the rest read.
for m in xat pat; do
	sed "s/\"$m\":\([0-9]*\)/\"$m\":1\1/" "$T/missing_rank/all.dg" >"$T/$m.dg"
	sed -n 1p "$T/healthy/all.dg" >>"$T/$m.dg"
	"$HT" report "$T/$m.dg" >"$T/$m.out" 2>"$T/$m.err"
	check "a digest whose $m is wrong: said, with its line" \
		grep -q "$m.dg: line 1: a digest that could not be read (no members \"xat\" and \"pat\" that say where its members \"x\" and \"stacks\" are)" "$T/$m.err"
	check "a digest whose $m is wrong: the next line read" grep -q '^ranks ' "$T/$m.out"
done
# A quoted line that cannot be made (its change fits no line) is said,
# and the evidence goes without it; the verdict is the same.
# (x unpacked and packed again as doc/trace-format.md says: base-64 of a
# zlib stream)
"$PY" - "$T/missing_rank/all.dg" "$T/badline.dg" <<'PY'
import base64, json, sys, zlib
line = open(sys.argv[1]).read().rstrip("\n")
xat = json.loads(line)["xat"]
n, z = json.loads("{" + line[xat + 1:])["x"]
t = zlib.decompress(base64.b64decode(z))
assert len(t) == n
x = json.loads(t)
x[0][0] = [[9999, 1]]	# the first record's first line (rank 0's header), as no line's change
t = json.dumps(x, separators=(",", ":")).encode()
z = base64.b64encode(zlib.compress(t)).decode()
open(sys.argv[2], "w").write(line[:xat] + ',"x":' + json.dumps([len(t), z]) + "}\n")
PY
report --json "$T/badline" "$T/badline.dg"
check "a quoted line that cannot be made: said, naming the digest's line" \
	grep -q 'badline.dg: line 1: a quoted line of the digest could not be made (line 0 of record 0): the evidence goes without it' "$T/badline.err"
check "a quoted line that cannot be made: the same first verdict, without that line" "$PY" -c "
import json, sys
a = json.load(open('$T/badline.out'))['verdicts'][0]
b = json.load(open('$T/missing_rank/dg.json.out'))['verdicts'][0]
sys.exit(not (a['code'] == b['code'] == 'missing_rank' and a['ranks'] == b['ranks']
              and len(a['evidence']) == len(b['evidence']) - 1))"
# A record's member list, its file or base, or the packed stacks, damaged:
# said with the digest's line, and the rest read (the record left out:
# what is written against it cannot be read either).
last=$("$PY" - "$T/missing_rank/all.dg" "$T" <<'PY'
import json, re, sys
line = open(sys.argv[1]).read().rstrip("\n")
doc = json.loads(line)
recs = doc["procs"]
# the last record's (no record is written against it) file and base (F,
# B: each a VLQ integer), then M and its members
m = re.match(r'F([A-Za-z0-9+/]*?[A-Za-f])(B[A-Za-z0-9+/]*?[A-Za-f])?M', recs[-1])
at = line.rindex('"' + recs[-1] + '"') + 1
assert len(m.group(1)) == 1 and len(doc["files"]) < 15
def put(name, start, text):
    open(sys.argv[2] + "/" + name, "w").write(line[:at + start] + text +
                                              line[at + start + len(text):] + "\n")
put("badmembers.dg", m.end(), "zz")		# "zz" is no mask
put("badfile.dg", 1, "e")			# file 15: not one of the digest's
put("badhead.dg", 1, "~")			# no file: an F without its number
print(len(recs) - 1)
n, z = doc["stacks"]
open(sys.argv[2] + "/badstacks.dg", "w").write(line.replace(z, z[:8] + "*" + z[9:], 1) + "\n")
PY
)
# (the fixture's records: ranks 0, 1 and 3, rank 2 never started; the
# last one left out, rank 3 is missing too)
for bad in members:proc file:"file and base" head:"file and base"; do
	kind=${bad%%:*} what=${bad#*:}
	"$HT" report "$T/bad$kind.dg" >"$T/bad$kind.out" 2>"$T/bad$kind.err"
	"$HT" report --json "$T/bad$kind.dg" >"$T/bad$kind.json" 2>/dev/null
	check "a record's $kind damaged: said, with the digest's line and the record, left out" \
		grep -q "bad$kind.dg: line 1: 1 record of the digest could not be read (the first: record $last, whose $what members are damaged; a record written against a damaged one is damaged too): left out" "$T/bad$kind.err"
	check "a record's $kind damaged: the first verdict missing_rank, ranks 2-3" "$PY" -c "
import json, sys
v = json.load(open('$T/bad$kind.json'))['verdicts'][0]
sys.exit(not (v['code'] == 'missing_rank' and v['ranks'] == [2, 3]))"
done
"$HT" report "$T/badstacks.dg" >"$T/badstacks.out" 2>"$T/badstacks.err"
check "the packed stacks damaged: said, with the digest's line" \
	grep -q 'badstacks.dg: line 1: the digest.s stacks could not be read (its member "stacks" is damaged): its dumps go without their frames' "$T/badstacks.err"
check "the packed stacks damaged: the rest read, the same first verdict" \
	sh -c "v=\$(grep -m 1 -E '^ *1 ' '$T/missing_rank/dg.text.out'); [ -n \"\$v\" ] &&
	       [ \"\$(grep -m 1 -E '^ *1 ' '$T/badstacks.out')\" = \"\$v\" ]"
# The reader keeps the tables of stacks it made by their text, and takes
# one again when a digest's is the same text: a job on three hosts, whose
# first host's table is not the others' (the straggler's stack and the
# store's; the store's alone on the second and third, the same text),
# digested per host into one file, gives the report of its folder, with
# both stacks.
mkdir -p "$T/three"
for f in "$F/straggler"/n1.*.jsonl; do
	pid=${f##*/n1.}
	case $pid in 400[45]*) h=n2 ;; 400[67]*) h=n3 ;; *) h=n1 ;; esac
	sed "s/\"host\":\"n1\"/\"host\":\"$h\"/; s/\"hostname\":\"n1\"/\"hostname\":\"$h\"/" "$f" \
		>"$T/three/$h.$pid"
done
: >"$T/three.dg"
for h in n1 n2 n3; do "$HT" digest "$T/three/$h".* >>"$T/three.dg" 2>/dev/null; done
"$PY" - "$T/three.dg" >"$T/three.tabs" <<'PY'
import json, sys
print(" ".join(json.loads(l)["stacks"][1] for l in open(sys.argv[1])))
PY
report --json "$T/three/raw" "$T/three"
report --json "$T/three/dg" "$T/three.dg"
check "three hosts' digests, the first's stacks not the others': the report of their folder" \
	sh -c "set -- \$(cat '$T/three.tabs'); [ \$# = 3 ] && [ \"\$1\" != \"\$2\" ] &&
	       [ \"\$2\" = \"\$3\" ] && cmp -s '$T/three/raw.out' '$T/three/dg.out' &&
	       cmp -s '$T/three/raw.err' '$T/three/dg.err'"
check "three hosts' digests: both stacks in the report" "$PY" -c "
import json, sys
g = json.load(open('$T/three/dg.out'))['stack_groups']
fr = [' '.join(x['frames']) for x in g]
sys.exit(not (len(g) == 2 and 'load_checkpoint' in fr[0] and 'TCPClient' in fr[1]))"
# A record whose strings have UTF-8, quotes and a backslash (its command
# line, its folder) is read through jansson, not where it is: the same.
mkdir -p "$T/utf8"
cp "$F/straggler"/*.jsonl "$T/utf8/"
sed -i '1s|"cmdline":\["/usr/bin/python3","train.py"\]|"cmdline":["/usr/bin/python3","tr\\u00e9n \\"q\\" \\\\ b.py"]|; 1s|"cwd":"/work"|"cwd":"/work/d\\u00e9j\\u00e0"|' \
	"$T/utf8/n1.4003.jsonl"
"$HT" digest "$T/utf8" >"$T/utf8.dg" 2>/dev/null
report --json "$T/utf8/raw" "$T/utf8"
report --json "$T/utf8/dg" "$T/utf8.dg"
check "a record with UTF-8, quotes and a backslash: in its trace, escaped" \
	grep -qF 'tr\u00e9n \"q\" \\ b.py' "$T/utf8/n1.4003.jsonl"
check "a record with UTF-8, quotes and a backslash: in its digest, its string escaped" \
	grep -qF "trén \\\"q\\\" \\\\ b.py" "$T/utf8.dg"
check "a record with UTF-8, quotes and a backslash: the report of its folder" \
	same_as_raw "$T/utf8/raw" "$T/utf8/dg"
"$HT" digest "$T/nowhere" >/dev/null 2>&1
check "hangtrace digest of nothing: exit 2" test $? = 2
"$HT" digest -o "$T/nowhere/x.dg" "$F/healthy" 2>"$T/o.err"
check "hangtrace digest into a folder that does not exist: exit 2, said so" \
	sh -c "test $? = 2 && grep -q 'nowhere/x.dg' '$T/o.err'"
finish
