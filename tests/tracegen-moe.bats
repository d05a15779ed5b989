#!/usr/bin/env bats
# tracegen -M mixtral-8x7b: expert parallelism, seeded data-dependent
# routing, all-to-alls with per-member sizes.  The op stream itself is
# checked (report -d | jq), not dagbuild's reading of "sizes".

load helpers

mix() {
	tracegen -M mixtral-8x7b "$@"
}

# ops FILE: the op records as one JSON array
ops() {
	report --dump "$1" | jq -s -c '[.[] | select(.type == "op")]'
}

@test "tracegen-moe: the workload record names the model and the routing" {
	mix -l 1 -d 4 -x 2 --skew zipf:1 --seed 7 --capacity 1.5 > s.mp
	run jq -c '[.model,.tp,.dp,.ep,.experts,.topk,.skew,.seed,.capacity,.nominal]' <(records s.mp workload)
	assert_output '["mixtral-8x7b",1,4,2,8,2,"zipf:1",7,1.5,false]'
}

@test "tracegen-moe: llama3-8b stays the default and refuses the MoE options" {
	tracegen -l 1 > a.mp
	tracegen -M llama3-8b -l 1 > b.mp
	run jq -r .model <(records a.mp workload)
	assert_output llama3-8b
	run bash -c "report -d a.mp | jq -c 'select(.type==\"op\")' > a.j; report -d b.mp | jq -c 'select(.type==\"op\")' | cmp - a.j"
	assert_success
	run tracegen -x 2
	assert_failure 2
	assert_line --index 0 'tracegen: -x, --capacity, --nominal, --seed, --skew and --topk need -M mixtral-8x7b'
}

@test "tracegen-moe: bad expert-parallel degrees, tp and skews exit 2" {
	run mix -d 6 -x 3
	assert_failure 2
	assert_line --index 0 'tracegen: -x 3: the expert-parallel degree must divide dp (6) and the 8 experts'
	run mix -d 2 -x 4
	assert_failure 2
	run mix -t 2
	assert_failure 2
	assert_line --index 0 'tracegen: -t 2: mixtral-8x7b is generated with tensor parallelism 1 only'
	run mix --skew gini:0.875
	assert_failure 2
	assert_line --index 0 'tracegen: --skew gini:0.875: the Gini of 8 experts is below 7/8'
	run mix --skew pareto:2
	assert_failure 2
	run mix --topk 9
	assert_failure 2
	assert_line --index 0 "tracegen: --topk 9: allowed 1 to 8 (the model's experts)"
	# regression: --topk 0 named the bound of the code, 256 (issue 36)
	run mix --topk 0
	assert_failure 2
	assert_line --index 0 "tracegen: --topk 0: allowed 1 to 8 (the model's experts)"
	run mix --capacity -1
	assert_failure 2
	run tracegen -M mixtral
	assert_failure 2
}

@test "tracegen-moe: a layer is attn, router, dispatch, experts, combine and back" {
	mix -l 1 -d 4 -x 4 > s.mp
	run jq -r '.[] | select(.rank == 1) | "\(.name) \(.kind)"' <(ops s.mp)
	assert_output "l0.fwd.attn compute
l0.fwd.router compute
l0.fwd.dispatch alltoall
l0.fwd.experts compute
l0.fwd.combine alltoall
l0.bwd.combine alltoall
l0.bwd.experts compute
l0.bwd.dispatch alltoall
l0.bwd.router compute
l0.bwd.attn compute
l0.grad.ar allreduce"
	# the router: 2 x 4096 tokens x 4096 x 8 FLOPs
	run jq '.[] | select(.rank == 1 and .name == "l0.fwd.router") | .flops' <(ops s.mp)
	assert_output 268435456
}

@test "tracegen-moe: tokens are conserved over every layer and micro-batch (zipf, no cap)" {
	mix -l 2 -d 4 -x 4 -m 2 --skew zipf:1 --seed 5 > s.mp
	# 4 sources x 4096 tokens x top-2 = 32768 per layer and micro-batch
	run jq -c '[.[] | select(.name | test("fwd.dispatch"))] | group_by(.name) | map([.[].sizes | add] | add / 8192)' <(ops s.mp)
	assert_output '[32768,32768,32768,32768]'
	run jq .tokens_dropped <(records s.mp workload)
	assert_output 0
	# each source: its row sums to 8192 assignments
	run jq -c '[.[] | select(.name | test("fwd.dispatch")) | .size / 8192] | unique' <(ops s.mp)
	assert_output '[8192]'
}

@test "tracegen-moe: capacity drops are counted and kept plus dropped is tokens x k" {
	mix -l 2 -d 4 -x 4 -m 2 --skew zipf:1 --seed 5 --capacity 1 > s.mp
	run jq .tokens_dropped <(records s.mp workload)
	assert_output 39556
	run jq -c '[.[] | select(.name | test("fwd.dispatch"))] | group_by(.name) | map([.[].sizes | add] | add / 8192)' <(ops s.mp)
	assert_output '[22937,22827,22880,22872]'
	# 4 x 32768 - 39556 = 91516
	run jq '[.[] | select(.name | test("fwd.dispatch")) | .sizes | add] | add / 8192' <(ops s.mp)
	assert_output 91516
}

@test "tracegen-moe: no expert takes more than its capacity, and the full ones take exactly it" {
	# one expert per rank: a rank's combine sends back what its expert took;
	# cap = floor(1.0 x 8 x 4096 x 2 / 8) = 8192
	mix -l 1 -d 8 -x 8 --skew zipf:1.2 --seed 1 --capacity 1 > s.mp
	run jq -c '[.[] | select(.name == "l0.fwd.combine") | .size / 8192]' <(ops s.mp)
	assert_output '[7474,3229,2326,8192,2572,8192,5349,4155]'
	run jq .tokens_dropped <(records s.mp workload)
	assert_output 24047
	# without the cap the two popular experts take more
	mix -l 1 -d 8 -x 8 --skew zipf:1.2 --seed 1 > n.mp
	run jq -c '[.[] | select(.name == "l0.fwd.combine") | .size / 8192 | select(. > 8192)] | length' <(ops n.mp)
	assert_output 2
}

@test "tracegen-moe: combine sizes are the transpose of dispatch sizes, and backward mirrors forward" {
	mix -l 2 -d 8 -x 4 -m 2 --skew dirichlet:0.5 --seed 3 > s.mp
	ops s.mp > o.json
	# D[name][rank] = sizes; combine of q to r = dispatch of r to q
	run jq '
	  def pos($r): $r % 4;
	  def base($r): $r - ($r % 4);
	  [.[] | select(.kind == "alltoall")] as $a
	  | [$a[] | select(.name | test("fwd.dispatch"))] as $d
	  | [$d[] | . as $x
	     | ($a[] | select(.name == ($x.name | sub("dispatch"; "combine")))) as $c
	     | select(base($c.rank) == base($x.rank))
	     | $c.sizes[pos($x.rank)] == $x.sizes[pos($c.rank)]] | (length, all)' o.json
	assert_output $'128\ntrue'
	run jq '[.[] | select(.kind == "alltoall")] | (map(select(.name | test("fwd.dispatch"))) | map({("\(.rank) \(.name | sub("fwd.dispatch"; ""))"): .sizes}) | add) == (map(select(.name | test("bwd.combine"))) | map({("\(.rank) \(.name | sub("bwd.combine"; ""))"): .sizes}) | add)' o.json
	assert_output true
	run jq '[.[] | select(.kind == "alltoall")] | (map(select(.name | test("fwd.combine"))) | map({("\(.rank) \(.name | sub("fwd.combine"; ""))"): .sizes}) | add) == (map(select(.name | test("bwd.dispatch"))) | map({("\(.rank) \(.name | sub("bwd.dispatch"; ""))"): .sizes}) | add)' o.json
	assert_output true
	# size is the sum of sizes, group has one entry per size
	run jq '[.[] | select(.kind == "alltoall") | (.size == (.sizes | add)) and ((.sizes | length) == (.group | length))] | all' o.json
	assert_output true
}

@test "tracegen-moe: the same seed gives the same stream byte for byte, another seed another" {
	mix -l 2 -d 4 -x 4 --skew zipf:0.8 --seed 11 > a.mp
	mix -l 2 -d 4 -x 4 --skew zipf:0.8 --seed 11 > b.mp
	mix -l 2 -d 4 -x 4 --skew zipf:0.8 --seed 12 > c.mp
	cmp a.mp b.mp
	run cmp -s a.mp c.mp
	assert_failure 1
	run bash -c "diff <(report -d a.mp | jq -c 'select(.type==\"op\") | .sizes // empty') <(report -d c.mp | jq -c 'select(.type==\"op\") | .sizes // empty') > /dev/null"
	assert_failure 1
}

@test "tracegen-moe: --skew uniform makes every dispatch entry 2048 tokens" {
	# 4096 x 2 / 8 = 1024 per expert, 2 experts per rank
	mix -l 2 -d 8 -x 4 -m 2 --seed 4 > s.mp
	run jq -c '[.[] | select(.kind == "alltoall") | .sizes[]] | unique' <(ops s.mp)
	assert_output '[16777216]'
	mix -l 2 -d 8 -x 4 -m 2 --seed 9 --skew uniform > t.mp
	run bash -c "report -d s.mp | jq -c 'select(.type == \"op\")' > a; report -d t.mp | jq -c 'select(.type == \"op\")' | cmp - a"
	assert_success
}

@test "tracegen-moe: nominal and realized traces share ids, deps and names, not sizes" {
	mix -l 2 -d 4 -x 2 -m 2 -n 2 -O -E --skew gini:0.3 --seed 2 > r.mp
	mix -l 2 -d 4 -x 2 -m 2 -n 2 -O -E --skew gini:0.3 --seed 2 --nominal > n.mp
	run bash -c "diff <(report -d r.mp | jq -c 'select(.type==\"op\") | [.id,.rank,.kind,.name,.deps,.group,.coll]') <(report -d n.mp | jq -c 'select(.type==\"op\") | [.id,.rank,.kind,.name,.deps,.group,.coll]')"
	assert_success
	run bash -c "diff <(report -d r.mp | jq -c 'select(.type==\"op\") | .sizes') <(report -d n.mp | jq -c 'select(.type==\"op\") | .sizes') > /dev/null"
	assert_failure 1
	run jq .nominal <(records n.mp workload)
	assert_output true
}

@test "tracegen-moe: --skew gini:0.3 gives expert loads of Gini 0.3 on 1 Mi tokens" {
	gini='def gini: . as $x | length as $n | add as $s | ([$x[] as $a | $x[] as $b | ($a - $b) | fabs] | add) / (2 * $n * $s);'
	mix -l 1 -d 8 -x 8 -b 16 -s 8192 --skew gini:0.3 --seed 9 > s.mp
	run jq "$gini"' [.[] | select(.name == "l0.fwd.combine") | .size / 8192] | gini - 0.3 | fabs < 0.002' <(ops s.mp)
	assert_output true
	mix -l 1 -d 8 -x 8 -b 16 -s 8192 --skew gini:0.3 --seed 9 --nominal > n.mp
	run jq "$gini"' [.[] | select(.name == "l0.fwd.combine") | .size / 8192] | gini - 0.3 | fabs < 1e-5' <(ops n.mp)
	assert_output true
}

@test "tracegen-moe: expert gradients are reduced over the dp/ep ranks that hold them" {
	mix -l 1 -d 4 -x 2 > s.mp
	run jq -c '.[] | select(.rank == 1 and (.name | test("grad"))) | [.name, .group, .size]' <(ops s.mp)
	# 4 experts x 176160768 x 2 bytes; dense 41984000 x 2
	assert_output '["l0.experts.grad.ar",[1,3],1409286144]
["l0.grad.ar",[0,1,2,3],83968000]'
	mix -l 1 -d 4 -x 4 > t.mp
	run jq -c '[.[] | select(.name == "l0.experts.grad.ar")] | length' <(ops t.mp)
	assert_output 0
}

@test "tracegen-moe: without expert parallelism there is no all-to-all" {
	mix -l 2 -d 2 --skew zipf:1 > s.mp
	run jq -c '[.[] | select(.kind == "alltoall")] | length' <(ops s.mp)
	assert_output 0
	# per layer attn, router, experts each way, the two gradient all-reduces
	run jq -c '[.[] | .name] | unique | length' <(ops s.mp)
	assert_output 16
	run jq -c '[.[] | select(.name == "l1.experts.grad.ar") | .group] | unique' <(ops s.mp)
	assert_output '[[0,1]]'
	# one rank runs all 8 experts on its 8192 assignments: 2 x 8192 x 3 x 4096 x 14336
	run jq -c '[.[] | select(.rank == 0 and .name == "l1.fwd.experts") | .flops]' <(ops s.mp)
	assert_output '[2886218022912]'
}

@test "tracegen-moe: a routing too long to draw is refused up front, naming the figure" {
	# 64 ranks x 2 x 524288 tokens x 2 x 32 layers x 8 = 3.44e10 > 2^33
	run mix -l 32 -d 64 -x 8 -b 64 -s 8192 -m 8 --skew zipf:1
	assert_failure 1
	assert_output 'tracegen: routing would draw 3.44e+10 assignments, more than 8.59e+09: fewer tokens, steps or micro-batches, or --nominal'
}

@test "tracegen-moe: pipeline stages keep their layers' experts and all-to-alls" {
	mix -l 4 -p 2 -d 4 -x 2 -m 2 --skew zipf:1 --seed 1 > s.mp
	# stage 1 is ranks 4..7, their groups {4,5} and {6,7}
	run jq -c '[.[] | select(.kind == "alltoall" and .rank >= 4) | .group] | unique' <(ops s.mp)
	assert_output '[[4,5],[6,7]]'
	run jq -c '[.[] | select(.name | test("fwd.dispatch"))] | group_by(.name) | map([.[].sizes | add] | add / 8192)' <(ops s.mp)
	# per stage 4 sources x 8192 assignments, two stages
	assert_output '[32768,32768,32768,32768,32768,32768,32768,32768]'
}

@test "tracegen-moe: a uniform routing's DAG is the plain all-to-all's, byte for byte" {
	set -o pipefail
	mix -l 2 -d 4 -x 4 --skew uniform > u.mp
	# the same ops without sizes: plain all-to-alls of the same size
	report --dump u.mp | jq -c 'del(.sizes)' | jsonpack > p.mp
	dagbuild < u.mp > u.dag
	dagbuild < p.mp > p.dag
	# all but the headers, which name the tools upstream
	report --dump u.dag | jq -c 'select(.type != "header")' > u.txt
	report --dump p.dag | jq -c 'select(.type != "header")' > p.txt
	cmp u.txt p.txt
	# 2 layers x 4 all-to-alls (2 each way), each of 4 x 3 transfers
	# of 4096 tokens x 2 / 4 experts' ranks x 8192 bytes (h x bf16)
	run bash -c "report --dump u.dag | jq -c 'select(.type == \"task\" and .kind == \"transfer\" and (.name | test(\"dispatch|combine\"))) | .bytes' | sort | uniq -c | tr -s ' '"
	assert_output ' 96 16777216'
}

@test "tracegen-moe: skewed traces run through dagbuild, fluxsolve and ocssim, the bound below every schedule" {
	set -o pipefail
	mix -l 1 -d 8 -x 8 --skew gini:0.3 --seed 1 | dagbuild -r 10us > d.mp
	# the 4 all-to-alls of the layer make a transfer of each nonzero
	# pair of 8 ranks: at most 4 x 56
	n=$(report --dump d.mp | jq -c 'select(.type == "task" and .kind == "transfer" and (.name | test("dispatch|combine")))' | wc -l)
	[ "$n" -gt 0 ] && [ "$n" -le 224 ]
	for s in "ocssim -f ideal" "fluxsolve -m greedy -T 10" "rotorsched -m bvn"; do
		# shellcheck disable=SC2086
		if [ "${s%% *}" = ocssim ]; then $s < d.mp; else $s < d.mp | ocssim; fi |
		    report --dump | jq -c 'select(.type == "result") | [.makespan_ps, .lower_bound_ps]' > r.json
		run jq -e '.[1] > 0 and .[1] <= .[0]' r.json
		assert_success
	done
}
