#!/usr/bin/env bats
# chakra -x: op streams exported to Chakra files and imported again give
# the same DAG after dagbuild, but for computes rounded to whole us.

load helpers

CANON=$TOP/tests/helpers/dagcanon.jq

# canon [ROUND]: the DAG on stdin as sorted lines (tests/helpers/
# dagcanon.jq), its computes rounded to the microsecond when ROUND.
canon() {
	if [ -n "${1:-}" ]; then
		report -d | jq -c 'if .type == "task" and .kind == "compute" then .duration_ps = ((.duration_ps + 500000) / 1000000 | floor) * 1000000 else . end'
	else
		report -d
	fi | jq -s -r -f "$CANON" | sort
}

# roundtrip OPS: export, import, dagbuild; the DAGs must agree.
roundtrip() {
	set -o pipefail
	chakra -x p < "$1"
	chakra -g p.json p > back.mp
	dagbuild < "$1" | canon round > want.txt
	dagbuild < back.mp | canon > got.txt
	cmp want.txt got.txt
	[ "$(sort -u want.txt | wc -l)" -eq "$(wc -l < want.txt)" ]
}

@test "chakra -x: tracegen's 8- and 16-layer streams and pipelines come back as the same DAG" {
	for a in "-l 8 -t 4 -d 2" "-l 16 -t 4 -d 2" "-l 8 -t 2 -d 2 -p 2" \
	    "-l 4 -t 2 -d 2 -p 2 -m 4 -E -O"; do
		# shellcheck disable=SC2086
		tracegen $a > ops.mp
		roundtrip ops.mp
	done
	# 1920 tasks for 8 layers, as dagbuild makes them from tracegen
	tracegen -l 8 -t 4 -d 2 > ops.mp
	roundtrip ops.mp
	run wc -l < got.txt
	assert_output 1920
}

# Every op kind on 4 ranks; computes of 1.5 us and just under.
kinds() {
	hdr
	for r in 0 1 2 3; do
		b=$((r * 10))
		echo "{\"type\":\"op\",\"id\":$b,\"rank\":$r,\"kind\":\"compute\",\"name\":\"c\",\"deps\":[],\"duration_ps\":1500000}"
		echo "{\"type\":\"op\",\"id\":$((b + 1)),\"rank\":$r,\"kind\":\"allreduce\",\"name\":\"ar\",\"deps\":[$b],\"group\":[0,1,2,3],\"size\":4096,\"coll\":1}"
		echo "{\"type\":\"op\",\"id\":$((b + 2)),\"rank\":$r,\"kind\":\"allgather\",\"name\":\"ag\",\"deps\":[$((b + 1))],\"group\":[3,2,1,0],\"size\":8192,\"coll\":2}"
		echo "{\"type\":\"op\",\"id\":$((b + 3)),\"rank\":$r,\"kind\":\"reducescatter\",\"name\":\"rs\",\"deps\":[$((b + 2))],\"group\":[0,1,2,3],\"size\":8192,\"coll\":3}"
		echo "{\"type\":\"op\",\"id\":$((b + 4)),\"rank\":$r,\"kind\":\"alltoall\",\"name\":\"a2a\",\"deps\":[$((b + 3))],\"group\":[0,1,2,3],\"size\":4096,\"coll\":4}"
		echo "{\"type\":\"op\",\"id\":$((b + 6)),\"rank\":$r,\"kind\":\"broadcast\",\"name\":\"bc\",\"deps\":[$((b + 4))],\"group\":[0,1,2,3],\"size\":4096,\"coll\":5,\"root\":2}"
		echo "{\"type\":\"op\",\"id\":$((b + 5)),\"rank\":$r,\"kind\":\"compute\",\"name\":\"d\",\"deps\":[$((b + 6))],\"duration_ps\":1499999}"
	done
	echo '{"type":"op","id":100,"rank":0,"kind":"send","name":"s","deps":[5],"size":100,"peer":1,"tag":7}'
	echo '{"type":"op","id":101,"rank":1,"kind":"recv","name":"r","deps":[],"size":100,"peer":0,"tag":7}'
}

@test "chakra -x: every op kind comes back; computes round to the nearest microsecond" {
	kinds | mk ops.mp
	roundtrip ops.mp
	# 1.5 us rounds up to 2 us, 1.499999 us down to 1 us
	run bash -c "chakra -g p.json p | report -d | jq -c 'select(.type == \"op\" and .kind == \"compute\") | .duration_ps' | sort -u"
	assert_output '1000000
2000000'
	# the all-gather's group, in its order, is named in the JSON; the
	# group of all ranks in rank order is "0"
	run cat p.json
	assert_output '{"1": [3, 2, 1, 0]}'
	run bash -c "chakra -g p.json p | report -d | jq -c 'select(.type == \"op\" and .kind == \"allgather\") | [.group, .size]' | sort -u"
	assert_output '[[3,2,1,0],8192]'
	# the broadcast's root comes back from comm_src
	run bash -c "chakra -g p.json p | report -d | jq -c 'select(.type == \"op\" and .kind == \"broadcast\") | [.root, .size]' | sort -u"
	assert_output '[2,4096]'
}

@test "chakra -x: a receive's own dependencies come back holding what follows it, not the transfer" {
	# Chakra posts a receive when its dependencies are done, and the
	# data may come first: the transfer waits for the send's side only
	# (see chakra(1)).
	kinds | sed 's/"kind":"recv","name":"r","deps":\[\]/"kind":"recv","name":"r","deps":[15]/' | mk ops.mp
	chakra -x p < ops.mp
	chakra -g p.json p | dagbuild > back.dag
	dagbuild < ops.mp > ops.dag
	run bash -c "report -d ops.dag | jq -c 'select(.type == \"task\" and .name == \"s\") | .deps | length'"
	assert_output 2
	run bash -c "report -d back.dag | jq -c 'select(.type == \"task\" and .name == \"s\") | .deps | length'"
	assert_output 1
}

@test "chakra -x: each rank's file starts with GlobalMetadata 0.0.4 and holds its ops" {
	tracegen -l 1 -t 2 -d 2 | chakra -x p
	run ls
	assert_output 'p.0.et
p.1.et
p.2.et
p.3.et
p.json'
	# frame 0: length 7, field 1 (0x0a) of 5 bytes, "0.0.4"
	run bash -c "head -c 8 p.0.et | od -An -tx1 | tr -s ' '"
	assert_output ' 07 0a 05 30 2e 30 2e 34'
	run cat p.json
	assert_output '{"1": [0, 1], "2": [2, 3], "3": [0, 2], "4": [1, 3]}'
	run bash -c "chakra -g p.json p | report -d | jq -c 'select(.type == \"workload\") | [.ranks, .nodes, .schema]'"
	assert_output '[4,36,"0.0.4"]'
}

# decoded FILE: each frame of a Chakra file as protoc decodes it with
# tests/helpers/etwire.proto (frame 0 GlobalMetadata, the rest Node),
# one line a frame.
decoded() {
	local n i t

	n=$(pbsplit "$1" f)
	for ((i = 0; i < n; i++)); do
		t=Node
		[ "$i" -eq 0 ] && t=GlobalMetadata
		protoc --decode=etwire.$t -I "$TOP/tests/helpers" etwire.proto \
		    < f.$i | tr -s ' \n' ' ' || return 1
		echo
	done
}

@test "chakra -x: protoc decodes every frame with Chakra's field numbers, no field unknown" {
	kinds | mk ops.mp
	chakra -x p < ops.mp
	for r in 0 1 2 3; do
		decoded p.$r.et > d.$r || fail "rank $r: protoc failed"
		# an unknown field shows as its number
		run grep -E '(^| )[0-9]+: ' d.$r
		assert_failure 1
	done
	run cat d.0
	assert_output 'version: "0.0.4" 
name: "c" type: COMP_NODE duration_micros: 2 attr { name: "is_cpu_op" bool_val: false } 
id: 1 name: "ar" type: COMM_COLL_NODE data_deps: 0 attr { name: "comm_type" int64_val: 0 } attr { name: "comm_size" int64_val: 4096 } attr { name: "pg_name" string_val: "0" } attr { name: "is_cpu_op" bool_val: false } 
id: 2 name: "ag" type: COMM_COLL_NODE data_deps: 1 attr { name: "comm_type" int64_val: 2 } attr { name: "comm_size" int64_val: 2048 } attr { name: "pg_name" string_val: "1" } attr { name: "is_cpu_op" bool_val: false } 
id: 3 name: "rs" type: COMM_COLL_NODE data_deps: 2 attr { name: "comm_type" int64_val: 7 } attr { name: "comm_size" int64_val: 8192 } attr { name: "pg_name" string_val: "0" } attr { name: "is_cpu_op" bool_val: false } 
id: 4 name: "a2a" type: COMM_COLL_NODE data_deps: 3 attr { name: "comm_type" int64_val: 6 } attr { name: "comm_size" int64_val: 4096 } attr { name: "pg_name" string_val: "0" } attr { name: "is_cpu_op" bool_val: false } 
id: 5 name: "bc" type: COMM_COLL_NODE data_deps: 4 attr { name: "comm_type" int64_val: 5 } attr { name: "comm_size" int64_val: 4096 } attr { name: "comm_src" int32_val: 2 } attr { name: "pg_name" string_val: "0" } attr { name: "is_cpu_op" bool_val: false } 
id: 6 name: "d" type: COMP_NODE ctrl_deps: 0 data_deps: 5 duration_micros: 1 attr { name: "is_cpu_op" bool_val: false } 
id: 7 name: "s" type: COMM_SEND_NODE data_deps: 6 attr { name: "comm_dst" int32_val: 1 } attr { name: "comm_tag" int32_val: 7 } attr { name: "comm_size" int64_val: 100 } attr { name: "is_cpu_op" bool_val: false } '
	run grep -c COMM_RECV_NODE d.1
	assert_output 1
}

@test "chakra -x: what Chakra cannot say is refused" {
	{ hdr; echo '{"type":"op","id":1,"rank":0,"kind":"compute","name":"a","deps":[],"duration_ps":1}'; echo '{"type":"op","id":2,"rank":1,"kind":"compute","name":"b","deps":[1],"duration_ps":1}'; } | mk x.mp
	run chakra -x p < x.mp
	assert_failure 1
	assert_output "chakra: stdin: op 2: depends on op 1 of rank 0: a Chakra trace's dependencies stay within a rank"
	{ hdr; echo '{"type":"op","id":2,"rank":0,"kind":"compute","name":"b","deps":[9],"duration_ps":1}'; } | mk x.mp
	run chakra -x p < x.mp
	assert_failure 1
	assert_output 'chakra: stdin: op 2: depends on op 9, which is not in the stream'
	{ hdr; for r in 0 1 2; do echo "{\"type\":\"op\",\"id\":$r,\"rank\":$r,\"kind\":\"allgather\",\"name\":\"g\",\"deps\":[],\"group\":[0,1,2],\"size\":100,\"coll\":0}"; done; } | mk x.mp
	run chakra -x p < x.mp
	assert_failure 1
	assert_output "chakra: stdin: op 0: an all-gather of 100 bytes over 3 ranks: Chakra gives each rank's input, which must be whole bytes"
	{ hdr; for r in 0 1; do echo "{\"type\":\"op\",\"id\":$r,\"rank\":$r,\"kind\":\"broadcast\",\"name\":\"b\",\"deps\":[],\"group\":[0,1],\"size\":100,\"coll\":0,\"root\":3}"; done; } | mk x.mp
	run chakra -x p < x.mp
	assert_failure 1
	assert_output "chakra: stdin: op 0: the broadcast's root, rank 3, is not in its group"
	hdr | mk x.mp
	run chakra -x p < x.mp
	assert_failure 1
	assert_output 'chakra: stdin: no op records: pipe tracegen'"'"'s stream in'
	run chakra -x p -g g.json < x.mp
	assert_failure 2
	run chakra -x nosuchdir/p < "$TOP/traces/llama3-8b-l8-tp4-dp2.ops.msgpack"
	assert_failure 1
	assert_output 'chakra: nosuchdir/p.0.et: No such file or directory'
}

@test "chakra: pipelines/study runs on an imported trace (TRACE=prefix), report's table and plots unchanged" {
	run env TRACE="$SHARED"/chakra/astra-sim/all_reduce-8npus_1MB/all_reduce \
	    TAUS="10us" SCHEDULERS="ideal flux rotor-direct bvn" JOBS=2 \
	    FLUXSOLVE_ARGS="-T 5" "$TOP/pipelines/study" "$BIN" st
	assert_success
	assert_line --regexp '^chakra all_reduce 8 ranks +2x800Gbps +ideal +10us +9\.175 us +1\.00 +1\.00 '
	assert_line --regexp '^chakra all_reduce 8 ranks +2x800Gbps +bvn/direct +10us '
	assert_line "  st/study-nic.png"
	run ls st
	assert_line 'all_reduce-tau10us-flux.msgpack'
	assert_line 'all_reduce-tau10us.dag.msgpack'
	run bash -c "report -d st/all_reduce-tau10us.dag.msgpack | jq -c 'select(.type == \"header\") | [.tool] + .args'"
	assert_output "[\"chakra\",\"$SHARED/chakra/astra-sim/all_reduce-8npus_1MB/all_reduce\"]
[\"dagbuild\",\"-r\",\"10us\"]"
}

# One op of rank 2^20 - 1 (a stream of 151 bytes) made 1,048,576 files,
# 4.1 GB, exit 0 (issue 36, defect 4): ranks without ops are refused
# before any file is written.
@test "chakra -x: regression: an op of rank 1048575 alone wrote a million files" {
	{ hdr; echo '{"type":"op","id":1,"rank":1048575,"kind":"compute","name":"a","deps":[],"duration_ps":1}'; } | mk x.mp
	run chakra -x p < x.mp
	assert_failure 1
	assert_output "chakra: stdin: rank 0 has no ops, and rank 1048575 has: a Chakra trace is a file per rank from 0 to the last, each with its rank's ops"
	[ -z "$(ls | grep '^p\.')" ]
}


# A rank's computes run in stream order under dagbuild(1), but a Chakra
# reader adds no such order: the export wrote none, and ASTRA-sim started
# every micro-batch's chain at time 0 (issue 36).  Each COMP node's
# ctrl_deps must name its rank's COMP node before it, read with protoc.
@test "chakra -x: regression: the computes' program order was lost (no ctrl_deps)" {
	tracegen -l 1 -t 2 -d 1 -m 3 > ops.mp
	chakra -x p < ops.mp
	for r in 0 1; do
		decoded p.$r.et > d.$r || fail "rank $r: protoc failed"
		run awk '/COMP_NODE/ {
			id = 0
			if ($1 == "id:") id = $2
			if (n > 0 && index($0, "ctrl_deps: " prev " ") == 0) {
				print "node " id " lacks ctrl_deps " prev; bad = 1
			}
			prev = id; n++
		} END { if (n < 6) { print "only " n " computes"; bad = 1 }
			exit bad }' d.$r
		assert_success
	done
	# chakra(1) reads the order back as deps
	run bash -c "chakra p | report -d | jq -c 'select(.type == \"op\" and .id == 2) | .deps'"
	assert_output '[0,1]'
}

# Exported with exit 0, then refused by chakra(1) or dagbuild (issue 36):
# refused now, before any file is written.
@test "chakra -x: regression: what chakra and dagbuild refuse was exported" {
	for c in 'ar:[]:0:an empty group' 'ar:[0,1,1]:0:its group names rank 1 twice' \
	    'ar:[1]:0:its group does not hold its rank, 0' \
	    'ar:[0,7]:0:its group names rank 7, past the last rank with ops (1)' \
	    'self::1:depends on itself'; do
		IFS=: read -r what group dep msg <<< "$c"
		if [ "$what" = self ]; then
			{ hdr; echo '{"type":"op","id":1,"rank":0,"kind":"compute","name":"a","deps":[1],"duration_ps":1}'; } | mk x.mp
		else
			{ hdr; for r in 0 1; do echo "{\"type\":\"op\",\"id\":$r,\"rank\":$r,\"kind\":\"allreduce\",\"name\":\"g\",\"deps\":[],\"group\":$group,\"size\":64,\"coll\":0}"; done; } | mk x.mp
		fi
		run chakra -x p < x.mp
		assert_failure 1
		assert_output --partial ": $msg"
		[ -z "$(ls | grep '^p\.')" ]
	done
}
