#!/usr/bin/env bats
# ocssim: the simulator, checked against answers known in closed form.

load helpers

NET='{"type":"net","gpus":4,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":10000000,"reconfig_model":"port","latency_ps":0}'

# task ID KIND DEPS REST: a task record as a JSON line
task() {
	echo "{\"type\":\"task\",\"id\":$1,\"kind\":\"$2\",\"deps\":$3,$4}"
}

result() {
	field "$1" result "$2"
}

# A ring all-reduce of $1 bytes over 4 GPUs, as built by dagbuild.
ring_ar() {
	{
		hdr
		for r in 0 1 2 3; do
			echo "{\"type\":\"op\",\"id\":$r,\"rank\":$r,\"kind\":\"allreduce\",\"name\":\"ar\",\"deps\":[],\"group\":[0,1,2,3],\"size\":$1,\"coll\":0}"
		done
	} | pack | dagbuild "${@:2}"
}

@test "ocssim: a static ring all-reduce of S bytes takes 2(N-1)/N x S/B exactly" {
	ring_ar 800000000 > dag.mp
	ocssim -f static -c 0-1@0,1-2@1,2-3@0,0-3@1 < dag.mp > out.mp
	# 2 * 3/4 * 8e9 bits / 8e11 bit/s = 12 ms
	run result out.mp makespan_ps
	assert_output 12000000000
	# 2(N-1) steps of N transfers of S/N
	run result out.mp bytes_sent
	assert_output 4800000000
}

@test "ocssim: the ring's time adds the latency of each of its 2(N-1) steps" {
	ring_ar 800000000 -L 1us > dag.mp
	ocssim -f static -c 0-1@0,1-2@1,2-3@0,0-3@1 < dag.mp > out.mp
	run result out.mp makespan_ps
	assert_output $((12000000000 + 6 * 1000000))
}

@test "ocssim: -c ring builds that same ring" {
	ring_ar 800000000 > dag.mp
	ocssim -f static -c ring < dag.mp > out.mp
	run result out.mp makespan_ps
	assert_output 12000000000
}

@test "ocssim: the ideal fabric equals the critical path when transfers never contend" {
	{
		hdr; echo "$NET"
		task 0 compute '[]' '"gpu":0,"duration_ps":5000000'
		task 1 transfer '[0]' '"src":0,"dst":1,"bytes":1000000'
		task 2 compute '[1]' '"gpu":1,"duration_ps":7000000'
		task 3 transfer '[2]' '"src":1,"dst":3,"bytes":3000000'
	} | mk dag.mp
	ocssim -f ideal < dag.mp > out.mp
	# one transfer alone gets S*B = 1.6 Tbit/s: 5 us + 5 us + 7 us + 15 us
	run result out.mp makespan_ps
	assert_output 32000000
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"gpustat\") | [.gpu, .busy_ps, .stall_ps]'"
	assert_output '[0,5000000,0]
[1,7000000,10000000]
[2,0,0]
[3,0,0]'
}

@test "ocssim: the ideal fabric shares a port max-min fairly" {
	{
		hdr; echo "$NET"
		task 0 transfer '[]' '"src":0,"dst":1,"bytes":1000000'
		task 1 transfer '[]' '"src":0,"dst":2,"bytes":2000000'
		task 2 transfer '[]' '"src":3,"dst":2,"bytes":1000000'
	} | mk dag.mp
	ocssim -f ideal -t < dag.mp > out.mp
	# 0 sends two flows at 0.8 Tbit/s each; 2 receives two at 0.8.
	# At 10 us tasks 0 and 2 end; task 1 has 1 MB left at 1.6: 5 us.
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"taskrun\") | [.id, .start_ps, .end_ps]'"
	assert_output '[0,0,10000000]
[1,0,15000000]
[2,0,10000000]'
}

@test "ocssim: a transfer waits for its circuit to come up after tau" {
	{
		hdr; echo "$NET"
		task 0 transfer '[]' '"src":0,"dst":1,"bytes":1000000'
		echo '{"type":"schedule","scheduler":"hand","periodic":false}'
		echo '{"type":"circuit","switch":0,"a":0,"b":2,"from_ps":0,"to_ps":5000000}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":15000000}'
	} | mk dag.mp
	ocssim -t < dag.mp > out.mp
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"taskrun\") | [.start_ps, .end_ps]'"
	assert_output '[15000000,25000000]'
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"switchstat\") | [.switch, .reconfigs]'"
	assert_output '[0,1]
[1,0]'
}

@test "ocssim: circuits come up in time order across switches" {
	# Circuits are kept by switch, then start: switch 1's circuit, up
	# at 15 us, comes after switch 0's second, at 30 us, while a compute
	# ends at 25 us.  Task 1, ready at 10 us, sends 1.5 MB over it
	# alone, then the rest over both from 30 us.
	{
		hdr; echo "$NET"
		task 0 transfer '[]' '"src":0,"dst":1,"bytes":1000000'
		task 1 transfer '[0]' '"src":0,"dst":2,"bytes":2000000'
		task 2 compute '[]' '"gpu":3,"duration_ps":25000000'
		echo '{"type":"schedule","scheduler":"hand","periodic":false}'
		echo '{"type":"circuit","switch":1,"a":0,"b":2,"from_ps":15000000}'
		echo '{"type":"circuit","switch":0,"a":0,"b":2,"from_ps":30000000,"to_ps":40000000}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0,"to_ps":10000000}'
	} | mk dag.mp
	ocssim -t < dag.mp > out.mp
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"taskrun\") | [.id, .start_ps, .end_ps]'"
	assert_output '[0,0,10000000]
[1,15000000,32500000]
[2,0,25000000]'
}

@test "ocssim: a periodic schedule repeats and a transfer spans slots" {
	{
		hdr; echo "$NET"
		task 0 transfer '[]' '"src":0,"dst":1,"bytes":1000000'
		echo '{"type":"schedule","scheduler":"hand","periodic":true,"period_ps":10000000}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":1000000,"to_ps":10000000}'
	} | mk dag.mp
	ocssim < dag.mp > out.mp
	# 10 us of sending: 9 us in the first slot, 1 us after the next 1 us gap
	run result out.mp makespan_ps
	assert_output 12000000
}

@test "ocssim: unplanned bytes drain over every circuit to their destination" {
	{
		hdr; echo "$NET"
		task 0 transfer '[]' '"src":0,"dst":1,"bytes":2000000'
		echo '{"type":"schedule","scheduler":"hand","periodic":false}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0}'
		echo '{"type":"circuit","switch":1,"a":0,"b":1,"from_ps":0}'
	} | mk dag.mp
	ocssim < dag.mp > out.mp
	run result out.mp makespan_ps
	assert_output 10000000
}

@test "ocssim: a planned transfer uses its switch only, in plan order" {
	{
		hdr; echo "$NET"
		task 0 transfer '[]' '"src":0,"dst":1,"bytes":1000000'
		task 1 transfer '[]' '"src":0,"dst":1,"bytes":1000000'
		echo '{"type":"schedule","scheduler":"hand","periodic":false}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0}'
		echo '{"type":"circuit","switch":1,"a":0,"b":1,"from_ps":0}'
		echo '{"type":"plan","task":1,"switch":0,"start_ps":0}'
		echo '{"type":"plan","task":0,"switch":0,"start_ps":10000000}'
	} | mk dag.mp
	ocssim -t < dag.mp > out.mp
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"taskrun\") | [.id, .start_ps, .end_ps]'"
	assert_output '[0,10000000,20000000]
[1,0,10000000]'
}

@test "ocssim: plans listed out of start order are taken in start order" {
	{
		hdr; echo "$NET"
		task 0 transfer '[]' '"src":0,"dst":1,"bytes":1000000'
		task 1 transfer '[]' '"src":0,"dst":1,"bytes":1000000'
		task 2 transfer '[]' '"src":0,"dst":1,"bytes":1000000'
		echo '{"type":"schedule","scheduler":"hand","periodic":false}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0}'
		echo '{"type":"plan","task":0,"switch":0,"start_ps":20000000}'
		echo '{"type":"plan","task":2,"switch":0,"start_ps":10000000}'
		echo '{"type":"plan","task":1,"switch":0,"start_ps":10000000}'
	} | mk dag.mp
	ocssim -t < dag.mp > out.mp
	# Equal starts go by task: 1 before 2.
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"taskrun\") | [.id, .start_ps, .end_ps]'"
	assert_output '[0,30000000,40000000]
[1,10000000,20000000]
[2,20000000,30000000]'
}

@test "ocssim: the NIC buffer peak counts ready bytes not yet sent" {
	{
		hdr; echo "$NET"
		task 0 compute '[]' '"gpu":0,"duration_ps":1000000'
		task 1 transfer '[0]' '"src":0,"dst":1,"bytes":1000000'
		task 2 transfer '[0]' '"src":0,"dst":1,"bytes":3000000'
		task 3 transfer '[]' '"src":2,"dst":3,"bytes":500'
		echo '{"type":"schedule","scheduler":"hand","periodic":false}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0}'
		echo '{"type":"circuit","switch":0,"a":2,"b":3,"from_ps":0}'
	} | mk dag.mp
	ocssim < dag.mp > out.mp
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"gpustat\") | [.gpu, .peak_buffer_bytes]'"
	assert_output '[0,4000000]
[1,0]
[2,500]
[3,0]'
	run result out.mp peak_buffer_bytes
	assert_output 4000000
}

@test "ocssim: per-step times split the iteration" {
	tracegen -l 1 -t 2 -d 2 -n 2 | dagbuild > dag.mp
	ocssim -f ideal < dag.mp > out.mp
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"result\") | [(.step_ps | length), (.step_ps | add) == .makespan_ps]'"
	assert_output '[2,true]'
}

@test "ocssim: the paper's workload runs on the ideal fabric and its stream passes through" {
	ocssim -f ideal < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > out.mp
	run bash -c "report -s out.mp | tail -1"
	assert_output '  records: header 3, workload 1, net 1, task 1920, result 1, gpustat 8, end 1'
	# golden value of this deterministic run; it must also exceed the
	# compute of every GPU (92.5 ms: 8 layers x 11.56 ms)
	run result out.mp makespan_ps
	assert_output 102866939272
	run bash -c "report --dump out.mp | jq -s '[.[] | select(.type == \"gpustat\") | .busy_ps] | max'"
	assert_output 92506987912
}

@test "ocssim: schedules that break the port model are refused" {
	base() { hdr; echo "$NET"; task 0 transfer '[]' '"src":0,"dst":1,"bytes":1'; echo '{"type":"schedule","scheduler":"hand","periodic":false}'; }
	{ base; echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0,"to_ps":100}'
	  echo '{"type":"circuit","switch":0,"a":0,"b":2,"from_ps":50,"to_ps":200}'; } | mk s.mp
	run ocssim < s.mp
	assert_failure 1
	assert_output 'ocssim: invalid schedule: circuit 0-2 on switch 0 from 50 ps: port 0 is still in a circuit until 100 ps'
	{ base; echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0,"to_ps":100}'
	  echo '{"type":"circuit","switch":0,"a":0,"b":2,"from_ps":5000,"to_ps":20000000}'; } | mk s.mp
	run ocssim < s.mp
	assert_output 'ocssim: invalid schedule: circuit 0-2 on switch 0 from 5000 ps: port 0 changes partner only 4900 ps after its previous circuit ends'
	{ base; echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0,"to_ps":100}'
	  echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":200}'; } | mk s.mp
	run ocssim < s.mp
	assert_success
}

@test "ocssim: the switch model darkens the whole switch for tau" {
	net='{"type":"net","gpus":4,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":1000,"reconfig_model":"switch"}'
	{ hdr; echo "$net"; task 0 transfer '[]' '"src":0,"dst":1,"bytes":1'
	  echo '{"type":"schedule","scheduler":"hand"}'
	  echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0,"to_ps":100}'
	  echo '{"type":"circuit","switch":0,"a":2,"b":3,"from_ps":0,"to_ps":1000}'
	  echo '{"type":"circuit","switch":0,"a":0,"b":2,"from_ps":1500,"to_ps":3000}'; } | mk s.mp
	run ocssim < s.mp
	assert_failure 1
	assert_output 'ocssim: invalid schedule: circuit 0-2 on switch 0 from 1500 ps: the switch changes its matching while circuit 2-3 is up within the reconfiguration time before it'
}

@test "ocssim: periodic circuits must fit in the period, and wrap with tau" {
	base() { hdr; echo "$NET"; task 0 transfer '[]' '"src":0,"dst":1,"bytes":1'; echo '{"type":"schedule","scheduler":"hand","periodic":true,"period_ps":100000000}'; }
	{ base; echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0,"to_ps":200000000}'; } | mk s.mp
	run ocssim < s.mp
	assert_output 'ocssim: invalid schedule: circuit 0-1 on switch 0 from 0 ps: ends at 200000000 ps, after the period of 100000000 ps'
	{ base; echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0,"to_ps":50000000}'
	  echo '{"type":"circuit","switch":0,"a":0,"b":2,"from_ps":60000000,"to_ps":95000000}'; } | mk s.mp
	run ocssim < s.mp
	assert_output 'ocssim: invalid schedule: circuit 0-1 on switch 0 from 0 ps: port 0 changes partner only 5000000 ps after its previous circuit ends'
}

@test "ocssim: bad circuit and plan records are refused" {
	base() { hdr; echo "$NET"; task 0 compute '[]' '"gpu":0,"duration_ps":1'; echo '{"type":"schedule","scheduler":"hand"}'; }
	{ base; echo '{"type":"circuit","switch":2,"a":0,"b":1,"from_ps":0}'; } | mk s.mp
	run ocssim < s.mp
	assert_output --regexp 'circuit record: switch 2 out of range \(the net has 2\)$'
	{ base; echo '{"type":"circuit","switch":0,"a":1,"b":1,"from_ps":0}'; } | mk s.mp
	run ocssim < s.mp
	assert_output --regexp 'circuit record: circuit joins GPU 1 to itself$'
	{ base; echo '{"type":"circuit","switch":0,"a":0,"b":9,"from_ps":0}'; } | mk s.mp
	run ocssim < s.mp
	assert_output --regexp 'circuit record: GPU out of range \(the net has 4\)$'
	{ base; echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":5,"to_ps":5}'; } | mk s.mp
	run ocssim < s.mp
	assert_output --regexp 'from_ps 5 is not before to_ps 5$'
	{ base; echo '{"type":"plan","task":0,"switch":0,"start_ps":0}'; } | mk s.mp
	run ocssim < s.mp
	assert_failure 1
	assert_output 'ocssim: stdin: byte 240: plan record: plan for task 0, which is not a transfer'
	{ hdr; echo "$NET"; task 0 transfer '[]' '"src":0,"dst":1,"bytes":1'
	  echo '{"type":"schedule","scheduler":"hand"}'
	  echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0}'
	  echo '{"type":"plan","task":0,"switch":0,"start_ps":0}'
	  echo '{"type":"plan","task":0,"switch":1,"start_ps":0}'; } | mk s.mp
	run ocssim < s.mp
	assert_failure 1
	assert_output 'ocssim: stdin: byte 312: plan record: task 0 is planned twice'
}

@test "ocssim: a transfer that can never be sent is a deadlock, named" {
	ring_ar 4000 > dag.mp
	run ocssim -f static -c 0-1@0,1-2@1,2-3@0 < dag.mp
	assert_failure 1
	assert_output --regexp '^ocssim: deadlock at [0-9]+ ps: [0-9]+ of 24 tasks done; transfer 3 \(3->0, 1000 bytes\) waits for a circuit 3-0 that never comes$'
}

@test "ocssim: a periodic schedule that never serves a pair is a deadlock, not a hang" {
	{
		hdr; echo "$NET"
		task 0 transfer '[]' '"src":0,"dst":1,"bytes":100'
		echo '{"type":"schedule","scheduler":"hand","periodic":true,"period_ps":1000}'
		echo '{"type":"circuit","switch":0,"a":2,"b":3,"from_ps":0,"to_ps":500}'
	} | mk s.mp
	run timeout 10 ocssim < s.mp
	assert_failure 1
	assert_output --partial 'transfer 0 (0->1, 100 bytes) waits for a circuit 0-1 that never comes'
}

@test "ocssim: streams without a net, tasks or a schedule are refused" {
	tracegen -l 1 > ops.mp
	run bash -c "ocssim -f ideal < ops.mp > /dev/null"
	assert_failure 1
	assert_output 'ocssim: stdin: no net record: make the DAG with dagbuild'
	tracegen -l 1 | dagbuild > dag.mp
	run bash -c "ocssim < dag.mp > /dev/null"
	assert_failure 1
	assert_output 'ocssim: stdin: no schedule record: pipe the DAG through a scheduler (fluxsolve, rotorsched) or give -f ideal or -f static'
	ocssim -f ideal < dag.mp > out.mp
	run bash -c "ocssim -f ideal < out.mp > /dev/null"
	assert_output --regexp 'result record: the stream has been simulated already$'
}

@test "ocssim: tasks must be dense, ordered and on known GPUs" {
	{ hdr; echo "$NET"; task 1 compute '[]' '"gpu":0,"duration_ps":1'; } | mk s.mp
	run ocssim -f ideal < s.mp
	assert_output --regexp 'task record: id 1 out of order \(expected 0\)$'
	{ hdr; echo "$NET"; task 0 compute '[0]' '"gpu":0,"duration_ps":1'; } | mk s.mp
	run ocssim -f ideal < s.mp
	assert_output --regexp 'task 0 depends on 0, which is not an earlier task$'
	{ hdr; echo "$NET"; task 0 transfer '[]' '"src":0,"dst":0,"bytes":1'; } | mk s.mp
	run ocssim -f ideal < s.mp
	assert_output --regexp 'transfer from GPU 0 to itself$'
	{ hdr; task 0 transfer '[]' '"src":0,"dst":1,"bytes":1'; } | mk s.mp
	run ocssim -f ideal < s.mp
	assert_output 'ocssim: stdin: byte 60: task record: comes before the net record'
}

@test "ocssim: bad streams exit 1 with the offset" {
	run ocssim -f ideal < /dev/null
	assert_failure 1
	assert_output 'ocssim: stdin: empty input: expected a fluxocs stream'
	head -c 1000 "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > cut.mp
	run ocssim -f ideal < cut.mp
	assert_failure 1
	assert_output --regexp '^ocssim: stdin: byte [0-9]+: truncated record: input ends at byte 1000$'
}

@test "ocssim: bad options exit 2 with usage" {
	for o in "-f fast" "-T 0" "-T x" "-c ring" "-q" "extra"; do
		run ocssim $o < /dev/null
		[ "$status" -eq 2 ] || fail "ocssim $o exited $status"
		assert_line --partial 'usage: ocssim'
	done
}

@test "ocssim: -c with a bad circuit list is refused" {
	ring_ar 4000 > dag.mp
	run ocssim -f static -c 0-9@0 < dag.mp
	assert_failure 1
	assert_output 'ocssim: -c 0-9@0: expected "ring" or a list like 0-1@0,2-3@1 of GPUs below 4 and switches below 2'
}

@test "ocssim: the same input gives byte-identical output, also from the release build" {
	ocssim -f ideal -t < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > a.mp
	"$FLUXOCS_RELBIN/ocssim" -f ideal -t < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > b.mp
	cmp a.mp b.mp
}

@test "ocssim: the event log records every event" {
	ring_ar 4000 > dag.mp
	ocssim -f static -c ring -l log.txt < dag.mp > out.mp
	run grep -c ' done ' log.txt
	assert_output 24
	run grep -c '^0 circuit-up ' log.txt
	assert_output 4
	run tail -1 log.txt
	assert_output --regexp '^[0-9]+ done [0-9]+$'
}

@test "ocssim: a full disk is an error" {
	run bash -c "ocssim -f ideal < '$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack' > /dev/full"
	assert_failure 1
	assert_output --partial 'ocssim: write error'
}

@test "ocssim: refuses to write binary to a terminal" {
	run script -qec "$BIN/ocssim -f ideal < $TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack; echo rc=\$?" /dev/null
	assert_output --partial 'refusing to write a binary stream to a terminal'
	assert_output --partial 'rc=2'
}

@test "ocssim: deliveries in flight longer than two periods are not a deadlock" {
	set -o pipefail
	tracegen -l 1 | dagbuild -L 1ms | rotorsched > s.mp
	run bash -c "ocssim < s.mp > out.mp"
	assert_success
}

@test "ocssim: a static fabric from circuit records never relays" {
	set -o pipefail
	tracegen -l 1 -t 2 -d 1 | dagbuild -g 2 -s 1 | rotorsched -s 20us -f vlb > s.mp
	ocssim -f static < s.mp > out.mp
	total=$(report --dump s.mp | jq -s '[.[] | select(.type == "task" and .kind == "transfer") | .bytes] | add')
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"result\") | [.fabric, .bytes_sent]'"
	assert_output "[\"static\",$total]"
}

@test "ocssim: a static ring never relays, though the stream's schedule asks for two-hop forwarding" {
	set -o pipefail
	# 4 GPUs, 2 switches: the rotor schedule relays (so the check
	# can fail), the static ring of the same stream sends every byte
	# once, from its source
	tracegen -l 1 -t 4 -d 1 | dagbuild -g 4 -s 2 | rotorsched -s 20us -f vlb > s.mp
	total=$(report --dump s.mp | jq -s '[.[] | select(.type == "task" and .kind == "transfer") | .bytes] | add')
	ocssim < s.mp > vlb.mp
	sent=$(report --dump vlb.mp | jq 'select(.type == "result") | .bytes_sent')
	[ "$sent" -gt "$total" ] || fail "two-hop sent $sent of $total bytes: no relay"
	ocssim -f static -c ring < s.mp > out.mp
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"result\") | [.fabric, .bytes_sent]'"
	assert_output "[\"static\",$total]"
}

# $2 bytes from GPU 0 to GPU 1 on a rotor of 4 GPUs and one switch, at
# 800 Gbit/s (100 bytes a ns) and a 1 us reconfiguration: slots of
# 10 us, each up 9 us (900 KB), matchings 0-1 2-3, 0-2 1-3, 0-3 1-2,
# relays capped at $1.  Prints the makespan, the bytes sent and the
# peak buffers of relays 2 and 3.
relay_case() {
	{
		hdr
		echo '{"type":"net","gpus":4,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":1000000}'
		xfer 0 '[]' 0 1 "$2"
	} | pack | rotorsched -f vlb -c "$1" > s.mp
	ocssim < s.mp > out.mp
	report --dump out.mp | jq -s -c '[(.[] | select(.type == "result") | .makespan_ps, .bytes_sent), [.[] | select(.type == "gpustat" and .gpu >= 2) | .peak_buffer_bytes]]'
}

@test "ocssim: the relay cap binds, and frees as relays forward, worked by hand" {
	set -o pipefail
	# 2 MB, cap 100 KB: 900 KB direct in 1-10 us; 100 KB to relay 2 at
	# 11-12 us, then 2 holds its cap and takes no more; 100 KB to
	# relay 3 at 21-22 us (2 forwards its 100 KB to 1 at 21-22 us);
	# the last 900 KB direct at 31-40 us; 3 forwards at 41-42 us.
	run relay_case 100KB 2000000
	assert_output '[42000000,2200000,[100000,100000]]'
	# 2 MB, cap 900 KB: 900 KB direct; 900 KB to 2 in 11-20 us; the last
	# 200 KB to 3 at 21-23 us; 3 forwards them at 41-43 us.
	run relay_case 900KB 2000000
	assert_output '[43000000,3100000,[900000,200000]]'
	# 4 MB, cap 100 KB: each period of 30 us moves 900 KB direct and
	# 100 KB through each relay, which forwards it in time to take
	# 100 KB again a period later: 3.1, 2.9 left after period 1, then
	# 2.0 and 1.8, 0.9 and 0.7; the last 700 KB direct at 91-98 us,
	# relay 3's last 100 KB to 1 at 101-102 us; relays sent 300 KB each
	run relay_case 100KB 4000000
	assert_output '[102000000,4600000,[100000,100000]]'
}

@test "ocssim: a planned transfer does not start before its planned start" {
	{
		hdr; echo "$NET"
		task 0 transfer '[]' '"src":0,"dst":1,"bytes":1000000'
		echo '{"type":"schedule","scheduler":"hand"}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0}'
		echo '{"type":"plan","task":0,"switch":0,"start_ps":3000000}'
	} | mk dag.mp
	ocssim -t < dag.mp > out.mp
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"taskrun\") | [.start_ps, .end_ps]'"
	assert_output '[3000000,13000000]'
}

@test "ocssim: a circuit set up as another ends at the same instant keeps its port (regression: review)" {
	{
		hdr
		echo '{"type":"net","gpus":4,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":0}'
		task 0 transfer '[]' '"src":0,"dst":1,"bytes":1000000'
		task 1 transfer '[0]' '"src":0,"dst":2,"bytes":1000000'
		echo '{"type":"schedule","scheduler":"hand"}'
		echo '{"type":"circuit","switch":0,"a":0,"b":2,"from_ps":10000000}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0,"to_ps":10000000}'
	} | mk dag.mp
	run bash -c "ocssim < dag.mp | report --dump | jq 'select(.type == \"result\") | .makespan_ps'"
	assert_output 20000000
}

@test "ocssim: the event log survives a deadlock (regression: review)" {
	{
		hdr; echo "$NET"
		task 0 transfer '[]' '"src":0,"dst":1,"bytes":100'
		echo '{"type":"schedule","scheduler":"hand"}'
		echo '{"type":"circuit","switch":0,"a":2,"b":3,"from_ps":0}'
	} | mk dag.mp
	run bash -c "ocssim -l log.txt < dag.mp > /dev/null"
	assert_failure 1
	run grep -c ready log.txt
	assert_output 1
}

@test "ocssim: regression: defect 10: a plan for a compute task, or a task planned twice, is named with its byte offset, on stdin and in -S's file" {
	set -o pipefail
	tracegen -l 1 -t 2 -d 2 | dagbuild -r 10us > dag.mp
	fluxsolve -m greedy < dag.mp > plan.mp
	c=$(records dag.mp task | jq -s 'map(select(.kind == "compute"))[0].id')
	x=$(records plan.mp plan | head -1 | jq .task)
	# the plans as fluxsolve writes them (the fast reader's layout), one
	# of them moved to a compute task, or one written twice
	report --dump plan.mp | grep -v '"type":"end"' > p.json
	awk -v c="$c" '/"type":"plan"/ && !done { sub(/"task":[0-9]+/, "\"task\":" c); done = 1 } 1' p.json | pack > comp.mp
	{ cat p.json; records plan.mp plan | head -1; } | pack > twice.mp
	run bash -c "ocssim < comp.mp > /dev/null"
	assert_failure 1
	assert_output --regexp "^ocssim: stdin: byte [0-9]+: plan record: plan for task $c, which is not a transfer\$"
	run bash -c "ocssim < twice.mp > /dev/null"
	assert_failure 1
	assert_output --regexp "^ocssim: stdin: byte [0-9]+: plan record: task $x is planned twice\$"
	# the offset is the record's: the byte there starts a plan record
	off=$(echo "$output" | sed 's/.*byte \([0-9]*\):.*/\1/')
	[ "$off" -gt "$(($(stat -c %s twice.mp) - 200))" ]
	run bash -c "ocssim -S comp.mp -R hold < dag.mp > /dev/null"
	assert_failure 1
	assert_output --regexp "^ocssim: comp.mp: byte [0-9]+: plan record: plan for task $c, which is not a transfer\$"
}
