#!/usr/bin/env bats
# ocssim -R and -S: a plan replayed by its order on a DAG of its shape
# whose sizes differ (robust Flux, ocssim(1) "Replay").  Hand-worked
# times, then the plans of fluxsolve and the MoE traces of tracegen.

load helpers
load replay

# bytes FILE: the bytes of every transfer of a stream, in all
bytes() {
	records "$1" task | jq -s 'map(.bytes // 0) | add'
}

# plan2 BYTES0: 0->1 (BYTES0) on circuit 0-1 [0, 10 us), then 0->2
# (1 MB) on circuit 0-2 [20 us, 30 us) of switch 0: a plan of 30 us
# for BYTES0 = 1 MB.
plan2() {
	hdr; echo "$NET"
	xfer 0 '[]' 0 1 "$1"
	xfer 1 '[]' 0 2 1000000
	echo '{"type":"schedule","scheduler":"hand","periodic":false}'
	echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0,"to_ps":10000000}'
	echo '{"type":"circuit","switch":0,"a":0,"b":2,"from_ps":20000000,"to_ps":30000000}'
	echo '{"type":"plan","task":0,"switch":0,"start_ps":0}'
	echo '{"type":"plan","task":1,"switch":0,"start_ps":20000000}'
}

# dag2 BYTES0: the same two transfers without a schedule
dag2() {
	hdr; echo "$NET"
	xfer 0 '[]' 0 1 "$1"
	xfer 1 '[]' 0 2 1000000
}

@test "ocssim-replay: the plan replayed on its own DAG is the plan, held or not" {
	plan2 1000000 | mk p.mp
	for r in '' '-R hold' '-R asap'; do
		ocssim -t $r < p.mp > out.mp
		run runs out.mp
		assert_output '[0,10000000]
[20000000,30000000]'
	done
	run result out.mp replay
	assert_output asap
}

@test "ocssim-replay: a late transfer holds its circuit, the next waits for it and for tau" {
	plan2 1000000 | mk p.mp
	dag2 2000000 | mk real.mp
	# 0->1 runs 20 us; 0-1 goes down at 20 us, 0-2 comes up at 20 + 10
	ocssim -t -S p.mp -R hold < real.mp > out.mp
	run runs out.mp
	assert_output '[0,20000000]
[30000000,40000000]'
	run result out.mp makespan_ps
	assert_output 40000000
	ocssim -S p.mp -R asap < real.mp > out.mp
	run result out.mp makespan_ps
	assert_output 40000000
}

@test "ocssim-replay: an early transfer gains nothing held, 5 us as soon as possible" {
	plan2 1000000 | mk p.mp
	dag2 500000 | mk real.mp
	ocssim -S p.mp -R hold < real.mp > out.mp
	run result out.mp makespan_ps
	assert_output 30000000
	# 0-1 down at 5 us, 0-2 up at 15 us, 0->2 done at 25 us
	ocssim -t -S p.mp -R asap < real.mp > out.mp
	run runs out.mp
	assert_output '[0,5000000]
[15000000,25000000]'
}

@test "ocssim-replay: without -R the plan's own clock strands a late transfer" {
	plan2 1000000 | mk p.mp
	dag2 2000000 | mk real.mp
	run ocssim -S p.mp < real.mp
	assert_failure 1
	assert_output --partial 'deadlock at'
	run ocssim -S p.mp -R hold < real.mp
	assert_success
}

@test "ocssim-replay: a circuit shared by both directions waits for both" {
	{
		hdr; echo "$NET"
		xfer 0 '[]' 0 1 1000000
		xfer 1 '[]' 1 0 3000000
		xfer 2 '[]' 1 2 1000000
		echo '{"type":"schedule","scheduler":"hand","periodic":false}'
		echo '{"type":"circuit","switch":0,"a":0,"b":1,"from_ps":0,"to_ps":10000000}'
		echo '{"type":"circuit","switch":0,"a":1,"b":2,"from_ps":20000000,"to_ps":30000000}'
		echo '{"type":"plan","task":0,"switch":0,"start_ps":0}'
		echo '{"type":"plan","task":1,"switch":0,"start_ps":0}'
		echo '{"type":"plan","task":2,"switch":0,"start_ps":20000000}'
	} | mk p.mp
	# 1->0 takes 30 us: 0-1 stays up to 30 us, 1-2 comes up at 40 us
	ocssim -t -R asap < p.mp > out.mp
	run runs out.mp
	assert_output '[0,10000000]
[0,30000000]
[40000000,50000000]'
}

@test "ocssim-replay: refusals name the problem" {
	plan2 1000000 | mk p.mp
	dag2 1000000 | mk d.mp
	run ocssim -R hold -f ideal < p.mp
	assert_failure 2
	assert_line --index 0 'ocssim: -R goes with -f schedule'
	run ocssim -R sometimes < p.mp
	assert_failure 2
	assert_line --index 0 'ocssim: -R sometimes: the replay is hold or asap'
	run ocssim -S nosuch.mp < d.mp
	assert_failure 1
	assert_output 'ocssim: -S nosuch.mp: No such file or directory'
	run ocssim -S p.mp < p.mp
	assert_failure 1
	assert_output 'ocssim: -S p.mp: stdin holds a schedule already'
	run ocssim -S d.mp < d.mp
	assert_failure 1
	assert_output 'ocssim: -S d.mp: no schedule record: pipe its DAG through a scheduler first'
	{ hdr; echo "${NET/10000000/20000000}"; xfer 0 '[]' 0 1 1; xfer 1 '[]' 0 2 1; } | mk tau.mp
	run ocssim -S p.mp < tau.mp
	assert_failure 1
	assert_output "ocssim: -S p.mp: its net differs from stdin's"
	{ hdr; echo "$NET"; xfer 0 '[]' 0 1 1; xfer 1 '[]' 0 3 1; } | mk shape.mp
	run ocssim -S p.mp < shape.mp
	assert_failure 1
	assert_output "ocssim: -S p.mp: its DAG differs from stdin's in shape at task 1 (2 and 2 tasks): a plan runs only on a DAG of its own shape"
	{ hdr; echo "$NET"; xfer 0 '[]' 0 1 1; } | mk short.mp
	run ocssim -S p.mp < short.mp
	assert_failure 1
	assert_output --partial 'in shape at task 1 (2 and 1 tasks)'
	head -c 40 p.mp > cut.mp
	run ocssim -S cut.mp < d.mp
	assert_failure 1
	assert_output --partial 'ocssim: cut.mp'
}

@test "ocssim-replay: a plan off its circuit, a periodic schedule and the switch model are refused" {
	{ plan2 1000000 | sed 's/"start_ps":20000000/"start_ps":35000000/'; } | mk off.mp
	run ocssim -R hold < off.mp
	assert_failure 1
	assert_output 'ocssim: replay: transfer 1 (0->2) is planned on switch 0 at 35000000 ps, where no circuit 0-2 is up'
	dag2 1000000 | pack | rotorsched > rot.mp
	run ocssim -R hold < rot.mp
	assert_failure 1
	assert_output "ocssim: replay: a periodic schedule repeats its own times: replay runs one-shot schedules (fluxsolve's)"
	{ plan2 1000000 | sed 's/"port"/"switch"/'; } | mk sw.mp
	run ocssim -R asap < sw.mp
	assert_failure 1
	assert_output 'ocssim: replay: replay runs the port model only (the net'"'"'s reconfig_model is switch)'
}

@test "ocssim-replay: fluxsolve's plans replay to their makespans, asap never later" {
	tracegen -l 1 -d 4 -m 2 | dagbuild -r 10us > llama.mp
	tracegen -M mixtral-8x7b -l 1 -d 8 -x 8 --skew gini:0.3 --seed 3 --nominal | dagbuild -r 1us > moe.mp
	for f in llama.mp moe.mp; do
		for m in greedy flux; do
			fluxsolve -m $m -T 2 < $f > s.mp
			want=$(records s.mp solve | jq -r .objective_ps)
			ocssim < s.mp > a.mp
			ocssim -R hold < s.mp > h.mp
			ocssim -R asap < s.mp > q.mp
			run result a.mp makespan_ps
			assert_output "$want"
			run result h.mp makespan_ps
			assert_output "$want"
			[ "$(result q.mp makespan_ps)" -le "$want" ]
		done
	done
}

@test "ocssim-replay: a nominal MoE plan on its realized steps, above their bounds and deterministic" {
	for s in 1 2; do
		tracegen -M mixtral-8x7b -l 1 -d 8 -x 8 --skew gini:0.4 --seed $s --nominal | dagbuild -r 10us | fluxsolve -m greedy > nom.mp
		tracegen -M mixtral-8x7b -l 1 -d 8 -x 8 --skew gini:0.4 --seed $s | dagbuild -r 10us > real.mp
		fluxsolve -m greedy < real.mp > clair.mp
		bound=$(records clair.mp solve | jq -r .bound_ps)
		for r in hold asap; do
			ocssim -S nom.mp -R $r < real.mp > out.mp
			ocssim -S nom.mp -R $r < real.mp | cmp - out.mp
			ms=$(result out.mp makespan_ps)
			cp=$(result out.mp lower_bound_ps)
			[ "$bound" -le "$ms" ]
			[ "$cp" -le "$bound" ]
			run result out.mp replay
			assert_output $r
		done
		# the realized sizes do move the replay off the nominal plan
		[ "$(result out.mp makespan_ps)" -ne "$(records nom.mp solve | jq -r .objective_ps)" ]
	done
}

@test "ocssim-replay: BvN of the nominal matrix runs on the realized step with -S" {
	tracegen -M mixtral-8x7b -l 1 -d 8 -x 8 --skew gini:0.2 --seed 1 --nominal | dagbuild -r 10us | rotorsched -m bvn > bvn.mp
	tracegen -M mixtral-8x7b -l 1 -d 8 -x 8 --skew gini:0.2 --seed 1 | dagbuild -r 10us > real.mp
	ocssim -S bvn.mp < real.mp > out.mp
	run result out.mp scheduler
	assert_output bvn
	run result out.mp replay
	assert_output none
	# the stream passed through is the realized one
	run bytes out.mp
	assert_output "$(bytes real.mp)"
}
