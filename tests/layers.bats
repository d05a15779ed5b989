#!/usr/bin/env bats
# The layers of lib/ (lib/README.md): a file includes headers of its
# own layer and of the layers below it only; tools never include
# another tool's files; die.h and cli.h, which exit, are for tools
# only (cli.c, which tools alone call, stands on die.c).

load helpers

# below LAYER: the layers a file of LAYER may include, its own first
below() {
	case $1 in
	records) echo records ;;
	model) echo model records ;;
	solve) echo solve model records ;;
	sim) echo sim model records ;;
	tools) echo solve sim model records ;;
	esac
}

# violations: "file: header" for each include that breaks the rule
violations() {
	local f layer allowed inc l ok

	for f in "$TOP"/lib/*/*.[ch] "$TOP"/tools/*/*.[ch]; do
		case $f in
		"$TOP"/tools/*) layer=tools ;;
		*) layer=${f#"$TOP"/lib/}; layer=${layer%%/*} ;;
		esac
		allowed=$(below "$layer")
		[ -n "$allowed" ] || { echo "${f#"$TOP"/}: unknown layer"; continue; }
		for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
			case $inc in
			*/*) l=${inc%%/*} ;;
			*)
				# a tool's own header, beside it
				[ "$layer" = tools ] && [ -f "$(dirname "$f")/$inc" ] &&
				    continue
				echo "${f#"$TOP"/}: $inc names no layer"
				continue ;;
			esac
			ok=
			for a in $allowed; do [ "$a" = "$l" ] && ok=1; done
			[ -n "$ok" ] || echo "${f#"$TOP"/}: includes $inc"
			case $inc:${f##*/} in
			records/die.h:die.c | records/die.h:cli.c | \
			    records/cli.h:cli.c | records/cli.h:version.c) ;;
			records/die.h:* | records/cli.h:*)
				[ "$layer" = tools ] ||
				    echo "${f#"$TOP"/}: includes $inc (tools only)"
			esac
		done
	done
}

@test "layers: every include of lib/ and tools/ keeps to the layers" {
	run violations
	assert_success
	assert_output ""
}

@test "layers: the check sees a file that includes a layer above its own" {
	# the rule itself, on a copy of the tree with one bad include
	cp -r "$TOP/lib" "$TOP/tools" "$T/"
	echo '#include "sim/sim.h"' >> "$T/lib/model/dag.h"
	echo '#include "records/die.h"' >> "$T/lib/solve/greedy.c"
	echo '#include "records/cli.h"' >> "$T/lib/sim/sim.c"
	echo '#include "ocssim.h"' >> "$T/tools/report/report.c"
	TOP=$T run violations
	assert_line "lib/model/dag.h: includes sim/sim.h"
	assert_line "lib/solve/greedy.c: includes records/die.h (tools only)"
	assert_line "lib/sim/sim.c: includes records/cli.h (tools only)"
	assert_line "tools/report/report.c: ocssim.h names no layer"
	[ "${#lines[@]}" -eq 4 ]
}

@test "layers: every header of lib/ opens with its module's contract" {
	local f missing=

	for f in "$TOP"/lib/*/*.h; do
		head -1 "$f" | grep -q '^/\*$' &&
		    sed -n 2p "$f" | grep -q "^ \* $(basename "$f" .h): " ||
		    missing="$missing ${f#"$TOP"/}"
	done
	[ -z "$missing" ] || { echo "no contract:$missing"; false; }
}
