#!/usr/bin/env bats
# The README as a user follows it: its examples run as typed, in order,
# in a copy of the checkout (so `make demo` and `$PWD/build/bin` mean
# what they mean to a reader, and nothing lands in the real checkout);
# it stays a guide of at most 2,500 words; its links lead somewhere;
# its citation names the release the tools report.

load helpers

# blocks: the README's indented code blocks, each as "--- N" and its
# lines with the indent removed
blocks() {
	awk '/^    / && prev == "" { n++; print "--- " n }
	    /^    / { print substr($0, 5) } { prev = $0 }' "$TOP/README.md"
}

# block N: the lines of block N
block() {
	blocks | awk -v n="$1" '/^--- / { on = ($2 == n); next } on'
}

# checkout DIR: a copy of the checkout whose build is the real one
# (symlinked, with every source's time kept, so make builds nothing)
checkout() {
	mkdir -p "$1"
	(cd "$TOP" && cp -pR Makefile lib tools man pipelines traces "$1/")
	ln -s "$TOP/build" "$1/build"
}

@test "readme: at most 2,500 words" {
	local n

	n=$(wc -w < "$TOP/README.md")
	echo "README.md: $n words"
	[ "$n" -le 2500 ]
}

@test "readme: every relative link of the README and docs/ leads to a file" {
	local f l bad=

	for f in "$TOP"/README.md "$TOP"/docs/*.md "$TOP"/lib/README.md; do
		for l in $(grep -o '](\([^)#:]*\))' "$f" | sed 's/^](//; s/)$//'); do
			[ -e "$(dirname "$f")/$l" ] || bad="$bad ${f#"$TOP"/}:$l"
		done
	done
	[ -z "$bad" ] || { echo "broken:$bad"; false; }
}

@test "readme: CITATION.cff and the tools name the same release, under the LICENSE" {
	local rel

	rel=$(sed -n 's/^#define FLUXOCS_RELEASE[[:space:]]*"\(.*\)"/\1/p' \
	    "$TOP/lib/records/header.h")
	[ -n "$rel" ]
	grep -qx "version: \"$rel\"" "$TOP/CITATION.cff"
	grep -qx 'license: ISC' "$TOP/CITATION.cff"
	head -1 "$TOP/LICENSE" | grep -qx 'ISC License'
	grep -q 'arXiv:2609.25949' "$TOP/CITATION.cff"
}

@test "readme: the blocks the examples test skips are the ones it means to" {
	# the flow, the install and test commands themselves, and the
	# placeholder trace path: nothing else is left out below
	block 1 | grep -q '^tracegen | dagbuild | fluxsolve'
	block 2 | grep -q '^make demo '
	block 2 | grep -q '^make check '
	[ "$(blocks | grep -c 'path/to/')" -eq 1 ]
}

@test "readme: every example runs as typed, in order, from a checkout" {
	local n skip out

	[ -x "$FLUXOCS_RELBIN/tracegen" ] || skip "no release build"
	command -v gnuplot >/dev/null || skip "no gnuplot"
	checkout "$T/co"
	cd "$T/co"
	n=$(blocks | grep -c '^--- ')
	[ "$n" -ge 8 ]
	for i in $(seq 3 "$n"); do
		skip=
		block "$i" | grep -q 'path/to/' && skip=1
		[ -z "$skip" ] || continue
		block "$i" > "$T/block$i.sh"
		echo "# block $i"
		cat "$T/block$i.sh"
		bash -e "$T/block$i.sh" > "$T/out$i" 2> "$T/err$i" ||
		    { cat "$T/err$i"; false; }
	done
	# what they made: the first pipeline's table, the trace's run, the
	# report outputs and the studies asked for
	grep -q '^llama3-8b 8L tp4 dp2  2x800Gbps  flux  *10us  109.200 ms' "$T/out3"
	[ -s ops.msgpack ] && [ -s moe.msgpack ] && [ -s trace.msgpack ]
	# the tiered run: its rows are the README's table (the second
	# fenced block), and the summary names the planes
	awk '/^```$/ { c++; next } c == 3' "$TOP/README.md" |
	    sed 1d | tr -s ' ' > tiered.txt
	[ "$(wc -l < tiered.txt)" -eq 3 ]
	grep '^llama3-8b .* hgx-h100-rail ' "$T/out4" | awk '{ print $1, $2, $3, $4, $5,
	    $6, $7, $8, $9, $10, $11, $18, $19, $20 }' | tr -s ' ' |
	    diff tiered.txt -
	grep -q '^    ocs rail:8 rate=400Gbps tau=10us radix=320 (8 planes)$' "$T/out4"
	[ -s runs.csv ] && [ -s runs.json ] && [ -s timeline.svg ]
	xmllint --noout timeline.svg
	# the --own run, tabled beside the kept rows, relates to their
	# ideal run (x ideal) and their schedules (x best)
	cat "$T"/out* | grep -Eq '^llama3-8b 8L tp4 dp2 +2x800Gbps +solstice/direct +10us +[0-9.]+ ms +1\.[0-9]{2} +1\.[0-9]{2} +1\.[0-9]{2} .* solstice\.msgpack$'
	[ "$(wc -c < solstice.msgpack)" -lt 20000 ]
	ls fig-*.png
	out=results/study/table.txt
	grep -q 'llama3-8b 1L tp4 dp2  2x800Gbps  flux ' "$out"
	[ "$(grep -c '^llama3-8b' "$out")" -eq 1 ]
	"$FLUXOCS_RELBIN/report" -s results/study/l1-tau1ms-flux.msgpack |
	    grep -qx '  made by: fluxsolve -w milp -s cbc -T 10'
	"$FLUXOCS_RELBIN/report" -s results/study/l1-tau1ms.dag.msgpack |
	    grep -qx '  made by: tracegen -l 1 -t 4 -d 2'
}
