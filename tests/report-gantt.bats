#!/usr/bin/env bats
# report -g: a simulated stream as an SVG timeline.

load helpers

# tiny FILE: 3 GPUs on one switch with tau = 10us, drawn over 1ms, so
# that one microsecond is one pixel and x = 64 + t/us.  Circuit 0-1
# is up in [50us, 400us); circuit 1-2 in [500us, 700us) is new for
# port 1 (its partner was GPU 0), so ports 1 and 2 are dark in
# [490us, 500us): a port and its new partner go dark together, though
# port 2's first circuit alone would cost nothing.  Circuit 0-2 is up
# from 800us for ever, new for both ports: dark in [790us, 800us).
tiny() {
	tiny_lines | mk "$1"
}

tiny_lines() {
	{
		hdr
		echo '{"type":"net","gpus":3,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":10000000}'
		echo '{"type":"task","id":0,"kind":"compute","deps":[],"gpu":0,"duration_ps":100000000}'
		echo '{"type":"task","id":1,"kind":"transfer","deps":[0],"src":0,"dst":1,"bytes":1000}'
		echo '{"type":"task","id":2,"kind":"compute","deps":[1],"gpu":1,"duration_ps":200000000}'
		echo '{"type":"schedule","scheduler":"test"}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":50000000,"to_ps":400000000}'
		echo '{"type":"circuit","switch":0,"a":1,"b":2,"from_ps":500000000,"to_ps":700000000}'
		echo '{"type":"circuit","switch":0,"a":0,"b":2,"from_ps":800000000}'
		echo '{"type":"result","makespan_ps":1000000000,"fabric":"schedule","scheduler":"test","unknown":1}'
		echo '{"type":"taskrun","id":0,"start_ps":0,"end_ps":100000000}'
		echo '{"type":"taskrun","id":1,"start_ps":100000000,"end_ps":300000000}'
		echo '{"type":"taskrun","id":2,"start_ps":300000000,"end_ps":500000000}'
	}
}

# rect CLASS X Y WIDTH: the start of the element that draws that bar.
rect() {
	printf '<rect class="%s" x="%s" y="%s" width="%s" height="8"' "$@"
}

@test "report -g: bars fall where the taskrun and circuit records say" {
	tiny t.mp
	report -g t.mp > out.svg
	xmllint --noout out.svg
	grep -F "$(rect c 64.00 29.00 100.00)><title>task 0: compute on GPU 0, 0ps-100us</title>" out.svg
	grep -F "$(rect t 164.00 38.00 200.00)><title>task 1: 1000B to GPU 1, 100us-300us</title>" out.svg
	grep -F "$(rect c 364.00 49.00 200.00)>" out.svg
	grep -F "$(rect u 114.00 95.00 350.00)><title>switch 0 port 0: to GPU 1, 50us-400us</title>" out.svg
	grep -F "$(rect u 564.00 107.00 200.00)><title>switch 0 port 1: to GPU 2, 500us-700us</title>" out.svg
	grep -F "$(rect r 554.00 107.00 10.00)><title>switch 0 port 1: reconfiguring, 490us-500us</title>" out.svg
	grep -F "$(rect r 554.00 119.00 10.00)>" out.svg
	grep -F "$(rect u 864.00 95.00 200.00)><title>switch 0 port 0: to GPU 2, 800us-1ms</title>" out.svg
	grep -F "$(rect r 854.00 95.00 10.00)>" out.svg
	grep -F "$(rect r 854.00 119.00 10.00)>" out.svg
	run grep -c 'class="r"' out.svg
	assert_output 5		# four bars and the legend's swatch
}

@test "report -g: under the switch model every port of the switch goes dark" {
	tiny_lines | sed 's/"reconfig_ps":10000000}/"reconfig_ps":10000000,"reconfig_model":"switch"}/' | mk s.mp
	report -d s.mp | grep -q '"reconfig_model":"switch"'
	report -g s.mp > out.svg
	xmllint --noout out.svg
	grep -F "$(rect r 554.00 95.00 10.00)><title>switch 0 port 0: reconfiguring, 490us-500us</title>" out.svg
	grep -F "$(rect r 554.00 107.00 10.00)>" out.svg
	grep -F "$(rect r 554.00 119.00 10.00)>" out.svg
}

@test "report -g: circuits a simulation did not use are not drawn" {
	tiny_lines | sed 's/"fabric":"schedule"/"fabric":"ideal"/' | mk i.mp
	report -g i.mp > out.svg
	xmllint --noout out.svg
	grep -qF '>GPU 2<' out.svg
	run grep -c -e '>s0 p' -e 'class="[ur]" x="[0-9]*\.' out.svg
	assert_output 0
}

@test "report -g: rows, labels, axis, legend and title" {
	tiny t.mp
	report -g t.mp > out.svg
	xmllint --noout out.svg
	for s in '>GPU 0<' '>GPU 2<' '>s0 p0<' '>s0 p2<' '>500us<' '>1ms<' \
	    '>compute<' '>transfer sent<' '>circuit up<' '>reconfiguring<' \
	    '>t.mp: scheduler test, fabric schedule; 0ps to 1ms of 1ms<'; do
		grep -qF -- "$s" out.svg || { echo "missing $s"; return 1; }
	done
}

@test "report -g: a window clips bars and leaves out what lies outside it" {
	tiny t.mp
	report -g -w 200us:600us t.mp > out.svg
	xmllint --noout out.svg
	run grep -c 'task 0:' out.svg
	assert_output 0
	grep -F "$(rect t 64.00 38.00 250.00)>" out.svg
	grep -F "$(rect u 64.00 95.00 500.00)>" out.svg
	grep -F "$(rect r 789.00 107.00 25.00)>" out.svg
	grep -qF '; 200us to 600us of 1ms<' out.svg
	report -g -w 999us:3ms t.mp > out.svg
	xmllint --noout out.svg
	run grep -c 'class="[ctr]" x="[0-9]*\.' out.svg
	assert_output 0
}

@test "report -g: a window past the end of the run exits 1 and writes nothing (regression)" {
	tiny t.mp
	run bash -c "report -g -w 2ms:3ms t.mp > out.svg"
	assert_failure 1
	assert_output 'report: t.mp: the window starts after the run ends, at 1ms: nothing to draw'
	[ ! -s out.svg ]
}

@test "report -g: a periodic schedule repeats, and darkens ports across periods" {
	{
		hdr
		echo '{"type":"net","gpus":3,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":10000000}'
		echo '{"type":"task","id":0,"kind":"compute","deps":[],"gpu":0,"duration_ps":1000000000}'
		echo '{"type":"schedule","scheduler":"test","periodic":true,"period_ps":100000000}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":10000000,"to_ps":40000000}'
		echo '{"type":"circuit","switch":0,"a":0,"b":2,"from_ps":60000000,"to_ps":90000000}'
		echo '{"type":"result","makespan_ps":1000000000,"fabric":"schedule","scheduler":"test"}'
		echo '{"type":"taskrun","id":0,"start_ps":0,"end_ps":1000000000}'
	} | mk p.mp
	report -g p.mp > out.svg
	xmllint --noout out.svg
	# port 0: up in every period, dark before each change of partner,
	# but not before its very first circuit
	grep -F "$(rect u 74.00 95.00 30.00)>" out.svg
	grep -F "$(rect u 974.00 95.00 30.00)>" out.svg
	grep -F "$(rect r 114.00 95.00 10.00)>" out.svg
	grep -F "$(rect r 164.00 95.00 10.00)><title>switch 0 port 0: reconfiguring, 100us-110us</title>" out.svg
	run grep -c "$(rect r 64.00 95.00 10.00)" out.svg
	assert_output 0
	run grep -c 'class="u" x="[0-9.]*" y="95.00"' out.svg
	assert_output 20
}

@test "report -g: periods shorter than a pixel merge into one busy bar" {
	{
		hdr
		echo '{"type":"net","gpus":3,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":1000}'
		echo '{"type":"task","id":0,"kind":"compute","deps":[],"gpu":0,"duration_ps":1000000000000}'
		echo '{"type":"schedule","scheduler":"test","periodic":true,"period_ps":10000}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0,"to_ps":5000}'
		echo '{"type":"circuit","switch":0,"a":0,"b":2,"from_ps":6000,"to_ps":9000}'
		echo '{"type":"result","makespan_ps":1000000000000,"fabric":"schedule","scheduler":"test"}'
		echo '{"type":"taskrun","id":0,"start_ps":0,"end_ps":1000000000000}'
	} | mk p.mp
	run timeout 10 report -g p.mp
	assert_success
	# 10^8 periods of 10ns: port 0 is up 8ns and dark 2ns in each
	assert_line --regexp '^<rect class="u" x="64.00" y="95.00" width="1000.00" height="8" opacity="0.80"><title>200000000 circuits, 0ps-[0-9]+ms \(80% busy\)</title></rect>$'
	assert_line --regexp '^<rect class="r" x="64.00" y="95.00" width="1000.00" height="8" opacity="0.20"><title>200000000 reconfigurations, 5ns-1s \(20% busy\)</title></rect>$'
}

@test "report -g: real pipelines give well-formed SVG" {
	set -o pipefail
	tracegen -l 1 -t 2 -d 2 | dagbuild -r 1us > g.dag
	fluxsolve -m greedy < g.dag | ocssim -t | report -g > flux.svg
	rotorsched < g.dag | ocssim -t | report -g > rotor.svg
	rotorsched -m bvn < g.dag | ocssim -t | report -g -w 10us:2ms > bvn.svg
	rotorsched -f vlb < g.dag | ocssim -t | report -g > vlb.svg
	ocssim -f ideal -t < g.dag | report -g > ideal.svg
	xmllint --noout flux.svg rotor.svg bvn.svg vlb.svg ideal.svg
	grep -q 'class="u"' rotor.svg
	grep -q 'class="r"' rotor.svg
	grep -q 'class="c"' ideal.svg
	run grep -c 'class="[ur]" x="[0-9]*\.' ideal.svg
	assert_output 0
}

@test "report -g: the same stream gives the same bytes" {
	set -o pipefail
	tracegen -l 1 -t 2 -d 2 | dagbuild -r 1us | rotorsched | ocssim -t > r.mp
	report -g r.mp > a.svg
	report -g < r.mp | sed 's/>stdin: />r.mp: /' > b.svg
	cmp a.svg b.svg
}

@test "report -g: a stream without taskrun records exits 1 and writes nothing" {
	set -o pipefail
	ocssim -f ideal < "$DATA/dagbuild-l1-t2-d2.msgpack" > r.mp
	run bash -c 'report -g < r.mp > out.svg'
	assert_failure 1
	assert_output 'report: stdin: no taskrun records: simulate with ocssim -t'
	[ ! -s out.svg ]
}

@test "report -g: empty input exits 1" {
	run report -g /dev/null
	assert_failure 1
	assert_output 'report: /dev/null: no taskrun records: simulate with ocssim -t'
}

@test "report -g: a truncated stream exits 1, names the offset and writes nothing" {
	tiny t.mp
	head -c 600 t.mp > cut.mp
	run bash -c 'report -g cut.mp > out.svg'
	assert_failure 1
	assert_output --regexp '^report: cut.mp: byte [0-9]+: truncated record: input ends at byte 600$'
	[ ! -s out.svg ]
	head -c "$(( $(stat -c %s t.mp) - 10 ))" t.mp > cut.mp	# no end record
	run report -g cut.mp
	assert_failure 1
	assert_output --regexp '^report: cut.mp: byte [0-9]+: the stream stops without its end record'
}

@test "report -g: wrong records are refused" {
	hdr | { cat; echo '{"type":"task","id":0,"kind":"compute","deps":[],"gpu":0,"duration_ps":1}'; } | mk a.mp
	run report -g a.mp
	assert_failure 1
	assert_output --regexp '^report: a.mp: byte [0-9]+: task record: comes before the net record$'
	tiny t.mp
	report -d t.mp | grep -v "\"end\"" | sed 's/"id":2,"start_ps"/"id":7,"start_ps"/' | pack > b.mp
	run report -g b.mp
	assert_failure 1
	assert_output --partial 'taskrun record: task 7 is not in the stream'
}

@test "report -g: bad windows and two files exit 2" {
	tiny t.mp
	for w in 5ms:1ms 1ms:1ms 1ms 1ms:x :1ms 1:2ms; do
		run report -g -w "$w" t.mp
		assert_failure 2
		assert_line --partial 'usage: report'
	done
	run report -g t.mp t.mp
	assert_failure 2
	run report -w 1ms:2ms t.mp
	assert_failure 2
}

@test "report -g: a full disk is an error" {
	tiny t.mp
	run bash -c 'report -g t.mp > /dev/full'
	assert_failure 1
	assert_output 'report: write error: No space left on device'
}

# periodic FILE TAU PERIOD: two circuits of port 0 in a periodic
# schedule over 1s, as a simulated stream.
periodic() {
	{
		hdr
		echo '{"type":"net","gpus":3,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":'"$2"'}'
		echo '{"type":"task","id":0,"kind":"compute","deps":[],"gpu":0,"duration_ps":1000000000000}'
		echo '{"type":"schedule","scheduler":"test","periodic":true,"period_ps":'"$3"'}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0,"to_ps":1}'
		echo '{"type":"result","makespan_ps":1000000000000,"fabric":"schedule","scheduler":"test"}'
		echo '{"type":"taskrun","id":0,"start_ps":0,"end_ps":1000000000000}'
	} | mk "$1"
}

@test "report -g: no delay draws no darkness; a delay above the period ends (regression)" {
	tiny_lines | sed 's/"reconfig_ps":10000000/"reconfig_ps":0/' | mk z.mp
	run report -g z.mp
	assert_success
	refute_line --regexp 'reconfigur(ing|ations),'
	periodic p.mp 10000000000000000 2
	run timeout 10 report -g -w 0:1ns p.mp
	assert_success
	refute_line --regexp 'reconfigur(ing|ations),'
}

@test "report -g: a window up to the end of time ends, with a sane axis (regression)" {
	tiny t.mp
	run timeout 10 report -g -w 0:18446744s t.mp
	assert_success
	# ticks every 2000000s up to 18000000s, none past the end
	assert_line --partial '>18000000s</text>'
	run bash -c "report -g -w 0:18446744s t.mp | grep -c 'class=\"m\"'"
	assert_output 10
}

@test "report -g: too many rows to draw are refused (regression)" {
	{
		hdr
		echo '{"type":"net","gpus":4097,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":1}'
		echo '{"type":"task","id":0,"kind":"compute","deps":[],"gpu":0,"duration_ps":5}'
		echo '{"type":"result","makespan_ps":5,"fabric":"ideal","scheduler":"none"}'
		echo '{"type":"taskrun","id":0,"start_ps":0,"end_ps":5}'
	} | mk big.mp
	run report -g big.mp
	assert_failure 1
	assert_output 'report: big.mp: 4097 rows of GPUs and switch ports: more than 4096 to draw'
}

@test "report -g: a periodic circuit that never ends is refused by name (regression)" {
	periodic p.mp 1 100
	jq -c 'if .type == "circuit" then del(.to_ps) else . end' < <(report -d p.mp | sed '$d') | mk q.mp
	run report -g q.mp
	assert_failure 1
	assert_output 'report: q.mp: circuit 0-1 on switch 0 from 0 ps: has no to_ps, but a circuit of a periodic schedule must end'
}
