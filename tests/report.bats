#!/usr/bin/env bats
# report: looking inside streams (--dump) and summarising them.

load helpers

@test "report: --dump prints every record as one JSON line" {
	run report --dump "$DATA/dagbuild-l1-t2-d2.msgpack"
	assert_success
	assert_line --index 0 '{"type":"header","format":"fluxocs","version":1,"minor":1,"tool":"tracegen","release":"0.1","args":["-l","1","-t","2","-d","2"]}'
	assert_line --index 1 '{"type":"header","format":"fluxocs","version":1,"minor":1,"tool":"dagbuild","release":"0.1","args":[]}'
	assert_line --index 3 '{"type":"net","gpus":4,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":10000000,"reconfig_model":"port","latency_ps":0}'
	run bash -c "report -d '$DATA/dagbuild-l1-t2-d2.msgpack' | jq -c . | wc -l"
	assert_output "$(report -d "$DATA/dagbuild-l1-t2-d2.msgpack" | wc -l)"
}

@test "report: --dump matches the golden JSON" {
	report --dump "$DATA/dagbuild-l1-t2-d2.msgpack" > out.json
	cmp out.json "$DATA/dagbuild-l1-t2-d2.json"
}

@test "report: --dump reads stdin and several files in order" {
	hdr | mk a.mp
	echo '{"type":"x","v":[1,-2,0.5,null,true,"q\"\\"]}' | mk b.mp
	run bash -c "cat b.mp | report -d a.mp - b.mp"
	assert_output '{"type":"header","format":"fluxocs","version":1,"minor":1,"tool":"test","args":[]}
{"type":"end"}
{"type":"x","v":[1,-2,0.5,null,true,"q\"\\"]}
{"type":"end"}
{"type":"x","v":[1,-2,0.5,null,true,"q\"\\"]}
{"type":"end"}'
}

@test "report: the summary names the tools, workload and network" {
	run report "$DATA/dagbuild-l1-t2-d2.msgpack"
	assert_success
	assert_output "stream: $DATA/dagbuild-l1-t2-d2.msgpack
  made by: tracegen -l 1 -t 2 -d 2
  made by: dagbuild
  workload: llama3-8b, 1 layer, tp 2 x dp 2 x pp 1, seq 4096, micro-batch 1 x 1, a100 at 40%
  net: 4 GPUs, 2 switches, 800Gbps per port, reconfiguration 10us (port model), latency 0ps
  records: header 2, workload 1, net 1, task 56, end 1"
}

@test "report: a truncated stream prints what it read, then fails with the offset" {
	head -c 300 "$DATA/dagbuild-l1-t2-d2.msgpack" > cut.mp
	run report --dump cut.mp
	assert_failure 1
	assert_line --index 0 --partial '"tool":"tracegen"'
	assert_line --regexp '^report: cut.mp: byte [0-9]+: truncated record: input ends at byte 300$'
}

@test "report: garbage and missing files exit 1" {
	echo garbage > g.txt
	run report g.txt
	assert_failure 1
	assert_line 'report: g.txt: byte 0: record is not a map (first byte 0x67)'
	run report nosuch.mp
	assert_failure 1
	assert_output 'report: nosuch.mp: No such file or directory'
}

@test "report: an empty stream is an empty dump" {
	run report --dump /dev/null
	assert_success
	assert_output ''
}

@test "report: bad options exit 2 with usage" {
	run report -z
	assert_failure 2
	assert_line --partial 'usage: report'
}

@test "report: a full disk is an error" {
	run bash -c "report --dump '$DATA/dagbuild-l1-t2-d2.msgpack' > /dev/full"
	assert_failure 1
	assert_output --partial 'report: write error'
}

@test "report: the summary refuses an unknown major version; --dump shows it" {
	echo '{"type":"header","format":"fluxocs","version":9,"tool":"x"}' | mk v.mp
	run report v.mp
	assert_failure 1
	assert_output --partial 'stream format version 9 is not supported'
	run report --dump v.mp
	assert_success
}

@test "report: a failing later file keeps the output of earlier ones" {
	run bash -c "report '$DATA/dagbuild-l1-t2-d2.msgpack' nosuch.mp > out.txt"
	assert_failure 1
	run head -1 out.txt
	assert_output "stream: $DATA/dagbuild-l1-t2-d2.msgpack"
}

@test "report: the summary shows the schedule and the result" {
	set -o pipefail
	rotorsched -m rotor -f vlb < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" | ocssim > out.mp
	run bash -c "report out.mp | grep -E '^  (schedule|result):'"
	assert_output '  schedule: rotor, periodic every 400us, forwarding vlb
  result: iteration 154.886ms, peak NIC buffer 127.108MiB, 10836 reconfigurations (fabric schedule, scheduler rotor)'
}

@test "report: the summary shows a solve record" {
	fluxsolve -m greedy < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > f.mp
	run bash -c "report f.mp | grep '^  solve:'"
	assert_output '  solve: greedy, feasible, makespan 109.226ms, lower bound 109.2ms, gap 0.02%'
}
