#!/usr/bin/env bats
# dagbuild: regressions found by an adversarial test (issue 12).  Two of
# them show only in a build whose compiler evaluates call arguments left
# to right (clang): run them with FLUXOCS_BIN set to such a build too.

load helpers

# op ID RANK KIND DEPS [EXTRA]: one op record as a JSON line
op() {
	echo "{\"type\":\"op\",\"id\":$1,\"rank\":$2,\"kind\":\"$3\",\"name\":\"o$1\",\"deps\":$4${5:+,$5}}"
}

# A stream whose dependency scratch already holds 16 items when the op
# under test, with 20 or 21 inputs, makes it grow: computes 0 and 1 on
# ranks 0 and 1, a ring all-reduce of both (ops 2 and 3, tasks 2..5,
# each transfer gathering one input), computes 4..23 on ranks 2..21
# (tasks 6..25), then the lines on stdin.
scratch16() {
	{
		hdr
		op 0 0 compute '[]' '"duration_ps":5'
		op 1 1 compute '[]' '"duration_ps":5'
		op 2 0 allreduce '[0]' '"group":[0,1],"size":2,"coll":1'
		op 3 1 allreduce '[1]' '"group":[0,1],"size":2,"coll":1'
		for i in $(seq 4 23); do
			op "$i" $((i - 2)) compute '[]' '"duration_ps":5'
		done
		cat
	} | mk "$1"
}

# deps FILE ID: the dependencies of task ID, as a JSON array
deps() {
	report --dump "$1" | jq -c "select(.type == \"task\" and .id == $2) | .deps"
}

@test "dagbuild: regression: uniq reads scratch before gather reallocates it" {
	# compute: 20 inputs and the rank's previous compute, task 26
	op 24 0 compute '[4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23]' \
	    '"duration_ps":5' | scratch16 c.mp
	dagbuild < c.mp > c.dag
	run deps c.dag 26
	assert_output '[0,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25]'
	# send and receive: 10 inputs each, one transfer, task 26
	{ op 24 0 send '[4,5,6,7,8,9,10,11,12,13]' '"peer":1,"size":8'
	  op 25 1 recv '[14,15,16,17,18,19,20,21,22,23]' '"peer":0,"size":8'; } |
	    scratch16 p.mp
	dagbuild < p.mp > p.dag
	run deps p.dag 26
	assert_output '[6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25]'
	# a group of one: no task, its 20 inputs pass to the compute after it
	{ op 24 0 allreduce '[4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23]' \
	    '"group":[0],"size":8,"coll":2'
	  op 25 0 compute '[24]' '"duration_ps":5'; } | scratch16 g.mp
	dagbuild < g.mp > g.dag
	run deps g.dag 26
	assert_output '[0,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25]'
}

@test "dagbuild: regression: NULL + 0 on the empty deps arrays when no op has a dependency" {
	{ hdr; op 0 0 compute '[]' '"duration_ps":5'; } | mk one.mp
	dagbuild < one.mp > one.dag
	run bash -c "report --dump one.dag | jq -c 'select(.type == \"task\")'"
	assert_output '{"type":"task","id":0,"kind":"compute","deps":[],"gpu":0,"duration_ps":5,"step":0,"op":0,"name":"o0"}'
	{ hdr; op 0 1 compute '[]' '"duration_ps":5'
	  op 1 0 send '[]' '"peer":1,"size":8'
	  op 2 1 recv '[]' '"peer":0,"size":8'; } | mk p2p.mp
	dagbuild < p2p.mp > p2p.dag
	run bash -c "report --dump p2p.dag | jq -c 'select(.type == \"task\") | [.id, .kind, .deps]' | tr '\n' ' '"
	assert_output '[0,"compute",[]] [1,"transfer",[]] '
}

@test "dagbuild: regression: a task with more deps than a reader accepts is refused, not written" {
	# an all-to-all of 1025 ranks is 1025 * 1024 transfers, each rank's
	# op done by its 1024 receives; a send waiting for all 1025 ops
	# would be a task with 1049600 deps, over the readers' 1048576
	g=$(seq -s, 0 1024)
	{ hdr
	  for i in $(seq 0 1024); do
		op "$i" "$i" alltoall '[]' "\"group\":[$g],\"size\":1025,\"coll\":1"
	  done
	  op 2000 0 send "[$g]" '"peer":1,"size":8'
	  op 2001 1 recv '[]' '"peer":0,"size":8'; } | mk a2a.mp
	run bash -c 'dagbuild < a2a.mp > a2a.dag'
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 2835382: op 2000 (o2000): its task would have 1049600 deps, over the limit of 1048576 items a reader accepts'
}

@test "dagbuild: regression: a name over 159 bytes was cut silently" {
	set -o pipefail
	long=$(printf 'n%.0s' $(seq 300))
	{ hdr; echo "{\"type\":\"op\",\"id\":0,\"rank\":0,\"kind\":\"compute\",\"name\":\"$long\",\"deps\":[],\"duration_ps\":5}"; } | mk in.mp
	dagbuild < in.mp > out.mp
	run bash -c "report --dump out.mp | jq -r 'select(.type == \"task\") | .name | length'"
	assert_output 300
	# past 4096 bytes a name is refused, whole, with its length
	huge=$(printf 'n%.0s' $(seq 4097))
	{ hdr; echo "{\"type\":\"op\",\"id\":0,\"rank\":0,\"kind\":\"compute\",\"name\":\"$huge\",\"deps\":[],\"duration_ps\":5}"; } | mk big.mp
	run dagbuild < big.mp
	assert_failure 1
	assert_output --regexp '^dagbuild: stdin: byte [0-9]+: op record: key "name": 4097 bytes, over the 4096 a name may have$'
}

@test "dagbuild: regression: a reconfiguration or latency of 2^64-1 ps was taken, and overflowed downstream" {
	op 0 0 compute '[]' '"duration_ps":5' | { hdr; cat; } | mk in.mp
	for o in r L; do
		run dagbuild -$o 18446744073709551615ps < in.mp
		assert_failure 2
		assert_line --index 0 "dagbuild: -$o 18446744073709551615ps: over the 4611686018427387904 ps (2^62) a delay may last"
		dagbuild -$o 4611686018427387904ps < in.mp > out.mp
	done
}
