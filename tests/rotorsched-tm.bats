#!/usr/bin/env bats
# rotorsched: the traffic-matrix schedulers of the literature, Solstice
# and Eclipse, beside BvN.  The small matrices are worked by hand in the
# comments: at 800 Gbit/s a byte takes 10 ps, so r bytes last 10 r ps.

load helpers

# net GPUS SWITCHES BPS TAU: a net record.
net() {
	echo "{\"type\":\"net\",\"gpus\":$1,\"switches\":$2,\"bandwidth_bps\":$3,\"reconfig_ps\":$4}"
}

# circuits FILE: [switch, a, b, from, to] of every circuit, one a line,
# then the period.
circuits() {
	report --dump "$1" | jq -c 'select(.type == "circuit") | [.switch, .a, .b, .from_ps, .to_ps]'
	report --dump "$1" | jq -c 'select(.type == "schedule") | .period_ps'
}

# uncovered FILE: the pairs whose circuits in one period carry fewer
# bytes than max(D[a][b], D[b][a]) at the port rate ("short a-b"), and
# the circuits of pairs without a transfer ("idle a-b"); [] when none.
# ps x B >= bytes x 8e12 is compared with B / 8e12 in lowest terms, so
# that the products stay exact in jq's doubles.
uncovered() {
	report --dump "$1" | jq -s -c '
	    def gcd(a; b): if b == 0 then a else gcd(b; a % b) end;
	    ([.[] | select(.type == "net")][0].bandwidth_bps) as $bps |
	    gcd($bps; 8000000000000) as $g |
	    ($bps / $g) as $num | (8000000000000 / $g) as $den |
	    ([.[] | select(.type == "task" and .kind == "transfer") |
	      {k: ([.src, .dst] | sort | "\(.[0])-\(.[1])"), up: (.src < .dst), bytes}] |
	     group_by(.k) | map({key: .[0].k, value: ([
	      (map(select(.up) | .bytes) | add // 0),
	      (map(select(.up | not) | .bytes) | add // 0)] | max)}) |
	     from_entries) as $dem |
	    ([.[] | select(.type == "circuit")] | group_by([.a, .b]) |
	     map({key: "\(.[0].a)-\(.[0].b)", value: (map(.to_ps - .from_ps) | add)}) |
	     from_entries) as $ps |
	    [($dem | to_entries[] | select(($ps[.key] // 0) * $num < .value * $den) | "short \(.key)"),
	     ($ps | keys[] | select($dem[.] == null) | "idle \(.)")]'
}

# replayed FILE: ocssim's bytes_sent on the schedule, then the bytes of
# the DAG's transfers.
replayed() {
	ocssim < "$1" > sim.mp
	report --dump sim.mp | jq 'select(.type == "result") | .bytes_sent'
	report --dump "$1" | jq -s '[.[] | select(.type == "task" and .kind == "transfer") | .bytes] | add'
}

# One switch, tau 1000 ps: W = 0-1 max(600, 200) = 600, 1-2 300,
# 2-3 max(400, 500) = 500.
path4() {
	{
		hdr
		net 4 "${1:-1}" 800000000000 1000
		xfer 0 '[]' 0 1 600
		xfer 1 '[]' 1 0 200
		xfer 2 '[0]' 1 2 300
		xfer 3 '[]' 2 3 400
		xfer 4 '[]' 3 2 500
	} | mk dag.mp
}

@test "rotorsched-tm: solstice stuffs, slices and serves a path of four GPUs as worked by hand" {
	path4
	rotorsched -m solstice < dag.mp > s.mp
	# Row sums 600, 900, 800, 500: T = 900, short 300, 0, 100, 400.
	# Stuffing, heaviest pair first: 0-1 +min(300, 0) = 0; 2-3
	# +min(100, 400) = 100, to 600; 1-2 +0.  GPUs 0 and 3 are still
	# short 300 each: laid end to end, H = 300, byte x of GPU 0 meets
	# byte x + 300 of GPU 3: a new pair 0-3 of 300 dummy bytes.  Every
	# row is now 900.
	# r = 512 (5120 ps): 0-1 600 and 2-3 600 are >= 512, one matching;
	#   0-1 has 88 real bytes left, 2-3 none (500 - 512), both 88 in all.
	# r = 256 (2560 ps): 0-3 300 and 1-2 300 (ids: 0-3 first), one
	#   matching, the circuit of 1-2 only (0-3 is dummy); 1-2 keeps 44.
	# r = 128 (1280 ps): nothing is >= 128.  r = 64: 640 ps < tau, stop.
	# Tail, heaviest first: 0-1 88 (880 ps), then 1-2 44 (440 ps), which
	# shares GPU 1.  Dealt longest first, each followed by 1000 ps:
	# [0, 5120], [6120, 8680], [9680, 10560], [11560, 12000]; 13000.
	run circuits s.mp
	assert_output '[0,0,1,0,5120]
[0,2,3,0,5120]
[0,1,2,6120,8680]
[0,0,1,9680,10560]
[0,1,2,11560,12000]
13000'
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"schedule\")'"
	assert_output '{"type":"schedule","scheduler":"solstice","periodic":true,"period_ps":13000,"forwarding":"direct"}'
}

@test "rotorsched-tm: solstice on two switches, where one GPU cannot be stuffed, as worked by hand" {
	{
		hdr
		net 4 2 800000000000 1000
		xfer 0 '[]' 0 1 600
		xfer 1 '[0]' 0 1 400
		xfer 2 '[]' 1 0 300
		xfer 3 '[]' 2 1 100
	} | mk dag.mp
	rotorsched -m solstice < dag.mp > s.mp
	# W: 0-1 max(1000, 300) = 1000, 1-2 100; GPU 3 has no traffic and
	# is left out.  Rows 1000, 1100, 100: T = 1100, short 100, 0, 1000.
	# Both pairs touch GPU 1, which lacks nothing.  GPU 2 lacks more
	# than GPU 0 (100), so it gets only 100: a dummy pair 0-2 of 100,
	# and GPU 2 stays 900 short.
	# r = 512: 0-1 (5120 ps), 488 left; r = 256: 0-1 (2560 ps), 232
	# left; r = 128: 0-1 (1280 ps), 104 left (1-2 and 0-2, 100, are
	# below); r = 64: 640 ps < tau, stop.  Tail: 0-1 104 (1040 ps), then
	# 1-2 100 (1000 ps).  Deal, longest first, to the least load:
	# 5120 -> switch 0 [0, 5120], load 6120; 2560 -> 1 [0, 2560], 3560;
	# 1280 -> 1 [3560, 4840], 5840; 1040 -> 1 [5840, 6880], 7880;
	# 1000 -> 0 [6120, 7120], 8120.  Period 8120.
	run circuits s.mp
	assert_output '[0,0,1,0,5120]
[0,1,2,6120,7120]
[1,0,1,0,2560]
[1,0,1,3560,4840]
[1,0,1,5840,6880]
8120'
}

@test "rotorsched-tm: solstice's dummy pair takes its GPUs in a slice, as worked by hand" {
	{
		hdr
		net 5 1 800000000000 1000
		xfer 0 '[]' 4 1 500
		xfer 1 '[]' 2 3 200
		xfer 2 '[]' 0 2 200
	} | mk dag.mp
	rotorsched -m solstice < dag.mp > s.mp
	# W: 1-4 500, 0-2 200, 2-3 200.  Rows 200, 500, 400, 200, 500:
	# T = 500, short 300, 0, 100, 300, 0.  Heaviest first: 1-4 +0;
	# 0-2 (ids before 2-3) +min(300, 100) = 100, to 300; 2-3 +0.
	# Short: GPU 3 300, GPU 0 200; 300 > 200, so GPU 3 gets 200: a
	# dummy pair 0-3 of 200, and GPU 3 stays 100 short.
	# r = 256 (2560 ps): 1-4 500, 0-2 300: one matching; 1-4 keeps 244,
	#   0-2 none (200 real, 44 stuffed left).
	# r = 128 (1280 ps): 1-4 244, 0-3 200, 2-3 200: 1-4 and the dummy
	#   0-3, which keeps 2-3 out (GPU 3): a circuit for 1-4 only (116
	#   left); then 2-3 (72 left).
	# r = 64: 640 ps < tau.  Tail: 1-4 116 and 2-3 72 together, 1160 ps.
	# One switch: [0, 2560], [3560, 4840], [5840, 7120], [8120, 9280].
	# (Without the dummy pair, 2-3 would join 1-4 at r = 128: three
	# configurations and a period of 8000.)
	run circuits s.mp
	assert_output '[0,0,2,0,2560]
[0,1,4,0,2560]
[0,1,4,3560,4840]
[0,2,3,5840,7120]
[0,1,4,8120,9280]
[0,2,3,8120,9280]
10280'
}

@test "rotorsched-tm: solstice slices the study's matrix by the bits of its entries" {
	tracegen -l 8 -t 4 -d 2 | dagbuild -r 1us > dag.mp
	rotorsched -m solstice < dag.mp > s.mp
	# Every GPU has two tensor-parallel ring pairs of 1610612736 bytes
	# = 2^30 + 2^29 and one data-parallel pair of 872448000 = 2^29 +
	# 2^28 + 2^26 + 2^15: all rows are equal, nothing is stuffed.  The
	# rings make two perfect matchings, the data-parallel pairs one.
	# r = 2^30: the two ring matchings; r = 2^29: the data-parallel one
	# (872448000 first), then the two ring ones; 2^28 and 2^26: the
	# data-parallel one; 2^16 bytes take 655360 ps < 1 us: the tail
	# serves the last 2^15 of it (327680 ps).
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"circuit\") | .to_ps - .from_ps' | sort -n | uniq -c | awk '{print \$1, \$2}'"
	assert_output '4 327680
4 671088640
4 2684354560
12 5368709120
8 10737418240'
	# at 1 ms, 2^27 bytes (1.34 ms) is the last threshold: 2^26 + 2^15
	# are left to the tail
	tracegen -l 8 -t 4 -d 2 | dagbuild -r 1ms > dag.mp
	rotorsched -m solstice < dag.mp > s.mp
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"circuit\") | .to_ps - .from_ps' | sort -n | uniq -c | awk '{print \$1, \$2}'"
	assert_output '4 671416320
4 2684354560
12 5368709120
8 10737418240'
}

@test "rotorsched-tm: eclipse serves a path of four GPUs as worked by hand" {
	path4
	rotorsched -m eclipse < dag.mp > s.mp
	# W: 0-1 600, 1-2 300, 2-3 500; tau 1000 ps.  Objective
	# served / (a + tau), a from the distinct entries:
	# a = 3000 (c 300): 0-1, 2-3 (1-2 shares GPU 1): 600 / 4000 = .15
	# a = 5000 (c 500): 0-1, 2-3: 1000 / 6000 = .167
	# a = 6000 (c 600): 0-1 600, then 2-3 500: 1100 / 7000 = .157
	# -> 5000 ps of 0-1 and 2-3; 0-1 keeps 100.
	# Then 0-1 100, 1-2 300: a = 1000: 0-1, 100 / 2000 = .05;
	# a = 3000: 1-2, 300 / 4000 = .075 -> 1-2 for 3000 ps; then 0-1
	# for 1000.  One switch: [0, 5000], [6000, 9000], [10000, 11000].
	run circuits s.mp
	assert_output '[0,0,1,0,5000]
[0,2,3,0,5000]
[0,1,2,6000,9000]
[0,0,1,10000,11000]
12000'
	run bash -c "report --dump s.mp | jq -r 'select(.type == \"schedule\") | .scheduler'"
	assert_output eclipse
}

@test "rotorsched-tm: eclipse breaks an exact three-way tie for the longest time" {
	{
		hdr
		net 4 2 800000000000 1000
		xfer 0 '[]' 0 1 1000
		xfer 1 '[]' 3 2 100
		xfer 2 '[]' 1 3 600
	} | mk dag.mp
	rotorsched -m eclipse < dag.mp > s.mp
	# W: 0-1 1000, 1-3 600, 2-3 100.
	# a = 1000 (c 100): 0-1, 2-3 (1-3 shares 1): 200 / 2000 = 0.1
	# a = 6000 (c 600): 0-1, then 2-3: 700 / 7000 = 0.1
	# a = 10000 (c 1000): 0-1 1000, 2-3 100: 1100 / 11000 = 0.1
	# Equal as products (200 x 7000 = 700 x 2000, 700 x 11000 = 1100 x
	# 7000): the longest wins, and finishes 0-1 and 2-3; then 1-3 for
	# 6000.  Deal: 10000 on switch 0 (load 11000), 6000 on switch 1.
	# (BvN makes three matchings of this: 1000, 9000 and 6000 ps.)
	run circuits s.mp
	assert_output '[0,0,1,0,10000]
[0,2,3,0,10000]
[1,1,3,0,6000]
11000'
	rotorsched -m bvn < dag.mp > b.mp
	run bash -c "report --dump b.mp | jq -s -c '[.[] | select(.type == \"circuit\") | [.switch, .from_ps]] | unique | length'"
	assert_output 3
}

@test "rotorsched-tm: eclipse stretches a best configuration that would finish none of its pairs" {
	{
		hdr
		net 4 1 300000000000 0
		xfer 0 '[]' 0 1 4
		xfer 1 '[]' 2 0 3
		xfer 2 '[]' 2 3 4
	} | mk dag.mp
	rotorsched -m eclipse < dag.mp > s.mp
	# 300 Gbit/s: a byte takes 80/3 ps; tau 0.  W: 0-1 4, 0-2 3, 2-3 4.
	# a = 80 (3 bytes, c 3): by ids 0-1, then 2-3 (0-2 shares GPU 0):
	#   6 / 80 = 0.075, but both keep a byte.
	# a = 107 (4 bytes, ceil(320/3); c = floor(107 x 3/80) = 4): 0-1,
	#   2-3: 8 / 107 = 0.0748 < 0.075.
	# The best finishes nothing, so it is stretched to 107 ps, which
	# finishes both; then 0-2 for 80.  Period 187.
	run circuits s.mp
	assert_output '[0,0,1,0,107]
[0,2,3,0,107]
[0,0,2,107,187]
187'
}

@test "rotorsched-tm: every pair's demand is covered, and ocssim sends every byte" {
	local m f

	path4 2
	cp dag.mp path.mp
	tracegen -l 2 -t 4 -d 2 | dagbuild -r 10us > study.mp
	for f in path.mp study.mp; do
		for m in solstice eclipse bvn; do
			rotorsched -m $m < $f > s.mp
			run uncovered s.mp
			[ "$output" = "[]" ] || fail "$m on $f: $output"
			run replayed s.mp
			[ "${lines[0]}" = "${lines[1]}" ] && [ "${#lines[@]}" -eq 2 ] ||
			    fail "$m on $f: bytes sent, bytes: $output"
		done
	done
}

@test "rotorsched-tm: random DAGs are covered and replayed whole under every tau, switch count and model" {
	local seed m sw tau model

	for seed in 1 2 3 4 5 6; do
		sw=$((1 + seed % 3))
		tau=$(((seed % 3) * 500))
		model=$([ $((seed % 2)) -eq 0 ] && echo port || echo switch)
		# seeded inside the pipeline's subshell, which bash reseeds
		{
			RANDOM=$seed
			hdr
			echo "{\"type\":\"net\",\"gpus\":6,\"switches\":$sw,\"bandwidth_bps\":800000000000,\"reconfig_ps\":$tau,\"reconfig_model\":\"$model\",\"latency_ps\":0}"
			randtasks 6 16 5
		} | mk dag.mp
		for m in solstice eclipse; do
			rotorsched -m $m < dag.mp > s.mp ||
			    fail "seed $seed: rotorsched -m $m failed"
			run uncovered s.mp
			[ "$output" = "[]" ] || fail "seed $seed, $m: $output"
			run replayed s.mp
			[ "${lines[0]}" = "${lines[1]}" ] ||
			    fail "seed $seed, $m: bytes sent, bytes: $output"
		done
	done
}

# The matrix modes under -T 1ns cut their search before it starts: the
# rest, maximal matchings heaviest first, each as long as its heaviest.
# Path4: 0-1 600 and 2-3 500 together for 6000 ps, tau, 1-2 300 for
# 3000 ps, tau: a period of 11000 ps.
@test "rotorsched-tm: regression: -T bounded only -p best; it cuts the matrix modes' search (eclipse was cubic), and the schedule stays whole" {
	local m f

	path4
	for m in bvn solstice eclipse; do
		rotorsched -m $m -T 1ns < dag.mp > s.mp 2> err
		grep -q "^rotorsched: -T: the time limit cut" err
		run circuits s.mp
		assert_output - <<-END
		[0,0,1,0,6000]
		[0,2,3,0,6000]
		[0,1,2,7000,10000]
		11000
		END
	done
	tracegen -l 2 -t 4 -d 2 | dagbuild -r 10us > study.mp
	for m in bvn solstice eclipse; do
		rotorsched -m $m -T 1ns < study.mp > s.mp 2> /dev/null
		run uncovered s.mp
		[ "$output" = "[]" ] || fail "$m: $output"
		run replayed s.mp
		[ "${lines[0]}" = "${lines[1]}" ] || fail "$m: $output"
	done
	# without the limit, no word of it
	rotorsched -m eclipse < dag.mp 2> err > /dev/null
	[ ! -s err ]
}

# An all-to-all of 24 GPUs, each transfer of its own size: 276 pairs of
# distinct bytes, more than the 64 durations Eclipse tries a step.
@test "rotorsched-tm: eclipse on more distinct entries than it tries covers every pair, replays whole, and is deterministic" {
	local s d i=0

	{
		hdr
		net 24 2 800000000000 100000
		for ((s = 0; s < 24; s++)); do
			for ((d = 0; d < 24; d++)); do
				((s == d)) && continue
				xfer $i '[]' $s $d $((1000 + i * 7919 % 100003))
				i=$((i + 1))
			done
		done
	} | mk dag.mp
	rotorsched -m eclipse < dag.mp > s.mp
	rotorsched -m eclipse < dag.mp > s2.mp
	cmp s.mp s2.mp
	run uncovered s.mp
	assert_output "[]"
	run replayed s.mp
	[ "${lines[0]}" = "${lines[1]}" ]
}

@test "rotorsched-tm: the check of coverage fails on a schedule cut short" {
	path4
	rotorsched -m solstice < dag.mp > s.mp
	# the last configuration (1-2, 440 ps) taken 10 ps short
	report --dump s.mp | jq -c 'if .type == "circuit" and .from_ps == 11560 then .to_ps -= 10 else . end' | jsonpack > cut.mp
	run uncovered cut.mp
	assert_output '["short 1-2"]'
}

@test "rotorsched-tm: a pair of no byte joins the first configuration with its GPUs free, or one of 1 ps" {
	{
		hdr
		net 4 1 800000000000 1000
		xfer 0 '[]' 0 1 600
		xfer 1 '[0]' 2 3 0
		xfer 2 '[1]' 1 2 300
	} | mk dag.mp
	# 2-3 carries nothing but its transfer waits for a circuit.
	# Eclipse: a = 3000 serves 0-1, 1-2 blocked: 300 / 4000; a = 6000
	# serves 600 / 7000, more: 0-1 for 6000 ps, then 1-2 for 3000.
	# 2-3 joins the first, where GPUs 2 and 3 are free.
	rotorsched -m eclipse < dag.mp > s.mp
	run circuits s.mp
	assert_output '[0,0,1,0,6000]
[0,2,3,0,6000]
[0,1,2,7000,10000]
11000'
	run replayed s.mp
	assert_output '900
900'
	# Solstice: rows 600, 900, 300, short 300, 0, 600; both pairs touch
	# GPU 1 and get nothing; a dummy 0-2 of 300.  The first slice, 0-1
	# alone at r = 512 (5120 ps), has GPUs 2 and 3 free.
	rotorsched -m solstice < dag.mp > s.mp
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"circuit\" and .a == 2) | [.from_ps, .to_ps]'"
	assert_output '[0,5120]'
	run replayed s.mp
	assert_output '900
900'
	# with no byte at all, matchings of 1 ps
	{
		hdr
		net 4 1 800000000000 1000
		xfer 0 '[]' 0 1 0
		xfer 1 '[]' 1 2 0
	} | mk zero.mp
	for m in bvn solstice eclipse; do
		rotorsched -m $m < zero.mp > s.mp
		run circuits s.mp
		assert_output '[0,0,1,0,1]
[0,1,2,1001,1002]
2002'
		run replayed s.mp
		assert_output '0
0'
	done
}

@test "rotorsched-tm: work follows the pairs, not the 2^20 GPUs" {
	{
		hdr
		net 1048576 2 800000000000 1000000
		xfer 0 '[]' 0 1 3000
		xfer 1 '[0]' 5 1048575 5000
	} | mk big.mp
	# Solstice: rows 3000, 3000, 5000, 5000; 0-1 is stuffed to 5000.
	# 4096 bytes take 40960 ps < 1 us: all is tail, one matching of
	# 50000 ps.  Eclipse: a = 30000 serves 6000 / 1030000, a = 50000
	# serves 8000 / 1050000, more: one matching of 50000 ps.
	for m in solstice eclipse; do
		rotorsched -m $m < big.mp > s.mp
		run circuits s.mp
		assert_output '[0,0,1,0,50000]
[0,5,1048575,0,50000]
1050000'
	done
}

@test "rotorsched-tm: the same input gives byte-identical output" {
	local m

	for m in solstice eclipse; do
		rotorsched -m $m < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > a.mp
		rotorsched -m $m < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > b.mp
		cmp a.mp b.mp
	done
}

@test "rotorsched-tm: an unknown mode is refused with the list of modes" {
	run rotorsched -m solstic < /dev/null
	assert_failure 2
	assert_line 'rotorsched: -m solstic: mode is rotor, bvn, solstice, eclipse, static or phase'
	assert_line 'usage: rotorsched [-v] [-c vlb-cap] [-d duty] [-f direct|vlb|rotorlb]'
	assert_line --regexp '^ +\[-m rotor\|bvn\|solstice\|eclipse\|static\|phase\]'
}

@test "rotorsched-tm: the rotor options are refused with solstice and eclipse" {
	local m o

	for m in solstice eclipse; do
		for o in "-d 0.5" "-s 10us" "-f direct" "-f vlb" "-c 1MB" "-f vlb -c 1MB"; do
			run rotorsched -m $m $o < /dev/null
			[ "$status" -eq 2 ] || fail "-m $m $o exited $status"
			assert_line 'rotorsched: -c, -d, -f and -s go with -m rotor'
		done
	done
}

@test "rotorsched-tm: a DAG without transfers is refused" {
	{
		hdr
		net 4 1 800000000000 1000
		comp 0 '[]' 0 100
	} | mk dag.mp
	for m in solstice eclipse; do
		run bash -c "rotorsched -m $m < dag.mp > /dev/null"
		assert_failure 1
		assert_output 'rotorsched: stdin: no transfers: there is no traffic to schedule'
	done
}

@test "rotorsched-tm: sums and times past 64 bits are refused with a message" {
	# at 8e17 bit/s each pair's 2^63 bytes take 9.2e13 ps: only the sum
	# of GPU 0's pairs overflows
	{
		hdr
		net 4 1 800000000000000000 1000
		xfer 0 '[]' 0 1 9223372036854775808
		xfer 1 '[]' 0 2 9223372036854775808
	} | mk dag.mp
	run bash -c "rotorsched -m solstice < dag.mp > /dev/null"
	assert_failure 1
	assert_output 'rotorsched: stdin: the pairs of GPU 0 carry more than 2^64 - 1 bytes'
	# at 800 Gbit/s a pair's own time does (defect 10's test has more)
	{
		hdr
		net 4 1 800000000000 1000
		xfer 0 '[]' 0 1 9223372036854775808
		xfer 1 '[]' 0 2 9223372036854775808
	} | mk dag.mp
	run bash -c "rotorsched -m eclipse < dag.mp > /dev/null"
	assert_failure 1
	assert_output 'rotorsched: stdin: the 9223372036854775808 bytes between GPUs 0 and 1 take more than 2^64 ps at 800000000000 bit/s'
	# the period
	{
		hdr
		net 4 1 800000000000 18446744073709551615
		xfer 0 '[]' 0 1 1000
	} | mk tau.mp
	for m in solstice eclipse; do
		run bash -c "rotorsched -m $m < tau.mp > /dev/null"
		assert_failure 1
		assert_output 'rotorsched: the period passes 2^64 - 1 ps on switch 0'
	done
}

@test "rotorsched-tm: regression: defect 10: a pair whose bytes take 2^64 ps or more is refused naming its bytes, not what a mode had left of them" {
	# 2^63 bytes from 0 to 1 beside 5 bytes from 2 to 3: bvn named
	# 2^63 - 5 bytes (what its first round left), solstice 2^62 for
	# 2^63 - 1 (a slice); at 800 Gbit/s 1844674407370955161 bytes take
	# 2^64 - 6 ps, one more byte 2^64 + 4
	for b in 9223372036854775808 9223372036854775807 1844674407370955162; do
		{ hdr; net 4 2 800000000000 10000000
		  xfer 0 '[]' 0 1 $b; xfer 1 '[]' 2 3 5; } | mk big.mp
		for m in bvn solstice eclipse; do
			run bash -c "rotorsched -m $m < big.mp > out.mp"
			assert_failure 1
			assert_output "rotorsched: stdin: the $b bytes between GPUs 0 and 1 take more than 2^64 ps at 800000000000 bit/s"
			[ ! -s out.mp ]
		done
	done
	# one byte fewer is no pair's fault: solstice schedules it, the
	# others refuse the period it makes with tau
	{ hdr; net 4 2 800000000000 10000000
	  xfer 0 '[]' 0 1 1844674407370955161; } | mk ok.mp
	rotorsched -m solstice < ok.mp > out.mp
	run bash -c "rotorsched -m bvn < ok.mp > out.mp"
	assert_failure 1
	assert_output "rotorsched: the period passes 2^64 - 1 ps on switch 0"
}
