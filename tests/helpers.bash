# Shared prelude of the bats suites: load it with `load helpers`.
# Tools come from $FLUXOCS_BIN (the sanitizer build by default); the
# test helpers (jsonpack) from build/asan/helpers.  Each test runs in
# its own temporary directory, $T.

load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
BIN=${FLUXOCS_BIN:-$TOP/build/asan/bin}
FLUXOCS_RELBIN=${FLUXOCS_RELBIN:-$TOP/build/bin}
PATH="$BIN:$TOP/build/asan/helpers:$PATH"
DATA=$TOP/tests/data
# The shared data beside the checkout (../shared: Chakra traces), read
# from there, never copied; FLUXOCS_SHARED names it elsewhere.
SHARED=${FLUXOCS_SHARED:-$(cd "$TOP/.." && pwd)/shared}
[ -d "$SHARED/chakra" ] || SHARED=/work/shared
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:exitcode=99}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:exitcode=99}

setup() {
	T=$(mktemp -d)
	cd "$T" || return 1
}

teardown() {
	cd / && rm -rf "$T"
}

# relreport ARGS: the release build's report, for reading what a test
# made (dump, records and the suites' own readers): the sanitizer
# build's is what the report suites and every direct call test, and
# a process of it costs some ten times as much to start and end.
relreport() {
	if [ -x "$FLUXOCS_RELBIN/report" ]; then
		"$FLUXOCS_RELBIN/report" "$@"
	else
		report "$@"
	fi
}

# dump FILE: the records of a stream as JSON lines.
dump() {
	relreport --dump "$1"
}

# records FILE TYPE: the records of one type, as JSON lines.  Tools
# write a record's type first (fluxocs(5)) and report --dump keeps the
# order, so grep finds them without jq's start-up; grep's 1 (no line)
# is no error.
records() {
	relreport --dump "$1" | { grep -E "^\{\"type\":\"$2\"[,}]"; [ $? -le 1 ]; }
}

# field FILE TYPE KEY...: the values of the KEYs, scalars, of each
# record of TYPE in FILE (- for stdin), a line per record, space
# between, as jq -r would print them but exact to the last bit of a
# 64-bit integer (jq 1.6 rounds them to doubles), and with no jq start-up
# (tests/helpers/recget.c).
field() {
	local f=$1
	shift
	if [ "$f" = - ]; then
		recget "$@"
	else
		recget "$@" < "$f"
	fi
}

# seeds N: the seeds of a random test, 1 to N, or with
# FLUXOCS_SEED_SHARE=K 1 to N/K (at least 1), for a quick run by hand
# (make check runs them all).
seeds() {
	local n=$(($1 / ${FLUXOCS_SEED_SHARE:-1}))

	seq 1 $((n > 0 ? n : 1))
}

# stand_in DIR FROM TOOL: DIR holds every tool of the folder FROM as a
# link but TOOL, which is the shell script on stdin: a tool that fails,
# or does something else, where a test needs it to.
stand_in() {
	local t

	mkdir -p "$1" || return 1
	for t in chakra tracegen dagbuild fluxsolve rotorsched ocssim report; do
		[ "$t" = "$3" ] || ln -s "$2/$t" "$1/$t" || return 1
	done
	cat > "$1/$3" && chmod +x "$1/$3"
}

# header LINE...: a valid header record as a JSON line, then the rest.
hdr() {
	echo '{"type":"header","format":"fluxocs","version":1,"minor":1,"tool":"test","args":[]}'
}

# pack: JSON lines on stdin to a msgpack stream on stdout, ended with
# the end record that every stream of format 1.1 carries.
pack() {
	{ cat; echo '{"type":"end"}'; } | jsonpack
}

# mk FILE: the same, into FILE.
mk() {
	pack > "$1"
}

# xfer ID DEPS SRC DST BYTES, comp ID DEPS GPU DURATION: task records.
xfer() {
	echo "{\"type\":\"task\",\"id\":$1,\"kind\":\"transfer\",\"deps\":$2,\"src\":$3,\"dst\":$4,\"bytes\":$5}"
}

comp() {
	echo "{\"type\":\"task\",\"id\":$1,\"kind\":\"compute\",\"deps\":$2,\"gpu\":$3,\"duration_ps\":$4}"
}

# randtasks G NX NC: NX transfers of 1..200 bytes and NC compute tasks
# of 1..300 ps on G GPUs, in a random order drawn from $RANDOM, each
# task depending on each earlier one with odds 1 in 4, as JSON lines.
randtasks() {
	local G=$1 nx=$2 nc=$3 i d deps src dst

	for ((i = 0; nx + nc > 0; i++)); do
		deps=
		for ((d = 0; d < i; d++)); do
			if ((RANDOM % 4 == 0)); then
				deps=$deps${deps:+,}$d
			fi
		done
		if ((nc > 0 && RANDOM % (nx + nc) < nc)); then
			nc=$((nc - 1))
			comp $i "[$deps]" $((RANDOM % G)) $((1 + RANDOM % 300))
		else
			nx=$((nx - 1))
			src=$((RANDOM % G))
			dst=$(((src + 1 + RANDOM % (G - 1)) % G))
			xfer $i "[$deps]" $src $dst $((1 + RANDOM % 200))
		fi
	done
}
