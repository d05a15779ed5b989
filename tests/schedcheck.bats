#!/usr/bin/env bats
# The schedule checker (lib/model/sched, what ocssim and fluxsolve run on
# every schedule) at its boundaries: a change of partner exactly tau
# after the last circuit is accepted and tau - 1 ps refused, under the
# port and the switch model, inside a period and across its wrap.

load helpers

# net MODEL: 4 GPUs, 1 switch, tau 1000 ps.
net() {
	echo "{\"type\":\"net\",\"gpus\":4,\"switches\":1,\"bandwidth_bps\":800000000000,\"reconfig_ps\":1000,\"reconfig_model\":\"$1\"}"
}

# sched MODEL PERIOD CIRCUIT...: a stream with one 1-byte transfer 0->1
# and the circuits "a b from to" on switch 0; PERIOD 0 is aperiodic.
sched() {
	local model=$1 period=$2 c
	shift 2
	hdr; net "$model"
	xfer 0 '[]' 0 1 1
	if [ "$period" -eq 0 ]; then
		echo '{"type":"schedule","scheduler":"hand","periodic":false}'
	else
		echo "{\"type\":\"schedule\",\"scheduler\":\"hand\",\"periodic\":true,\"period_ps\":$period}"
	fi
	for c in "$@"; do
		set -- $c
		echo "{\"type\":\"circuit\",\"switch\":0,\"a\":$1,\"b\":$2,\"from_ps\":$3,\"to_ps\":$4}"
	done
}

@test "schedcheck: port model, a new partner tau after the last circuit is accepted, tau - 1 ps refused" {
	sched port 0 "0 1 0 100" "0 2 1100 2000" | mk ok.mp
	run ocssim < ok.mp
	assert_success
	sched port 0 "0 1 0 100" "0 2 1099 2000" | mk bad.mp
	run ocssim < bad.mp
	assert_failure 1
	assert_output 'ocssim: invalid schedule: circuit 0-2 on switch 0 from 1099 ps: port 0 changes partner only 999 ps after its previous circuit ends'
}

@test "schedcheck: port model, the receiving side of a port needs tau as well" {
	sched port 0 "0 1 0 100" "2 1 1100 2000" | mk ok.mp
	run ocssim < ok.mp
	assert_success
	sched port 0 "0 1 0 100" "2 1 1099 2000" | mk bad.mp
	run ocssim < bad.mp
	assert_failure 1
	# the checker names a circuit by its smaller GPU first
	assert_output 'ocssim: invalid schedule: circuit 1-2 on switch 0 from 1099 ps: port 1 changes partner only 999 ps after its previous circuit ends'
}

@test "schedcheck: port model, the same partner again needs no dark time" {
	sched port 0 "0 1 0 100" "1 0 100 2000" | mk ok.mp
	run ocssim < ok.mp
	assert_success
}

@test "schedcheck: port model, the wrap of a period needs tau between the last circuit and the first" {
	sched port 10000 "0 1 0 5000" "0 2 6000 9000" | mk ok.mp
	run ocssim < ok.mp
	assert_success
	sched port 10000 "0 1 0 5000" "0 2 6000 9001" | mk bad.mp
	run ocssim < bad.mp
	assert_failure 1
	assert_output 'ocssim: invalid schedule: circuit 0-1 on switch 0 from 0 ps: port 0 changes partner only 999 ps after its previous circuit ends'
}

@test "schedcheck: switch model, a change tau after the switch's last circuit is accepted, tau - 1 ps refused" {
	sched switch 0 "0 1 0 100" "2 3 0 500" "0 2 1500 2000" | mk ok.mp
	run ocssim < ok.mp
	assert_success
	sched switch 0 "0 1 0 100" "2 3 0 500" "0 2 1499 2000" | mk bad.mp
	run ocssim < bad.mp
	assert_failure 1
	assert_output 'ocssim: invalid schedule: circuit 0-2 on switch 0 from 1499 ps: the switch changes its matching while circuit 2-3 is up within the reconfiguration time before it'
}

@test "schedcheck: switch model, a circuit of other ports still darkens the change" {
	# ports 0 and 2 are free from 100 on, but 1-3 is up until 1900
	sched switch 0 "0 1 0 100" "2 3 0 100" "1 3 1100 1900" "0 2 2899 3000" | mk bad.mp
	run ocssim < bad.mp
	assert_failure 1
	assert_output 'ocssim: invalid schedule: circuit 0-2 on switch 0 from 2899 ps: the switch changes its matching while circuit 1-3 is up within the reconfiguration time before it'
	sched switch 0 "0 1 0 100" "2 3 0 100" "1 3 1100 1900" "0 2 2900 3000" | mk ok2.mp
	run ocssim < ok2.mp
	assert_success
}

@test "schedcheck: switch model, the wrap of a period darkens the switch before the first change" {
	sched switch 10000 "0 1 0 4000" "0 2 5000 9000" | mk ok.mp
	run ocssim < ok.mp
	assert_success
	sched switch 10000 "0 1 0 4000" "0 2 5000 9001" | mk bad.mp
	run ocssim < bad.mp
	assert_failure 1
	assert_output 'ocssim: invalid schedule: circuit 0-1 on switch 0 from 0 ps: the switch changes its matching while circuit 0-2 is up within the reconfiguration time before it'
}
