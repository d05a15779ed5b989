#!/usr/bin/env bats
# dagbuild: all-to-alls with unequal per-pair sizes ("sizes", as MoE
# dispatch and combine make them) as transfers.  The lists and makespans
# below were worked by hand; see dagbuild(1) and fluxocs(5).

load helpers

# op ID RANK KIND DEPS [EXTRA]: one op record as a JSON line
op() {
	echo "{\"type\":\"op\",\"id\":$1,\"rank\":$2,\"kind\":\"$3\",\"name\":\"o$1\",\"deps\":$4${5:+,$5}}"
}

# a2av SIZES...: on each of 4 ranks a compute of 1000 ps (ops 0..3),
# an all-to-all over the group 0 1 2 3 (ops 4..7) whose rank r sends
# the r-th argument, a JSON array, as its sizes (its size their sum),
# then a compute (ops 8..11).  Tasks 0..3 are the first computes; the
# transfers follow from task 4.
a2av() {
	local r=0 s
	{
		hdr
		for r in 0 1 2 3; do op $r $r compute '[]' '"duration_ps":1000'; done
		r=0
		for s in "$@"; do
			op $((4 + r)) $r alltoall "[$r]" "\"group\":[0,1,2,3],\"size\":$(echo "$s" | jq add),\"coll\":7,\"sizes\":$s"
			r=$((r + 1))
		done
		for r in 0 1 2 3; do op $((8 + r)) $r compute "[$((4 + r))]" '"duration_ps":1000'; done
	}
}

# tasklist FILE: every task as "id src>dst bytes deps name" or
# "id cGPU deps", one a line.
tasklist() {
	report --dump "$1" | jq -r 'select(.type == "task") | if .kind == "transfer" then "\(.id) \(.src)>\(.dst) \(.bytes) \(.deps|tostring) \(.name)" else "\(.id) c\(.gpu) \(.deps|tostring)" end'
}

makespan() {
	report --dump "$1" | jq 'select(.type == "result") | .makespan_ps'
}

@test "dagbuild: a 4-rank alltoallv sends each nonzero pair its bytes, no zero-byte transfer" {
	# row r: what rank r sends to 0 1 2 3; r's own entry stays local.
	# Rank 2 sends nothing; rank 3 receives nothing, so its sends are
	# what its next compute waits for, as a broadcast root's
	a2av '[9,5,0,0]' '[7,0,3,0]' '[0,0,4,0]' '[1,0,2,0]' | mk ops.mp
	dagbuild < ops.mp > dag.mp
	run tasklist dag.mp
	assert_output "0 c0 []
1 c1 []
2 c2 []
3 c3 []
4 0>1 5 [0] o4[0]
5 1>0 7 [1] o5[0]
6 1>2 3 [1] o5[0]
7 3>0 1 [3] o7[0]
8 3>2 2 [3] o7[0]
9 c0 [0,5,7]
10 c1 [1,4]
11 c2 [2,6,8]
12 c3 [3,7,8]"
}

@test "dagbuild: an alltoallv is direct whatever the algorithm" {
	a2av '[9,5,0,0]' '[7,0,3,0]' '[0,0,4,0]' '[1,0,2,0]' | mk ops.mp
	dagbuild < ops.mp > dag.mp
	tasklist dag.mp > ring.txt
	for a in hd direct; do
		dagbuild -a $a < ops.mp > dag.mp
		tasklist dag.mp > $a.txt
		cmp ring.txt $a.txt
	done
	# hd needs a power of two for the other kinds, not here
	{
		hdr
		for r in 0 1 2; do op $r $r alltoall '[]' '"group":[0,1,2],"size":6,"coll":1,"sizes":[2,2,2]'; done
	} | mk three.mp
	dagbuild -a hd < three.mp > dag.mp
	run tasklist dag.mp
	assert_output "0 0>1 2 [] o0[0]
1 0>2 2 [] o0[0]
2 1>0 2 [] o1[0]
3 1>2 2 [] o1[0]
4 2>0 2 [] o2[0]
5 2>1 2 [] o2[0]"
}

@test "dagbuild: an alltoallv of size/n everywhere is byte for byte the plain all-to-all" {
	a2av '[3,3,3,3]' '[3,3,3,3]' '[3,3,3,3]' '[3,3,3,3]' | mk v.mp
	a2av '[3,3,3,3]' '[3,3,3,3]' '[3,3,3,3]' '[3,3,3,3]' | sed 's/,"sizes":\[[0-9,]*\]//' | mk plain.mp
	run bash -c "report -d plain.mp | grep -c sizes"
	assert_output 0
	for a in ring hd direct; do
		dagbuild -a $a < v.mp > v.dag
		dagbuild -a $a < plain.mp > plain.dag
		cmp v.dag plain.dag
	done
	tasklist v.dag > v.txt
	run grep -c '>.* 3 ' v.txt
	assert_output 12
}

@test "dagbuild: a rank of an alltoallv that neither sends nor receives passes on its inputs" {
	# rank 3 moves nothing; its send after the all-to-all must still
	# wait for its compute before it (task 3), with no transfer between
	{
		hdr
		for r in 0 1 2 3; do op $r $r compute '[]' '"duration_ps":1000'; done
		op 4 0 alltoall '[0]' '"group":[0,1,2,3],"size":5,"coll":2,"sizes":[0,5,0,0]'
		op 5 1 alltoall '[1]' '"group":[0,1,2,3],"size":6,"coll":2,"sizes":[6,0,0,0]'
		op 6 2 alltoall '[2]' '"group":[0,1,2,3],"size":0,"coll":2,"sizes":[0,0,0,0]'
		op 7 3 alltoall '[3]' '"group":[0,1,2,3],"size":8,"coll":2,"sizes":[0,0,0,8]'
		op 8 3 send '[7]' '"peer":0,"size":1'
		op 9 0 recv '[]' '"peer":3,"size":1'
		op 10 2 send '[6]' '"peer":1,"size":1'
		op 11 1 recv '[]' '"peer":2,"size":1'
	} | mk ops.mp
	dagbuild < ops.mp > dag.mp
	run tasklist dag.mp
	assert_output "0 c0 []
1 c1 []
2 c2 []
3 c3 []
4 0>1 5 [0] o4[0]
5 1>0 6 [1] o5[0]
6 3>0 1 [3] o8
7 2>1 1 [2] o10"
}

@test "dagbuild: an alltoallv of zero bytes everywhere makes no transfer" {
	a2av '[0,0,0,0]' '[0,0,0,0]' '[0,0,0,0]' '[0,0,0,0]' | mk ops.mp
	dagbuild < ops.mp > dag.mp
	run tasklist dag.mp
	assert_output "0 c0 []
1 c1 []
2 c2 []
3 c3 []
4 c0 [0]
5 c1 [1]
6 c2 [2]
7 c3 [3]"
}

@test "dagbuild: an alltoallv's makespan on the ideal fabric is its busiest port's bytes" {
	# 0>1 4000, 0>2 2000, 1>0 2000; rank 2 keeps its 500, rank 3 its
	# 7.  -s 1 -b 8Gbps: 1 byte/ns a GPU.  Max-min: 1>0 alone on 1's
	# out and 0's in, 1 byte/ns, done at 2 us; 0>1 and 0>2 share 0's
	# out at 1/2 each: 0>2 ends at 4 us, 0>1 has 2000 left and ends
	# alone at 6 us = 6000 bytes through 0's port.  Plus a compute of
	# 1 ns before and after: 6002000 ps.  -s 2: 2 bytes/ns, 3 us.
	a2av '[0,4000,2000,0]' '[2000,0,0,0]' '[0,0,500,0]' '[0,0,0,7]' | mk ops.mp
	dagbuild -s 1 -b 8Gbps < ops.mp > dag.mp
	run tasklist dag.mp
	assert_output "0 c0 []
1 c1 []
2 c2 []
3 c3 []
4 0>1 4000 [0] o4[0]
5 0>2 2000 [0] o4[0]
6 1>0 2000 [1] o5[0]
7 c0 [0,6]
8 c1 [1,4]
9 c2 [2,5]
10 c3 [3]"
	ocssim -f ideal < dag.mp > sim.mp
	run makespan sim.mp
	assert_output 6002000
	dagbuild -s 2 -b 8Gbps < ops.mp | ocssim -f ideal > sim.mp
	run makespan sim.mp
	assert_output 3002000
}

@test "dagbuild: the ranks of an alltoallv may differ in size; of a plain one they may not" {
	a2av '[9,5,0,0]' '[7,0,3,0]' '[0,0,4,0]' '[1,0,2,0]' | mk ops.mp
	run dagbuild < ops.mp
	assert_success
	a2av '[9,5,0,0]' '[7,0,3,0]' '[0,0,4,0]' '[1,0,2,0]' | sed 's/,"sizes":\[[0-9,]*\]//' | mk plain.mp
	run dagbuild < plain.mp
	assert_failure 1
	assert_output --regexp '^dagbuild: stdin: byte [0-9]+: op [0-9]+ \(o[0-9]+\): collective ops disagree on kind, size or group$'
}

@test "dagbuild: alltoallv sizes of the wrong length exit 1 and name the offset" {
	{ hdr; op 0 0 alltoall '[]' '"group":[0,1],"size":3,"coll":1,"sizes":[1,1,1]'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "sizes": 3 entries for a group of 2'
	{ hdr; op 0 0 alltoall '[]' '"group":[0,1],"size":0,"coll":1,"sizes":[]'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "sizes": 0 entries for a group of 2'
}

@test "dagbuild: alltoallv sizes that do not sum to the size exit 1 and name the offset" {
	{ hdr; op 0 0 alltoall '[]' '"group":[0,1],"size":10,"coll":1,"sizes":[4,5]'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "sizes": the entries sum to 9, not the size 10'
}

@test "dagbuild: alltoallv sizes whose sum overflows 64 bits exit 1" {
	{ hdr; op 0 0 alltoall '[]' '"group":[0,1],"size":0,"coll":1,"sizes":[18446744073709551615,1]'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "sizes": the entries sum past 2^64-1 bytes'
	# the largest sum is taken
	{
		hdr
		op 0 0 alltoall '[]' '"group":[0,1],"size":18446744073709551615,"coll":1,"sizes":[18446744073709551614,1]'
		op 1 1 alltoall '[]' '"group":[0,1],"size":18446744073709551615,"coll":1,"sizes":[18446744073709551615,0]'
	} | mk s.mp
	dagbuild < s.mp > dag.mp
	# jq would round the bytes to a double: read report's own text
	run bash -c "report -d dag.mp | grep -o '\"src\":[01],\"dst\":[01],\"bytes\":[0-9]*'"
	assert_output '"src":0,"dst":1,"bytes":1
"src":1,"dst":0,"bytes":18446744073709551615'
}

@test "dagbuild: a collective mixing ops with and without sizes exits 1" {
	{
		hdr
		op 0 0 alltoall '[]' '"group":[0,1],"size":4,"coll":1,"sizes":[2,2]'
		op 1 1 alltoall '[]' '"group":[0,1],"size":4,"coll":1'
	} | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output --regexp '^dagbuild: stdin: byte [0-9]+: op 1 \(o1\): all-to-all ops disagree: some have sizes, some not$'
	{
		hdr
		op 0 0 alltoall '[]' '"group":[0,1],"size":4,"coll":1'
		op 1 1 alltoall '[]' '"group":[0,1],"size":5,"coll":1,"sizes":[2,3]'
	} | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output --regexp '^dagbuild: stdin: byte [0-9]+: op 1 \(o1\): all-to-all ops disagree: some have sizes, some not$'
}

@test "dagbuild: sizes on an op other than an all-to-all exit 1 and name the offset" {
	{ hdr; op 0 0 allreduce '[]' '"group":[0,1],"size":4,"coll":1,"sizes":[2,2]'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "sizes": only an all-to-all has sizes'
	{ hdr; op 0 0 broadcast '[]' '"group":[0,1],"size":4,"coll":1,"root":0,"sizes":[2,2]'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "sizes": only an all-to-all has sizes'
	{ hdr; op 0 0 compute '[]' '"duration_ps":5,"sizes":[]'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "sizes": only an all-to-all has sizes'
	{ hdr; op 0 0 send '[]' '"peer":1,"size":5,"sizes":[5]'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "sizes": only an all-to-all has sizes'
}

@test "dagbuild: alltoallv sizes of the wrong type exit 1 and name the offset" {
	{ hdr; op 0 0 alltoall '[]' '"group":[0,1],"size":4,"coll":1,"sizes":4'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "sizes": expected array, got integer'
	{ hdr; op 0 0 alltoall '[]' '"group":[0,1],"size":4,"coll":1,"sizes":[2,"2"]'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "sizes": item 1: expected unsigned integer, got string'
}

@test "chakra -x: an all-to-all with unequal sizes is refused, with the plain shares it exports" {
	a2av '[9,5,0,0]' '[7,0,3,0]' '[0,0,4,0]' '[1,0,2,0]' | mk ops.mp
	run chakra -x p < ops.mp
	assert_failure 1
	assert_output "chakra: stdin: op 4: an all-to-all with unequal sizes: Chakra's ALL_TO_ALL has one comm_size"
	# 10 over 4 is 3 3 2 2 (lib/model/coll.h): 3 3 3 1 is refused, at rank 0
	# too, though its own entry stays local
	a2av '[3,3,3,1]' '[3,3,2,2]' '[3,3,2,2]' '[3,3,2,2]' | mk ops.mp
	run chakra -x p < ops.mp
	assert_failure 1
	assert_output "chakra: stdin: op 4: an all-to-all with unequal sizes: Chakra's ALL_TO_ALL has one comm_size"
	set -o pipefail
	a2av '[3,3,2,2]' '[3,3,2,2]' '[3,3,2,2]' '[3,3,2,2]' | mk ops.mp
	chakra -x p < ops.mp
	chakra -g p.json p | dagbuild > back.dag
	dagbuild < ops.mp > want.dag
	tasklist want.dag > want.txt
	tasklist back.dag > got.txt
	run grep -c '>' want.txt
	assert_output 12
	cmp want.txt got.txt
}
