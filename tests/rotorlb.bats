#!/usr/bin/env bats
# Two-hop forwarding with look-ahead (forwarding "rotorlb"): relays take
# only bytes they start towards their destination before the source
# would; plain "vlb" relays whatever a circuit has room for.

load helpers

# hand FWD BYTES M0 M1 M2: BYTES from GPU 0 to GPU 1 on 4 GPUs and one
# switch at 800 Gbit/s (100 bytes a ns), tau 1 us, under a periodic
# schedule of 30 us by hand: matching Mj (pairs a-b, comma-separated)
# up in [10j, 10j + 9) us, each circuit carrying 900 KB; forwarding
# FWD, relays capped at 300 KB per destination.  Prints the forwarding,
# the makespan, the bytes sent and the peak buffer of each GPU.
hand() {
	local j=0 m e

	{
		hdr
		echo '{"type":"net","gpus":4,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":1000000}'
		xfer 0 '[]' 0 1 "$2"
		echo "{\"type\":\"schedule\",\"scheduler\":\"hand\",\"periodic\":true,\"period_ps\":30000000,\"forwarding\":\"$1\",\"vlb_cap_bytes\":300000}"
		for m in "$3" "$4" "$5"; do
			for e in ${m//,/ }; do
				echo "{\"type\":\"circuit\",\"switch\":0,\"a\":${e%-*},\"b\":${e#*-},\"from_ps\":$((j * 10000000)),\"to_ps\":$((j * 10000000 + 9000000))}"
			done
			j=$((j + 1))
		done
	} | pack > s.mp
	ocssim < s.mp > out.mp
	report --dump out.mp | jq -s -c "[\"$1\", (.[] | select(.type == \"result\") | .makespan_ps, .bytes_sent), [.[] | select(.type == \"gpustat\") | .peak_buffer_bytes]]"
}

@test "rotorlb: vlb relays bytes that the direct circuit delivers sooner; rotorlb sends them direct, worked by hand" {
	set -o pipefail
	# 0-2 and 1-3 up in [0, 9) us, 0-1 and 2-3 in [10, 19), 0-3 and
	# 1-2 in [20, 29); 900 KB from 0 to 1.
	# vlb: at 0 us 0 offers 2 its cap, 300 KB, sent in [0, 3); 2 then
	# holds its cap and takes no more; 0 sends its other 600 KB
	# direct in [10, 16); 2 forwards its 300 KB in [20, 23).
	# Makespan 23 us, 1.2 MB sent; peaks: 0 900 KB, 2 300 KB.
	run hand vlb 900000 0-2,1-3 0-1,2-3 0-3,1-2
	assert_output '["vlb",23000000,1200000,[900000,0,300000,0]]'
	# rotorlb: at 0 us the 300 KB would reach 2 at 3 us, and 2 meets 1
	# at 20 us; 0 meets 1 at 10 us, and the 600 KB ahead of them take
	# it to 16 us: no relay.  All 900 KB direct in [10, 19): makespan
	# 19 us, as under direct forwarding, and no relay holds a byte.
	run hand rotorlb 900000 0-2,1-3 0-1,2-3 0-3,1-2
	assert_output '["rotorlb",19000000,900000,[900000,0,0,0]]'
	run hand direct 900000 0-2,1-3 0-1,2-3 0-3,1-2
	assert_output '["direct",19000000,900000,[900000,0,0,0]]'
}

@test "rotorlb: when the direct circuit is far away rotorlb still relays, and beats direct, worked by hand" {
	set -o pipefail
	# 0-2 and 1-3 up in [0, 9) us, 1-2 and 0-3 in [10, 19), 0-1 and
	# 2-3 in [20, 29): 0 meets 1 last.
	# 300 KB: 2 takes them all in [0, 3) (2 meets 1 at 10 us, 0 only
	# at 20) and forwards them in [10, 13): 13 us under vlb and
	# rotorlb alike, 23 us direct ([20, 23)).
	run hand vlb 300000 0-2,1-3 1-2,0-3 0-1,2-3
	assert_output '["vlb",13000000,600000,[300000,0,300000,0]]'
	run hand rotorlb 300000 0-2,1-3 1-2,0-3 0-1,2-3
	assert_output '["rotorlb",13000000,600000,[300000,0,300000,0]]'
	run hand direct 300000 0-2,1-3 1-2,0-3 0-1,2-3
	assert_output '["direct",23000000,300000,[300000,0,0,0]]'
	# 900 KB: both relay 300 KB to 2 in [0, 3) (2 meets 1 at 10 us,
	# 0 with 600 KB ahead at 26 us), which 2 forwards in [10, 13).
	# At 10 us 0 meets 3: vlb hands it 300 KB in [10, 13), which 3
	# forwards only when it meets 1 again, in [30, 33); 0 sends the
	# last 300 KB direct in [20, 23): 33 us.  rotorlb does not: 3
	# meets 1 at 30 us, after 0 does (at 20 us, 23 us behind the
	# 300 KB that stay), so 0 sends 600 KB direct in [20, 26): 26 us,
	# against 29 us direct ([20, 29)).
	run hand vlb 900000 0-2,1-3 1-2,0-3 0-1,2-3
	assert_output '["vlb",33000000,1500000,[900000,0,300000,300000]]'
	run hand rotorlb 900000 0-2,1-3 1-2,0-3 0-1,2-3
	assert_output '["rotorlb",26000000,1200000,[900000,0,300000,0]]'
	run hand direct 900000 0-2,1-3 1-2,0-3 0-1,2-3
	assert_output '["direct",29000000,900000,[900000,0,0,0]]'
}

@test "rotorlb: the bytes queued ahead count, so a deep queue relays though the direct circuit comes first, worked by hand" {
	set -o pipefail
	# The first schedule: 0 meets 2 at 0 us, 1 at 10, 3 at 20; 2 meets
	# 1 at 20 us, 3 meets 1 at 0 (30).  2.1 MB from 0 to 1.
	# At 0 us: 300 KB to 2 would start to 1 at 20 us; direct, behind
	# the 1.8 MB that stay (two slots of 900 KB: [10, 19), [40, 49)),
	# at 70 us: relay, [0, 3).  [10, 19): 900 KB direct.
	# At 20 us: 2 forwards its 300 KB in [20, 23); 0 meets 3: 300 KB
	# through 3 start at 30 us, direct behind 600 KB at 46 us: relay,
	# [20, 23), which 3 forwards in [30, 33).
	# At 30 us: 0 meets 2 again: through 2 at 50 us, direct behind
	# 300 KB at 43 us: no relay.  [40, 46): the last 600 KB direct.
	# Makespan 46 us; vlb also relays at 30 us, 300 KB that 2 holds
	# until [50, 53); direct needs [70, 73).
	run hand rotorlb 2100000 0-2,1-3 0-1,2-3 0-3,1-2
	assert_output '["rotorlb",46000000,2700000,[2100000,0,300000,300000]]'
	run hand vlb 2100000 0-2,1-3 0-1,2-3 0-3,1-2
	assert_output '["vlb",53000000,3000000,[2100000,0,300000,300000]]'
	run hand direct 2100000 0-2,1-3 0-1,2-3 0-3,1-2
	assert_output '["direct",73000000,2100000,[2100000,0,0,0]]'
}

# both FWD BYTES: BYTES from 0 to 1 on 3 GPUs and 2 switches, with 0-2
# on switch 0 and 0-1 on switch 1 both up in [0, 9) us of a 30 us
# period, then 1-2 on switch 0 in [10, 19); relays capped at 300 KB.
# Prints the makespan and the peak buffer of each GPU.
both() {
	{
		hdr
		echo '{"type":"net","gpus":3,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":1000000}'
		xfer 0 '[]' 0 1 "$2"
		echo "{\"type\":\"schedule\",\"scheduler\":\"hand\",\"periodic\":true,\"period_ps\":30000000,\"forwarding\":\"$1\",\"vlb_cap_bytes\":300000}"
		echo '{"type":"circuit","switch":0,"a":0,"b":2,"from_ps":0,"to_ps":9000000}'
		echo '{"type":"circuit","switch":1,"a":0,"b":1,"from_ps":0,"to_ps":9000000}'
		echo '{"type":"circuit","switch":0,"a":1,"b":2,"from_ps":10000000,"to_ps":19000000}'
	} | pack > s.mp
	ocssim < s.mp > out.mp
	report --dump out.mp | jq -s -c '[(.[] | select(.type == "result") | .makespan_ps), [.[] | select(.type == "gpustat") | .peak_buffer_bytes]]'
}

@test "rotorlb: a circuit up now to the destination is bypassed only for the bytes it cannot carry, worked by hand" {
	set -o pipefail
	# 900 KB: the circuit 0-2 comes up first, at 0 us.  vlb hands 2
	# 300 KB in [0, 3), which 2 forwards in [10, 13), and sends the
	# other 600 KB over 0-1 in [0, 6): 13 us.  rotorlb: 2 would start
	# them at 10 us, 0 at once behind the 600 KB that stay, at 6 us:
	# all 900 KB direct in [0, 9).
	run both vlb 900000
	assert_output '[13000000,[900000,0,300000]]'
	run both rotorlb 900000
	assert_output '[9000000,[900000,0,0]]'
	# 1.2 MB: the 900 KB that stay fill 0-1 until it goes down at 9 us;
	# the 300 KB would start direct only at 30 us: both relay them
	# through 2, [0, 3) then [10, 13), beside 900 KB direct in [0, 9).
	# Direct forwarding needs [30, 33) for them.
	run both vlb 1200000
	assert_output '[13000000,[1200000,0,300000]]'
	run both rotorlb 1200000
	assert_output '[13000000,[1200000,0,300000]]'
	run both direct 1200000
	assert_output '[33000000,[1200000,0,0]]'
}

@test "rotorlb: rotorsched -f rotorlb writes the forwarding and the relay cap" {
	set -o pipefail
	{
		hdr
		echo '{"type":"net","gpus":8,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":1000000}'
		xfer 0 '[]' 0 1 1000
	} | mk dag.mp
	rotorsched -f rotorlb < dag.mp > s.mp
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"schedule\")'"
	assert_output '{"type":"schedule","scheduler":"rotor","periodic":true,"period_ps":40000000,"forwarding":"rotorlb","vlb_cap_bytes":900000}'
	rotorsched -f rotorlb -c 3MB < dag.mp > c.mp
	run bash -c "report --dump c.mp | jq -c 'select(.type == \"schedule\") | [.forwarding, .vlb_cap_bytes]'"
	assert_output '["rotorlb",3000000]'
	run rotorsched -f relay < dag.mp
	assert_failure 2
	assert_line 'rotorsched: -f relay: forwarding is direct, vlb or rotorlb'
	run rotorsched -f direct -c 3MB < dag.mp
	assert_failure 2
	assert_line 'rotorsched: -c goes with -f vlb or -f rotorlb'
}

@test "rotorlb: on the study's 8-layer DAG at tau 100us it ends before vlb and direct, with the buffer of direct" {
	set -o pipefail
	tracegen -l 8 -t 4 -d 2 | dagbuild -r 100us > dag.mp
	for f in direct vlb rotorlb; do
		rotorsched -m rotor -f $f < dag.mp | ocssim > $f.mp
		report --dump $f.mp | jq -c 'select(.type == "result") | [.makespan_ps, .peak_buffer_bytes]' > $f.txt
	done
	read -r d < direct.txt
	read -r v < vlb.txt
	read -r l < rotorlb.txt
	d=${d#[}; v=${v#[}; l=${l#[}
	[ "${l%,*}" -lt "${v%,*}" ] || fail "rotorlb ${l%,*} ps, vlb ${v%,*}"
	[ "${l%,*}" -lt "${d%,*}" ] || fail "rotorlb ${l%,*} ps, direct ${d%,*}"
	[ "${l#*,}" = "${d#*,}" ] || fail "rotorlb peaks at ${l#*,}, direct at ${d#*,}"
	# the same stream gives the same run, byte for byte
	rotorsched -m rotor -f rotorlb < dag.mp | ocssim > again.mp
	cmp rotorlb.mp again.mp
}
