#!/usr/bin/env bats
# What the tools say to a new user (issue 34, "the first hour"): the
# messages that refuse a unit, and time limits in seconds that take a
# unit too.

load helpers

# body FILE: the records of a stream as JSON lines, without the args of
# its headers (where two runs of the same thing differ).
body() {
	report --dump "$1" |
	    jq -c 'if .type == "header" then del(.args) else . end'
}

# limit FILE: the time limit of its solve record.
limit() {
	report --dump "$1" | jq -c 'select(.type == "solve") | .time_limit'
}

# refused TOOL ARGS...: run it on an empty stream, which must exit 2
# with its message, then its usage.
refused() {
	run "$@" < /dev/null
	assert_failure 2
	assert_line --index 1 --partial "usage: $1"
}

@test "units: regression: a unit error listed no unit that works (issue 34)" {
	refused dagbuild -r 10usec
	assert_line --index 0 'dagbuild: -r 10usec: unknown unit "usec" (a time takes ps, ns, us, ms or s, as in 10us)'
	refused dagbuild -r "10 us"
	assert_line --index 0 'dagbuild: -r 10 us: unknown unit " us" (a time takes ps, ns, us, ms or s, as in 10us)'
	refused dagbuild -r 10
	assert_line --index 0 'dagbuild: -r 10: missing unit (a time takes ps, ns, us, ms or s, as in 10us)'
	refused dagbuild -b 800G
	assert_line --index 0 'dagbuild: -b 800G: unknown unit "G" (a rate takes bps, Kbps, Mbps, Gbps or Tbps, as in 800Gbps)'
	refused dagbuild -b 800gbps
	assert_line --index 0 'dagbuild: -b 800gbps: unknown unit "gbps" (a rate takes bps, Kbps, Mbps, Gbps or Tbps, as in 800Gbps)'
	refused dagbuild --bandwidth=800
	assert_line --index 0 'dagbuild: -b 800: missing unit (a rate takes bps, Kbps, Mbps, Gbps or Tbps, as in 800Gbps)'
	refused ocssim -p 4kb
	assert_line --index 0 'ocssim: -p 4kb: unknown unit "kb" (a size takes B, KB, kB, MB, GB, TB, KiB, MiB, GiB or TiB, or none for bytes, as in 64MiB)'
	refused ocssim -O 1 -S x
	assert_line --index 0 'ocssim: -O 1: missing unit (a time takes ps, ns, us, ms or s, as in 10us)'
	refused rotorsched -c 1MB/s -f vlb
	assert_line --index 0 'rotorsched: -c 1MB/s: unknown unit "MB/s" (a size takes B, KB, kB, MB, GB, TB, KiB, MiB, GiB or TiB, or none for bytes, as in 64MiB)'
	refused rotorsched -s 1usec
	assert_line --index 0 'rotorsched: -s 1usec: unknown unit "usec" (a time takes ps, ns, us, ms or s, as in 10us)'
	refused report -g -w 0:10usec
	assert_line --index 0 'report: -w 0:10usec: unknown unit "usec" (a time takes ps, ns, us, ms or s, as in 10us)'
	# strict as ever: the lower-case unit is refused, the exact one taken
	dagbuild -b 800Gbps -r 10us < "$DATA/tracegen-l1-t2-d2.msgpack" > /dev/null
}

@test "units: a time limit's refusal says it takes seconds or a time" {
	local t why="(a duration takes ps, ns, us, ms or s, or none for seconds, as in 500ms or 10)"

	for t in fluxsolve rotorsched ocssim; do
		refused "$t" -T 10sec
		assert_line --index 0 "$t: -T 10sec: unknown unit \"sec\" $why"
		refused "$t" -T 0s
		assert_line --index 0 "$t: -T 0s: not a positive number of seconds $why"
		refused "$t" --time-limit=soon
		assert_line --index 0 "$t: -T soon: not a positive number of seconds $why"
	done
	refused ocssim -B 1min -O 0
	assert_line --index 0 "ocssim: -B 1min: unknown unit \"min\" $why"
}

@test "-T: regression: -T 10s was refused where -r 10 needs a unit (issue 34)" {
	local s

	cp "$DATA/dagbuild-l1-t2-d2.msgpack" dag.mp
	# fluxsolve keeps its limit in the solve record: the same seconds
	for s in 10:10s 2.5:2.5s 0.5:500ms 0.000001:1us; do
		fluxsolve -m greedy -T "${s%%:*}" < dag.mp > a.mp
		fluxsolve -m greedy --time-limit="${s#*:}" < dag.mp > b.mp
		run limit b.mp
		[ "$output" = "$(limit a.mp)" ] || fail "-T ${s#*:}: $output"
		[ "${s%%:*}" = 0.000001 ] || assert_output "${s%%:*}"
		diff <(body a.mp | grep -v '"type":"solve"') \
		    <(body b.mp | grep -v '"type":"solve"')
	done
	# rotorsched: a limit the search does not reach changes nothing,
	# and a limit of 1 ns, in either form, cuts it before the first
	rotorsched -p best -T 600 < dag.mp > a.mp
	rotorsched -p best -T 600s < dag.mp > b.mp
	diff <(body a.mp) <(body b.mp)
	for s in 0.000000001 1ns; do
		run bash -c "rotorsched -v -p best -T $s < dag.mp > /dev/null"
		assert_success
		assert_line --regexp '^rotorsched: placement search: 0 of [0-9]+ placements .*, cut by the time limit, in [0-9.]+ s$'
	done
	# ocssim: the same run, and the same limit reached
	ocssim -f ideal -T 10 < dag.mp > a.mp
	ocssim -f ideal -T 10s < dag.mp > b.mp
	diff <(body a.mp) <(body b.mp)
	{
		hdr
		echo '{"type":"net","gpus":4,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":1000}'
		xfer 0 '[]' 0 1 10000000
	} | mk long.mp
	rotorsched -s 10ns < long.mp > rot.mp
	for s in 0.000000001 1ns; do
		run ocssim -E -T "$s" < rot.mp
		assert_failure 1
		assert_output 'ocssim: time limit of 1e-09 s reached at 109221000 ps with 0 of 1 tasks done'
	done
}

@test "-B: ocssim's budget takes a time too, with the same effect" {
	local net='{"type":"net","gpus":3,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":1000000}'

	chain() {
		hdr; echo "$net"
		comp 0 '[]' 0 1000000
		xfer 1 '[0]' 0 1 "$1"
		comp 2 '[1]' 1 1000000
		xfer 3 '[2]' 1 2 "$2"
	}
	chain 1000000 1000000 | pack | fluxsolve -m greedy > plan.mp
	chain 2000000 2000000 | mk real.mp
	ocssim -t -S plan.mp -O 0 -B 0.5 < real.mp > a.mp
	ocssim -t -S plan.mp -O 0 -B 500ms < real.mp > b.mp
	diff <(body a.mp) <(body b.mp)
}

TOOLS="tracegen dagbuild fluxsolve rotorsched ocssim report chakra"

# man_opts TOOL: the options its manual page lists, -x and --name, one
# a line, sorted.
man_opts() {
	grep '^\.It Fl' "$TOP/man/man1/$1.1" |
	    grep -o 'Fl \\\?-\?[A-Za-z][-a-z]*' |
	    sed 's/^Fl \\\?-\([a-z]\)/--\1/; s/^Fl \([A-Za-z]\)$/-\1/' |
	    sort -u
}

# help_opts TOOL: the options its --help lists, likewise.
help_opts() {
	"$1" --help | grep '^  -\|^      --' |
	    grep -o '^ *-[A-Za-z]\|--[a-z][-a-z]*' | tr -d ' ' | sort -u
}

@test "--help: regression: no tool answered --help or -h (issue 34)" {
	local t

	for t in $TOOLS; do
		run "$t" --help
		assert_success
		assert_line --index 0 --regexp "^usage: $t "
		assert_line "  -h, --help              this help"
		assert_line "See $t(1), or in the source tree: man man/man1/$t.1"
		# the same from -h, and nothing on standard error
		[ "$(bash -c "$t -h 2>&1")" = "$output" ]
		# every line of it fits a terminal
		run bash -c "$t -h | awk 'length > 79'"
		assert_output ''
		# the usage printed on a usage error is the help's first lines
		run "$t" --no-such-option
		assert_failure 2
		"$t" -h | grep -qF -- "${lines[1]}"
	done
}

@test "--help: one line an option, the options of the manual page" {
	local t m h

	for t in $TOOLS; do
		m=$(man_opts "$t")
		h=$(help_opts "$t")
		[ -n "$m" ] && [ "$(echo "$m" | wc -l)" -ge 3 ]
		[ "$m" = "$h" ] || fail "$t: man and --help differ: $(diff <(echo "$m") <(echo "$h"))"
	done
	# each long option of the tool's getopt table is in the help
	run help_opts ocssim
	assert_line --time-limit
	assert_line -T
	assert_line --version
}

@test "--version: the tool, the release and the commit the build came from" {
	local t want=unknown

	if git -C "$TOP" rev-parse --git-dir > /dev/null 2>&1; then
		want=$(git -C "$TOP" describe --always --dirty --abbrev=12)
	fi
	for t in $TOOLS; do
		run "$t" --version
		assert_success
		assert_output "$t (fluxocs) 0.1 commit $want"
	done
	# the release is the streams' release, the commit in no stream
	tracegen -l 1 -t 2 -d 2 | dagbuild > dag.mp
	report --dump dag.mp | jq -r 'select(.type == "header") | .release' |
	    sort -u > rel
	[ "$(cat rel)" = 0.1 ]
	if [ "$want" != unknown ]; then
		! grep -q "${want%-dirty}" dag.mp
	fi
}

@test "--help, --version: a full disk is an error, exit 1" {
	local t

	for t in $TOOLS; do
		run bash -c "$t --help > /dev/full"
		assert_failure 1
		assert_output "$t: standard output: No space left on device"
		run bash -c "$t --version > /dev/full"
		assert_failure 1
		assert_output "$t: standard output: No space left on device"
	done
}
