#!/usr/bin/env bats
# ocssim's two NIC-buffer accountings (BRIEF section 9), worked by hand:
# ready (peak_buffer_bytes) and nic (peak_nic_bytes) under each host.

load helpers

NET='{"type":"net","gpus":4,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":10000000,"reconfig_model":"port","latency_ps":0}'

# peaks FILE: per GPU, [ready, nic]; then the result's two and its keys.
peaks() {
	report --dump "$1" | jq -s -c '[[.[] | select(.type == "gpustat") | [.peak_buffer_bytes, .peak_nic_bytes]], (.[] | select(.type == "result") | [.peak_buffer_bytes, .peak_nic_bytes, .nic_host, .packet_bytes])]'
}

# One planned transfer of $1 bytes, 0 to 1 on switch 0, planned at 3 us.
planned() {
	{
		hdr; echo "$NET"
		xfer 0 '[]' 0 1 "$1"
		echo '{"type":"schedule","scheduler":"hand"}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0}'
		echo '{"type":"plan","task":0,"switch":0,"start_ps":3000000}'
	} | mk dag.mp
}

@test "nicbuf: a planned transfer holds one packet window in an aware host's NIC" {
	planned 1000000
	# ready at 0, sent 3-13 us: the whole 1 MB is ready and unsent
	# until 3 us; the NIC streams it 4 KiB ahead.
	ocssim < dag.mp > out.mp
	run peaks out.mp
	assert_output '[[[1000000,4096],[0,0],[0,0],[0,0]],[1000000,4096,"plan",4096]]'
	ocssim -H circuit < dag.mp > out.mp
	run peaks out.mp
	assert_output '[[[1000000,4096],[0,0],[0,0],[0,0]],[1000000,4096,"circuit",4096]]'
	# the window is the packet size, and never more than the transfer
	ocssim -p 1KiB < dag.mp > out.mp
	run peaks out.mp
	assert_output '[[[1000000,1024],[0,0],[0,0],[0,0]],[1000000,1024,"plan",1024]]'
	ocssim --packet 2MB < dag.mp > out.mp
	run peaks out.mp
	assert_output '[[[1000000,1000000],[0,0],[0,0],[0,0]],[1000000,1000000,"plan",2000000]]'
	planned 3000
	ocssim < dag.mp > out.mp
	run peaks out.mp
	assert_output '[[[3000,3000],[0,0],[0,0],[0,0]],[3000,3000,"plan",4096]]'
}

@test "nicbuf: an unaware host's NIC holds the whole transfer from the moment it is ready" {
	planned 1000000
	ocssim -H unaware < dag.mp > out.mp
	run peaks out.mp
	assert_output '[[[1000000,1000000],[0,0],[0,0],[0,0]],[1000000,1000000,"unaware",4096]]'
}

@test "nicbuf: two planned transfers streaming at once hold a window each" {
	{
		hdr; echo "$NET"
		xfer 0 '[]' 0 1 1000000
		xfer 1 '[]' 0 2 2000000
		echo '{"type":"schedule","scheduler":"hand"}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0}'
		echo '{"type":"circuit","switch":1,"a":0,"b":2,"from_ps":0}'
		echo '{"type":"plan","task":0,"switch":0,"start_ps":0}'
		echo '{"type":"plan","task":1,"switch":1,"start_ps":0}'
	} | mk dag.mp
	ocssim < dag.mp > out.mp
	run peaks out.mp
	assert_output '[[[3000000,8192],[0,0],[0,0],[0,0]],[3000000,8192,"plan",4096]]'
}

@test "nicbuf: an unplanned transfer waits whole unless the host knows the circuits" {
	# no plan: the bytes wait for the circuit at 5 us, sent 5-15 us
	{
		hdr; echo "$NET"
		xfer 0 '[]' 0 1 1000000
		echo '{"type":"schedule","scheduler":"hand"}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":5000000}'
	} | mk dag.mp
	ocssim < dag.mp > out.mp
	run peaks out.mp
	assert_output '[[[1000000,1000000],[0,0],[0,0],[0,0]],[1000000,1000000,"plan",4096]]'
	ocssim -H circuit < dag.mp > out.mp
	run peaks out.mp
	assert_output '[[[1000000,4096],[0,0],[0,0],[0,0]],[1000000,4096,"circuit",4096]]'
}

# Two-hop forwarding of $2 bytes 0 to 1 on 4 GPUs and one switch, the
# relays capped at $1 (the case of ocssim.bats, worked there by hand).
relayed() {
	{
		hdr
		echo '{"type":"net","gpus":4,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":1000000}'
		xfer 0 '[]' 0 1 "$2"
	} | pack | rotorsched -f vlb -c "$1" > s.mp
}

@test "nicbuf: relayed bytes sit whole in the relay's NIC whatever the host" {
	# relays 2 and 3 hold 100 KB each (cap 100 KB), then 900 and
	# 200 KB (cap 900 KB); the sender streams a window at a time only
	# when its host knows the circuits.
	relayed 100KB 2000000
	ocssim -H circuit < s.mp > out.mp
	run peaks out.mp
	assert_output '[[[2000000,4096],[0,0],[100000,100000],[100000,100000]],[2000000,100000,"circuit",4096]]'
	ocssim < s.mp > out.mp
	run peaks out.mp
	assert_output '[[[2000000,2000000],[0,0],[100000,100000],[100000,100000]],[2000000,2000000,"plan",4096]]'
	relayed 900KB 2000000
	ocssim -H circuit < s.mp > out.mp
	run peaks out.mp
	assert_output '[[[2000000,4096],[0,0],[900000,900000],[200000,200000]],[2000000,900000,"circuit",4096]]'
}

@test "nicbuf: under an unaware host both accountings agree, on every scheduler" {
	set -o pipefail
	for s in "fluxsolve -m greedy" "rotorsched -f direct" "rotorsched -f vlb" "rotorsched -m bvn"; do
		$s < "$DATA/dagbuild-l1-t2-d2.msgpack" | ocssim -H unaware > out.mp
		run bash -c "report --dump out.mp | jq -c 'select(.type == \"gpustat\" or .type == \"result\") | .peak_buffer_bytes == .peak_nic_bytes' | sort -u"
		assert_output true
	done
}

@test "nicbuf: a plan-aware host's NIC holds at most one window per switch under Flux" {
	set -o pipefail
	fluxsolve -m greedy < "$DATA/dagbuild-l1-t2-d2.msgpack" | ocssim > out.mp
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"gpustat\") | .peak_nic_bytes <= 2 * 4096 and .peak_nic_bytes > 0' | sort -u"
	assert_output true
}

@test "nicbuf: bad host and packet options are usage errors" {
	planned 1000
	run ocssim -H psychic < dag.mp
	assert_failure 2
	assert_line --index 0 'ocssim: -H psychic: the host is plan, unaware or circuit'
	run ocssim -p 0 < dag.mp
	assert_failure 2
	assert_line --index 0 'ocssim: -p 0: a packet holds at least one byte'
	run ocssim -p lots < dag.mp
	assert_failure 2
	assert_line --partial 'ocssim: -p lots: '
}
