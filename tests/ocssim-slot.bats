#!/usr/bin/env bats
# ocssim: periodic schedules simulated slot by slot (lib/sim/simslot.c),
# against hand-worked runs and against simulating every circuit (-E).

load helpers

# rotor3 TASKS...: 3 GPUs on one switch at 8 Gbit/s (1000 ps a byte),
# no reconfiguration delay, and a periodic schedule of 300 ns: 0-1 in
# [0, 100 ns), 1-2 in [100, 200 ns), 0-2 in [200, 300 ns); then the
# task records given as JSON lines on stdin.
rotor3() {
	hdr
	echo '{"type":"net","gpus":3,"switches":1,"bandwidth_bps":8000000000,"reconfig_ps":0,"latency_ps":0}'
	cat
	echo '{"type":"schedule","scheduler":"hand","periodic":true,"period_ps":300000}'
	echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0,"to_ps":100000}'
	echo '{"type":"circuit","switch":0,"a":1,"b":2,"from_ps":100000,"to_ps":200000}'
	echo '{"type":"circuit","switch":0,"a":0,"b":2,"from_ps":200000,"to_ps":300000}'
}

# same A B: two ocssim outputs equal but for the events count and the
# header's arguments
same() {
	local x y

	x=$(report --dump "$1" | grep -v '"type":"header"' |
	    sed 's/"events":[0-9]*//') || return 1
	y=$(report --dump "$2" | grep -v '"type":"header"' |
	    sed 's/"events":[0-9]*//') || return 1
	[ -n "$x" ] && [ "$x" = "$y" ]
}

@test "ocssim slot: a transfer waits for its pair's next circuit, period after period" {
	# the compute ends at 250 ns, in slot 0-2; the 150 bytes for GPU 1
	# go 100 in [300, 400 ns) and 50 from 600 ns: done at 650 ns
	{ comp 0 '[]' 0 250000; xfer 1 '[0]' 0 1 150; } | rotor3 | pack > s.mp
	ocssim < s.mp > slot.mp
	ocssim -E < s.mp > every.mp
	run field slot.mp result makespan_ps
	assert_output 650000
	# circuit instances up at or before 650 ns: 0-1 three times (0,
	# 300, 600 ns), 1-2 and 0-2 twice; each changes a port's partner
	# but the first 0-1 (no port used before): 6 reconfigurations;
	# up 100+100+50 ns (0-1), 200 ns each (1-2, 0-2)
	run field slot.mp result reconfigs
	assert_output 6
	run field slot.mp switchstat up_ps
	assert_output 650000
	run field slot.mp switchstat bytes
	assert_output 150
	same slot.mp every.mp
	# the compute, then 0-1 up twice and down once, a stale end of the
	# paused transfer, and its end; every circuit: the 7 ups and 6 downs
	# at or before 650 ns instead of 3
	run field slot.mp result events
	assert_output 6
	run field every.mp result events
	assert_output 16
}

@test "ocssim slot: traffic in the middle of a slot finds its circuit up since the slot began" {
	# ready at 50 ns while 0-1 is up: 50 bytes by 100 ns, 100 more in
	# [300, 400 ns); the last byte and the circuit's end at one instant
	{ comp 0 '[]' 0 50000; xfer 1 '[0]' 0 1 150; } | rotor3 | pack > s.mp
	ocssim -t < s.mp > slot.mp
	ocssim -t -E < s.mp > every.mp
	run field slot.mp result makespan_ps
	assert_output 400000
	run bash -c "report --dump slot.mp | jq -c 'select(.type == \"taskrun\") | [.id, .start_ps, .end_ps]'"
	assert_output '[0,0,50000]
[1,50000,400000]'
	# 0-1 up for 100 + 100 ns, 1-2 and 0-2 once each
	run field slot.mp switchstat up_ps
	assert_output 400000
	same slot.mp every.mp
}

@test "ocssim slot: idle slots cost nothing" {
	# no transfer: only the compute's end is an event, whatever the
	# number of periods it spans; every circuit: 10 periods of 3 ups
	# and 3 downs, and the 0-1 that comes up at the 3 us makespan
	{ comp 0 '[]' 0 3000000; } | rotor3 | pack > s.mp
	ocssim < s.mp > slot.mp
	ocssim -E < s.mp > every.mp
	run field slot.mp result events
	assert_output 1
	run field every.mp result events
	assert_output 62
	# 10 periods of 3 circuits of 100 ns (the last 0-1, up at the
	# makespan, for no time); each of the 31 changes a port's partner
	# but the first
	run field slot.mp switchstat up_ps
	assert_output 3000000
	run field slot.mp result reconfigs
	assert_output 30
	same slot.mp every.mp
}

@test "ocssim slot: a transfer without a circuit in the schedule is a deadlock" {
	{
		hdr
		echo '{"type":"net","gpus":3,"switches":1,"bandwidth_bps":8000000000,"reconfig_ps":0,"latency_ps":0}'
		xfer 0 '[]' 1 2 10
		echo '{"type":"schedule","scheduler":"hand","periodic":true,"period_ps":300000}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0,"to_ps":100000}'
	} | pack > s.mp
	run ocssim < s.mp
	assert_failure 1
	assert_output --regexp '^ocssim: deadlock at [0-9]+ ps: 0 of 1 tasks done; transfer 0 \(1->2, 10 bytes\) waits for a circuit 1-2 that never comes$'
	run ocssim -E < s.mp
	assert_failure 1
	assert_output --regexp 'transfer 0 \(1->2, 10 bytes\) waits for a circuit 1-2 that never comes$'
}

# differential SCHEDULER-ARGS...: on small Llama steps and reconfiguration
# delays, the run slot by slot equals the run of every circuit
differential() {
	local shape r

	for shape in "-l 2 -t 4 -d 2" "-l 1 -t 2 -d 8 -n 2"; do
		for r in 1us 10us 1ms; do
			tracegen $shape | dagbuild -r $r -s 2 > d.mp
			rotorsched "$@" < d.mp > s.mp
			ocssim -t < s.mp > slot.mp
			ocssim -t -E < s.mp > every.mp
			same slot.mp every.mp ||
			    { echo "differs: $shape, tau $r"; return 1; }
			ocssim -H unaware < s.mp > slot.mp
			ocssim -H unaware -E < s.mp > every.mp
			same slot.mp every.mp ||
			    { echo "differs: -H unaware, $shape, tau $r"; return 1; }
		done
	done
}

@test "ocssim slot: RotorNet direct runs as with every circuit" {
	differential -m rotor -f direct
}

@test "ocssim slot: RotorNet two-hop runs as with every circuit" {
	differential -m rotor -f vlb
}

@test "ocssim slot: RotorNet two-hop with look-ahead and a relay cap runs as with every circuit" {
	differential -m rotor -f rotorlb -c 1MB
}

@test "ocssim slot: BvN and Solstice run as with every circuit" {
	differential -m bvn
	differential -m solstice
}

@test "ocssim slot: fewer events than every circuit at 64 GPUs" {
	tracegen -l 1 -t 8 -d 8 | dagbuild | rotorsched -m rotor > s.mp
	ocssim < s.mp > slot.mp
	ocssim -E < s.mp > every.mp
	same slot.mp every.mp
	run bash -c "echo \$(( $(field slot.mp result events) * 4 < $(field every.mp result events) ))"
	assert_output 1
}

@test "ocssim slot: -E is accepted, and changes nothing, with one-shot schedules and the ideal fabric" {
	tracegen -l 1 | dagbuild > d.mp
	fluxsolve -m greedy < d.mp > f.mp
	ocssim < f.mp > a.mp
	ocssim -E < f.mp > b.mp
	same a.mp b.mp
	run field a.mp result events
	local ev=$output
	run field b.mp result events
	assert_output "$ev"
	ocssim -f ideal < d.mp > a.mp
	ocssim -E -f ideal < d.mp > b.mp
	same a.mp b.mp
}

@test "ocssim slot: regression: a compute spanning many periods without an event was taken for a deadlock" {
	# GPU 1 sends 10 bytes in the first 1-2 slot while GPU 0 computes
	# until 3.25 us; then nothing happens until 0-1 comes up at 3.3 us,
	# more than two periods after the last event: not a deadlock, as the
	# GPU computed all along.  150 bytes: 100 by 3.4 us, 50 from 3.6 us.
	{ comp 0 '[]' 0 3250000; xfer 1 '[0]' 0 1 150; xfer 2 '[]' 1 2 10; } |
	    rotor3 | pack > s.mp
	ocssim < s.mp > slot.mp
	ocssim -E < s.mp > every.mp
	run field slot.mp result makespan_ps
	assert_output 3650000
	same slot.mp every.mp
}

@test "ocssim slot: regression: transfers ready before the first event found the circuits of instant 0 up already" {
	# 900 KB from 0 to 1, ready at 0 with no event before it; 0-2 and
	# 0-1 come up at 0, in that order, as events: two-hop hands 2 its
	# cap of 300 KB over 0-2 first (rotorlb.bats works it by hand), then
	# sends the rest over 0-1.  Found up at once, 0-1 took all 900 KB.
	{
		hdr
		echo '{"type":"net","gpus":3,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":1000000}'
		xfer 0 '[]' 0 1 900000
		echo '{"type":"schedule","scheduler":"hand","periodic":true,"period_ps":30000000,"forwarding":"vlb","vlb_cap_bytes":300000}'
		echo '{"type":"circuit","switch":0,"a":0,"b":2,"from_ps":0,"to_ps":9000000}'
		echo '{"type":"circuit","switch":1,"a":0,"b":1,"from_ps":0,"to_ps":9000000}'
		echo '{"type":"circuit","switch":0,"a":1,"b":2,"from_ps":10000000,"to_ps":19000000}'
	} | pack > s.mp
	ocssim < s.mp > slot.mp
	ocssim -E < s.mp > every.mp
	run field slot.mp result makespan_ps
	assert_output 13000000
	run field slot.mp gpustat peak_buffer_bytes
	assert_output '900000
0
300000'
	same slot.mp every.mp
}
