#!/usr/bin/env bats
# fluxsolve: Flux schedules, their bounds, and their replay.

load helpers

NET='{"type":"net","gpus":4,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":10000000,"reconfig_model":"port","latency_ps":0}'

task() {
	echo "{\"type\":\"task\",\"id\":$1,\"kind\":\"$2\",\"deps\":$3,$4}"
}

solve() {
	field "$1" solve "$2"
}

@test "fluxsolve: replaying a greedy schedule in ocssim gives its objective exactly" {
	set -o pipefail
	for tau in 1us 10us 100us 1ms; do
		tracegen -l 2 | dagbuild -r $tau | fluxsolve -T 3 > f.mp
		ocssim < f.mp > out.mp
		obj=$(solve f.mp objective_ps)
		run bash -c "report --dump out.mp | jq 'select(.type == \"result\") | .makespan_ps'"
		assert_output "$obj"
	done
}

@test "fluxsolve: the bound never exceeds the objective, and optimal means equal" {
	set -o pipefail
	tracegen -l 2 | dagbuild -r 1ms | fluxsolve -m greedy > f.mp
	run bash -c "report --dump f.mp | jq -c 'select(.type == \"solve\") | [.bound_ps <= .objective_ps, (.status == \"optimal\") == (.bound_ps == .objective_ps), .method]'"
	assert_output '[true,true,"greedy"]'
}

@test "fluxsolve: a chain with one transfer is optimal: compute, transfer at B, compute" {
	{
		hdr; echo "$NET"
		task 0 compute '[]' '"gpu":0,"duration_ps":5000000'
		task 1 transfer '[0]' '"src":0,"dst":1,"bytes":1000000'
		task 2 compute '[1]' '"gpu":1,"duration_ps":7000000'
	} | mk dag.mp
	fluxsolve < dag.mp > f.mp
	# 5 us + 1 MB at 800 Gbit/s (10 us) + 7 us, no tau for a first circuit
	run bash -c "report --dump f.mp | jq -c 'select(.type == \"solve\") | [.status, .objective_ps, .bound_ps]'"
	assert_output '["optimal",22000000,22000000]'
	run bash -c "report --dump f.mp | jq -c 'select(.type == \"plan\" or .type == \"circuit\") | del(.type)'"
	assert_output '{"switch":0,"a":0,"b":1,"from_ps":5000000,"to_ps":15000000}
{"task":1,"switch":0,"start_ps":5000000}'
}

@test "fluxsolve: a second partner costs tau, hidden behind compute when it can be" {
	{
		hdr; echo "$NET"
		task 0 transfer '[]' '"src":0,"dst":1,"bytes":1000000'
		task 1 compute '[0]' '"gpu":1,"duration_ps":50000000'
		task 2 transfer '[1]' '"src":1,"dst":2,"bytes":1000000'
		task 3 transfer '[1]' '"src":1,"dst":3,"bytes":1000000'
	} | mk dag.mp
	fluxsolve < dag.mp > f.mp
	# 10 us, 50 us of compute; then 1->2 and 1->3 at once on the two
	# switches, one of them reconfigured during the compute
	run solve f.mp objective_ps
	assert_output 70000000
	ocssim -t < f.mp > out.mp
	run bash -c "report --dump out.mp | jq -c 'select(.type == \"result\") | .makespan_ps'"
	assert_output 70000000
}

@test "fluxsolve: the paper's workload gets a valid schedule at every tau" {
	set -o pipefail
	for tau in 1us 10us 100us 1ms; do
		dagbuild -r $tau < "$TOP/traces/llama3-8b-l8-tp4-dp2.ops.msgpack" > dag.mp
		fluxsolve -m greedy < dag.mp > f.mp
		ocssim < f.mp > out.mp
		ocssim -f ideal < dag.mp > ideal.mp
		obj=$(solve f.mp objective_ps)
		ideal=$(report --dump ideal.mp | jq 'select(.type == "result") | .makespan_ps')
		# ocssim checks every circuit; the replay ends at the
		# objective, above the bound and the ideal fabric's makespan
		run bash -c "report --dump out.mp | jq -c 'select(.type == \"result\") | [.fabric, .scheduler, .makespan_ps]'"
		assert_output "[\"schedule\",\"greedy\",$obj]"
		[ "$(solve f.mp bound_ps)" -le "$obj" ] || fail "tau $tau: bound above $obj"
		[ "$ideal" -le "$obj" ] || fail "tau $tau: ideal $ideal above $obj"
	done
}

@test "fluxsolve: output is byte-identical but for the solve time" {
	fluxsolve -m greedy < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > a.mp
	fluxsolve -m greedy < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > b.mp
	cmp <(report --dump a.mp | jq -c 'del(.seconds)') <(report --dump b.mp | jq -c 'del(.seconds)')
}

@test "fluxsolve: streams without a DAG, or with a schedule, are refused" {
	run bash -c "tracegen -l 1 | fluxsolve > /dev/null"
	assert_failure 1
	assert_output 'fluxsolve: stdin: no net record: make the DAG with dagbuild'
	fluxsolve -m greedy < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > f.mp
	run bash -c "fluxsolve < f.mp > /dev/null"
	assert_failure 1
	assert_output --regexp 'schedule record: the stream holds a schedule already$'
	run fluxsolve < /dev/null
	assert_failure 1
	assert_output 'fluxsolve: stdin: empty input: expected a fluxocs stream'
}

@test "fluxsolve: bad options exit 2, a full disk and a terminal are refused" {
	for o in "-m magic" "-q" "extra"; do
		run fluxsolve $o < /dev/null
		[ "$status" -eq 2 ] || fail "fluxsolve $o exited $status"
		assert_line --partial 'usage: fluxsolve'
	done
	run bash -c "fluxsolve -m greedy < '$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack' > /dev/full"
	assert_failure 1
	assert_output --partial 'fluxsolve: write error'
	run script -qec "$BIN/fluxsolve < $TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack; echo rc=\$?" /dev/null
	assert_output --partial 'rc=2'
}

@test "fluxsolve: replays are exact with tau 0 and when a transfer is ready early (regression: review)" {
	set -o pipefail
	dagbuild -r 0 < "$TOP/traces/llama3-8b-l8-tp4-dp2.ops.msgpack" | fluxsolve -m greedy > f.mp
	run bash -c "ocssim < f.mp | report --dump | jq 'select(.type == \"result\") | .makespan_ps'"
	assert_output "$(solve f.mp objective_ps)"
	tracegen -l 1 -t 8 -d 1 | dagbuild -a direct -r 10us | fluxsolve -m greedy > f.mp
	run bash -c "ocssim < f.mp | report --dump | jq 'select(.type == \"result\") | .makespan_ps'"
	assert_output "$(solve f.mp objective_ps)"
}

@test "fluxsolve: simulated streams are refused" {
	ocssim -f ideal < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > sim.mp
	run bash -c "fluxsolve < sim.mp > /dev/null"
	assert_failure 1
	assert_output --regexp 'result record: the stream has been simulated already$'
}

# randdag SEED: a random DAG of 40 tasks on 5 GPUs, 2 switches, as JSON
randdag() {
	awk -v seed="$1" 'BEGIN {
		srand(seed)
		tau = int(rand() * 3) * 5000000
		print "{\"type\":\"header\",\"format\":\"fluxocs\",\"version\":1,\"minor\":1,\"tool\":\"t\",\"args\":[]}"
		printf "{\"type\":\"net\",\"gpus\":5,\"switches\":2,\"bandwidth_bps\":800000000000,\"reconfig_ps\":%d}\n", tau
		last[0] = -1; last[1] = -1; last[2] = -1; last[3] = -1; last[4] = -1
		for (i = 0; i < 40; i++) {
			deps = ""
			for (k = 0; k < 2 && i > 0; k++) {
				d = int(rand() * i)
				if (index("," deps ",", "," d ",") == 0)
					deps = deps (deps == "" ? "" : ",") d
			}
			if (rand() < 0.4) {
				g = int(rand() * 5)
				if (last[g] >= 0 && index("," deps ",", "," last[g] ",") == 0)
					deps = deps (deps == "" ? "" : ",") last[g]
				last[g] = i
				printf "{\"type\":\"task\",\"id\":%d,\"kind\":\"compute\",\"deps\":[%s],\"gpu\":%d,\"duration_ps\":%d}\n", i, deps, g, int(rand() * 20000000)
			} else {
				a = int(rand() * 5); b = (a + 1 + int(rand() * 4)) % 5
				printf "{\"type\":\"task\",\"id\":%d,\"kind\":\"transfer\",\"deps\":[%s],\"src\":%d,\"dst\":%d,\"bytes\":%d}\n", i, deps, a, b, int(rand() * 2000000)
			}
		}
	}'
}

@test "fluxsolve: schedules of random DAGs are valid and replay to their objective" {
	for seed in $(seeds 60); do
		randdag $seed | pack > dag.mp
		fluxsolve -m greedy < dag.mp > f.mp || fail "seed $seed: fluxsolve failed"
		obj=$(solve f.mp objective_ps)
		bound=$(solve f.mp bound_ps)
		got=$(ocssim < f.mp | field - result makespan_ps)
		[ "$got" = "$obj" ] || fail "seed $seed: replay $got, objective $obj"
		[ "$bound" -le "$obj" ] || fail "seed $seed: bound $bound above $obj"
	done
}

@test "fluxsolve: at tau = 1 us the greedy proves itself optimal on the paper's workloads" {
	set -o pipefail
	for l in 8 16; do
		dagbuild -r 1us < "$TOP/traces/llama3-8b-l$l-tp4-dp2.ops.msgpack" | fluxsolve -m greedy > f.mp
		run bash -c "report --dump f.mp | jq -c 'select(.type == \"solve\") | [.status, .gap]'"
		assert_output '["optimal",0]'
	done
}

@test "fluxsolve: its NIC buffer peak stays that of the ideal fabric on the paper's workload" {
	set -o pipefail
	dagbuild -r 10us < "$TOP/traces/llama3-8b-l8-tp4-dp2.ops.msgpack" > dag.mp
	f=$(fluxsolve -m greedy < dag.mp | ocssim | report --dump | jq 'select(.type == "result") | .peak_buffer_bytes')
	i=$(ocssim -f ideal < dag.mp | report --dump | jq 'select(.type == "result") | .peak_buffer_bytes')
	[ "$f" -le $((i * 115 / 100)) ] || fail "flux buffer $f against ideal $i"
}

@test "fluxsolve: the exact model refuses more than 64 switches, and flux keeps the greedy there" {
	{
		hdr
		echo '{"type":"net","gpus":3,"switches":100,"bandwidth_bps":8000000000000,"reconfig_ps":50,"reconfig_model":"port","latency_ps":0}'
		task 0 transfer '[]' '"src":0,"dst":1,"bytes":10'
	} | mk dag.mp
	run bash -c "fluxsolve -m exact < dag.mp > /dev/null"
	assert_failure 1
	assert_output 'fluxsolve: the exact model takes at most 64 switches, and the net has 100'
	fluxsolve < dag.mp > f.mp
	run bash -c "report --dump f.mp | jq -c 'select(.type == \"solve\") | [.method, .status, .objective_ps, .solver]'"
	assert_output '["flux","optimal",10,"none"]'
}

@test "fluxsolve: regression: a compute of 2^64-1 ps is refused, not scheduled with circuits ocssim refuses" {
	{ hdr; echo "$NET"; comp 0 '[]' 0 18446744073709551615
	    xfer 1 '[0]' 0 1 1000; } | mk in.mp
	run fluxsolve -m greedy < in.mp
	assert_failure 1
	assert_output 'fluxsolve: stdin: the tasks in series take at least 18446744073719551615 ps with a reconfiguration each, over the 4611686018427387904 ps (2^62) that the times of a schedule are kept within'
}

@test "fluxsolve: regression: a transfer of 2^64-1 bytes is refused, not given a wrapped duration" {
	{ hdr; echo "$NET"; xfer 0 '[]' 0 1 18446744073709551615; } | mk in.mp
	run fluxsolve < in.mp
	assert_failure 1
	# 8 x (2^64 - 1) x 10^12 ps / 8 x 10^11 bit/s, plus tau 10 us
	assert_output --partial 'take at least 184467440737105516150 ps'
}

@test "fluxsolve: a DAG whose tasks in series take exactly 2^62 ps is scheduled, one more ps is refused" {
	# one compute of 2^62 - tau: the series total is 2^62 exactly
	{ hdr; echo "$NET"; comp 0 '[]' 0 4611686018417387904; } | mk in.mp
	fluxsolve -m greedy < in.mp > f.mp
	run bash -c "report --dump f.mp | grep -o '\"objective_ps\":[0-9]*'"
	assert_output '"objective_ps":4611686018417387904'
	{ hdr; echo "$NET"; comp 0 '[]' 0 4611686018417387905; } | mk in2.mp
	run fluxsolve -m greedy < in2.mp
	assert_failure 1
	assert_output --partial 'at least 4611686018427387905 ps'
}

@test "fluxsolve: regression: transfers of 0 bytes, the ports' bound is not above the schedule (lbound)" {
	set -o pipefail
	net='{"type":"net","gpus":3,"switches":1,"bandwidth_bps":8000000000000,"reconfig_ps":50,"reconfig_model":"port","latency_ps":0}'
	# one transfer of no bytes: it takes no time, the makespan is 0
	{ hdr; echo "$net"; xfer 0 '[]' 0 1 0; } | mk one.mp
	# 0->1 and 0->2 of no bytes hold port 0 for 1 ps each and
	# tau 50 apart, and a compute of 20 ps waits for 0->1: 0->1 at
	# 0 and the compute in [0,20), 0->2 at 1 + 50: it ends at 51
	{ hdr; echo "$net"; xfer 0 '[]' 0 1 0; comp 1 '[0]' 1 20
	    xfer 2 '[]' 0 2 0; } | mk two.mp
	for m in greedy flux exact "exact -s cbc"; do
		fluxsolve -m $m < one.mp > f.mp
		run bash -c "report --dump f.mp | jq -c 'select(.type == \"solve\") | [.status, .objective_ps, .bound_ps]'"
		assert_output '["optimal",0,0]'
		fluxsolve -m $m < two.mp > f.mp
		run bash -c "report --dump f.mp | jq -c 'select(.type == \"solve\") | [.status, .objective_ps, .bound_ps]'"
		assert_output '["optimal",51,51]'
	done
}
