#!/usr/bin/env bats
# dagbuild --fabric: the presets, a fabric file, the tiered net record,
# the refusals before any work, and the transfers no plane carries
# routed in two hops (BRIEF 2b).

load helpers

# transfers FILE: the transfers of a stream as "src dst bytes deps".
transfers() {
	records "$1" task | jq -r 'select(.kind == "transfer") |
	    "\(.src) \(.dst) \(.bytes) \(.deps | map(tostring) | join(","))"'
}

@test "fabric: --fabric=list names every preset with its planes" {
	run dagbuild --fabric=list
	assert_success
	[ "$(grep -c '^[a-z]' <<< "$output")" -eq 13 ]
	assert_line --index 0 --regexp '^paper +the paper.s net'
	assert_line '                          ocs all count=2 rate=800Gbps tau=10us'
	for m in hgx-h100 gb200-nvl72; do
		for l in flat rail uplink; do
			assert_line --regexp "^$m-$l "
			assert_line --regexp "^$m-$l-eps "
		done
	done
	assert_line --regexp '^hgx-h100-rail +HGX H100.* rail'
}

@test "fabric: the paper's preset is the flat net of the options, byte for byte" {
	tracegen -l 1 > ops.mp
	dagbuild -s 4 -r 1ms < ops.mp > a.mp
	dagbuild --fabric=paper -s 4 -r 1ms < ops.mp > b.mp
	cmp <(dump a.mp | grep -v '"header"') <(dump b.mp | grep -v '"header"')
	run jq -r 'select(.type == "header") | .minor' <(dump b.mp)
	assert_output '1
1'
}

@test "fabric: a preset's net record carries its planes, and minor 2" {
	tracegen -l 1 -t 8 -d 8 | dagbuild --fabric=hgx-h100-rail -r 1ms > r.mp
	run records r.mp net
	assert_output '{"type":"net","gpus":64,"fabric":"hgx-h100-rail","planes":[{"kind":"eps","attach":"group","k":8,"count":1,"rate_bps":3600000000000,"latency_ps":0,"oversub_num":1,"oversub_den":1},{"kind":"ocs","attach":"rail","k":8,"count":1,"rate_bps":400000000000,"latency_ps":0,"reconfig_ps":1000000000,"reconfig_model":"port","radix":320}]}'
	run jq -r 'select(.type == "header") | .minor' <(dump r.mp)
	assert_output '1
2'
	# TP inside the servers, DP on the rails: no transfer needs a hop
	tracegen -l 1 -t 8 -d 8 | dagbuild > flat.mp
	diff <(transfers flat.mp) <(transfers r.mp)
}

@test "fabric: a file with comments, lists, oversubscription and -L, -m applied to its planes" {
	cat > f.fab <<-'EOF'
	# two servers of four, NVLink-like, and a rail OCS; an EPS for 0-3
	eps group:4 rate=1Tbps     # the scale-up domain
	ocs rail:4 count=2 rate=100Gbps tau=5us radix=8
	eps gpus:0-3 rate=50Gbps oversub=1.5
	EOF
	tracegen -l 1 -t 4 -d 2 | dagbuild --fabric=f.fab -L 1us -m switch > f.mp
	run jq -c '.planes[] | [.kind, .attach, .k, .count, .latency_ps, .reconfig_model, .oversub_num, .oversub_den, .gpus]' <(records f.mp net)
	assert_output '["eps","group",4,1,1000000,null,1,1,null]
["ocs","rail",4,2,1000000,"switch",null,null,null]
["eps","gpus",null,1,1000000,null,3,2,[0,3]]'
	assert_equal "$(records f.mp net | jq -r .fabric)" f.fab
}

@test "fabric: refusals name their figures, before any work" {
	tracegen -l 1 -t 8 -d 128 > big.mp
	run dagbuild --fabric=hgx-h100-flat < big.mp
	assert_failure 1
	assert_output 'dagbuild: fabric hgx-h100-flat, plane 2 (ocs): 1024 ports on 1024 GPUs, above its radix of 320'
	run dagbuild --fabric=gb200-nvl72-rail < big.mp
	assert_output 'dagbuild: fabric gb200-nvl72-rail, plane 1 (eps): K = 72 does not divide the 1024 GPUs'
	printf 'eps group:8 rate=1Tbps\n' > g.fab
	tracegen -l 1 -t 8 -d 2 > ops.mp
	run dagbuild --fabric=g.fab < ops.mp
	assert_output 'dagbuild: fabric g.fab: no route from GPU 0 to GPU 8: no plane joins them, and no group:K with a rail:K'
	printf 'ocs all rate=1Tbps\nocs rail:8 rat=1Gbps\n' > b.fab
	run dagbuild --fabric=b.fab < ops.mp
	assert_output 'dagbuild: b.fab: line 2: "rat": not a key of an ocs plane'
	run dagbuild --fabric=nosuch < ops.mp
	assert_output 'dagbuild: --fabric=nosuch: not a preset (--fabric=list), and No such file or directory'
	run dagbuild --fabric=hgx-h100-rail -b 100Gbps < ops.mp
	assert_output "dagbuild: -s and -b describe the paper's flat net; the fabric hgx-h100-rail gives its planes' own"
}

@test "fabric: a transfer between rails of different groups goes over the group to its relay, then over the rail" {
	printf 'eps group:4 rate=3600Gbps\nocs rail:4 rate=400Gbps\n' > g4.fab
	tracegen -M mixtral-8x7b -l 1 -d 8 -x 8 > moe.mp
	dagbuild < moe.mp > flat.mp
	dagbuild --fabric=g4.fab < moe.mp > t.mp
	# the pairs no plane joins: other group, other rail
	cross=$(transfers flat.mp | awk 'int($1 / 4) != int($2 / 4) && $1 % 4 != $2 % 4' | wc -l)
	[ "$cross" -gt 0 ]
	assert_equal "$(transfers t.mp | wc -l)" "$(( $(transfers flat.mp | wc -l) + cross ))"
	# every transfer of the routed DAG is on one plane
	transfers t.mp > tt.txt
	run awk 'int($1 / 4) != int($2 / 4) && $1 % 4 != $2 % 4' tt.txt
	assert_output ''
	# a hop pair: 0 -> 5 becomes 0 -> 1 (0's group, 5's rail), then
	# 1 -> 5 depending on it alone, the same bytes and name
	records t.mp task > tasks.json
	run jq -sc 'INDEX(.id) as $t | .[] | select(.kind == "transfer" and
	    .src == 1 and .dst == 5 and (.deps | length) == 1 and
	    $t[.deps[0] | tostring].src == 0 and
	    $t[.deps[0] | tostring].dst == 1 and .id == .deps[0] + 1 and
	    $t[.deps[0] | tostring].bytes == .bytes and
	    $t[.deps[0] | tostring].name == .name) | .name' tasks.json
	assert_line '"l0.fwd.dispatch[0]"'
	# a first hop (in the group, to the other rail) has its second hop
	# as its only dependent: the tasks that waited wait for the second
	run jq -sc 'INDEX(.id) as $t |
	    [.[] | select(.kind == "transfer") | . as $f |
	     $t[(.id + 1) | tostring] as $s |
	     select($s != null and $s.kind == "transfer" and
	        $s.deps == [$f.id] and $s.src == $f.dst and
	        (($f.src / 4) | floor) == (($f.dst / 4) | floor) and
	        $f.src % 4 != $s.dst % 4) | .id] as $first |
	    [($first | length),
	     ([.[] | select(any(.deps[]; . as $d | any($first[]; . == $d)))] |
	      length)]' tasks.json
	assert_output "[$cross,$cross]"
	# what waited for a transfer waits for its last hop: the same
	# number of tasks depend on something, the DAG is as deep plus hops
	assert_equal "$(records t.mp task | jq -s 'map(select(.kind == "compute")) | length')" \
	    "$(records flat.mp task | jq -s 'map(select(.kind == "compute")) | length')"
}

@test "fabric: a tool's header says the minor of the headers before it, 1 for the paper's streams" {
	{
		echo '{"type":"header","format":"fluxocs","version":1,"minor":2,"tool":"test","args":[]}'
		echo '{"type":"net","gpus":2,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":0}'
		comp 0 '[]' 0 5
		xfer 1 '[0]' 0 1 100
	} | mk two.mp
	ocssim -f ideal < two.mp > o.mp
	run jq -r 'select(.type == "header") | .minor' <(dump o.mp)
	assert_output '2
2'
	tracegen -l 1 | dagbuild | ocssim -f ideal > p.mp
	run jq -r 'select(.type == "header") | .minor' <(dump p.mp)
	assert_output '1
1
1'
}

@test "fabric: a file of one OCS plane of all GPUs is the flat net, written as such, the options over its figures" {
	tracegen -l 1 > ops.mp
	printf 'ocs all count=4 rate=400Gbps tau=1ms model=switch latency=1us\n' > flat.fab
	dagbuild --fabric=flat.fab < ops.mp > a.mp
	dagbuild -s 4 -b 400Gbps -r 1ms -m switch -L 1us < ops.mp > b.mp
	cmp <(dump a.mp | grep -v '"header"') <(dump b.mp | grep -v '"header"')
	dagbuild --fabric=flat.fab -r 5us -s 2 < ops.mp > c.mp
	run jq -c '[.switches, .bandwidth_bps, .reconfig_ps, .reconfig_model]' <(records c.mp net)
	assert_output '[2,400000000000,5000000,"switch"]'
	# with a radix it is a tiered fabric of one plane
	printf 'ocs all count=4 rate=400Gbps radix=64\n' > r.fab
	dagbuild --fabric=r.fab < ops.mp > r.mp
	assert_equal "$(records r.mp net | jq -r .fabric)" r.fab
}
