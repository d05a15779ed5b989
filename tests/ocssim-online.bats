#!/usr/bin/env bats
# ocssim -O: online Flux, a nominal plan re-planned by the greedy as the
# real sizes become known (ocssim(1), "Online Flux").

load helpers
load replay

# chain B1 B2: a 1 us compute on GPU 0, B1 bytes 0->1, a 1 us compute on
# GPU 1, B2 bytes 1->2.
chain() {
	hdr; echo "$NET"
	comp 0 '[]' 0 1000000
	xfer 1 '[0]' 0 1 "$1"
	comp 2 '[1]' 1 1000000
	xfer 3 '[2]' 1 2 "$2"
}

@test "ocssim-online: a chain whose transfers double is re-planned twice, each as it becomes ready" {
	chain 1000000 1000000 | pack | fluxsolve -m greedy > plan.mp
	chain 2000000 2000000 | mk real.mp
	# the plan: 0->1 at 1 us, 1->2 at 12 us on the other switch, 22 us
	run bash -c "report --dump plan.mp | jq -r 'select(.type == \"solve\") | .objective_ps'"
	assert_output 22000000
	for L in 0 5us; do
		ocssim -t -S plan.mp -O $L < real.mp > out.mp
		# re-planned at 1 us (0->1 ready) and at 22 us (1->2 ready)
		run result out.mp replans
		assert_output 2
		run runs out.mp
		assert_output '[0,1000000]
[1000000,21000000]
[21000000,22000000]
[22000000,42000000]'
	done
	run result out.mp replay
	assert_output online
	run result out.mp decision_latency_ps
	assert_output 5000000
}

@test "ocssim-online: with nothing to learn there is no re-plan, and it is the asap replay" {
	tracegen -M mixtral-8x7b -l 1 -d 8 -x 8 --skew gini:0.3 --seed 4 --nominal | dagbuild -r 10us > nom.mp
	fluxsolve -m greedy < nom.mp > plan.mp
	ocssim -S plan.mp -O 0 < nom.mp > on.mp
	ocssim -S plan.mp -R asap < nom.mp > asap.mp
	run result on.mp replans
	assert_output 0
	[ "$(result on.mp makespan_ps)" = "$(result asap.mp makespan_ps)" ]
	[ "$(result on.mp makespan_ps)" = "$(records plan.mp solve | jq -r .objective_ps)" ]
}

@test "ocssim-online: a realized MoE step, above its bounds, deterministic, fewer re-plans with a slower controller" {
	tracegen -M mixtral-8x7b -l 1 -d 8 -x 8 --skew gini:0.4 --seed 3 --nominal | dagbuild -r 10us | fluxsolve -m greedy > plan.mp
	tracegen -M mixtral-8x7b -l 1 -d 8 -x 8 --skew gini:0.4 --seed 3 | dagbuild -r 10us > real.mp
	fluxsolve -m greedy < real.mp > clair.mp
	bound=$(records clair.mp solve | jq -r .bound_ps)
	ocssim -S plan.mp -O 0 < real.mp > a.mp
	ocssim -S plan.mp -O 0 < real.mp | cmp - a.mp
	ocssim -S plan.mp -O 10ms < real.mp > b.mp
	for f in a.mp b.mp; do
		[ "$bound" -le "$(result $f makespan_ps)" ]
		[ "$(result $f lower_bound_ps)" -le "$bound" ]
	done
	[ "$(result a.mp replans)" -gt "$(result b.mp replans)" ]
	[ "$(result b.mp replans)" -gt 0 ]
}

@test "ocssim-online: -O needs -S, and goes without -R and -l" {
	chain 1 1 | pack | fluxsolve -m greedy > plan.mp
	chain 1 1 | mk real.mp
	run ocssim -O 0 < plan.mp
	assert_failure 2
	assert_line --index 0 'ocssim: -O needs -S (the nominal plan), and goes without -R and -l'
	run ocssim -S plan.mp -O 0 -R hold < real.mp
	assert_failure 2
	run ocssim -S plan.mp -O 0 -l log.txt < real.mp
	assert_failure 2
	run ocssim -S plan.mp -O soon < real.mp
	assert_failure 2
	assert_line --index 0 --partial 'ocssim: -O soon: '
	run ocssim -S plan.mp -O 1ms -f ideal < real.mp
	assert_failure 2
}

@test "ocssim-online: -B re-plans with the flux method in a budget, and goes with -O only" {
	chain 1000000 1000000 | pack | fluxsolve -m greedy > plan.mp
	chain 2000000 2000000 | mk real.mp
	# the chain has one schedule: the flux method finds what the greedy does
	ocssim -t -S plan.mp -O 0 -B 0.5 < real.mp > out.mp
	run result out.mp makespan_ps
	assert_output 42000000
	run result out.mp replans
	assert_output 2
	run ocssim -B 1 < plan.mp
	assert_failure 2
	assert_line --index 0 'ocssim: -B goes with -O'
	run ocssim -S plan.mp -O 0 -B never < real.mp
	assert_failure 2
}

# -O took what -R refuses: a periodic -S schedule (BvN) deadlocked after
# its first period with a misleading message, a two-hop one ran as
# direct, exit 0 (issue 36, defect 6).
@test "ocssim-online: regression: defect 5: -T bounds the whole online run, not each of its simulations" {
	tracegen -M mixtral-8x7b -l 1 -d 8 -x 8 --skew gini:0.4 --seed 3 --nominal | dagbuild -r 10us | fluxsolve -m greedy > plan.mp
	tracegen -M mixtral-8x7b -l 1 -d 8 -x 8 --skew gini:0.4 --seed 3 | dagbuild -r 10us > real.mp
	ocssim -S plan.mp -O 0 < real.mp > a.mp
	all=$(result a.mp replans)
	[ "$all" -gt 10 ]
	# a limit the run does not reach changes nothing
	ocssim -S plan.mp -O 0 -T 600 < real.mp > c.mp
	cmp <(report -d a.mp | grep -v '"header"') <(report -d c.mp | grep -v '"header"')
	# each simulation here takes far less than 1 ms, the run far more:
	# before, every simulation had its own 1 ms and the run ended, exit 0
	run bash -c "ocssim -S plan.mp -O 0 -T 1ms < real.mp > b.mp"
	assert_failure 1
	assert_output --regexp '^ocssim: online: time limit of 0.001 s reached after [0-9]+ re-plans, the last at [0-9]+ ps of the step \(each re-plan runs the greedy and simulates the whole step again: see ocssim\(1\), Online Flux\)$'
	n=$(echo "$output" | sed 's/.* after \([0-9]*\) re-plans.*/\1/')
	[ "$n" -lt "$all" ]
	# and no result
	run bash -c "report -d b.mp 2>/dev/null | grep -c '\"type\":\"result\"'"
	assert_output 0
}

@test "ocssim-online: regression: -O ran periodic and two-hop schedules that -R refuses" {
	tracegen -M mixtral-8x7b -l 1 -d 8 -x 8 --seed 4 --nominal | dagbuild -r 10us > nom.mp
	rotorsched -m bvn < nom.mp > bvn.mp
	# Flux's plan, marked two-hop by hand (no tool writes a one-shot
	# two-hop plan)
	fluxsolve -m greedy < nom.mp | report -d |
	    sed 's/"forwarding":"direct"/"forwarding":"vlb"/' | jsonpack > vlb.mp
	run bash -c "ocssim -S bvn.mp -O 0 < nom.mp > out.mp"
	assert_failure 1
	assert_output "ocssim: -O replays -S's plan as -R does: a periodic schedule repeats its own times: replay runs one-shot schedules (fluxsolve's)"
	run bash -c "ocssim -S bvn.mp -R hold < nom.mp > out.mp"
	assert_failure 1
	run bash -c "ocssim -S vlb.mp -O 0 < nom.mp > out.mp"
	assert_failure 1
	assert_output --partial "replay runs direct forwarding only"
}
