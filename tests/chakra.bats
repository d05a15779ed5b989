#!/usr/bin/env bats
# chakra(1): the real traces of /work/shared/chakra, imported and run
# through dagbuild and ocssim, and every kind of refused trace.

load helpers

S=$SHARED/chakra
AS=$S/astra-sim
ETGEN=$TOP/tests/helpers/etgen.py

# kinds FILE: "count kind" lines of the ops of a stream.
kinds() {
	records "$1" op | jq -r .kind | sort | uniq -c | tr -s ' ' | sed 's/^ //'
}

# gen PREFIX JSON: a trace from a spec (see tests/helpers/etgen.py).
gen() {
	printf '%s' "$2" | python3 "$ETGEN" "$1"
}

# A pair of ranks: a send from 0 to 1 and its receive.
P2P='{"id":5,"name":"s","type":5,"attr":{"comm_size":["int64",64],"comm_dst":["int32",1],"comm_tag":["int32",3]}}'
R2P='{"id":9,"name":"r","type":6,"attr":{"comm_size":["int64",64],"comm_src":["int32",0],"comm_tag":["int32",3]}}'

@test "chakra: every shared trace imports and runs through dagbuild, ocssim and fluxsolve -m greedy" {
	set -o pipefail
	for p in all_reduce all_gather all_to_all reduce_scatter; do
		chakra "$AS/$p-8npus_1MB/$p" > $p.mp
		dagbuild -g 8 -s 2 < $p.mp > $p.dag
		ocssim -f ideal < $p.dag | report -d | grep -c '"result"' > /dev/null
		fluxsolve -m greedy < $p.dag | ocssim | report -d | grep -c '"result"' > /dev/null
	done
	c=$AS/custom_collectives-custom_ring_allreduce_8npus_1MB/custom_allreduce
	chakra "$c" | dagbuild -g 8 -s 2 | fluxsolve -m greedy | ocssim | report -d | grep -c '"result"' > /dev/null
	t=$S/artifacts/T3D-analytical
	chakra -g $t/comm_group.json $t/trace | dagbuild -g 8 -s 2 | fluxsolve -m greedy | ocssim | report -d | grep -c '"result"' > /dev/null
}

@test "chakra: the microbenchmarks give one collective of 8 ranks each, all-gather sized x 8" {
	# transfers on a ring of n = 8: 2n(n-1) for all-reduce, n(n-1) for
	# all-gather and reduce-scatter; all-to-all direct, n(n-1)
	for p in all_reduce:allreduce:1048576:112 all_gather:allgather:8388608:56 \
	    all_to_all:alltoall:1048576:56 reduce_scatter:reducescatter:1048576:56; do
		IFS=: read -r n k sz tr <<< "$p"
		chakra "$AS/$n-8npus_1MB/$n" > o.mp
		[ "$(kinds o.mp)" = "8 $k" ]
		dagbuild -g 8 -s 2 < o.mp > d.mp
		[ "$(records d.mp task | jq -r .kind | sort | uniq -c | tr -s ' ')" = " $tr transfer" ]
		[ "$(records o.mp op | jq -r '[.size, .coll, (.group|length)]|@csv' | sort -u)" = "$sz,0,8" ]
		[ "$(records o.mp workload | jq -c '[.model,.ranks,.nodes,.nodes_skipped,.schema]')" = '["chakra",8,8,0,"0.0.4"]' ]
	done
}

@test "chakra: the 8-rank 1 MiB all-reduce on a static ring takes 2(N-1)/N S/B exactly" {
	set -o pipefail
	chakra $AS/all_reduce-8npus_1MB/all_reduce | dagbuild -g 8 -s 2 -a ring -b 800Gbps > d.mp
	[ "$(records d.mp task | jq -r .kind | sort | uniq -c | tr -s ' ')" = " 112 transfer" ]
	ocssim -f static -c ring < d.mp | report -d | jq -c 'select(.type=="result")|.makespan_ps' > ms
	# 2 * 7/8 * 1048576 bytes * 8 bits / 800e9 bit/s = 18350080 ps
	[ "$(cat ms)" = 18350080 ]
}

@test "chakra: the custom ring all-reduce gives 14 chained transfers a rank" {
	set -o pipefail
	c=$AS/custom_collectives-custom_ring_allreduce_8npus_1MB/custom_allreduce
	chakra $c > o.mp
	[ "$(kinds o.mp)" = "$(printf '56 compute\n112 recv\n112 send')" ]
	[ "$(records o.mp workload | jq -c '[.nodes,.nodes_skipped,.schema]')" = '[280,0,"1.0.2-chakra.0.0.4"]' ]
	dagbuild -g 8 -s 2 < o.mp > d.mp
	[ "$(records d.mp task | jq -r 'select(.kind=="transfer")|.src' | sort | uniq -c | tr -s ' ' | sed 's/^ //' | cut -d' ' -f1 | sort -u)" = 14 ]
	# Rank 0's sends: each after the one before (through a compute or
	# a receive), the first after none.
	records d.mp task > t.json
	run python3 -c '
import json, sys
t = {x["id"]: x for x in map(json.loads, open("t.json"))}
def anc(i, seen):
    for d in t[i]["deps"]:
        if d not in seen:
            seen.add(d)
            anc(d, seen)
    return seen
for r in range(8):
    s = sorted(i for i in t if t[i]["kind"] == "transfer" and t[i]["src"] == r)
    ok = len(s) == 14 and all(s[k - 1] in anc(s[k], set()) for k in range(1, 14))
    ok = ok and t[s[0]]["deps"] == []
    print(r, ok)
'
	assert_output "$(printf '%s True\n' 0 1 2 3 4 5 6 7)"
	ocssim -f static -c ring < d.mp | report -d | jq -c 'select(.type=="result")|.makespan_ps' > ms
	[ "$(cat ms)" = 67350080 ]
}

@test "chakra: T3D's communicator groups are those of comm_group.json" {
	t=$S/artifacts/T3D-analytical
	chakra -g $t/comm_group.json $t/trace > o.mp
	[ "$(kinds o.mp)" = "$(printf '16 compute\n24 allreduce' | sort)" ] || [ "$(kinds o.mp)" = "$(printf '24 allreduce\n16 compute')" ]
	run jq -r 'select(.rank==0 and .kind=="allreduce")|.group|@csv' <(records o.mp op)
	assert_output "$(printf '0,1\n0,2\n0,4')"
	run jq -r 'select(.rank==7 and .kind=="allreduce")|.group|@csv' <(records o.mp op)
	assert_output "$(printf '6,7\n5,7\n3,7')"
	[ "$(records o.mp op | jq -r 'select(.kind=="allreduce")|.coll' | sort -n | uniq -c | tr -s ' ' | cut -d' ' -f2 | sort -u)" = 2 ]
	[ "$(records o.mp op | jq -r 'select(.kind=="allreduce")|.coll' | sort -un | wc -l)" -eq 12 ]
	# 12 all-reduces of 2 ranks, a ring of 2(n-1)n = 4 transfers each
	dagbuild -g 8 -s 2 < o.mp > d.mp
	[ "$(records d.mp task | jq -r .kind | sort | uniq -c | tr -s ' ')" = "$(printf ' 16 compute\n 48 transfer')" ]
}

@test "chakra: T3D without -g refuses its communicator names" {
	run chakra $S/artifacts/T3D-analytical/trace
	assert_failure 1
	assert_output "chakra: $S/artifacts/T3D-analytical/trace.0.et: node 3: communicator \"4\" is not in a -g comm_group.json"
}

@test "chakra: skipped CPU, metadata and memory nodes keep their dependency chain" {
	gen t '{"meta":null,"ranks":[[
	    {"id":10,"name":"a","type":4,"dur":2},
	    {"id":3,"name":"cpu","type":4,"dur":5,"data_deps":[10],"attr":{"is_cpu_op":["int32",1]}},
	    {"id":7,"name":"m","type":2,"ctrl_deps":[3]},
	    {"id":1,"name":"b","type":4,"dur":1,"data_deps":[7]}]]}'
	chakra t > o.mp
	[ "$(records o.mp workload | jq -c '[.ranks,.nodes,.nodes_skipped,.schema]')" = '[1,4,2,"none"]' ]
	[ "$(records o.mp op | jq -c '[.id,.name,.deps,.duration_ps]')" = "$(printf '[0,"a",[],2000000]\n[1,"b",[0],1000000]')" ]
}

@test "chakra: a send and its receive become one transfer" {
	gen t "{\"meta\":\"0.0.4\",\"ranks\":[[$P2P],[$R2P]]}"
	chakra t > o.mp
	[ "$(records o.mp op | jq -c '[.kind,.rank,.peer,.size,.tag]')" = "$(printf '["send",0,1,64,3]\n["recv",1,0,64,3]')" ]
	dagbuild -g 2 < o.mp | report -d | jq -c 'select(.kind=="transfer")|[.src,.dst,.bytes]' > x
	[ "$(cat x)" = '[0,1,64]' ]
}

# refused SPEC MESSAGE: the trace t of SPEC exits 1 with MESSAGE.
refused() {
	gen t "$1"
	run chakra t
	assert_failure 1
	assert_output "$2"
	[ ! -s o.mp ]
}

@test "chakra: refused traces exit 1 naming the file and the node" {
	refused '{"meta":"0.0.3","ranks":[[]]}' \
	    'chakra: t.0.et: byte 1: schema version "0.0.3" is not 0.0.4 (older traces number the collectives otherwise)'
	for c in 1:REDUCE 3:GATHER 4:SCATTER 8:REDUCE_SCATTER_BLOCK 9:BARRIER; do
		refused "{\"meta\":null,\"ranks\":[[{\"id\":4,\"type\":7,\"attr\":{\"comm_type\":[\"int64\",${c%%:*}],\"comm_size\":[\"int64\",8]}}]]}" \
		    "chakra: t.0.et: node 4: ${c#*:} is not imported: the op stream has no such collective"
	done
	refused '{"meta":null,"ranks":[[{"id":4,"type":7,"attr":{"comm_type":["int64",5],"comm_size":["int64",8],"comm_src":["int32",1]}}]]}' \
	    'chakra: t.0.et: node 4: broadcast root (comm_src) 1 is not in communicator ""'
	refused "{\"meta\":null,\"ranks\":[[$P2P],[]]}" \
	    'chakra: t.0.et: node 5: send to rank 1 (tag 3) has no matching receive'
	refused "{\"meta\":null,\"ranks\":[[],[$R2P]]}" \
	    'chakra: t.1.et: node 9: receive from rank 0 (tag 3) has no matching send'
	refused '{"meta":null,"ranks":[[{"id":2,"type":5,"attr":{"comm_size":["int64",8],"pg_name":["string",""]}}]]}' \
	    'chakra: t.0.et: node 2: send without a peer (comm_dst), as PyTorch-converted traces write them: it cannot be paired'
	refused '{"meta":null,"ranks":[[{"id":2,"type":6,"attr":{"comm_size":["int64",8]}}]]}' \
	    'chakra: t.0.et: node 2: receive without a peer (comm_src), as PyTorch-converted traces write them: it cannot be paired'
	refused '{"meta":null,"ranks":[[{"id":1,"type":7,"attr":{"comm_type":["int64",0],"comm_size":["int64",8]}}],[{"id":1,"type":7,"attr":{"comm_type":["int64",0],"comm_size":["int64",16]}}]]}' \
	    'chakra: t.1.et: node 1: collective 0 of communicator "" is allreduce of 16 bytes here, allreduce of 8 bytes at t.0.et node 1'
	refused '{"meta":null,"ranks":[[{"id":1,"type":7,"attr":{"comm_type":["int64",0],"comm_size":["int64",8]}}],[{"id":1,"type":7,"attr":{"comm_type":["int64",2],"comm_size":["int64",4]}}]]}' \
	    'chakra: t.1.et: node 1: collective 0 of communicator "" is allgather of 8 bytes here, allreduce of 8 bytes at t.0.et node 1'
	refused '{"meta":null,"ranks":[[{"id":1,"type":7,"attr":{"comm_type":["int64",0],"comm_size":["int64",8]}}],[]]}' \
	    'chakra: t.0.et: node 1: collective 0 of communicator "" is missing on rank 1'
	refused '{"meta":null,"ranks":[[{"id":1,"type":4,"attr":{"num_ops":["int64",-1]}}]]}' \
	    'chakra: t.0.et: node 1: num_ops is negative'
	refused '{"meta":null,"ranks":[[{"id":1,"type":4,"attr":{"tensor_size":["uint64",9223372036854775808]}}]]}' \
	    'chakra: t.0.et: node 1: attribute tensor_size is past 2^63 - 1'
	refused '{"meta":null,"ranks":[[{"id":1,"type":5,"attr":{"comm_size":["int64",8],"comm_dst":["int32",1]}}],[{"id":2,"type":6,"attr":{"comm_size":["int64",16],"comm_src":["int32",0]}}]]}' \
	    'chakra: t.1.et: node 2: receives 16 bytes from rank 0, whose matching send (node 1) sends 8'
	refused '{"meta":null,"ranks":[[{"id":1,"type":4,"data_deps":[8]}]]}' \
	    'chakra: t.0.et: node 1: depends on node 8, which is not in the file'
}

@test "chakra: ranks disagreeing on a collective's group are refused" {
	gen t '{"meta":null,"ranks":[[{"id":1,"type":7,"attr":{"comm_type":["int64",0],"comm_size":["int64",8],"pg_name":["string","a"]}}],[{"id":1,"type":7,"attr":{"comm_type":["int64",0],"comm_size":["int64",8],"pg_name":["string","b"]}}]]}'
	echo '{"a":[0,1],"b":[1,0]}' > g.json
	run chakra -g g.json t
	assert_failure 1
	assert_output 'chakra: t.0.et: node 1: collective 0 of communicator "a" is missing on rank 1'
}

# BCAST RANK ROOT SIZE: a broadcast node of all ranks; ROOT "" for none.
bcast() {
	local src=
	[ -n "$3" ] && src=",\"comm_src\":[\"int32\",$3]"
	printf '{"id":%s,"name":"b","type":7,"attr":{"comm_type":["int64",5],"comm_size":["int64",%s]%s}}' "$1" "$4" "$src"
}

@test "chakra: a broadcast's root is its comm_src, else its group's first rank" {
	gen t "{\"meta\":null,\"ranks\":[[$(bcast 1 0 2 4096)],[$(bcast 1 1 2 4096)],[$(bcast 1 2 2 4096)],[$(bcast 1 3 2 4096)]]}"
	chakra t > o.mp
	[ "$(records o.mp op | jq -c '[.kind,.root,.size,.coll,.group]' | sort -u)" = '["broadcast",2,4096,0,[0,1,2,3]]' ]
	# ring from the root 2: 2->3->0->1, each link once with the whole
	# buffer in chunks of 1024
	dagbuild -a ring < o.mp | report -d | jq -c 'select(.kind=="transfer")|[.src,.dst]' | sort | uniq -c | tr -s ' ' > x
	[ "$(cat x)" = "$(printf ' 4 [0,1]\n 4 [2,3]\n 4 [3,0]')" ]
	gen u "{\"meta\":null,\"ranks\":[[$(bcast 1 0 '' 64)],[$(bcast 1 1 '' 64)]]}"
	chakra u > o.mp
	[ "$(records o.mp op | jq -c '.root' | sort -u)" = 0 ]
}

@test "chakra: ranks disagreeing on a broadcast's root are refused" {
	gen t "{\"meta\":null,\"ranks\":[[$(bcast 1 0 1 64)],[$(bcast 1 1 0 64)]]}"
	run chakra t
	assert_failure 1
	assert_output 'chakra: t.1.et: node 1: collective 0 of communicator "" is a broadcast from rank 0 here, from rank 1 at t.0.et node 1'
}

@test "chakra: a compute node without duration_micros takes the roofline of num_ops and tensor_size" {
	# a100 at 0.4: 124.8 TFLOP/s and 800 GB/s. 1.248e12 FLOPs: 10 ms;
	# 8e9 bytes: 10 ms; both: the larger; 1e6 FLOPs: 8012.8 ps, 8013.
	gen t '{"meta":null,"ranks":[[
	    {"id":1,"name":"f","type":4,"attr":{"num_ops":["int64",1248000000000]}},
	    {"id":2,"name":"m","type":4,"attr":{"tensor_size":["uint64",8000000000]}},
	    {"id":3,"name":"fm","type":4,"attr":{"num_ops":["int64",1248000000000],"tensor_size":["uint64",16000000000]}},
	    {"id":4,"name":"mega","type":4,"attr":{"num_ops":["int64",1000000]}},
	    {"id":5,"name":"d","type":4,"dur":3,"attr":{"num_ops":["int64",1248000000000]}}]]}'
	chakra t > o.mp
	[ "$(records o.mp op | jq -c '[.name,.duration_ps]' | tr '\n' ' ')" = '["f",10000000000] ["m",10000000000] ["fm",20000000000] ["mega",8013] ["d",3000000] ' ]
	[ "$(records o.mp workload | jq -c '[.nodes_roofline,.gpu,.efficiency]')" = '[4,"a100",0.4]' ]
	# h100 at 1: 989 TFLOP/s, 3.35 TB/s
	chakra --gpu h100 -e 1 t > o.mp
	[ "$(records o.mp op | jq -c '.duration_ps' | tr '\n' ' ')" = '1261880688 2388059701 4776119403 1011 3000000 ' ]
	[ "$(records o.mp workload | jq -c '[.nodes_roofline,.gpu,.efficiency]')" = '[4,"h100",1]' ]
	# 2^63 - 1 bytes at 200 GB/s: 4.6e19 ps, past 2^64
	gen u '{"meta":null,"ranks":[[{"id":1,"type":4,"attr":{"tensor_size":["int64",9223372036854775807]}}]]}'
	chakra -e 1 u > /dev/null
	run chakra -e 0.1 u
	assert_failure 1
	assert_output 'chakra: u.0.et: node 1: the roofline time of num_ops and tensor_size overflows picoseconds'
}

@test "chakra: regression: a trace on more than 16 communicators read freed memory" {
	# each op kept a pointer into the array of communicators, which
	# moved when it grew past 16
	local n=() g=() i
	for i in $(seq 0 19); do
		n+=("{\"id\":$i,\"name\":\"ar$i\",\"type\":7,\"attr\":{\"comm_type\":[\"int64\",0],\"comm_size\":[\"int64\",64],\"pg_name\":[\"string\",\"g$i\"]}}")
		g+=("\"g$i\": [0]")
	done
	gen t "{\"meta\":null,\"ranks\":[[$(IFS=,; echo "${n[*]}")]]}"
	echo "{$(IFS=,; echo "${g[*]}")}" > g.json
	chakra -g g.json t > o.mp
	[ "$(records o.mp op | jq -c '[.group, .coll]' | tr '\n' ' ')" = "$(for i in $(seq 0 19); do printf '[[0],%d] ' $i; done)" ]
}

@test "chakra: comm_group.json: a name or a rank given twice is refused at its byte; a million ranks read in linear time" {
	gen t "{\"meta\":null,\"ranks\":[[{\"id\":1,\"type\":7,\"attr\":{\"comm_type\":[\"int64\",0],\"comm_size\":[\"int64\",8],\"pg_name\":[\"string\",\"a\"]}}]]}"
	echo '{"b": [0], "a": [0], "c": [0], "a": [0], "b": [0]}' > g.json
	run chakra -g g.json t
	assert_failure 1
	assert_output 'chakra: g.json: byte 34: group named twice'
	echo '{"a": [0, 1, 0]}' > g.json
	run chakra -g g.json t
	assert_failure 1
	assert_output 'chakra: g.json: byte 14: rank twice in a group'
	# a group of 10^6 ranks, not used: was 5e11 comparisons
	{ printf '{"big": ['; seq -s, 0 999999 | tr -d '\n'; printf '], "a": [0]}'; } > g.json
	chakra -g g.json t > o.mp
	[ "$(records o.mp op | jq -c .group)" = '[0]' ]
}

@test "chakra: a gap in the ranks is refused" {
	gen t "{\"meta\":null,\"ranks\":[[],[],[]]}"
	rm t.1.et
	run chakra t
	assert_failure 1
	assert_output 'chakra: t: rank 1 missing: t.1.et is not there, and 2 rank files are'
	run chakra nothing
	assert_failure 1
	assert_output 'chakra: nothing: no trace files nothing.<rank>.et'
}

@test "chakra: a truncated file and a garbage file name the byte offset" {
	for r in 0 1 2 3 4 5 6 7; do
		cp $AS/all_reduce-8npus_1MB/all_reduce.$r.et t.$r.et
	done
	chmod u+w t.*.et
	head -c 40 $AS/all_reduce-8npus_1MB/all_reduce.3.et > t.3.et
	run chakra t
	assert_failure 1
	assert_output 'chakra: t.3.et: byte 8: truncated frame of 74 bytes: the file ends at byte 40'
	printf '\x05\xff\xff\xff\xff\xff' > t.3.et
	run chakra t
	assert_failure 1
	assert_output --partial 'chakra: t.3.et: byte 1: '
}

@test "chakra: usage errors exit 2" {
	run chakra
	assert_failure 2
	run chakra -q t
	assert_failure 2
	run chakra -x t u
	assert_failure 2
	run chakra a b
	assert_failure 2
	run chakra --gpu v100 t
	assert_failure 2
	assert_line 'chakra: --gpu v100: no such GPU (a100, h100)'
	run chakra -e 0 t
	assert_failure 2
	assert_line 'chakra: -e 0: efficiency must be a number in (0, 1]'
	run chakra -x t -e 0.5
	assert_failure 2
}
