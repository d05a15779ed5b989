#!/usr/bin/env bats
# dagbuild --eps-equal-cost: the EPS-only fabric that an OCS fabric's
# cost buys (lib/model/cost, worked by hand in tests/unit/test_cost.c).

load helpers

# Four groups of two GPUs, two rails of four ports at 100 Gbit/s.
FIGS=xcvr_usd=1,xcvr_w=0.02,eps_usd=0.5,eps_w=0.01,ocs_usd=200,ocs_w=0.1,eps_tbps=0.2

small() {
	printf 'eps group:2 rate=1Tbps\nocs rail:2 rate=100Gbps\n' > two.fabric
	tracegen -l 1 -t 2 -d 4 > ops.mp
}

@test "dagbuild --eps-equal-cost: the OCS rails' money buys EPS rails oversubscribed 6:1, said with its figures" {
	small
	dagbuild --fabric=two.fabric --eps-equal-cost=$FIGS < ops.mp > d.mp 2> err
	run cat err
	assert_output 'dagbuild: --eps-equal-cost: the scale-out of two.fabric on 8 GPUs costs $2400 and draws 17 W (8 switch ports, 8 transceivers); that money buys "eps rail:2 rate=100Gbps oversub=6/1": $2400, 48 W (11 switch ports, 19 transceivers); figures xcvr_usd=1 xcvr_w=0.02 eps_usd=0.5 eps_w=0.01 ocs_usd=200 ocs_w=0.1 eps_tbps=0.2'
	run bash -c "report --dump d.mp | grep '\"type\":\"net\"'"
	assert_output --partial '"fabric":"two.fabric-eps-equal-cost"'
	assert_output --partial 'oversub'
	# no circuit to schedule: the ideal run, slower than the OCS rails'
	ocssim -f ideal < d.mp > eps.mp
	dagbuild --fabric=two.fabric < ops.mp | ocssim -f ideal > ocs.mp
	[ "$(field eps.mp result makespan_ps)" -ge "$(field ocs.mp result makespan_ps)" ]
}

@test "dagbuild --eps-equal-cost: when no oversubscription fits, a non-blocking EPS at a lower rate" {
	small
	dagbuild --fabric=two.fabric --eps-equal-cost=$FIGS,ocs_usd=100,eps_tbps=51.2 < ops.mp 2> err > d.mp
	grep -q 'that money buys "eps rail:2 rate=80Gbps": \$1600' err
}

@test "dagbuild --eps-equal-cost: the paper's net by default, its switches and rate" {
	tracegen -l 1 -t 2 -d 2 | dagbuild -s 4 -b 400Gbps --eps-equal-cost > d.mp 2> err
	grep -q "the scale-out of paper on 4 GPUs costs \$16000 " err
	ocssim -f ideal < d.mp > o.mp
	read -r m b <<< "$(field o.mp result makespan_ps lower_bound_ps)"
	[ "$m" -ge "$b" ]
}

@test "dagbuild --eps-equal-cost: bad figures are usage errors, a fabric with no OCS is refused" {
	small
	for f in foo=1 xcvr_usd=-1 xcvr_usd= eps_tbps=0 ocs_w ocs_w=1x; do
		run dagbuild --fabric=two.fabric --eps-equal-cost=$f < ops.mp
		assert_failure 2
		assert_output --partial "dagbuild: --eps-equal-cost=$f: "
	done
	printf 'eps all rate=100Gbps\n' > eps.fabric
	run dagbuild --fabric=eps.fabric --eps-equal-cost < ops.mp
	assert_failure 1
	assert_output "dagbuild: --eps-equal-cost: eps.fabric has no ocs plane to replace"
}
