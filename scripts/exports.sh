#!/bin/sh
# SPDX-License-Identifier: MIT
# exports.sh CC hooks.def: prints the linker version script that exports
# exactly the names listed in hooks.def (and nothing else).
set -eu
cc=$1; def=$2
names=$(printf '#define HT_HOOK(fam, ret, name, params, args) HT_NAME name\n#define HT_EXPORT_ONLY(name) HT_NAME name\n#include "%s"\n' "$def" |
	$cc -E -P -I"$(dirname "$def")" - | tr ' ' '\n' | grep -A1 '^HT_NAME$' | grep -v -e '^HT_NAME$' -e '^--$' | sort -u)
echo "{"
echo "  global:"
for n in $names; do echo "    $n;"; done
echo "  local: *;"
echo "};"
