#!/usr/bin/env bats
# recget (tests/helpers/recget.c), the tests' reader of results: what
# it prints is what report --dump and jq -r print, key for key, on the
# records the suites read with it, and it refuses what is not a scalar.

load helpers

# every KEY of the TYPE records in FILE whose values are scalars
scalar_keys() {
	report --dump "$1" | jq -r "select(.type == \"$2\") | to_entries[] |
	    select(.value | type != \"array\" and type != \"object\") | .key" |
	    sort -u
}

@test "recget: every scalar key of the solve, schedule, result and gpustat records, as jq -r prints it" {
	set -o pipefail
	tracegen -l 1 -t 2 -d 2 | dagbuild -r 10us | fluxsolve -m greedy | ocssim -t > r.mp
	n=0
	for t in solve schedule result gpustat taskrun net; do
		for k in $(scalar_keys r.mp $t); do
			want=$(report --dump r.mp | jq -r "select(.type == \"$t\") | .$k")
			got=$(field r.mp "$t" "$k")
			[ "$got" = "$want" ] || fail "$t.$k: recget '$got', jq '$want'"
			n=$((n + 1))
		done
	done
	[ "$n" -gt 40 ]
	# several keys at once, a line a record, a missing key as null
	run bash -c "recget gpustat gpu nope < r.mp | head -2"
	assert_output '0 null
1 null'
	# from stdin, and the same as from the file
	[ "$(field - result makespan_ps < r.mp)" = "$(field r.mp result makespan_ps)" ]
}

@test "recget: exact where jq 1.6 rounds a 64-bit integer" {
	hdr > s.json
	echo '{"type":"result","makespan_ps":18446744073709551615,"neg":-9223372036854775808,"f":0.1,"s":"a b","b":false,"z":null}' >> s.json
	pack < s.json > s.mp
	run field s.mp result makespan_ps neg f s b z
	assert_output '18446744073709551615 -9223372036854775808 0.1 a b false null'
}

@test "recget: a key that is not a scalar, bad input and no arguments are refused" {
	hdr > s.json
	echo '{"type":"result","planes":[1,2]}' >> s.json
	pack < s.json > s.mp
	run field s.mp result planes
	assert_failure 2
	assert_output --partial 'recget: byte '
	assert_output --partial ': result record: key "planes": not a scalar (use report --dump and jq)'
	head -c 70 s.mp > cut.mp
	run field cut.mp result planes
	assert_failure 1
	assert_output --partial 'recget: byte '
	run recget result
	assert_failure 2
	assert_output 'usage: recget TYPE KEY ... < stream'
}
