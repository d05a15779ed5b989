#!/usr/bin/env bats
# The lower bound of every result (lower_bound_ps, lib/solve/fabbound): every
# transfer at S*B, each GPU's computes in trace order, each GPU's load
# over its S ports.  Worked by hand, and never above any fabric's time.

load helpers

NET='{"type":"net","gpus":4,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":1000000,"reconfig_model":"port","latency_ps":0}'

# pair FILE: [makespan, bound] of its result.
pair() {
	records "$1" result | jq -c '[.makespan_ps, .lower_bound_ps]'
}

# GPU 0 computes 1 us, then sends 8 MB to each of 1, 2 and 3; GPU 1
# then computes 1 ms.  The transfer to 1 is the critical one.
fanout() {
	hdr; echo "$NET"
	comp 0 '[]' 0 1000000
	xfer 1 '[0]' 0 1 8000000
	xfer 2 '[0]' 0 2 8000000
	xfer 3 '[0]' 0 3 8000000
	comp 4 '[1]' 1 1000000000
}

@test "fabbound: a circuit schedule beats the max-min fair fabric, and the bound stays below both" {
	fanout | mk dag.mp
	# Fair: three flows of 2B/3 (533333333333 bit/s in whole bit/s)
	# take 64e6 bits / 533333333333 bit/s = 120.000000000075 us, the
	# first picosecond after: 1 us + 120.000001 us + 1 ms.
	ocssim -f ideal < dag.mp > ideal.mp
	run pair ideal.mp
	assert_output '[1121000001,1041000000]'
	# The independent simulator of the ideal fabric agrees.
	run idealsim < dag.mp
	assert_output --partial 1121000001
	# By hand: 0-1 on switch 0 for the critical transfer at B (80 us,
	# 1-81 us); 0-2 then 0-3 on switch 1 (1-81 us, tau, 82-162 us);
	# GPU 1 computes 81 us - 1.081 ms.
	{
		fanout
		echo '{"type":"schedule","scheduler":"hand"}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0}'
		echo '{"type":"circuit","switch":1,"a":0,"b":2,"from_ps":0,"to_ps":81000000}'
		echo '{"type":"circuit","switch":1,"a":0,"b":3,"from_ps":82000000}'
		echo '{"type":"plan","task":1,"switch":0,"start_ps":1000000}'
		echo '{"type":"plan","task":2,"switch":1,"start_ps":1000000}'
		echo '{"type":"plan","task":3,"switch":1,"start_ps":82000000}'
	} | mk hand.mp
	ocssim < hand.mp > out.mp
	# The bound: 1 us + 8 MB at 2B (40 us) + 1 ms; GPU 0's sends,
	# 1 us + 24 MB at 2B = 121 us, are below it.
	run pair out.mp
	assert_output '[1081000000,1041000000]'
	# Flux's greedy finds such a schedule too.
	fluxsolve -m greedy < dag.mp | ocssim > flux.mp
	run bash -c "report --dump flux.mp | jq 'select(.type == \"result\") | .makespan_ps < 1121000001 and .lower_bound_ps == 1041000000'"
	assert_output true
}

@test "fabbound: a GPU's sends over its S ports bound the time, tightly" {
	# GPU 0 sends 8 MB to each of 1, 2, 3 at once; each then computes
	# 10 us.  The critical path at S*B is 40 + 10 us, but GPU 0's 24 MB
	# take 120 us at 2B, then 10 us follow: 130 us, the fair fabric's
	# time exactly.  With 1 us of latency: 120 + 1 + 10 us.
	for lat in 0 1000000; do
		{
			hdr; echo "$NET" | jq -c ".latency_ps = $lat"
			xfer 0 '[]' 0 1 8000000
			xfer 1 '[]' 0 2 8000000
			xfer 2 '[]' 0 3 8000000
			comp 3 '[0]' 1 10000000
			comp 4 '[1]' 2 10000000
			comp 5 '[2]' 3 10000000
		} | mk dag.mp
		ocssim -f ideal < dag.mp > out.mp
		run pair out.mp
		assert_output "[$((130000001 + lat)),$((130000000 + lat))]"
	done
}

@test "fabbound: a GPU's receives bound the time as its sends do" {
	{
		hdr; echo "$NET"
		xfer 0 '[]' 1 0 4000000
		xfer 1 '[]' 2 0 4000000
		xfer 2 '[]' 3 0 8000000
	} | mk dag.mp
	# 16 MB into GPU 0 at 2B: 80 us; the critical path is 40 us.  The
	# fair fabric ends a picosecond later, its rates in whole bit/s.
	ocssim -f ideal < dag.mp > out.mp
	run pair out.mp
	assert_output '[80000001,80000000]'
}

@test "fabbound: a GPU computes in trace order, one task at a time" {
	# Two independent computes on GPU 0, 5 us and 7 us: 12 us.
	{
		hdr; echo "$NET"
		comp 0 '[]' 0 5000000
		comp 1 '[]' 0 7000000
		xfer 2 '[]' 1 2 800
	} | mk dag.mp
	ocssim -f ideal < dag.mp > out.mp
	run pair out.mp
	assert_output '[12000000,12000000]'
}

@test "fabbound: no fabric and no scheduler ends below the bound, which is the same for all" {
	set -o pipefail
	for s in "ocssim -f ideal" "fluxsolve -m greedy" "rotorsched -f direct" "rotorsched -f vlb" "rotorsched -m bvn"; do
		case $s in
		ocssim*) $s < "$DATA/dagbuild-l1-t2-d2.msgpack" > out.mp ;;
		*) $s < "$DATA/dagbuild-l1-t2-d2.msgpack" | ocssim > out.mp ;;
		esac
		records out.mp result | jq -c '[.lower_bound_ps, .makespan_ps >= .lower_bound_ps]' >> all.txt
	done
	run sort -u all.txt
	assert_output "$(head -n 1 all.txt)"
	assert_output --partial ',true]'
	run jq -s 'map(.[0]) | min > 0' all.txt
	assert_output true
}
