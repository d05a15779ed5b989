#!/usr/bin/env bats
# Regressions of pipelines/study and pipelines/study.mk (issues 12 and 34).

load helpers

# interrupt SIGNAL: start a one-run study in its own process group (the
# exact MILP of one layer, which runs for minutes, so that it is caught
# running), wait (by polling, for at most 600 x 0.1 s) until its run
# writes its .tmp stream, signal the whole group, and wait until none
# of it is left (a tool that catches the signal, as fluxsolve does, may
# end after make).  The study gets TERM and HUP at their defaults: under
# nohup, or any caller that ignores them, it would inherit them ignored
# and run to its end.
interrupt() {
	local pid i

	LAYERS=1 TAUS=1us SCHEDULERS=flux JOBS=1 \
	    FLUXSOLVE_ARGS="-m exact --max-binaries=1000000 -T 600" \
	    env --default-signal=TERM,HUP \
	    setsid "$TOP/pipelines/study" "$BIN" out > /dev/null 2>&1 &
	pid=$!
	for i in $(seq 600); do
		[ -e out/l1-tau1us-flux.msgpack.tmp ] && break
		sleep 0.1
	done
	[ -e out/l1-tau1us-flux.msgpack.tmp ] || fail "no .tmp stream came"
	kill -"$1" -- -"$pid" || fail "no process group $pid to signal"
	for i in $(seq 600); do
		if ! kill -0 -- -"$pid" 2>/dev/null; then
			wait "$pid" || true
			return 0
		fi
		sleep 0.1
	done
	kill -KILL -- -"$pid"
	fail "the study's processes did not end on SIG$1"
}

@test "study: regression: an interrupted study left its .tmp streams behind" {
	for sig in TERM HUP; do
		rm -rf out
		interrupt "$sig"
		run ls out
		assert_output 'l1-tau1us.dag.msgpack
l1-tau1us.dag.msgpack.cmd'
	done
}

@test "study: regression: under nohup the interrupted study inherited HUP ignored and ran to its end" {
	# a caller that ignores HUP, as nohup does: the study must still
	# be stopped by it, and leave no .tmp stream
	(
		trap '' HUP
		interrupt HUP
	)
	run ls out
	assert_output 'l1-tau1us.dag.msgpack
l1-tau1us.dag.msgpack.cmd'
}

@test "study: regression: an interrupted run left its old stream beside another's command, or a stream of other settings passed (issue 34)" {
	# the old stream, of Flux's greedy, then a run of the exact MILP
	# over it, interrupted: the old pair stays, the new command is not
	# recorded, and the stream is made again for the MILP's settings
	LAYERS=1 TAUS=1us SCHEDULERS=flux FLUXSOLVE_ARGS="-m greedy" \
	    make -s -f "$TOP/pipelines/study.mk" BIN="$BIN" OUT=out all 2> /dev/null
	cp out/l1-tau1us-flux.msgpack.cmd greedy.cmd
	cp out/l1-tau1us-flux.msgpack greedy.mp
	interrupt TERM
	run ls out
	assert_output 'l1-tau1us-flux.msgpack
l1-tau1us-flux.msgpack.cmd
l1-tau1us.dag.msgpack
l1-tau1us.dag.msgpack.cmd'
	cmp greedy.cmd out/l1-tau1us-flux.msgpack.cmd
	cmp greedy.mp out/l1-tau1us-flux.msgpack
	run bash -c "report -d out/l1-tau1us-flux.msgpack | jq -c 'select(.type == \"header\" and .tool == \"fluxsolve\") | .args'"
	assert_output '["-m","greedy"]'
	# make -q: up to date for the greedy, to be made for the MILP
	run env LAYERS=1 TAUS=1us SCHEDULERS=flux FLUXSOLVE_ARGS="-m greedy" \
	    make -q -f "$TOP/pipelines/study.mk" BIN="$BIN" OUT=out all
	assert_success
	run env LAYERS=1 TAUS=1us SCHEDULERS=flux \
	    FLUXSOLVE_ARGS="-m exact --max-binaries=1000000 -T 600" \
	    make -q -f "$TOP/pipelines/study.mk" BIN="$BIN" OUT=out all
	assert_failure 1
}
