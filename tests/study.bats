#!/usr/bin/env bats
# pipelines/study: the paper's experiment in one command.  The study
# runs once for the whole file (fluxsolve limited to 1 s a run); the
# tests read what it left.

load helpers

setup_file() {
	S=$BATS_FILE_TMPDIR/st
	export S
	FLUXSOLVE_ARGS="-T 1" JOBS=2 "$TOP/pipelines/study" "$BIN" "$S" \
	    > "$BATS_FILE_TMPDIR/out" 2> "$BATS_FILE_TMPDIR/err"
	echo $? > "$BATS_FILE_TMPDIR/rc"
}

@test "study: one command runs 40 pipelines, then prints the table and the plots" {
	assert_equal "$(cat "$BATS_FILE_TMPDIR/rc")" 0
	run cat "$BATS_FILE_TMPDIR/out"
	assert_line --index 0 --regexp '^workload +scheduler +tau +iteration +x ideal +x best +peak buffer +reconfigs +solve +gap +file$'
	assert_line --index 1 --regexp '^llama3-8b 8L tp4 dp2 +ideal +1us +102\.867 ms +1\.00 '
	assert_line --index 40 --regexp '^llama3-8b 16L tp4 dp2 +bvn/direct +1ms '
	assert_line "table: $S/table.txt (also $S/runs.csv, $S/runs.json)"
	assert_line "  $S/study-iteration.png"
	assert_line "  $S/timeline-flux.svg"
	assert_line "  $S/timeline-rotor-direct.svg"
	run grep -c '^study: \[[0-9]*/40\] l[0-9]*-tau[0-9a-z]*-[a-z-]*\.msgpack$' "$BATS_FILE_TMPDIR/err"
	assert_output 40
	run ls "$S"
	assert_line 'l16-tau1ms-rotor-vlb.msgpack'
	assert_line 'l8-tau100us.dag.msgpack'
	[ "$(ls "$S" | grep -c 'tau.*-.*\.msgpack$')" -eq 40 ]
}

@test "study: the plots are PNG and the plots and timelines well-formed SVG" {
	local f n=0

	while read -r f; do
		n=$((n + 1))
		case $f in
		*.png)	file -b "$f" | grep -q '^PNG image data' ||
			    fail "$f: $(file -b "$f")" ;;
		*.svg)	xmllint --noout "$f" || fail "$f is not well formed" ;;
		*)	fail "unexpected $f" ;;
		esac
	done < "$S/plots.txt"
	assert_equal "$n" 6
}

@test "study: no run beats the ideal fabric, which never reconfigures" {
	run jq -c 'select(.x_ideal == null or .x_ideal < 1 or (.scheduler == "ideal" and (.reconfigs != 0 or .x_ideal != 1)))' "$S/runs.json"
	assert_success
	assert_output ''
	[ "$(wc -l < "$S/runs.json")" -eq 40 ]
}

@test "study: Flux is at or below every baseline at every tau" {
	run jq -sc 'group_by([.layers, .tau_ps])[] |
	    (map(select(.scheduler == "flux"))[0].makespan_ps) as $f |
	    map(select(.scheduler != "ideal" and .scheduler != "flux" and .makespan_ps < $f)) |
	    select(length > 0)' "$S/runs.json"
	assert_success
	assert_output ''
	run jq -s 'map(select(.scheduler == "flux")) | length' "$S/runs.json"
	assert_output 8
}

@test "study: a saved stream is the run: the same pipeline makes it again" {
	set -o pipefail
	rotorsched -m rotor -f vlb < "$S/l8-tau100us.dag.msgpack" | ocssim -t > vlb.mp
	cmp vlb.mp "$S/l8-tau100us-rotor-vlb.msgpack"
	ocssim -f ideal -t < "$S/l16-tau1us.dag.msgpack" > ideal.mp
	cmp ideal.mp "$S/l16-tau1us-ideal.msgpack"
	run bash -c "report -d '$S/l8-tau100us-rotor-vlb.msgpack' | jq -c 'select(.type == \"header\") | [.tool] + .args'"
	assert_output '["tracegen","-l","8","-t","4","-d","2"]
["dagbuild","-r","100us"]
["rotorsched","-m","rotor","-f","vlb"]
["ocssim","-t"]'
}

@test "study: run again, it keeps its streams and prints the same table" {
	cp "$S/table.txt" before.txt
	run env FLUXSOLVE_ARGS="-T 1" "$TOP/pipelines/study" "$BIN" "$S"
	assert_success
	refute_line --regexp '^study: \['
	cmp before.txt "$S/table.txt"
}

@test "study: a failing run fails the study and leaves no stream behind" {
	run env LAYERS=1 TAUS=10us SCHEDULERS="ideal flux" \
	    FLUXSOLVE_ARGS="--no-such-option" "$TOP/pipelines/study" "$BIN" f
	assert_failure
	assert_line --partial 'usage: fluxsolve'
	run ls f
	assert_output 'l1-tau10us-ideal.msgpack
l1-tau10us.dag.msgpack'
}

@test "study: the README's table is what the tools make now, but for the solve columns" {
	# Flux finds its schedules on these DAGs in the first round of its
	# search, well within 1 s; only the bound, the status and the gap
	# depend on the time limit.
	cut_cols() { awk '/^llama3-8b/ { $NF = ""; $(NF - 1) = ""; print }'; }
	sed -n '/^```$/,/^```$/p' "$TOP/README.md" | cut_cols > readme.txt
	sed 's/  *[^ ]*$//' "$S/table.txt" | cut_cols > study.txt
	[ "$(wc -l < readme.txt)" -eq 40 ] || fail "README has $(wc -l < readme.txt) rows"
	diff readme.txt study.txt
}
