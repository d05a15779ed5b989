#!/usr/bin/env bats
# report: tables of runs, CSV, JSON, plots, and looking inside streams
# (--dump, --summary).  The timeline (-g) has its own suite.

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
	run report -s "$DATA/dagbuild-l1-t2-d2.msgpack"
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
	run report -s v.mp
	assert_failure 1
	assert_output --partial 'stream format version 9 is not supported'
	run report --dump v.mp
	assert_success
}

@test "report: a failing later file keeps the output of earlier ones" {
	run bash -c "report -s '$DATA/dagbuild-l1-t2-d2.msgpack' nosuch.mp > out.txt"
	assert_failure 1
	run head -1 out.txt
	assert_output "stream: $DATA/dagbuild-l1-t2-d2.msgpack"
}

@test "report: the summary shows the schedule and the result" {
	set -o pipefail
	rotorsched -m rotor -f vlb < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" | ocssim > out.mp
	run bash -c "report -s out.mp | grep -E '^  (schedule|result):'"
	assert_output '  schedule: rotor, periodic every 400us, forwarding vlb
  result: iteration 154.886ms, peak NIC buffer 127.108MiB, 10836 reconfigurations (fabric schedule, scheduler rotor)'
}

@test "report: the summary shows a solve record" {
	fluxsolve -m greedy < "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > f.mp
	run bash -c "report -s f.mp | grep '^  solve:'"
	assert_output '  solve: greedy, feasible, makespan 109.226ms, lower bound 109.2ms, gap 0.02%'
}

# The golden runs: one DAG (1 layer, TP2 x DP2, tau 10us) on the ideal
# fabric, under the greedy, RotorNet direct and BvN.
golden() {
	(cd "$DATA" && report "$@" run-ideal.msgpack run-greedy.msgpack \
	    run-rotor.msgpack run-bvn.msgpack)
}

@test "report: the table of the golden runs matches" {
	run golden
	assert_success
	assert_output "$(cat "$DATA/report-table.txt")"
	assert_line --index 2 --regexp '^llama3-8b 1L tp2 dp2 +2x800Gbps +greedy +10us +26\.314 ms +1\.06 +1\.06 +1\.00 +120\.0 MiB +8\.0 KiB +plan +2 +optimal +0\.000% +run-greedy\.msgpack$'
}

@test "report: --csv and --json of the golden runs match, and parse" {
	golden --csv > out.csv
	cmp out.csv "$DATA/report.csv"
	golden --json > out.json
	cmp out.json "$DATA/report.json"
	run bash -c "jq -r '[.scheduler, .makespan_ps, .x_ideal] | @csv' out.json"
	assert_line --index 1 '"greedy",26314499939,1.0572999699069112'
	run awk -F, '{ print NF }' out.csv
	assert_output "$(printf '27\n%.0s' 1 2 3 4 5)"
}

@test "report: the golden runs still come from the tools" {
	set -o pipefail
	tracegen -l 1 -t 2 -d 2 | dagbuild -r 10us > dag.mp
	ocssim -f ideal < dag.mp > run-ideal.msgpack
	fluxsolve -m greedy < dag.mp | ocssim > run-greedy.msgpack
	rotorsched -m rotor -f direct < dag.mp | ocssim > run-rotor.msgpack
	rotorsched -m bvn < dag.mp | ocssim > run-bvn.msgpack
	report run-ideal.msgpack run-greedy.msgpack run-rotor.msgpack \
	    run-bvn.msgpack > table.txt
	cmp table.txt "$DATA/report-table.txt"
}

@test "report: the golden runs' numbers hold without report or the simulator" {
	(cd "$DATA" && report --json run-ideal.msgpack run-greedy.msgpack \
	    run-rotor.msgpack run-bvn.msgpack) > out.json
	# x ideal and x best are each makespan over the ideal's and over
	# the best scheduler's, from the result records themselves
	for f in ideal greedy rotor bvn; do
		report --dump "$DATA/run-$f.msgpack" | jq -c 'select(.type == "result") | .makespan_ps'
	done > m.txt
	run jq -s -c --slurpfile m m.txt '[.[] | [.makespan_ps, .x_ideal, .x_best]] ==
	    [$m[] as $x | [$x, $x / $m[0], $x / ($m[1:] | min)]]' out.json
	assert_output true
	# the greedy's "optimal, gap 0" is right: its makespan is the DAG's
	# critical path with each transfer on one circuit, bytes x 10 ps
	# at 800 Gbit/s, which no schedule can beat
	report --dump "$DATA/run-greedy.msgpack" > g.json
	run jq -s -c '[.[] | select(.type == "net") | .bandwidth_bps, .latency_ps],
	    (reduce (.[] | select(.type == "task")) as $t ({};
		.[$t.id | tostring] = ([$t.deps[] as $d | .[$d | tostring]] |
		max // 0) + (if $t.kind == "compute" then $t.duration_ps
		else $t.bytes * 10 end)) | [.[]] | max),
	    (.[] | select(.type == "result") | .makespan_ps)' g.json
	assert_output '[800000000000,0]
26314499939
26314499939'
	# and every byte left its source once, the greedy never relays
	run jq -s '([.[] | select(.type == "task" and .kind == "transfer") | .bytes] | add) ==
	    (.[] | select(.type == "result") | .bytes_sent)' g.json
	assert_output true
}

# run FILE TAU MAKESPAN FABRIC SCHEDULER [TASK]: a hand-made run.
run_stream() {
	{
		hdr
		echo '{"type":"workload","model":"m","layers":2,"tp":1,"dp":2}'
		echo '{"type":"net","gpus":2,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":'"$2"'}'
		echo "{\"type\":\"task\",\"id\":0,\"kind\":\"compute\",\"deps\":[],\"gpu\":0,\"duration_ps\":${6:-5}}"
		if [ "$4" = schedule ]; then
			echo "{\"type\":\"schedule\",\"scheduler\":\"$5\",\"forwarding\":\"direct\"}"
		fi
		echo "{\"type\":\"result\",\"makespan_ps\":$3,\"peak_buffer_bytes\":3145728,\"reconfigs\":7,\"fabric\":\"$4\",\"scheduler\":\"$5\"}"
	} | mk "$1"
}

@test "report: runs relate to the ideal run of their DAG at any tau and the best run at their tau" {
	run_stream a.mp 1000000 212000000 schedule rotor
	run_stream b.mp 10000000 400000000 schedule rotor
	run_stream c.mp 1000000 100000000 ideal none
	run_stream d.mp 1000000 300000000 schedule rotor 6
	run_stream e.mp 1000000 106000000 schedule bvn
	run bash -c "report --csv a.mp b.mp c.mp d.mp e.mp | cut -d, -f1-25"
	assert_success
	# sorted by DAG, then tau, then order; d.mp has another DAG and no
	# ideal run; b.mp and d.mp are the only schedules of their DAG at
	# their tau: x best unknown
	assert_output 'file,model,layers,tp,dp,pp,scheduler,mode,tau_ps,makespan_ps,x_ideal,x_best,peak_buffer_bytes,reconfigs,status,gap,bound_ps,lower_bound_ps,x_bound,peak_nic_bytes,nic_host,packet_bytes,trace,ranks,placed
a.mp,m,2,1,2,1,rotor,direct,1000000,212000000,2.1200000000000001,2,3145728,7,,,,,,,,,,,false
c.mp,m,2,1,2,1,ideal,,1000000,100000000,1,0.94339622641509435,3145728,7,,,,,,,,,,,false
e.mp,m,2,1,2,1,bvn,direct,1000000,106000000,1.0600000000000001,1,3145728,7,,,,,,,,,,,false
b.mp,m,2,1,2,1,rotor,direct,10000000,400000000,4,,3145728,7,,,,,,,,,,,false
d.mp,m,2,1,2,1,rotor,direct,1000000,300000000,,,3145728,7,,,,,,,,,,,false'
	# the dag key: one for a, b, c and e, another for d
	run bash -c "report --csv a.mp b.mp c.mp d.mp e.mp | cut -d, -f26 |
	    sed 1d | uniq -c | awk '{ print \$1 }'"
	assert_output '4
1'
	run bash -c "report --csv a.mp b.mp c.mp d.mp e.mp | cut -d, -f26 | grep -Ec '^[0-9a-f]{16}$'"
	assert_output 5
	run report a.mp c.mp
	assert_output 'workload      fabric     scheduler     tau   iteration  x ideal  x bound  x best  peak buffer  nic buffer  host  reconfigs  solve  gap  file
m 2L tp1 dp2  1x800Gbps  rotor/direct  1us  212.000 us     2.12        -       -      3.0 MiB           -  -             7  -        -  a.mp
m 2L tp1 dp2  1x800Gbps  ideal         1us  100.000 us     1.00        -    0.47      3.0 MiB           -  -             7  -        -  c.mp'
}

@test "report: a stream without a result is a row of dashes; without a workload too" {
	run report "$DATA/dagbuild-l1-t2-d2.msgpack"
	assert_success
	assert_line --index 1 --regexp '^llama3-8b 1L tp2 dp2 +2x800Gbps +- +10us +- +- +- +- +- +- +- +- +- +- +/'
	hdr | mk h.mp
	run bash -c "report --json h.mp | jq -c 'del(.dag)'"
	assert_output '{"file":"h.mp","model":null,"layers":null,"tp":null,"dp":null,"pp":null,"scheduler":null,"mode":null,"tau_ps":null,"makespan_ps":null,"x_ideal":null,"x_best":null,"peak_buffer_bytes":null,"reconfigs":null,"status":null,"gap":null,"bound_ps":null,"lower_bound_ps":null,"x_bound":null,"peak_nic_bytes":null,"nic_host":null,"packet_bytes":null,"trace":null,"ranks":null,"placed":false,"fabric":null}'
	run bash -c "report --json h.mp | jq -r .dag"
	assert_output --regexp '^[0-9a-f]{16}$'
}

@test "report: the table is whole or absent: a bad later file prints nothing" {
	run bash -c "report '$DATA/run-ideal.msgpack' nosuch.mp > out.txt"
	assert_failure 1
	assert_output 'report: nosuch.mp: No such file or directory'
	[ ! -s out.txt ]
	head -c 500 "$DATA/run-rotor.msgpack" > cut.mp
	run report --csv "$DATA/run-ideal.msgpack" cut.mp
	assert_failure 1
	assert_output --regexp '^report: cut.mp: byte [0-9]+: truncated record: input ends at byte 500$'
}

@test "report: a result record without its keys is refused" {
	{ hdr; echo '{"type":"result","makespan_ps":5}'; } | mk r.mp
	run report r.mp
	assert_failure 1
	assert_output --regexp '^report: r.mp: byte [0-9]+: result record: missing key "[a-z_]+"$'
}

@test "report: tables to a full disk are an error" {
	for o in "" --csv --json; do
		run bash -c "report $o '$DATA/run-ideal.msgpack' > /dev/full"
		assert_failure 1
		assert_output --partial 'report: write error'
	done
}

@test "report: -p draws PNG and SVG plots and names them" {
	mkdir figs
	cd "$DATA"
	run report -p "$T/figs/s" run-ideal.msgpack run-greedy.msgpack \
	    run-rotor.msgpack run-bvn.msgpack
	assert_success
	assert_output "$T/figs/s-iteration.png
$T/figs/s-iteration.svg
$T/figs/s-buffer.png
$T/figs/s-buffer.svg
$T/figs/s-nic.png
$T/figs/s-nic.svg"
	cd "$T/figs"
	for f in s-iteration s-buffer s-nic; do
		run file -b "$f.png"
		assert_output --regexp '^PNG image data, 560 x 430, '
		xmllint --noout "$f.svg"
	done
	grep -q 'Iteration time against reconfiguration delay' s-iteration.svg
	grep -q 'rotor/direct' s-iteration.svg
	grep -q 'peak NIC buffer, ready bytes (MiB)' s-buffer.svg
	grep -q 'peak NIC buffer, bytes handed to the NIC (KiB)' s-nic.svg
}

@test "report: --gnuplot prints the script that -p runs, data included" {
	cd "$DATA"
	report -p "$T/a" run-ideal.msgpack run-rotor.msgpack > /dev/null
	report --gnuplot -p "$T/b" run-ideal.msgpack run-rotor.msgpack > "$T/b.gp"
	cd "$T"
	run grep -A2 '^\$d0_1 << EOD$' b.gp
	assert_output '$d0_1 << EOD
10.000000 30.231120 120.003906 122884.000000
EOD'
	gnuplot b.gp
	for f in iteration.svg iteration.png buffer.svg buffer.png nic.svg nic.png; do
		cmp "a-$f" "b-$f"
	done
}

@test "report: regression: the NIC plot drew RotorNet@circuit over Flux; Flux's line is drawn last, bolder, in every panel (issue 34)" {
	for t in 1000000 10000000; do
		run_stream "f$t.mp" $t 110 schedule flux
		run_stream "r$t.mp" $t 300 schedule rotor
		run_stream "i$t.mp" $t 100 ideal none
	done
	report --gnuplot -p o f*.mp r*.mp i*.mp > o.gp
	# each plot command ends with Flux's line
	run bash -c "grep -c '^plot' o.gp"
	assert_output 6
	run bash -c "grep -B1 -E '^(unset multiplot)' o.gp | grep -v -e '^unset' -e '^--' | grep -vc \"title 'flux/direct'\$\""
	assert_output 0
	run grep "^set style line" o.gp
	assert_line --regexp "^set style line [0-9]+ lc rgb '#[0-9a-f]{6}' lw 3 pt 5 ps 1\.1$"
	[ "$(grep -c 'lw 3' o.gp)" -eq 1 ]
}

@test "report: nothing to plot, or nowhere to put it, is an error" {
	run report -p x "$DATA/dagbuild-l1-t2-d2.msgpack"
	assert_failure 1
	assert_output 'report: nothing to plot: no simulated run with a reconfiguration delay above 0'
	run report -p nosuch/dir/x "$DATA/run-ideal.msgpack"
	assert_failure 1
	assert_line --partial 'report: gnuplot failed'
}

@test "report: conflicting options exit 2" {
	for o in "-c -j" "-d -s" "--gnuplot" "-w 1ms:2ms" "-g -c" "-p x -g"; do
		run report $o "$DATA/run-ideal.msgpack"
		[ "$status" -eq 2 ] || fail "report $o exited $status"
		assert_line --partial 'usage: report'
	done
	run report -g "$DATA/run-ideal.msgpack" "$DATA/run-rotor.msgpack"
	assert_failure 2
	run report -g -w 2ms:1ms
	assert_failure 2
	assert_line 'report: -w 2ms:1ms: the window ends before it starts'
	run report -g -w 5
	assert_failure 2
	assert_line 'report: -w wants FROM:TO, such as 100ms:110ms'
}

@test "report: a name in a stream cannot run gnuplot commands (regression)" {
	for t in 1000000 10000000; do
		{
			hdr
			echo '{"type":"net","gpus":2,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":'$t'}'
			echo '{"type":"schedule","scheduler":"x'"'"'\nsystem \"touch PWNED\"\n"}'
			echo '{"type":"result","makespan_ps":5000000,"peak_buffer_bytes":10,"reconfigs":1,"fabric":"schedule","scheduler":"x"}'
		} | mk "t$t.mp"
	done
	run report -p o t1000000.mp t10000000.mp
	assert_success
	[ ! -e PWNED ] || fail "a stream ran a command"
	run bash -c "report --gnuplot -p o t1000000.mp t10000000.mp | grep -c system"
	assert_output 6
	run bash -c "report --gnuplot -p o t1000000.mp | grep -m1 system"
	assert_output --partial "title 'x''?system \"touch PWNED\"?/direct'"
}

@test "report: plots leave out runs at tau 0, draw a buffer of 0, and every DAG and scheduler (regression)" {
	run_stream z.mp 0 5000000000 schedule rotor 9
	run_stream a.mp 1000000 6000000000 schedule rotor 5
	{ hdr; echo '{"type":"net","gpus":2,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":1000000}'; echo '{"type":"result","makespan_ps":5,"peak_buffer_bytes":0,"reconfigs":0,"fabric":"ideal","scheduler":"none"}'; } | mk zero.mp
	run report -p o z.mp a.mp zero.mp
	assert_success
	xmllint --noout o-buffer.svg
	# no run has the nic key: those points are left out, the figure drawn
	xmllint --noout o-nic.svg
	run bash -c "report --gnuplot -p o z.mp a.mp zero.mp | grep -c ' NaN$'"
	assert_output 2
	for g in $(seq 14); do
		for s in $(seq 3); do
			run_stream "d$g-$s.mp" 1000000 $((5000000 + g)) schedule "s$s" "$g"
		done
	done
	run bash -c "report --gnuplot -p o d*.mp | grep -c '^set title'"
	assert_output 84
	run bash -c "report --gnuplot -p o d*.mp | grep -c '^\$d[0-9]*_[0-9]* << EOD$'"
	assert_output 42
}

@test "report: the table wants whole streams of one run each (regression)" {
	run report /dev/null
	assert_failure 1
	assert_output 'report: /dev/null: empty input: expected a fluxocs stream'
	echo '{"type":"net","gpus":2,"switches":1,"bandwidth_bps":1,"reconfig_ps":0}' | mk n.mp
	run report --csv n.mp
	assert_failure 1
	assert_output 'report: n.mp: byte 0: stream does not begin with a header record'
	run_stream a.mp 1000000 6000000000 ideal none
	report -d a.mp | sed '$d' > a.json
	{ cat a.json; grep result a.json; } | mk two.mp
	run report two.mp
	assert_failure 1
	assert_output --regexp '^report: two.mp: byte [0-9]+: result record: a second result record: a stream holds one run$'
	{ hdr; echo '{"type":"workload","model":5}'; } | mk w.mp
	run report --json w.mp
	assert_failure 1
	assert_output --partial 'key "model": expected string, got'
}

@test "report: JSON and CSV leave out a gap that is not a number (regression)" {
	{ hdr; echo '{"type":"solve","method":"flux","status":"feasible","bound_ps":1,"gap":1e999}'; } | mk s.mp
	run report --json s.mp
	assert_success
	assert_output --partial '"status":"feasible","gap":null,"bound_ps":1,'
	run report --csv s.mp
	assert_line --index 1 --partial ',feasible,,1'
}

@test "report: long file names are printed whole (regression)" {
	d=a_rather_long_directory_name_for_results/study
	mkdir -p "$d"
	cp "$DATA/run-ideal.msgpack" "$d/run-with-a-long-name-ideal.msgpack"
	run report "$d/run-with-a-long-name-ideal.msgpack"
	assert_line --index 1 --partial "  $d/run-with-a-long-name-ideal.msgpack"
}

@test "report: --gnuplot with nothing to plot exits 1 too" {
	run report --gnuplot -p x "$DATA/dagbuild-l1-t2-d2.msgpack"
	assert_failure 1
	assert_output 'report: nothing to plot: no simulated run with a reconfiguration delay above 0'
}

@test "report: a placed schedule and a host other than plan name their runs apart" {
	set -o pipefail
	tracegen -l 1 -t 2 -d 2 | dagbuild -r 10us > dag.mp
	rotorsched -p 1,0,2,3 < dag.mp | ocssim > placed.mp
	rotorsched < dag.mp | ocssim -H circuit > circuit.mp
	rotorsched -p 1,0,2,3 < dag.mp | ocssim -H unaware > both.mp
	ocssim -f ideal -H circuit < dag.mp > ideal.mp
	run bash -c "report --csv placed.mp circuit.mp both.mp ideal.mp | cut -d, -f7,8,21"
	assert_output 'scheduler,mode,nic_host
rotor,direct,plan
rotor,direct,circuit
rotor,direct,unaware
ideal,,circuit'
	run bash -c "report placed.mp circuit.mp both.mp ideal.mp | awk 'NR > 1 { print \$6 }'"
	assert_output 'rotor/direct+placed
rotor/direct@circuit
rotor/direct+placed@unaware
ideal'
}
