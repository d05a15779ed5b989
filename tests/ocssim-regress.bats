#!/usr/bin/env bats
# ocssim: regressions found by an adversarial test of fluxocs (issue 12).
# Inputs of a few hundred bytes must cost work and memory that follow
# their content, not their numbers, and every time and byte sum must be
# exact or refused.  The hang and memory guards (timeout, ulimit -v)
# only turn a hang into a failure; they assert no speed.

load helpers

result() {
	records "$1" result | jq -c "$2"
}

# net GPUS SWITCHES BPS [LATENCY]: a net record with no reconfiguration
net() {
	echo "{\"type\":\"net\",\"gpus\":$1,\"switches\":$2,\"bandwidth_bps\":$3,\"reconfig_ps\":0,\"latency_ps\":${4:-0}}"
}

# bounded CMD...: run CMD with a memory cap and a hang guard, on the
# release build (the sanitizers reserve more address space than the cap).
bounded() {
	(ulimit -v 1000000; timeout 60 "$@")
}

@test "ocssim: regression: a slow transfer under a 50 ns periodic schedule grew memory without bound" {
	set -o pipefail
	{ hdr; net 2 1 256; xfer 0 '[]' 0 1 1000; } | pack | rotorsched -s 50ns > s.mp
	bounded "$FLUXOCS_RELBIN/ocssim" -t < s.mp > out.mp
	# 8000 bits at 256 bit/s over a circuit up all the time: 31.25 s
	run result out.mp '[.makespan_ps, .bytes_sent]'
	assert_output '[31250000000000,1000]'
	run bash -c "records out.mp switchstat | jq -c '[.up_ps, .bytes]'"
	assert_output '[31250000000000,1000]'
	run bash -c "timeout 60 ocssim < s.mp | report --dump | jq -c 'select(.type == \"result\") | .makespan_ps'"
	assert_output 31250000000000
}

@test "ocssim: regression: a compute of 1e19 ps under a 100 us periodic schedule ran for ever" {
	set -o pipefail
	{ hdr; net 2 1 800000000000; comp 0 '[]' 0 10000000000000000000; } |
	    pack | rotorsched -s 100us > s.mp
	bounded "$FLUXOCS_RELBIN/ocssim" < s.mp > out.mp
	# the circuit comes and goes 1e11 times: two events a period
	run result out.mp '[.makespan_ps, .events]'
	assert_output '[10000000000000000000,200000000000]'
	run bash -c "records out.mp gpustat | jq -c '[.gpu, .busy_ps]'"
	assert_output '[0,10000000000000000000]
[1,0]'
	run bash -c "records out.mp switchstat | jq -c '.up_ps'"
	assert_output 10000000000000000000
	run bash -c "timeout 60 ocssim -l log.txt < s.mp > /dev/null && grep skip log.txt"
	assert_output '200000000 skip 99999999998 periods to 10000000000000000000'
}

# The results of the unskipped simulator (fluxocs before the fix, which
# took 2 s here): planned and unplanned transfers on two switches whose
# circuits are up for part of each period, a compute, a delivery latency
# and a plan that waits 30 ms.
@test "ocssim: regression: periods skipped in closed form give the results of simulating each" {
	{
		hdr; net 4 2 1000000 5000000000
		xfer 0 '[]' 0 1 10000
		xfer 1 '[]' 0 1 5000
		xfer 2 '[]' 2 3 1000
		comp 3 '[2]' 3 12345678901
		xfer 4 '[3]' 3 2 999
		echo '{"type":"schedule","scheduler":"hand","periodic":true,"period_ps":50000}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":10000,"to_ps":40000}'
		echo '{"type":"circuit","switch":1,"a":0,"b":1,"from_ps":0,"to_ps":20000}'
		echo '{"type":"circuit","switch":1,"a":2,"b":3,"from_ps":30000,"to_ps":50000}'
		echo '{"type":"circuit","switch":0,"a":2,"b":3,"from_ps":45000,"to_ps":50000}'
		echo '{"type":"plan","task":1,"switch":1,"start_ps":30000000000}'
	} | mk s.mp
	timeout 60 "$FLUXOCS_RELBIN/ocssim" -t -l log.txt < s.mp > out.mp
	run grep -c ' skip ' log.txt
	assert_output 5
	run bash -c "report --dump out.mp | jq -c 'select(.type != \"header\" and .type != \"task\" and .type != \"net\" and .type != \"schedule\" and .type != \"circuit\" and .type != \"plan\" and .type != \"end\") | del(.events)'"
	assert_output '{"type":"result","makespan_ps":134999970000,"step_ps":[134999970000],"peak_buffer_bytes":15000,"reconfigs":0,"bytes_sent":16999,"fabric":"schedule","scheduler":"hand"}
{"type":"gpustat","gpu":0,"busy_ps":0,"stall_ps":0,"peak_buffer_bytes":15000,"bytes_sent":15000}
{"type":"gpustat","gpu":1,"busy_ps":0,"stall_ps":0,"peak_buffer_bytes":0,"bytes_sent":0}
{"type":"gpustat","gpu":2,"busy_ps":0,"stall_ps":0,"peak_buffer_bytes":1000,"bytes_sent":1000}
{"type":"gpustat","gpu":3,"busy_ps":12345678901,"stall_ps":21000000000,"peak_buffer_bytes":999,"bytes_sent":999}
{"type":"switchstat","switch":0,"reconfigs":0,"up_ps":94499975000,"bytes":8832,"utilization":0.3738413687411028}
{"type":"switchstat","switch":1,"reconfigs":0,"up_ps":107999980000,"bytes":8166,"utilization":0.3024445004526853}
{"type":"taskrun","id":0,"start_ps":0,"end_ps":118333330000}
{"type":"taskrun","id":1,"start_ps":30000000000,"end_ps":134999970000}
{"type":"taskrun","id":2,"start_ps":30000,"end_ps":21000000000}
{"type":"taskrun","id":3,"start_ps":21000000000,"end_ps":33345678901}
{"type":"taskrun","id":4,"start_ps":33345680000,"end_ps":54329650000}'
}
