#!/usr/bin/env bats
# rotorsched -m phase: one configuration a phase of the step, the
# phases cut where the class of the traffic (its name, digits left out)
# changes.  The hand-worked cases run at 800 Gbit/s, a byte in 10 ps,
# and tau 1000 ps.

load helpers

# net GPUS SWITCHES [MODEL]
net() {
	echo "{\"type\":\"net\",\"gpus\":$1,\"switches\":$2,\"bandwidth_bps\":800000000000,\"reconfig_ps\":1000${3:+,\"reconfig_model\":\"$3\"}}"
}

# named ID DEPS SRC DST NAME: a transfer of 1000 bytes.
named() {
	echo "{\"type\":\"task\",\"id\":$1,\"kind\":\"transfer\",\"deps\":$2,\"src\":$3,\"dst\":$4,\"bytes\":1000,\"name\":\"$5\"}"
}

# Six GPUs, one switch: phase a joins 0-1, 2-3 and 4-5, phase b (after
# all of a) 0-1, 2-4 and 3-5.  a ends at 10,000 ps; 0-1 stays, 2-4 and
# 3-5 come up tau later, at 11,000, and end at 21,000.
two() {
	hdr
	net 6 1 "$1"
	named 0 '[]' 0 1 l0.a
	named 1 '[]' 2 3 l1.a
	named 2 '[]' 4 5 l2.a
	named 3 '[0,1,2]' 0 1 l0.b
	named 4 '[0,1,2]' 2 4 l1.b
	named 5 '[0,1,2]' 3 5 l2.b
}

@test "rotorsched -m phase: two phases, one reconfiguration at the boundary, the circuit both keep stays up" {
	two | pack > two.mp
	rotorsched -m phase -v < two.mp > s.mp 2> err
	run field s.mp circuit switch a b from_ps to_ps
	assert_output "0 0 1 0 null
0 2 3 0 10000
0 4 5 0 10000
0 2 4 11000 null
0 3 5 11000 null"
	run field s.mp schedule scheduler periodic
	assert_output "phase false"
	run cat err
	assert_output "rotorsched: phase: 2 phases of 2 classes; 5 circuits, 2 set up after time 0; 0 transfers relayed over circuits (6 tasks become 6); predicted makespan 21000 ps"
	ocssim < s.mp > o.mp
	run field o.mp result makespan_ps
	assert_output 21000
}

@test "rotorsched -m phase: under the switch model the whole switch goes dark at the boundary" {
	two switch | pack | rotorsched -m phase > s.mp
	run field s.mp circuit a b from_ps to_ps
	assert_output "0 1 0 10000
2 3 0 10000
4 5 0 10000
0 1 11000 null
2 4 11000 null
3 5 11000 null"
	ocssim < s.mp > o.mp
	run field o.mp result makespan_ps
	assert_output 21000
}

@test "rotorsched -m phase: one class is one phase, the static schedule" {
	{
		hdr
		net 4 2
		for i in 0 1 2 3; do named $i '[]' $i $(((i + 1) % 4)) ring; done
	} | pack > r.mp
	rotorsched -m phase < r.mp | field - circuit switch a b from_ps to_ps > phase.txt
	rotorsched -m static < r.mp | field - circuit switch a b from_ps to_ps > static.txt
	cmp phase.txt static.txt
	# no names: one class, unlabelled
	{ hdr; net 4 1; xfer 0 '[]' 0 1 8; xfer 1 '[0]' 2 3 8; } | pack |
	    rotorsched -m phase -v 2>&1 > /dev/null | grep -q "1 phase of 1 class"
}

@test "rotorsched -m phase: the prediction is ocssim's makespan, at or above the bound, the same twice" {
	for w in "-l 2 -t 1 -d 4 -p 2 -m 2" "-l 2 -t 4 -d 2" "-M mixtral-8x7b -l 1 -t 1 -x 8 -d 8"; do
		tracegen $w | dagbuild -r 10us > d.mp
		rotorsched -m phase -v < d.mp > a.mp 2> err
		rotorsched -m phase -v < d.mp 2> /dev/null | cmp - a.mp
		ocssim < a.mp > o.mp
		read -r m b <<< "$(field o.mp result makespan_ps lower_bound_ps)"
		echo "$w: $(cat err)"
		grep -q "predicted makespan $m ps" err
		[ "$m" -ge "$b" ]
	done
	# the pipelined workload has three phases: forward sends, backward
	# sends, the data-parallel all-reduces
	tracegen -l 2 -t 1 -d 4 -p 2 -m 2 | dagbuild -r 10us | rotorsched -m phase -v 2>&1 >/dev/null |
	    grep -q "3 phases of 3 classes"
}

@test "rotorsched -m phase on tiered fabrics: the prediction replays" {
	tracegen -l 2 -t 8 -d 4 -g h100 > ops.mp
	for fab in hgx-h100-flat hgx-h100-rail hgx-h100-uplink; do
		dagbuild -r 10us --fabric $fab < ops.mp > d.mp
		rotorsched -m phase -v < d.mp > a.mp 2> err
		ocssim < a.mp > o.mp
		read -r m b <<< "$(field o.mp result makespan_ps lower_bound_ps)"
		echo "$fab: $(cat err)"
		grep -q "predicted makespan $m ps" err
		[ "$m" -ge "$b" ]
	done
}

@test "rotorsched -m phase: random DAGs of three classes replay as predicted" {
	local s

	for s in $(seeds 10); do
		RANDOM=$s
		{
			hdr
			net $((4 + s % 4)) $((1 + s % 3))
			randtasks $((4 + s % 4)) 12 6
		} > j.json
		# the transfers named by their id: ka for 0-5, kb for 6-11, ...
		awk '/"kind":"transfer"/ { match($0, /"id":[0-9]+/); id = substr($0, RSTART + 5, RLENGTH - 5); sub(/\}$/, ",\"name\":\"k" substr("abc", int(id / 6) % 3 + 1, 1) "\"}") } { print }' j.json | pack > r.mp
		rotorsched -m phase -v < r.mp > a.mp 2> err || {
			# a pair a lone switch cannot join is refused
			grep -q "a configuration is a matching" err
			continue
		}
		rotorsched -m phase -v < r.mp 2> /dev/null | cmp - a.mp
		ocssim < a.mp > o.mp
		read -r m b <<< "$(field o.mp result makespan_ps lower_bound_ps)"
		grep -q "predicted makespan $m ps" err || fail "seed $s: $(cat err), ocssim $m"
		[ "$m" -ge "$b" ]
	done
}

@test "rotorsched -m phase: --own and -T are usage errors" {
	two | pack > two.mp
	run rotorsched -m phase --own < two.mp
	assert_failure 2
	assert_output --partial "--own does not go with -m phase"
	run rotorsched -m phase -T 1 < two.mp
	assert_failure 2
}
