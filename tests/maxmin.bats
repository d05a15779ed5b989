#!/usr/bin/env bats
# The ideal fabric's max-min fair sharing over several rounds of water
# filling, with answers worked by hand.  Each GPU has S x B = 2 x 750
# Gbit/s = 1.5 Tbit/s out and in, so that thirds and halves of it are
# whole; every flow is 1.5 MB = 12 Mbit.

load helpers

NET='{"type":"net","gpus":7,"switches":2,"bandwidth_bps":750000000000,"reconfig_ps":10000000,"reconfig_model":"port","latency_ps":0}'

# runs: the taskrun records of ocssim -f ideal on stdin's JSON lines.
runs() {
	{ hdr; echo "$NET"; cat; } | mk dag.mp
	ocssim -f ideal -t < dag.mp > out.mp
	report --dump out.mp | jq -c 'select(.type == "taskrun") | [.id, .start_ps, .end_ps]'
}

@test "maxmin: a receiver shared with a sender-bound flow gives the other flow what is left (two rounds)" {
	# Round 1: GPU 0 sends three flows, 0.5 Tbit/s each: 24 us.
	# Round 2: GPU 1 receives 0->1 at 0.5, so 4->1 gets the rest,
	# 1 Tbit/s: 12 us.  Were the frozen flows' rates taken off their
	# senders only, 4->1 would get the whole 1.5 (8 us).
	run runs <<'EOF2'
{"type":"task","id":0,"kind":"transfer","deps":[],"src":0,"dst":1,"bytes":1500000}
{"type":"task","id":1,"kind":"transfer","deps":[],"src":0,"dst":2,"bytes":1500000}
{"type":"task","id":2,"kind":"transfer","deps":[],"src":0,"dst":3,"bytes":1500000}
{"type":"task","id":3,"kind":"transfer","deps":[],"src":4,"dst":1,"bytes":1500000}
EOF2
	assert_output '[0,0,24000000]
[1,0,24000000]
[2,0,24000000]
[3,0,12000000]'
}

@test "maxmin: a sender shared with a receiver-bound flow gives the other flow what is left (two rounds)" {
	# the mirror image: GPU 0 receives three flows at 0.5; 1->4 gets
	# the 1 Tbit/s that GPU 1 has left (8 us, were the rates taken
	# off the receivers only)
	run runs <<'EOF2'
{"type":"task","id":0,"kind":"transfer","deps":[],"src":1,"dst":0,"bytes":1500000}
{"type":"task","id":1,"kind":"transfer","deps":[],"src":2,"dst":0,"bytes":1500000}
{"type":"task","id":2,"kind":"transfer","deps":[],"src":3,"dst":0,"bytes":1500000}
{"type":"task","id":3,"kind":"transfer","deps":[],"src":1,"dst":4,"bytes":1500000}
EOF2
	assert_output '[0,0,24000000]
[1,0,24000000]
[2,0,24000000]
[3,0,12000000]'
}

@test "maxmin: three rounds, and the shares change as flows end" {
	# 0 sends to 1, 2 and 3; 4 sends to 1 and 5; 6 sends to 5.
	# Round 1 freezes GPU 0's three at 0.5 Tbit/s.  Round 2: GPU 1
	# has 1 left for 4->1, GPU 4 1.5 for 4->1 and 4->5, GPU 5 1.5
	# for 4->5 and 6->5: 0.75 each freezes 4->1, 4->5 and 6->5.  At
	# 16 us those three end (12 Mbit at 0.75); GPU 0's go on at 0.5,
	# bound by their sender, to 24 us.
	run runs <<'EOF2'
{"type":"task","id":0,"kind":"transfer","deps":[],"src":0,"dst":1,"bytes":1500000}
{"type":"task","id":1,"kind":"transfer","deps":[],"src":0,"dst":2,"bytes":1500000}
{"type":"task","id":2,"kind":"transfer","deps":[],"src":0,"dst":3,"bytes":1500000}
{"type":"task","id":3,"kind":"transfer","deps":[],"src":4,"dst":1,"bytes":1500000}
{"type":"task","id":4,"kind":"transfer","deps":[],"src":4,"dst":5,"bytes":1500000}
{"type":"task","id":5,"kind":"transfer","deps":[],"src":6,"dst":5,"bytes":1500000}
EOF2
	assert_output '[0,0,24000000]
[1,0,24000000]
[2,0,24000000]
[3,0,16000000]
[4,0,16000000]
[5,0,16000000]'
}
