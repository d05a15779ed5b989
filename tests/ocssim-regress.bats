#!/usr/bin/env bats
# ocssim: regressions found by an adversarial test of fluxocs (issue 12).
# Inputs of a few hundred bytes must cost work and memory that follow
# their content, not their numbers, and every time and byte sum must be
# exact or refused.  The hang and memory guards (timeout, ulimit -v)
# only turn a hang into a failure; they assert no speed.

load helpers

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
	run field out.mp result makespan_ps
	assert_output 31250000000000
	run field out.mp result bytes_sent
	assert_output 1000
	run field out.mp switchstat up_ps
	assert_output 31250000000000
	run field out.mp switchstat bytes
	assert_output 1000
	run bash -c "timeout 60 ocssim < s.mp | report --dump | jq -c 'select(.type == \"result\") | .makespan_ps'"
	assert_output 31250000000000
}

@test "ocssim: regression: a compute of 1e19 ps under a 100 us periodic schedule ran for ever" {
	set -o pipefail
	{ hdr; net 2 1 800000000000; comp 0 '[]' 0 10000000000000000000; } |
	    pack | rotorsched -s 100us > s.mp
	bounded "$FLUXOCS_RELBIN/ocssim" < s.mp > out.mp
	bounded "$FLUXOCS_RELBIN/ocssim" -E < s.mp > every.mp
	# the circuit comes and goes 1e11 times: two events a period when
	# every circuit is simulated, the last up and down at 1e19 ps before
	# the compute's end; slot by slot no traffic waits for it
	run field out.mp result makespan_ps
	assert_output 10000000000000000000
	run field out.mp result events
	assert_output 1
	run field every.mp result events
	assert_output 200000000002
	run field out.mp gpustat busy_ps
	assert_output '10000000000000000000
0'
	run field out.mp switchstat up_ps
	assert_output 10000000000000000000
	run field every.mp switchstat up_ps
	assert_output 10000000000000000000
	run bash -c "timeout 60 ocssim -E -l log.txt < s.mp > /dev/null && grep skip log.txt"
	assert_output '200000000 skip 99999999998 periods to 10000000000000000000'
}

# skipping DURATION: planned and unplanned transfers on two switches
# whose circuits are up for part of each 50 ns period, a compute of
# DURATION ps, a delivery latency and a plan that waits 30 ms.
skipping() {
	hdr; net 4 2 1000000 5000000000
	xfer 0 '[]' 0 1 10000
	xfer 1 '[]' 0 1 5000
	xfer 2 '[]' 2 3 1000
	comp 3 '[2]' 3 "$1"
	xfer 4 '[3]' 3 2 999
	echo '{"type":"schedule","scheduler":"hand","periodic":true,"period_ps":50000}'
	echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":10000,"to_ps":40000}'
	echo '{"type":"circuit","switch":1,"a":0,"b":1,"from_ps":0,"to_ps":20000}'
	echo '{"type":"circuit","switch":1,"a":2,"b":3,"from_ps":30000,"to_ps":50000}'
	echo '{"type":"circuit","switch":0,"a":2,"b":3,"from_ps":45000,"to_ps":50000}'
	echo '{"type":"plan","task":1,"switch":1,"start_ps":30000000000}'
}

# The results of the unskipped simulator (fluxocs before the fix, which
# took 2 s here): planned and unplanned transfers on two switches whose
# circuits are up for part of each period, a compute, a delivery latency
# and a plan that waits 30 ms.  The NIC's peak (plan-aware host) comes at
# 30 ms: the unplanned 10000 B, handed over whole, have 6250 B left
# (1 Mbit/s on average for 30 ms) and the planned 5000 B stream a 4096 B
# window.  The bound: GPU 0's 15000 B at 2 Mbit/s, then 5 ms of latency.
@test "ocssim: regression: periods skipped in closed form give the results of simulating each" {
	skipping 12345678901 | mk s.mp
	timeout 60 "$FLUXOCS_RELBIN/ocssim" -E -t -l log.txt < s.mp > every.mp
	run grep -c ' skip ' log.txt
	assert_output 5
	# slot by slot, fewer events a period: fewer stretches are worth it
	timeout 60 "$FLUXOCS_RELBIN/ocssim" -t -l log.txt < s.mp > out.mp
	run grep -c ' skip ' log.txt
	assert_output 3
	run bash -c "report --dump out.mp | grep -v header | sed 's/\"events\":[0-9]*//' > a.txt; report --dump every.mp | grep -v header | sed 's/\"events\":[0-9]*//' > b.txt; cmp a.txt b.txt"
	assert_success
	run bash -c "report --dump out.mp | jq -c 'select(.type != \"header\" and .type != \"task\" and .type != \"net\" and .type != \"schedule\" and .type != \"circuit\" and .type != \"plan\" and .type != \"end\") | del(.events)'"
	assert_output '{"type":"result","makespan_ps":134999970000,"step_ps":[134999970000],"peak_buffer_bytes":15000,"peak_nic_bytes":10346,"nic_host":"plan","packet_bytes":4096,"lower_bound_ps":65000000000,"reconfigs":0,"bytes_sent":16999,"fabric":"schedule","scheduler":"hand","replay":"none"}
{"type":"gpustat","gpu":0,"busy_ps":0,"stall_ps":0,"peak_buffer_bytes":15000,"peak_nic_bytes":10346,"bytes_sent":15000}
{"type":"gpustat","gpu":1,"busy_ps":0,"stall_ps":0,"peak_buffer_bytes":0,"peak_nic_bytes":0,"bytes_sent":0}
{"type":"gpustat","gpu":2,"busy_ps":0,"stall_ps":0,"peak_buffer_bytes":1000,"peak_nic_bytes":1000,"bytes_sent":1000}
{"type":"gpustat","gpu":3,"busy_ps":12345678901,"stall_ps":21000000000,"peak_buffer_bytes":999,"peak_nic_bytes":999,"bytes_sent":999}
{"type":"switchstat","switch":0,"reconfigs":0,"up_ps":94499975000,"bytes":8832,"utilization":0.3738413687411028}
{"type":"switchstat","switch":1,"reconfigs":0,"up_ps":107999980000,"bytes":8166,"utilization":0.3024445004526853}
{"type":"taskrun","id":0,"start_ps":0,"end_ps":118333330000}
{"type":"taskrun","id":1,"start_ps":30000000000,"end_ps":134999970000}
{"type":"taskrun","id":2,"start_ps":30000,"end_ps":21000000000}
{"type":"taskrun","id":3,"start_ps":21000000000,"end_ps":33345678901}
{"type":"taskrun","id":4,"start_ps":33345680000,"end_ps":54329650000}'
}

@test "ocssim: regression: a transfer of 2^64-1 bytes wrapped its end time and exited 0" {
	{ hdr; net 4 2 800000000000; xfer 0 '[]' 0 1 18446744073709551615; } | mk s.mp
	run ocssim -f ideal < s.mp
	assert_failure 1
	assert_output 'ocssim: transfer 0 (0->1, 18446744073709551615 bytes) ends after 18446744073709551615 ps'
}

@test "ocssim: regression: latency_ps of 2^64-1 wrapped the delivery time and exited 0" {
	{ hdr; net 4 2 800000000000 18446744073709551615; xfer 0 '[]' 0 1 1000; } | mk s.mp
	run ocssim -f ideal < s.mp
	assert_failure 1
	assert_output 'ocssim: transfer 0 arrives after 18446744073709551615 ps: it is sent at 5000 ps and latency_ps is 18446744073709551615'
}

@test "ocssim: regression: bytes_sent wrapped on a sum of two transfers" {
	{ hdr; net 4 1 8000000000000000000
	  xfer 0 '[]' 0 1 9223372036854775808; xfer 1 '[]' 2 3 9223372036854775808; } | mk s.mp
	run ocssim -f ideal < s.mp
	assert_failure 1
	assert_output 'ocssim: the transfers total 18446744073709551616 bytes, more than 18446744073709551615'
}

@test "ocssim: regression: the port rate of all switches wrapped" {
	{ hdr; net 4 2 18446744073709551615; xfer 0 '[]' 0 1 1000; } | mk s.mp
	run ocssim -f ideal < s.mp
	assert_failure 1
	assert_output 'ocssim: 2 switches at 18446744073709551615 bit/s give a GPU 36893488147419103230 bit/s, more than 18446744073709551615'
}

@test "ocssim: regression: a compute ending past 2^64-1 ps wrapped" {
	{ hdr; net 4 2 800000000000; comp 0 '[]' 0 18446744073709551615; comp 1 '[0]' 0 1; } | mk s.mp
	run ocssim -f ideal < s.mp
	assert_failure 1
	assert_output 'ocssim: compute task 1 ends after 18446744073709551615 ps: it starts at 18446744073709551615 ps and lasts 1 ps'
}

@test "ocssim: regression: periodic circuits past 2^64-1 ps wrapped, but a run that ends at it is exact" {
	base() { hdr; net 4 2 800000000000; comp 0 '[]' 0 18446744073709551615; }
	sched() { echo '{"type":"schedule","scheduler":"hand","periodic":true,"period_ps":1000000}'
	  echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0,"to_ps":500000}'; }
	{ base; xfer 1 '[0]' 0 1 1; sched; } | mk s.mp
	run timeout 60 ocssim < s.mp
	assert_failure 1
	assert_output 'ocssim: simulated time passes 18446744073709551615 ps with 1 of 2 tasks done'
	{ base; sched; } | mk s.mp
	timeout 60 ocssim < s.mp > out.mp
	run field out.mp result makespan_ps
	assert_output 18446744073709551615
	run field out.mp switchstat up_ps
	assert_output '9223372036855000000
0'
}

# planned START CIRCUIT: 1000 bytes 0->1 at 800 Gbit/s, planned on
# switch 0 to start at START, under a periodic schedule of 10 us whose
# only circuit is CIRCUIT.
planned() {
	{
		hdr
		echo '{"type":"net","gpus":3,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":1000000}'
		xfer 0 '[]' 0 1 1000
		echo '{"type":"schedule","scheduler":"hand","periodic":true,"period_ps":10000000}'
		echo "$2"
		echo "{\"type\":\"plan\",\"task\":0,\"switch\":0,\"start_ps\":$1}"
	} | mk s.mp
}

@test "ocssim: regression: a plan that starts more than two periods away was taken for a deadlock" {
	# circuits 0-1 up in [1, 9] us of every period; the plan's start
	# at 50 us falls between two, so the transfer starts at 51 us and
	# its 1000 bytes take 10 ns
	planned 50000000 '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":1000000,"to_ps":9000000}'
	ocssim -t < s.mp > out.mp
	run field out.mp taskrun start_ps
	assert_output 51000000
	run field out.mp result makespan_ps
	assert_output 51010000
	# a start inside a circuit's time starts on time
	planned 45000000 '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":1000000,"to_ps":9000000}'
	ocssim -t < s.mp > out.mp
	run field out.mp result makespan_ps
	assert_output 45010000
	# and a plan whose circuit never comes is still a deadlock
	planned 50000000 '{"type":"circuit","switch":0,"a":0,"b":2,"from_ps":1000000,"to_ps":9000000}'
	run ocssim < s.mp
	assert_failure 1
	assert_output --partial 'ocssim: deadlock at '
	assert_output --partial 'transfer 0 (0->1, 1000 bytes) waits for a circuit 0-1 on its planned switch that never comes'
}

# pairs N: the first N pairs a < b of 40 GPUs, "a b" a line.
pairs() {
	for a in $(seq 0 39); do for b in $(seq $((a + 1)) 39); do
		echo "$a $b"
	done; done | head -n "$1"
}

@test "ocssim: regression: a lookup of a pair failed when the pair table was exactly half full" {
	# 512 pairs fill the first table (1024 slots) to half: the lookup
	# of an existing pair as its circuit came up said "no such pair",
	# and the run deadlocked.  Transfer i (100 B, 1 ns at 800 Gbit/s)
	# has its own circuit, up i us to i + 1 us: the last ends 511 us +
	# 1 ns.
	for n in 511 512 513; do
		{
			hdr
			echo '{"type":"net","gpus":40,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":0}'
			i=0
			pairs $n | while read -r a b; do xfer $i '[]' "$a" "$b" 100; i=$((i + 1)); done
			echo '{"type":"schedule","scheduler":"hand"}'
			i=0
			pairs $n | while read -r a b; do
				echo "{\"type\":\"circuit\",\"switch\":0,\"a\":$a,\"b\":$b,\"from_ps\":$((i * 1000000)),\"to_ps\":$(((i + 1) * 1000000))}"
				i=$((i + 1))
			done
		} | mk s.mp
		run bash -c "ocssim < s.mp | report --dump | jq 'select(.type == \"result\") | .makespan_ps'"
		assert_success
		assert_output "$(((n - 1) * 1000000 + 1000))"
	done
}

# The stream of "periods skipped ..." with a compute ten times longer.
# Its two flows are paused and resumed every period; each resume left
# the old end event in the queue, so the queue grew by three events a
# period and every window's look at it grew with it: 55 s for the
# stream above on this machine, hours for this one.  Now: the compute
# starts at 21 ms, as above; after it 999 B at half of 1 Mbit/s (the
# circuits 2-3 are up half of each period) and 5 ms of latency.
@test "ocssim: regression: stale flow events piled up over a long quiet periodic run" {
	skipping 123456789010 | mk s.mp
	timeout 60 "$FLUXOCS_RELBIN/ocssim" < s.mp > out.mp
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"result\") | .makespan_ps'"
	assert_output $((21000000000 + 123456789010 + 2 * 7992000000 + 5000000000))
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"gpustat\") | .stall_ps'"
	assert_line --index 3 21000000000
}

# A flow in a slot the flow array had just grown into took its version
# number from the slot as it came (flow_new(): .ver = f->ver + 1), an
# uninitialized read that valgrind's memcheck reported on every fabric;
# the sanitizers do not see it.  The release build, under memcheck, on
# each fabric and host accounting.
@test "ocssim: regression: a new flow's version number was read before it was set" {
	set -o pipefail
	r=$FLUXOCS_RELBIN
	"$r/tracegen" -l 2 -t 4 -d 2 | "$r/dagbuild" > g.mp
	"$r/fluxsolve" -m greedy < g.mp > flux.mp
	"$r/rotorsched" -m bvn < g.mp > bvn.mp
	"$r/rotorsched" -m rotor -f vlb < g.mp > vlb.mp
	for c in "-f ideal:g.mp" ":flux.mp" "-H circuit:flux.mp" ":bvn.mp" \
	    ":vlb.mp" "-H unaware:vlb.mp"; do
		run bash -c "valgrind -q --error-exitcode=9 '$r/ocssim' \
		    ${c%%:*} < '${c#*:}' > /dev/null"
		assert_success
		refute_output
	done
}

# -S's file was opened after stdin's DAG had gone through to stdout: a
# missing file left a partial stream behind its error (issue 36).
@test "ocssim: regression: -S of a missing file wrote the DAG before its error" {
	# a DAG of 100 KB: more than the writer holds before it writes
	tracegen -l 2 -t 4 -d 4 | dagbuild > g.mp
	run bash -c "ocssim -S nothere.mp < g.mp > out.mp"
	assert_failure 1
	assert_output "ocssim: -S nothere.mp: No such file or directory"
	[ ! -s out.mp ]
}
