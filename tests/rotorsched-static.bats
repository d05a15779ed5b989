#!/usr/bin/env bats
# rotorsched -m static: one configuration for the whole step, and relays
# over circuits for the pairs it leaves without one.  The hand-worked
# cases run at 800 Gbit/s, where a byte takes 10 ps, and tau 1000 ps.

load helpers

# net GPUS SWITCHES: a net record at 800 Gbit/s, tau 1000 ps.
net() {
	echo "{\"type\":\"net\",\"gpus\":$1,\"switches\":$2,\"bandwidth_bps\":800000000000,\"reconfig_ps\":1000}"
}

# ring N SWITCHES CHUNK: a ring all-reduce of N x CHUNK bytes, as
# reduce-scatter then all-gather: 2(N - 1) rounds, in each GPU i sends
# a chunk to i + 1 once it has the chunk of the round before from i - 1.
ring() {
	local n=$1 id=0 k i d

	hdr
	net "$n" "$2"
	for ((k = 0; k < 2 * (n - 1); k++)); do
		for ((i = 0; i < n; i++)); do
			d='[]'
			((k == 0)) || d="[$(((k - 1) * n + (i + n - 1) % n))]"
			xfer $id "$d" $i $(((i + 1) % n)) "$3"
			id=$((id + 1))
		done
	done
}

@test "rotorsched -m static: a ring all-reduce in 2(N-1)/N S/B, no reconfiguration" {
	# N = 4, S = 4000 bytes: 6 rounds of 1000 bytes, 10,000 ps each.
	ring 4 2 1000 | pack > r.mp
	rotorsched -m static < r.mp > s.mp
	run field s.mp circuit switch a b from_ps to_ps
	assert_output "0 0 3 0 null
0 1 2 0 null
1 0 1 0 null
1 2 3 0 null"
	run field s.mp schedule scheduler periodic forwarding
	assert_output "static false direct"
	ocssim < s.mp > o.mp
	run field o.mp result makespan_ps reconfigs
	assert_output "60000 0"
	# N = 8, S = 8000 bytes: 14 rounds, 2 x 7/8 x 8000 x 10 ps.
	ring 8 2 1000 | pack | rotorsched -m static | ocssim > o8.mp
	run field o8.mp result makespan_ps reconfigs
	assert_output "140000 0"
}

@test "rotorsched -m static: four switches give each ring pair two circuits, half the time" {
	ring 4 4 1000 | pack | rotorsched -m static > s.mp
	run bash -c "recget circuit a b < s.mp | sort | uniq -c"
	assert_output "      2 0 1
      2 0 3
      2 1 2
      2 2 3"
	ocssim < s.mp > o.mp
	run field o.mp result makespan_ps reconfigs
	assert_output "30000 0"
}

# Three GPUs, two switches: 0-1 (3000 bytes) and 1-2 (2000) get the
# circuits (a triangle needs three matchings), and 0->2, after both,
# goes over them through 1: 30,000 ps, then 10,000 a hop.
relay3() {
	hdr
	net 3 "${1:-2}"
	xfer 0 '[]' 0 1 3000
	xfer 1 '[]' 1 2 2000
	echo '{"type":"task","id":2,"kind":"transfer","deps":[0,1],"src":0,"dst":2,"bytes":1000,"op":7,"name":"far"}'
}

@test "rotorsched -m static: a relay over two circuits, each hop a transfer that keeps its op and name" {
	relay3 | pack > r.mp
	rotorsched -m static < r.mp > s.mp 2> err
	run cat err
	assert_output ""
	run field s.mp task id src dst bytes
	assert_output "0 0 1 3000
1 1 2 2000
2 0 1 1000
3 1 2 1000"
	run records s.mp task
	assert_line --index 2 '{"type":"task","id":2,"kind":"transfer","deps":[0,1],"src":0,"dst":1,"bytes":1000,"op":7,"name":"far"}'
	assert_line --index 3 '{"type":"task","id":3,"kind":"transfer","deps":[2],"src":1,"dst":2,"bytes":1000,"op":7,"name":"far"}'
	run field s.mp circuit switch a b
	assert_output "0 0 1
1 1 2"
	ocssim < s.mp > o.mp
	run field o.mp result makespan_ps bytes_sent reconfigs
	assert_output "50000 7000 0"
}

@test "rotorsched -m static -v: says its circuits and relays" {
	relay3 | pack > r.mp
	rotorsched -m static -v < r.mp > /dev/null 2> err
	run cat err
	assert_output "rotorsched: static: 2 circuits, up from 0 for ever; 1 transfer relayed over circuits (3 tasks become 4)"
}

@test "rotorsched -m static: one switch joins only a matching; a pair it cannot reach is refused" {
	relay3 1 | pack > r.mp
	run rotorsched -m static < r.mp
	assert_failure 1
	assert_output --partial "rotorsched: no path over the circuits chosen joins GPUs 0 and 2 (transfer 2)"
	assert_output --partial "a configuration is a matching"
	# traffic that is a matching: one switch is enough
	{ hdr; net 4 1; xfer 0 '[]' 0 1 100; xfer 1 '[]' 3 2 100; } | pack |
	    rotorsched -m static | ocssim > o.mp
	run field o.mp result makespan_ps
	assert_output 1000
}

@test "rotorsched -m static --own: the schedule alone, unless relays change the DAG" {
	ring 4 2 1000 | pack > r.mp
	rotorsched -m static --own < r.mp > own.mp
	run records own.mp task
	assert_output ""
	run field own.mp omitted tasks
	assert_output 24
	relay3 | pack > r3.mp
	run rotorsched -m static --own < r3.mp
	assert_failure 1
	assert_output "rotorsched: -m static relays 1 transfer over circuits, which changes the DAG: --own cannot leave it out"
}

@test "rotorsched -m static: options of the other modes are usage errors" {
	ring 4 2 1000 | pack > r.mp
	for o in "-T 1" "-p random:1" "-d 0.5" "-s 10us" "-f vlb"; do
		run rotorsched -m static $o < r.mp
		assert_failure 2
	done
}

@test "rotorsched -m static: random DAGs replay at or above their bound, the same twice" {
	for s in $(seeds 12); do
		RANDOM=$s
		{ hdr; net $((3 + s % 6)) $((2 + s % 3)); randtasks $((3 + s % 6)) 14 8; } | pack > r$s.mp
		rotorsched -m static < r$s.mp > a.mp
		rotorsched -m static < r$s.mp | cmp - a.mp
		ocssim < a.mp > o.mp
		read -r m b r <<< "$(field o.mp result makespan_ps lower_bound_ps reconfigs)"
		[ "$m" -ge "$b" ] && [ "$r" -eq 0 ] || { echo "seed $s: $m < $b or $r reconfigs"; false; }
	done
}

@test "rotorsched -m static on tiered fabrics: rails and flat OCS joined through the groups, uplinks" {
	tracegen -M mixtral-8x7b -t 1 -x 8 -d 32 -l 1 > ops.mp
	for fab in hgx-h100-rail hgx-h100-flat hgx-h100-uplink; do
		dagbuild -r 10us --fabric $fab < ops.mp > d.mp
		rotorsched -m static -v < d.mp > a.mp 2> err
		rotorsched -m static -v < d.mp 2> /dev/null | cmp - a.mp
		ocssim < a.mp > o.mp
		read -r m b r <<< "$(field o.mp result makespan_ps lower_bound_ps reconfigs)"
		echo "$fab: $m ps, bound $b, $(cat err)"
		[ "$m" -ge "$b" ] && [ "$r" -eq 0 ]
		[ "$(field a.mp circuit from_ps to_ps | sort -u)" = "0 null" ]
		# one port a GPU: the all-to-all is relayed through the groups
		case $fab in
		*uplink) grep -q "; 0 transfers relayed" err ;;
		*) ! grep -q "; 0 transfers relayed" err ;;
		esac
	done
}

# An EPS and an OCS of one 100 Gbit/s port a GPU each; GPU 0 sends
# 3000 bytes to 1 and to 2.  One port: the circuit goes to 0-1, and
# 0->2 takes the EPS beside it: 3000 B at 100 Gbit/s each, side by
# side, 240,000 ps; the EPS alone carries both, 480,000.
@test "rotorsched -m static: beside an EPS, a pair without a circuit takes the EPS, not a relay" {
	printf 'eps all rate=100Gbps\nocs all rate=100Gbps\n' > ep.fabric
	tracegen -l 1 -t 1 -d 4 | dagbuild --fabric=ep.fabric |
	    relreport --dump - | grep '"type":"net"' | sed 's/"gpus":4/"gpus":3/' > net.json
	{ hdr; cat net.json; xfer 0 '[]' 0 1 3000; xfer 1 '[]' 0 2 3000; } | pack > ep.mp
	rotorsched -m static -v < ep.mp > s.mp 2> err
	run field s.mp schedule scheduler circuits_first
	assert_output "static true"
	run field s.mp circuit switch a b
	assert_output "1 0 1"
	grep -q "0 transfers relayed" err
	ocssim < s.mp > o.mp
	run field o.mp result makespan_ps
	assert_output 240000
	rotorsched -m bvn < ep.mp | ocssim > b.mp
	run field b.mp result makespan_ps
	assert_output 480000
	# on the presets that split a NIC: a replay, at or above the bound
	tracegen -M mixtral-8x7b -l 1 -t 1 -x 8 -d 16 -g h100 > ops.mp
	for fab in hgx-h100-rail-eps hgx-h100-flat-eps hgx-h100-uplink-eps; do
		dagbuild --fabric=$fab < ops.mp | rotorsched -m static | ocssim > o.mp
		read -r m b <<< "$(field o.mp result makespan_ps lower_bound_ps)"
		[ "$m" -ge "$b" ]
	done
}
