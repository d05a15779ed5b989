#!/usr/bin/env bats
# tracegen: Llama 3 8B training steps as op records.

load helpers

# sum of a key over ops whose name matches a regex
opsum() {
	records "$1" op | jq -s "[.[] | select(.rank == ${4:-0} and (.name | test(\"$2\"))) | .$3] | add"
}

@test "tracegen: default run writes a header, the workload and ops" {
	tracegen > s.mp
	run records s.mp header
	assert_output --partial '"tool":"tracegen"'
	run jq -r .type <(dump s.mp | head -2)
	assert_output $'header\nworkload'
	run jq -c '[.layers,.tp,.dp,.pp,.seq,.micro_batch,.gpu,.efficiency]' <(records s.mp workload)
	assert_output '[8,4,2,1,4096,1,"a100",0.4]'
}

@test "tracegen: TP4 x DP2 at 8 layers is 9 ops per layer per rank" {
	tracegen > s.mp
	run bash -c "report --dump s.mp | jq -s '[.[] | select(.type == \"op\")] | length'"
	assert_output 576
	run bash -c "report --dump s.mp | jq -s '[.[] | select(.type == \"op\" and .rank == 5)] | length'"
	assert_output 72
}

@test "tracegen: one layer forward at s=4096, b=1, tp=1 is 1.924e12 FLOPs within 0.5%" {
	tracegen -l 1 -t 1 -d 1 -s 4096 > s.mp
	f=$(opsum s.mp 'fwd' flops)
	run jq -n "($f - 1.924e12) / 1.924e12 | fabs < 0.005"
	assert_output true
}

@test "tracegen: per TP rank the forward FLOPs divide by tp" {
	tracegen -l 1 -t 4 -d 1 > s.mp
	f=$(opsum s.mp 'fwd' flops 3)
	run jq -n "($f * 4 - 1.924e12) / 1.924e12 | fabs < 0.005"
	assert_output true
}

@test "tracegen: s=8192 forward FLOPs are 4.123e12 per layer within 0.5%" {
	tracegen -l 1 -t 1 -d 1 -s 8192 > s.mp
	f=$(opsum s.mp 'fwd' flops)
	run jq -n "($f - 4.123e12) / 4.123e12 | fabs < 0.005"
	assert_output true
}

@test "tracegen: A100 at 40% runs one s=8192 layer in 33.0 ms forward, 66.1 ms backward" {
	tracegen -l 1 -t 1 -d 1 -s 8192 > s.mp
	f=$(opsum s.mp 'fwd' duration_ps)
	b=$(opsum s.mp 'bwd' duration_ps)
	run jq -n "(($f / 1e9) * 10 | round) / 10, (($b / 1e9) * 10 | round) / 10"
	assert_output $'33\n66.1'
}

@test "tracegen: TP all-reduces are 2 per layer each way, of the bf16 activation" {
	tracegen -l 2 > s.mp
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"op\" and .rank == 0 and (.name | test(\"attn.ar|mlp.ar\"))) | [.name, .size, .group]' | head -4"
	assert_output '["l0.fwd.attn.ar",33554432,[0,1,2,3]]
["l0.fwd.mlp.ar",33554432,[0,1,2,3]]
["l1.fwd.attn.ar",33554432,[0,1,2,3]]
["l1.fwd.mlp.ar",33554432,[0,1,2,3]]'
	run bash -c "report --dump s.mp | jq -s '[.[] | select(.type == \"op\" and .rank == 0 and .kind == \"allreduce\" and (.name | test(\"bwd\")))] | length'"
	assert_output 4
}

@test "tracegen: the DP gradient all-reduce of a layer waits for that layer's backward" {
	tracegen -l 2 > s.mp
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"op\" and .rank == 4 and .name == \"l1.grad.ar\") | [.size, .group]'"
	assert_output '[109056000,[0,4]]'
	dep=$(report --dump s.mp | jq 'select(.type == "op" and .rank == 4 and .name == "l1.grad.ar") | .deps[0]')
	run bash -c "report --dump s.mp | jq -r 'select(.type == \"op\" and .id == $dep) | .name'"
	assert_output l1.bwd.attn
}

@test "tracegen: ranks follow Megatron order, TP innermost" {
	tracegen -l 1 > s.mp
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"op\" and .rank == 6 and .kind == \"allreduce\") | .group' | sort -u"
	assert_output $'[2,6]\n[4,5,6,7]'
}

@test "tracegen: fp32 gradients double the gradient all-reduce" {
	tracegen -l 1 -G fp32 > s.mp
	run bash -c "report --dump s.mp | jq 'select(.type == \"op\" and .rank == 0 and .name == \"l0.grad.ar\") | .size'"
	assert_output 218112000
}

@test "tracegen: H100 is faster than A100 by the ratio of peaks on compute-bound ops" {
	tracegen -l 1 -g a100 > a.mp
	tracegen -l 1 -g h100 > h.mp
	a=$(opsum a.mp 'fwd.mlp$' duration_ps)
	h=$(opsum h.mp 'fwd.mlp$' duration_ps)
	run jq -n "($a / $h) * 100 | round"
	assert_output 317
}

@test "tracegen: pipeline stages exchange activations and gradients, one pair per micro-batch" {
	tracegen -l 4 -p 2 -m 4 -t 1 -d 1 > s.mp
	run bash -c "report --dump s.mp | jq -r 'select(.type == \"op\") | [.rank, .kind] | @tsv' | grep -E 'send|recv' | sort | uniq -c | awk '{print \$1, \$2, \$3}'"
	assert_output '4 0 recv
4 0 send
4 1 recv
4 1 send'
}

@test "tracegen: 1F1B runs warm-up forwards, then alternates, then cools down" {
	tracegen -l 2 -p 2 -m 3 -t 1 -d 1 > s.mp
	run bash -c "report --dump s.mp | jq -r 'select(.type == \"op\" and .rank == 0 and .kind == \"compute\") | .name | capture(\"m(?<m>[0-9]+)[.]l[0-9]+[.](?<d>fwd|bwd)\") | .d + .m' | uniq | tr '\n' ' '"
	assert_output 'fwd0 fwd1 bwd0 fwd2 bwd1 bwd2 '
	run bash -c "report --dump s.mp | jq -r 'select(.type == \"op\" and .rank == 1 and .kind == \"compute\") | .name | capture(\"m(?<m>[0-9]+)[.]l[0-9]+[.](?<d>fwd|bwd)\") | .d + .m' | uniq | tr '\n' ' '"
	assert_output 'fwd0 bwd0 fwd1 bwd1 fwd2 bwd2 '
}

@test "tracegen: embedding and LM head add their ops and gradient all-reduces" {
	tracegen -l 1 -E > s.mp
	run bash -c "report --dump s.mp | jq -r 'select(.type == \"op\" and .rank == 0) | .name' | grep -E 'embed|head|loss' | tr '\n' ' '"
	assert_output 'embed.fwd embed.fwd.ar head.fwd loss.ar head.bwd head.bwd.ar head.grad.ar embed.bwd embed.grad.ar '
}

@test "tracegen: several steps are chained through the optimizer" {
	tracegen -l 1 -n 2 -O > s.mp
	run bash -c "report --dump s.mp | jq -r 'select(.type == \"op\" and .rank == 0 and .kind == \"compute\") | [.step, .name] | @tsv' | tr '\t' ' ' | tr '\n' ','"
	assert_output '0 s0.m0.l0.fwd.attn,0 s0.m0.l0.fwd.mlp,0 s0.m0.l0.bwd.mlp,0 s0.m0.l0.bwd.attn,0 s0.optimizer,1 s1.m0.l0.fwd.attn,1 s1.m0.l0.fwd.mlp,1 s1.m0.l0.bwd.mlp,1 s1.m0.l0.bwd.attn,1 s1.optimizer,'
	opt=$(report --dump s.mp | jq 'select(.type == "op" and .rank == 0 and .name == "s0.optimizer") | .id')
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"op\" and .rank == 0 and .name == \"s1.m0.l0.fwd.attn\") | .deps'"
	assert_output "[$opt]"
}

@test "tracegen: the same options give byte-identical output" {
	tracegen -l 2 -p 2 -m 2 > a.mp
	tracegen -l 2 -p 2 -m 2 > b.mp
	cmp a.mp b.mp
}

@test "tracegen: output matches the golden stream" {
	tracegen -l 1 -t 2 -d 2 > s.mp
	cmp s.mp "$DATA/tracegen-l1-t2-d2.msgpack"
}

@test "tracegen: the golden stream's numbers are the brief's formulas" {
	# Llama 3 8B, h 4096, FFN 14336, 8 KV heads of 128, s 4096, b 1,
	# over tp 2: attention forward 2sh(h + 2048) + 2s^2h + 2sh^2, MLP
	# 2s 3h 14336, backward twice that; the roofline at 40% of the
	# A100 (312 TFLOP/s, 2.0 TB/s), to a picosecond; TP all-reduces of
	# the bf16 activation s h 2, DP ones of a layer's 218,112,000
	# parameters over tp in bf16
	report --dump "$DATA/tracegen-l1-t2-d2.msgpack" > ops.json
	run jq -s -c '
	    (2 * 4096 * 4096 * (4096 + 2048) + 2 * 4096 * 4096 * 4096 +
	     2 * 4096 * 4096 * 4096) as $attn |
	    (2 * 4096 * 3 * 4096 * 14336) as $mlp |
	    {"l0.fwd.attn": ($attn / 2), "l0.fwd.mlp": ($mlp / 2),
	     "l0.bwd.attn": $attn, "l0.bwd.mlp": $mlp} as $f |
	    [.[] | select(.type == "op")] |
	    [(map(select(.kind == "compute") | .flops == $f[.name]) | all),
	     (map(select(.kind == "compute") |
		([.flops / (312e12 * 0.4), .bytes / (2e12 * 0.4)] | max) * 1e12 -
		.duration_ps | fabs <= 1) | all),
	     (map(select(.kind == "allreduce") | [(.group | length), .size]) |
		unique), length]' ops.json
	assert_output '[true,true,[[2,33554432],[2,218112000]],36]'
}

@test "tracegen: bad options exit 2 with usage" {
	for o in "-t 3" "-t 16" "-l 0" "-l 33" "-e 1.5" "-e 0" "-e x" "-g v100" \
	    "-G fp8" "-p 3" "-s 0" "-s 9000" "-x" "extra" "-m 1.5" "-d -1"; do
		run tracegen $o
		[ "$status" -eq 2 ] || fail "tracegen $o exited $status"
		assert_line --partial 'usage: tracegen'
	done
}

@test "tracegen: bad option messages name the option and the reason" {
	run tracegen -t 3
	assert_line --index 0 'tracegen: -t 3: tensor parallelism must divide the 8 KV heads (1, 2, 4 or 8)'
	run tracegen -p 3
	assert_line --index 0 'tracegen: -p 3: pipeline stages must divide the 8 layers'
}

@test "tracegen: a full disk is an error" {
	run bash -c "tracegen -l 1 > /dev/full"
	assert_failure 1
	assert_output --partial 'tracegen: write error'
}

@test "tracegen: refuses to write binary to a terminal" {
	run script -qec "$BIN/tracegen -l 1" /dev/null
	assert_output --partial 'refusing to write a binary stream to a terminal'
	assert_output --partial 'report --dump'
	run script -qec "$BIN/tracegen -l 1; echo rc=\$?" /dev/null
	assert_output --partial 'rc=2'
}

@test "tracegen: a 1024-GPU workload is generated" {
	tracegen -l 2 -t 8 -d 128 > s.mp
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"workload\") | .ranks'"
	assert_output 1024
}
