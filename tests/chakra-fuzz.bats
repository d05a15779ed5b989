#!/usr/bin/env bats
# chakra(1): regressions of the readers found while fuzzing them
# (tests/fuzz/fuzz_chakra.c); the inputs the fuzzer found are replayed
# from tests/fuzz/crashes/chakra by tests/run.

load helpers

ETGEN=$TOP/tests/helpers/etgen.py

# gen PREFIX JSON: a trace from a spec (see tests/helpers/etgen.py).
gen() {
	printf '%s' "$1" | python3 "$ETGEN" t
}

# One rank, one all-reduce of communicator "g1".
AR='{"meta":"0.0.4","ranks":[[{"id":1,"name":"ar","type":7,"attr":{"comm_type":["int64",0],"comm_size":["int64",64],"pg_name":["string","g1"]}}]]}'

@test "chakra: regression: each group name of comm_group.json took the rest of the file in memory" {
	gen "$AR"
	# 20000 groups, 310 kB: a name each of up to the file's size was
	# 3 GB in all; the names themselves are 120 kB.
	awk 'BEGIN { printf "{"; for (i = 1; i <= 20000; i++)
	    printf "%s\"g%d\": [0]", (i > 1 ? ", " : ""), i; print "}" }' \
	    > g.json
	# Without the sanitizers, whose shadow memory needs no limit.
	run sh -c "ulimit -v 400000 && exec '$FLUXOCS_RELBIN/chakra' -g g.json t > o.mp"
	assert_success
	assert_output ''
	run records o.mp op
	assert_output --partial '"kind":"allreduce"'
	[ "$(records o.mp op | jq -c '[.kind, .group, .size]')" = '["allreduce",[0],64]' ]
}

@test "chakra: regression: a backslash before a NUL byte in comm_group.json was read as an escape" {
	gen "$AR"
	printf '{"g\\\000":[0], "g1": [0]}' > g.json
	run chakra -g g.json t
	assert_failure 1
	assert_output 'chakra: g.json: byte 4: unsupported escape in a string'
}

@test "chakra: regression: fuzz_chakra lost the scratch of each group file it refused" {
	# ck_groups_parse()'s 128 kB scratch was freed only when a group
	# file parsed; the harness, which returns from each refusal, lost
	# it every time and ran out of memory within a minute of fuzzing.
	# Mode 1 (first byte) parses a group file; this one is cut short.
	# libFuzzer checks its RSS limit once a second: without the fix,
	# 200000 runs (about 9 s) pass the limit; 40000 may end too soon.
	mkdir corpus
	printf '\001{"g":' > corpus/cut
	run "$TOP/build/fuzz/bin/fuzz_chakra" -runs=200000 -seed=1 \
	    -rss_limit_mb=300 -max_len=64 corpus
	assert_success
	assert_output --partial 'Done 200000 runs'
}
