#!/usr/bin/env bats
# dagbuild: the broadcast collective as transfers, under each algorithm.
# The lists and makespans below were worked by hand; see dagbuild(1).

load helpers

# op ID RANK KIND DEPS [EXTRA]: one op record as a JSON line
op() {
	echo "{\"type\":\"op\",\"id\":$1,\"rank\":$2,\"kind\":\"$3\",\"name\":\"o$1\",\"deps\":$4${5:+,$5}}"
}

# bc4 SIZE ROOT: a compute of 1000 ps on each of 4 ranks, a broadcast
# from ROOT over the group 0 1 2 3, then a compute on each rank.  Tasks
# 0..3 are the first computes; the transfers follow from task 4.
bc4() {
	{
		hdr
		for r in 0 1 2 3; do op $r $r compute '[]' '"duration_ps":1000'; done
		for r in 0 1 2 3; do
			op $((4 + r)) $r broadcast "[$r]" "\"group\":[0,1,2,3],\"size\":$1,\"coll\":7,\"root\":$2"
		done
		for r in 0 1 2 3; do op $((8 + r)) $r compute "[$((4 + r))]" '"duration_ps":1000'; done
	} | mk ops.mp
}

# tasklist FILE: every task as "id src>dst bytes deps name" or
# "id cGPU deps", one a line.
tasklist() {
	report --dump "$1" | jq -r 'select(.type == "task") | if .kind == "transfer" then "\(.id) \(.src)>\(.dst) \(.bytes) \(.deps|tostring) \(.name)" else "\(.id) c\(.gpu) \(.deps|tostring)" end'
}

makespan() {
	report --dump "$1" | jq 'select(.type == "result") | .makespan_ps'
}

@test "dagbuild: ring broadcast from rank 1 of 4 is a pipeline of 4 chunks in 6 steps" {
	bc4 4000 1
	dagbuild < ops.mp > dag.mp
	# chunk c, hop d (from 1+d to 2+d mod 4) at step c+d, after its
	# receive (c, d-1) and the sender's send (c-1, d); the last chunk's
	# receives and the root's last send are what the computes wait for
	run tasklist dag.mp
	assert_output "0 c0 []
1 c1 []
2 c2 []
3 c3 []
4 1>2 1000 [1] o5[0]
5 1>2 1000 [1,4] o5[1]
6 2>3 1000 [2,4] o6[1]
7 1>2 1000 [1,5] o5[2]
8 2>3 1000 [2,5,6] o6[2]
9 3>0 1000 [3,6] o7[2]
10 1>2 1000 [1,7] o5[3]
11 2>3 1000 [2,7,8] o6[3]
12 3>0 1000 [3,8,9] o7[3]
13 2>3 1000 [2,10,11] o6[4]
14 3>0 1000 [3,11,12] o7[4]
15 3>0 1000 [3,13,14] o7[5]
16 c0 [0,15]
17 c1 [1,10]
18 c2 [2,10]
19 c3 [3,13]"
}

@test "dagbuild: halving-doubling broadcast from rank 1 of 4 is a binomial tree of 2 steps" {
	bc4 4000 1
	dagbuild -a hd < ops.mp > dag.mp
	# relative position v = p XOR 1: step 0 v0>v1 (1>0); step 1
	# v0>v2 (1>3) after its send, v1>v3 (0>2) after its receive
	run tasklist dag.mp
	assert_output "0 c0 []
1 c1 []
2 c2 []
3 c3 []
4 1>0 4000 [1] o5[0]
5 1>3 4000 [1,4] o5[1]
6 0>2 4000 [0,4] o4[1]
7 c0 [0,4]
8 c1 [1,5]
9 c2 [2,6]
10 c3 [3,5]"
}

@test "dagbuild: direct broadcast from rank 1 of 4 sends all of it to each other rank" {
	bc4 4000 1
	dagbuild -a direct < ops.mp > dag.mp
	run tasklist dag.mp
	assert_output "0 c0 []
1 c1 []
2 c2 []
3 c3 []
4 1>0 4000 [1] o5[0]
5 1>2 4000 [1] o5[0]
6 1>3 4000 [1] o5[0]
7 c0 [0,4]
8 c1 [1,4,5,6]
9 c2 [2,5]
10 c3 [3,6]"
}

@test "dagbuild: an 8-rank binomial tree from rank 5 reaches every rank once, in 3 steps" {
	{
		hdr
		for r in 0 1 2 3 4 5 6 7; do
			op $r $r broadcast '[]' '"group":[0,1,2,3,4,5,6,7],"size":80,"coll":1,"root":5'
		done
	} | mk ops.mp
	dagbuild -a hd < ops.mp > dag.mp
	# v = p XOR 5; block k starts at 2^k - 1, senders by v; v's step-k
	# send waits for plan transfer 2^(k-1) - 1 + v mod 2^(k-1)
	run tasklist dag.mp
	assert_output "0 5>4 80 [] o5[0]
1 5>7 80 [0] o5[1]
2 4>6 80 [0] o4[1]
3 5>1 80 [1] o5[2]
4 4>0 80 [2] o4[2]
5 7>3 80 [1] o7[2]
6 6>2 80 [2] o6[2]"
}

@test "dagbuild: ring broadcast on 2 ranks sends 2 chunks, the second after the first" {
	{
		hdr
		for r in 0 1; do op $r $r broadcast '[]' '"group":[1,0],"size":5,"coll":1,"root":0'; done
	} | mk ops.mp
	dagbuild < ops.mp > dag.mp
	run tasklist dag.mp
	assert_output "0 0>1 3 [] o0[0]
1 0>1 2 [0] o0[1]"
}

@test "dagbuild: a broadcast over a group of one moves nothing" {
	{
		hdr
		op 0 3 compute '[]' '"duration_ps":7'
		op 1 3 broadcast '[0]' '"group":[3],"size":100,"coll":1,"root":3'
		op 2 3 compute '[1]' '"duration_ps":7'
	} | mk ops.mp
	dagbuild < ops.mp > dag.mp
	run tasklist dag.mp
	assert_output "0 c3 []
1 c3 [0]"
}

@test "dagbuild: direct broadcast of S on N ranks takes (N-1)S/(switches B) on the ideal fabric" {
	bc4 4000 1
	# 3 x 4000 bytes from the root at 24 Gbit/s in all: 4 us, plus the
	# two computes of 1 ns; 3 equal shares of 8 Gbit/s, none rounded
	dagbuild -a direct -s 1 -b 24Gbps < ops.mp | ocssim -f ideal > sim.mp
	run makespan sim.mp
	assert_output 4002000
	dagbuild -a direct -s 2 -b 12Gbps < ops.mp | ocssim -f ideal > sim.mp
	run makespan sim.mp
	assert_output 4002000
	dagbuild -a direct -s 2 -b 24Gbps < ops.mp | ocssim -f ideal > sim.mp
	run makespan sim.mp
	assert_output 2002000
}

@test "dagbuild: binomial broadcast takes log2 N times S/B on the ideal fabric" {
	bc4 4000 1
	# 2 steps of 4000 bytes at 1 byte/ns; the root's second send waits
	# for its first, so the two do not share its port
	dagbuild -a hd -s 1 -b 8Gbps < ops.mp | ocssim -f ideal > sim.mp
	run makespan sim.mp
	assert_output 8002000
}

@test "dagbuild: ring broadcast pipelines 2N-2 chunks of S/N on the ideal fabric and a static ring" {
	bc4 4000 1
	# 6 steps of 1000 bytes at 1 byte/ns, one chunk per rank a step
	dagbuild -s 1 -b 8Gbps < ops.mp | ocssim -f ideal > sim.mp
	run makespan sim.mp
	assert_output 6002000
	# circuits i - i+1 on switch i mod 2, each at 1 byte/ns
	dagbuild -s 2 -b 8Gbps < ops.mp | ocssim -f static -c ring > sim.mp
	run makespan sim.mp
	assert_output 6002000
}

@test "dagbuild: a broadcast root not in its group exits 1 and names the offset" {
	{ hdr; op 0 0 broadcast '[]' '"group":[0,1],"size":10,"coll":1,"root":2'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "root": rank 2 is not in the group'
}

@test "dagbuild: a broadcast without a root exits 1 and names the offset" {
	{ hdr; op 0 0 broadcast '[]' '"group":[0,1],"size":10,"coll":1'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: missing key "root"'
	{ hdr; op 0 0 broadcast '[]' '"group":[0,1],"size":10,"coll":1,"root":"0"'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "root": expected unsigned integer, got string'
}

@test "dagbuild: a root on an op other than a broadcast exits 1 and names the offset" {
	{ hdr; op 0 0 allreduce '[]' '"group":[0,1],"size":10,"coll":1,"root":0'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "root": only a broadcast has a root'
	{ hdr; op 0 0 compute '[]' '"duration_ps":5,"root":0'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "root": only a broadcast has a root'
	{ hdr; op 0 0 send '[]' '"peer":1,"size":5,"root":0'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "root": only a broadcast has a root'
}

@test "dagbuild: the ops of one broadcast must agree on the root" {
	{
		hdr
		op 0 0 broadcast '[]' '"group":[0,1],"size":10,"coll":1,"root":0'
		op 1 1 broadcast '[]' '"group":[0,1],"size":10,"coll":1,"root":1'
	} | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output --regexp '^dagbuild: stdin: byte [0-9]+: op 1 \(o1\): broadcast ops disagree on the root$'
}

@test "dagbuild: halving-doubling refuses a broadcast whose group is not a power of two" {
	{
		hdr
		for r in 0 1 2; do op $r $r broadcast '[]' '"group":[0,1,2],"size":30,"coll":1,"root":1'; done
	} | mk s.mp
	run dagbuild -a hd < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op 0 (o0): halving-doubling needs a group whose size is a power of two, but for an all-reduce'
	run dagbuild -a ring < s.mp
	assert_success
}
