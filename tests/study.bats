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

@test "study: one command runs 88 pipelines, then prints the table and the plots" {
	assert_equal "$(cat "$BATS_FILE_TMPDIR/rc")" 0
	run cat "$BATS_FILE_TMPDIR/out"
	assert_line --index 0 --regexp '^workload +fabric +scheduler +tau +iteration +x ideal +x bound +x best +peak buffer +nic buffer +host +reconfigs +solve +gap +file$'
	assert_line --index 1 --regexp '^llama3-8b 8L tp4 dp2 +2x800Gbps +ideal +1us +102\.867 ms +1\.00 +1\.02 '
	assert_line --index 4 --regexp '^llama3-8b 8L tp4 dp2 +2x800Gbps +rotor/direct\+placed +1us '
	assert_line --index 88 --regexp '^llama3-8b 16L tp4 dp2 +2x800Gbps +bvn/direct@circuit +1ms '
	assert_line "table: $S/table.txt (also $S/runs.csv, $S/runs.json)"
	assert_line "  $S/study-iteration.png"
	assert_line "  $S/study-nic.png"
	assert_line "  $S/timeline-flux.svg"
	assert_line "  $S/timeline-rotor-direct.svg"
	run grep -c '^study: \[[0-9]*/88\] l[0-9]*-tau[0-9a-z]*-[a-z-]*\.msgpack$' "$BATS_FILE_TMPDIR/err"
	assert_output 88
	run ls "$S"
	assert_line 'l16-tau1ms-rotor-vlb.msgpack'
	assert_line 'l8-tau100us.dag.msgpack'
	[ "$(ls "$S" | grep -c 'tau.*-.*\.msgpack$')" -eq 88 ]
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
	assert_equal "$n" 8
}

@test "study: no run ends below the lower bound, and on these DAGs none below the ideal fabric" {
	# the bound is a theorem; the ideal fabric's place is what these
	# DAGs show (tests/fabbound.bats has one where Flux beats it)
	run jq -c 'select(.x_bound == null or .x_bound < 1 or .x_ideal == null or .x_ideal < 1 or (.scheduler == "ideal" and (.reconfigs != 0 or .x_ideal != 1)))' "$S/runs.json"
	assert_success
	assert_output ''
	[ "$(wc -l < "$S/runs.json")" -eq 88 ]
	# one bound per workload: it asks for no reconfiguration, so tau
	# leaves it alone
	run jq -sc 'group_by(.layers) | map(map(.lower_bound_ps) | unique | length)' "$S/runs.json"
	assert_output '[1,1]'
}

@test "study: the paper's buffer claim holds for a host that knows the plan, and vanishes for one that knows the circuits" {
	# Flux's hosts hold a packet window per transfer in flight; the
	# periodic schedules' hosts, knowing no plan, hand whole transfers
	# to the NIC: more than 1000x.  Hosts that know when the periodic
	# circuits are up hold a window too.
	run jq -sc '(map(select(.scheduler == "flux")) | map(.peak_nic_bytes) | max) as $f |
	    [$f, (map(select(.nic_host == "plan" and .scheduler != "flux" and .scheduler != "ideal")) | map(.peak_nic_bytes) | min / $f >= 1000),
	    (map(select(.nic_host == "circuit")) | map(.peak_nic_bytes) | max)]' "$S/runs.json"
	assert_output '[8192,true,8192]'
}

@test "study: RotorNet's placement is the range of the 10x question: the best at most identity's, always" {
	run jq -sc 'group_by([.layers, .tau_ps])[] |
	    (map(select(.scheduler == "rotor" and .mode == "direct" and .nic_host == "plan"))) as $r |
	    select(($r | length) != 2 or $r[1].makespan_ps > $r[0].makespan_ps)' "$S/runs.json"
	assert_success
	assert_output ''
	# at 1 ms the best placement is some 10x faster than identity
	run jq -sc 'map(select(.tau_ps == 1000000000 and .scheduler == "rotor" and .mode == "direct" and .nic_host == "plan")) | group_by(.layers) | map(.[0].makespan_ps / .[1].makespan_ps > 9)' "$S/runs.json"
	assert_output '[true,true]'
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
l1-tau10us-ideal.msgpack.cmd
l1-tau10us.dag.msgpack
l1-tau10us.dag.msgpack.cmd'
}

@test "study: docs/study.md's table is what the tools make now, but for the solve columns" {
	# Flux finds its schedules on these DAGs in the first round of its
	# search, well within 1 s; only the bound, the status and the gap
	# depend on the time limit.
	# docs/study.md shows the 8-layer rows.
	cut_cols() { awk '/^llama3-8b 8L/ { $NF = ""; $(NF - 1) = ""; print }'; }
	sed -n '/^```$/,/^```$/p' "$TOP/docs/study.md" | cut_cols > doc.txt
	sed 's/  *[^ ]*$//' "$S/table.txt" | cut_cols > study.txt
	[ "$(wc -l < doc.txt)" -eq 44 ] || fail "docs/study.md has $(wc -l < doc.txt) rows"
	diff doc.txt study.txt
	# and its head names the table's columns
	run bash -c "sed -n '/^\`\`\`\$/,/^\`\`\`\$/p' '$TOP/docs/study.md' | sed -n 2p | tr -s ' '"
	assert_output "$(head -n 1 "$S/table.txt" | sed 's/  *[^ ]*$//' | tr -s ' ')"
}

@test "study: the README's key rows are rows of the study's table" {
	# The README keeps scheduler, tau, iteration, x bound, x best, nic
	# buffer, reconfigs and solve status of some 8-layer rows; the status
	# depends on the time limit, so it is not compared.
	# the first fenced block: the study's rows, under their head
	awk '/^```$/ { c++; next } c == 1' "$TOP/README.md" | awk 'NR > 1' > readme.txt
	[ "$(wc -l < readme.txt)" -eq 9 ] || fail "README has $(wc -l < readme.txt) rows"
	awk '/^llama3-8b 8L/ {
		print $6, $7, $8, $9, $11, $12, $15, $16, $18
	}' "$S/table.txt" > study.txt
	while read -r sched tau it unit xb xbest nic nicu reconf _; do
		grep -qxF "$sched $tau $it $unit $xb $xbest $nic $nicu $reconf" study.txt ||
		    fail "README row not in the study: $sched $tau $it $unit"
	done < readme.txt
}
