#!/usr/bin/env bats
# rotorsched: RotorNet and traffic-aware periodic (BvN) schedules.

load helpers

# An all-to-all of $1 bytes per rank over 8 GPUs, as a DAG.
alltoall8() {
	{
		hdr
		for r in 0 1 2 3 4 5 6 7; do
			echo "{\"type\":\"op\",\"id\":$r,\"rank\":$r,\"kind\":\"alltoall\",\"name\":\"a2a\",\"deps\":[],\"group\":[0,1,2,3,4,5,6,7],\"size\":$1,\"coll\":0}"
		done
	} | pack | dagbuild "${@:2}"
}

@test "rotorsched: 8 GPUs on 2 rotors follow RotorNet's table" {
	alltoall8 800 -r 1us > dag.mp
	rotorsched < dag.mp > s.mp
	run bash -c "report --dump s.mp | jq -r 'select(.type == \"circuit\" and .a == 0) | \"\(.switch) \(.from_ps) \(.b)\"' | sort -n -k1 -k2 | tr '\n' ,"
	# rotor 1: 0^1, 0^3, 0^5, 0^7; rotor 2: 0^6, 0^4, 0^2, idle
	assert_output '0 1000000 1,0 11000000 3,0 21000000 5,0 31000000 7,1 1000000 6,1 11000000 4,1 21000000 2,'
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"schedule\")'"
	assert_output '{"type":"schedule","scheduler":"rotor","periodic":true,"period_ps":40000000,"forwarding":"direct"}'
}

@test "rotorsched: every pair meets exactly once per cycle" {
	for n in 8 6 5; do
		tracegen -l 1 -t 1 -d $n | dagbuild -r 1us > dag.mp
		rotorsched < dag.mp > s.mp
		pairs=$(report --dump s.mp | jq -r 'select(.type == "circuit") | "\(.a)-\(.b)"' | sort)
		[ "$(echo "$pairs" | wc -l)" -eq $((n * (n - 1) / 2)) ] || fail "$n GPUs: $(echo "$pairs" | wc -l) circuits"
		[ -z "$(echo "$pairs" | uniq -d)" ] || fail "$n GPUs: a pair meets twice"
	done
}

@test "rotorsched: slots are tau / (1 - duty), dark for tau, up for the rest" {
	alltoall8 800 -r 10us > dag.mp
	rotorsched -d 0.75 < dag.mp > s.mp
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"circuit\" and .a == 0 and .b == 3) | [.from_ps, .to_ps]'"
	assert_output '[50000000,80000000]'
	rotorsched -s 100us < dag.mp > s.mp
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"schedule\") | .period_ps'"
	assert_output 400000000
}

@test "rotorsched: rotor/direct delivers duty x 7/8 of the port rate on uniform traffic, within 1%" {
	alltoall8 800000000 -r 1us > dag.mp
	rotorsched < dag.mp | ocssim > out.mp
	# each GPU sends 7 x 100 MB over 2 ports of 800 Gbit/s
	run bash -c "report --dump out.mp | jq 'select(.type == \"result\") | (7 * 100000000 * 8 / (.makespan_ps / 1e12)) / (2 * 800e9) / (0.9 * 7 / 8) | . * 1000 | round'"
	[ "$output" -ge 990 ] && [ "$output" -le 1010 ] || fail "efficiency ratio x1000 = $output"
}

@test "rotorsched: the BvN decomposition carries the traffic matrix exactly" {
	{
		hdr
		echo '{"type":"net","gpus":4,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":1000000}'
		echo '{"type":"task","id":0,"kind":"transfer","deps":[],"src":0,"dst":1,"bytes":3000}'
		echo '{"type":"task","id":1,"kind":"transfer","deps":[],"src":1,"dst":0,"bytes":5000}'
		echo '{"type":"task","id":2,"kind":"transfer","deps":[],"src":0,"dst":2,"bytes":2000}'
		echo '{"type":"task","id":3,"kind":"transfer","deps":[],"src":2,"dst":3,"bytes":7000}'
		echo '{"type":"task","id":4,"kind":"transfer","deps":[],"src":1,"dst":3,"bytes":1000}'
		echo '{"type":"task","id":5,"kind":"transfer","deps":[],"src":0,"dst":1,"bytes":1000}'
	} | mk dag.mp
	rotorsched -m bvn < dag.mp > s.mp
	# W = max(D, D^T): 0-1 max(4000, 5000), 0-2 2000, 2-3 7000, 1-3 1000;
	# at 800 Gbit/s a byte takes 10 ps
	run bash -c "report --dump s.mp | jq -r 'select(.type == \"circuit\") | [\"\(.a)-\(.b)\", (.to_ps - .from_ps)] | @tsv' | awk '{s[\$1] += \$2} END {for (k in s) print k, s[k] / 10}' | sort"
	assert_output '0-1 5000
0-2 2000
1-3 1000
2-3 7000'
}

@test "rotorsched: BvN slots on one switch are separated by tau" {
	tracegen -l 1 | dagbuild -r 10us > dag.mp
	rotorsched -m bvn < dag.mp > s.mp
	ocssim < s.mp > out.mp
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"schedule\") | [.scheduler, .periodic]'"
	assert_output '["bvn",true]'
	# per switch, the slots (circuits by start) in order: each starts
	# at least tau = 10 us after the previous one ends; some switch
	# has more than one slot to check
	run bash -c "report --dump s.mp | jq -s -c '[.[] | select(.type == \"circuit\")] | group_by(.switch) | map(group_by(.from_ps) | map({from: .[0].from_ps, to: (map(.to_ps) | max)})) | map(select(length > 1) | [range(1; length) as \$i | .[\$i].from - .[\$i - 1].to] | min >= 10000000) | [length > 0, all]'"
	assert_output '[true,true]'
}

@test "rotorsched: the paper's workload runs under both baselines" {
	for m in rotor bvn; do
		rotorsched -m $m < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" | ocssim > $m.mp
	done
	ocssim -f ideal < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > ideal.mp
	ideal=$(report --dump ideal.mp | jq 'select(.type == "result") | .makespan_ps')
	for m in rotor bvn; do
		t=$(report --dump $m.mp | jq 'select(.type == "result") | .makespan_ps')
		[ "$t" -gt "$ideal" ] || fail "$m ($t) beats the ideal fabric ($ideal)"
	done
}

@test "rotorsched: the same input gives byte-identical output" {
	rotorsched -m bvn < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > a.mp
	rotorsched -m bvn < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > b.mp
	cmp a.mp b.mp
}

@test "rotorsched: streams without a DAG, or with a schedule, are refused" {
	run bash -c "tracegen -l 1 | rotorsched > /dev/null"
	assert_failure 1
	assert_output 'rotorsched: stdin: no net record: make the DAG with dagbuild'
	rotorsched < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > s.mp
	run bash -c "rotorsched < s.mp > /dev/null"
	assert_failure 1
	assert_output --regexp 'schedule record: the stream holds a schedule already$'
	run rotorsched < /dev/null
	assert_failure 1
	assert_output 'rotorsched: stdin: empty input: expected a fluxocs stream'
}

@test "rotorsched: bad options exit 2 with usage" {
	for o in "-m ring" "-d 1" "-d 0" "-d x" "-s 0" "-s 5" "-f relay" "-c 10MiB" \
	    "-m bvn -d 0.5" "-m bvn -f direct" "-d 0.5 -s 10us" "-q" "extra"; do
		run rotorsched $o < /dev/null
		[ "$status" -eq 2 ] || fail "rotorsched $o exited $status"
		assert_line --partial 'usage: rotorsched'
	done
}

@test "rotorsched: a slot no longer than tau is refused" {
	run bash -c "rotorsched -s 10us < '$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack' > /dev/null"
	assert_failure 1
	assert_output 'rotorsched: slot of 10000000 ps leaves no time after the reconfiguration delay of 10000000 ps'
}

@test "rotorsched: a full disk is an error, and a terminal is refused" {
	run bash -c "rotorsched < '$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack' > /dev/full"
	assert_failure 1
	assert_output --partial 'rotorsched: write error'
	run script -qec "$BIN/rotorsched < $TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack; echo rc=\$?" /dev/null
	assert_output --partial 'rc=2'
}

# One skewed transfer, 0 -> 1, of $1 bytes on 8 GPUs.
skewed() {
	{
		hdr
		echo '{"type":"net","gpus":8,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":1000000}'
		echo "{\"type\":\"task\",\"id\":0,\"kind\":\"transfer\",\"deps\":[],\"src\":0,\"dst\":1,\"bytes\":$1}"
	} | mk dag.mp
}

@test "rotorsched: two-hop VLB beats direct on a skewed pattern, and relays hold bytes" {
	skewed 100000000
	rotorsched -f direct < dag.mp | ocssim > direct.mp
	rotorsched -f vlb < dag.mp | ocssim > vlb.mp
	d=$(report --dump direct.mp | jq 'select(.type == "result") | .makespan_ps')
	v=$(report --dump vlb.mp | jq 'select(.type == "result") | .makespan_ps')
	[ "$v" -lt "$d" ] || fail "vlb $v is not faster than direct $d"
	# GPUs 2..7 have no traffic of their own: what they hold is relayed
	run bash -c "report --dump vlb.mp | jq -s -c '[.[] | select(.type == \"gpustat\" and .gpu >= 2) | .peak_buffer_bytes > 0] | unique'"
	assert_output '[true]'
	run bash -c "report --dump direct.mp | jq -s -c '[.[] | select(.type == \"gpustat\" and .gpu >= 2) | .peak_buffer_bytes] | unique'"
	assert_output '[0]'
}

@test "rotorsched: relays accept at most the per-destination cap" {
	skewed 100000000
	rotorsched -f vlb -c 3MB < dag.mp > s.mp
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"schedule\") | .vlb_cap_bytes'"
	assert_output 3000000
	ocssim < s.mp > out.mp
	run bash -c "report --dump out.mp | jq -s -c '[.[] | select(.type == \"gpustat\" and .gpu >= 2) | .peak_buffer_bytes] | [min > 0, max <= 3000000]'"
	assert_output '[true,true]'
}

@test "rotorsched: the default cap is what one slot's circuit carries" {
	skewed 1000
	rotorsched -f vlb < dag.mp > s.mp
	# slot 10 us, of which 9 us up, at 800 Gbit/s
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"schedule\") | .vlb_cap_bytes'"
	assert_output 900000
}

@test "rotorsched: a zero reconfiguration delay needs an explicit slot" {
	skewed 1000
	run bash -c "rotorsched < dag.mp > /dev/null"
	assert_success
	tracegen -l 1 | dagbuild -r 0 > z.mp
	run bash -c "rotorsched < z.mp > /dev/null"
	assert_failure 1
	assert_output 'rotorsched: the reconfiguration delay is 0: give the slot with -s'
	run bash -c "rotorsched -s 5us < z.mp | ocssim > /dev/null"
	assert_success
}

# A net of 4 GPUs, task 0, then the record $1, as a stream in bad.mp.
bad_task() {
	{
		hdr
		echo '{"type":"net","gpus":4,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":1000000}'
		xfer 0 '[]' 0 1 3000
		echo "$1"
	} | mk bad.mp
}

@test "rotorsched: regression: rotor mode checked no task record" {
	t='{"type":"task","id":1,"kind":"transfer","deps":'
	while IFS='|' read -r rec msg; do
		bad_task "$rec"
		run bash -c "rotorsched -s 10us < bad.mp > /dev/null"
		[ "$status" -eq 1 ] || fail "$rec: exit $status"
		assert_output "rotorsched: stdin: byte 180: task record: $msg"
	done <<-END
	{"type":"task","id":"1","kind":"transfer","deps":[],"src":1,"dst":0,"bytes":5}|key "id": expected unsigned integer, got string
	{"type":"task","id":2,"kind":"transfer","deps":[],"src":1,"dst":0,"bytes":5}|id 2 out of order (expected 1)
	{"type":"task","id":0,"kind":"transfer","deps":[],"src":1,"dst":0,"bytes":5}|id 0 out of order (expected 1)
	${t}[2],"src":1,"dst":0,"bytes":5}|task 1 depends on 2, which is not an earlier task
	${t}[1],"src":1,"dst":0,"bytes":5}|task 1 depends on 1, which is not an earlier task
	${t}[4294967296],"src":1,"dst":0,"bytes":5}|task 1 depends on 4294967296, which is not an earlier task
	${t}["0"],"src":1,"dst":0,"bytes":5}|key "deps": item 0: expected unsigned integer, got string
	{"type":"task","id":1,"kind":"copy","deps":[],"src":1,"dst":0,"bytes":5}|key "kind": unknown value "copy"
	${t}[],"src":2,"dst":2,"bytes":5}|transfer from GPU 2 to itself
	${t}[],"src":1,"dst":4,"bytes":5}|GPU out of range (the net has 4)
	{"type":"task","id":1,"kind":"compute","deps":[],"gpu":7,"duration_ps":5}|GPU out of range (the net has 4)
	${t}[],"src":1,"dst":0,"bytes":-5}|key "bytes": expected unsigned integer, got negative integer
	END
	# a NaN duration: pack 1.5, then turn its float64 into a NaN
	bad_task '{"type":"task","id":1,"kind":"compute","deps":[],"gpu":1,"duration_ps":1.5}'
	perl -0777 -pi -e 's/\xcb\x3f\xf8\x00{6}/\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00/' bad.mp
	run bash -c "rotorsched < bad.mp > /dev/null"
	assert_failure 1
	assert_output 'rotorsched: stdin: byte 180: task record: key "duration_ps": expected unsigned integer, got float'
}

@test "rotorsched: regression: a stream simulated already was accepted" {
	tracegen -l 1 | dagbuild -r 1us | ocssim -f ideal > sim.mp
	run bash -c "rotorsched < sim.mp > /dev/null"
	assert_failure 1
	assert_output --regexp '^rotorsched: stdin: byte [0-9]+: result record: the stream has been simulated already$'
}

@test "rotorsched: regression: 2^20 GPUs in rotor mode ran out of memory without a word" {
	{
		hdr
		echo '{"type":"net","gpus":1048576,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":1000000}'
		xfer 0 '[]' 0 1 3000
		xfer 1 '[0]' 5 1048575 5000
	} | mk big.mp
	run rotorsched < big.mp
	assert_failure 1
	assert_output 'rotorsched: a rotor period on 1048576 GPUs holds 549755289600 circuits (17592169267200 bytes in memory); at most 8388608 are made (4096 GPUs)'
	# bvn follows the transfers, not a GPUs x GPUs matrix
	rotorsched -m bvn < big.mp > s.mp
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"circuit\") | [.switch, .a, .b, .from_ps, .to_ps]' | tr '\n' ' '"
	assert_output '[0,0,1,0,30000] [0,5,1048575,0,30000] [1,5,1048575,0,20000] '
}

@test "rotorsched: regression: a slot of 2^64 - 1 ps was an internal error" {
	run rotorsched -s 18446744073709551615ps < /dev/null
	assert_failure 2
	assert_line 'rotorsched: -s 18446744073709551615ps: a slot lasts at most 17592186044415ps'
	run rotorsched -s 17592186044416ps < /dev/null
	assert_failure 2
	# the largest slot makes a period that still ends before 2^64 - 1
	tracegen -l 1 -t 1 -d 2 | dagbuild -g 2 -s 1 > dag.mp
	rotorsched -s 17592186044415ps < dag.mp > s.mp
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"circuit\") | [.from_ps, .to_ps]'"
	assert_output '[10000000,17592186044415]'
	# a slot derived from a huge delay, and a period past 2^64, are bad
	# input (dagbuild refuses such a delay; a net record may hold it)
	{ hdr; echo '{"type":"net","gpus":8,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":18446744073709551615,"reconfig_model":"port","latency_ps":0}'
	    xfer 0 '[]' 0 1 1000; xfer 1 '[]' 1 0 1000; } | mk dag.mp
	run bash -c "rotorsched < dag.mp > /dev/null"
	assert_failure 1
	assert_output 'rotorsched: a reconfiguration delay of 18446744073709551615 ps at a duty cycle of 0.9 makes a slot of 184467440737095548928 ps, more than the 17592186044415 ps a slot may last'
	run bash -c "rotorsched -m bvn < dag.mp > /dev/null"
	assert_failure 1
	assert_output 'rotorsched: the period passes 2^64 - 1 ps on switch 0'
	run bash -c "tracegen -l 1 | dagbuild -b 1bps | rotorsched -m bvn > /dev/null"
	assert_failure 1
	assert_output 'rotorsched: stdin: the 201326592 bytes between GPUs 0 and 1 take more than 2^64 ps at 1 bit/s'
}

@test "rotorsched: regression: a transfer of no byte gave BvN a circuit of no time, which ocssim refuses" {
	{
		hdr
		echo '{"type":"net","gpus":4,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":1000}'
		xfer 0 '[]' 0 1 600
		xfer 1 '[0]' 2 3 0
		xfer 2 '[1]' 1 2 300
	} | mk dag.mp
	rotorsched -m bvn < dag.mp > s.mp
	# 0-1 for 6000 ps, then 1-2 for 3000; 2-3 has weight 0 and joins
	# the first matching, where GPUs 2 and 3 are free
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"circuit\") | [.switch, .a, .b, .from_ps, .to_ps]' | tr '\n' ' '"
	assert_output '[0,0,1,0,6000] [0,2,3,0,6000] [0,1,2,7000,10000] '
	# ocssim runs it: transfer 0 ends at 6000 ps, when 2-3 goes down (a
	# circuit is up in [from, to), and at one instant circuit events
	# come first), so the no bytes wait for the next period's 2-3 at
	# 11000 ps, and 1-2 at 18000 carries the 300 bytes by 21000
	ocssim < s.mp > out.mp
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"result\") | [.makespan_ps, .bytes_sent]'"
	assert_output '[21000,900]'
}
