#!/usr/bin/env bats
# Issue 34: the studies keep their streams (pipelines/study) and run
# files (pipelines/scale-study) and use them again, but a file's name
# says only some of its settings.  Each kept file now has FILE.cmd
# beside it, the whole pipeline that made it (pipelines/cmd.mk): a
# file is made again exactly when that pipeline would be another, and
# the study says which file and why.  Small cases: one layer, one tau.

load helpers

setup() {
	T=$(mktemp -d)
	cd "$T" || return 1
	# the tools' folder as the commands name it: from the checkout's
	# top, where it lies there
	local top bin
	top=$(realpath "$TOP")
	bin=$(realpath "$BIN")
	t=${bin#"$top"/}
}

# stamps DIR: each stream, run file and command of DIR with its inode
# and modification time, one a line.
stamps() {
	(cd "$1" && shopt -s nullglob && stat -c '%n %i %.9Y' -- *.msgpack g*.json *.cmd)
}

# changed BEFORE AFTER: the files whose stamp changed, or that came.
changed() {
	awk 'NR == FNR { a[$1] = $0; next } a[$1] != $0 { print $1 }' "$1" "$2"
}

# args FILE: the tool and arguments of each header record of a stream.
args() {
	report -d "$1" | jq -c 'select(.type == "header") | [.tool] + .args'
}

# study: pipelines/study into st, its stdout in out and stderr in err.
study() {
	"$TOP/pipelines/study" "$BIN" st > out 2> err ||
	    { cat err; return 1; }
}

# scale: pipelines/scale-study into sc, the same.
scale() {
	"$TOP/pipelines/scale-study" "$BIN" sc > out 2> err ||
	    { cat err; return 1; }
}

@test "study-settings: changing FLUXSOLVE_ARGS, PLACE_EVALS, then TP and DP remakes exactly the streams they make, and says why" {
	export LAYERS=1 TAUS=10us SCHEDULERS="ideal flux bvn rotor-placed" \
	    JOBS=2 FLUXSOLVE_ARGS="-m greedy" PLACE_EVALS=20
	local dag="$t/tracegen -l 1 -t 4 -d 2 | $t/dagbuild -r 10us"

	study
	stamps st > s1
	[ "$(wc -l < s1)" -eq 10 ] || fail "$(cat s1)"
	run cat st/l1-tau10us.dag.msgpack.cmd st/l1-tau10us-flux.msgpack.cmd
	assert_output "$dag
$dag | $t/fluxsolve -m greedy | $t/ocssim -t"
	# the command beside a stream makes it again, byte for byte
	(cd "$TOP" && bash -o pipefail -c "$(cat "$T/st/l1-tau10us-bvn.msgpack.cmd")") > bvn.mp
	cmp bvn.mp st/l1-tau10us-bvn.msgpack
	(cd "$TOP" && bash -o pipefail -c "$(cat "$T/st/l1-tau10us-rotor-placed.msgpack.cmd")") > placed.mp
	cmp placed.mp st/l1-tau10us-rotor-placed.msgpack

	# the same settings: nothing is made
	study
	stamps st > s2
	run changed s1 s2
	assert_output ''
	run grep -c -e '^study: \[' -e 'remade' err
	assert_output 0

	# another FLUXSOLVE_ARGS: the Flux run alone
	FLUXSOLVE_ARGS="-T 1" study
	stamps st > s3
	run changed s2 s3
	assert_output 'l1-tau10us-flux.msgpack
l1-tau10us-flux.msgpack.cmd'
	run grep remade err
	assert_output "study: st/l1-tau10us-flux.msgpack: made by other settings (was: $dag | $t/fluxsolve -m greedy | $t/ocssim -t, now: $dag | $t/fluxsolve -T 1 | $t/ocssim -t): remade"
	run args st/l1-tau10us-flux.msgpack
	assert_output '["tracegen","-l","1","-t","4","-d","2"]
["dagbuild","-r","10us"]
["fluxsolve","-T","1"]
["ocssim","-t"]'
	run cat st/l1-tau10us-flux.msgpack.cmd
	assert_output "$dag | $t/fluxsolve -T 1 | $t/ocssim -t"

	# another PLACE_EVALS: the placed RotorNet run alone
	FLUXSOLVE_ARGS="-T 1" PLACE_EVALS=30 study
	stamps st > s4
	run changed s3 s4
	assert_output 'l1-tau10us-rotor-placed.msgpack
l1-tau10us-rotor-placed.msgpack.cmd'
	run grep -c remade err
	assert_output 1
	run args st/l1-tau10us-rotor-placed.msgpack
	assert_line --index 2 '["rotorsched","-m","rotor","-f","direct","-p","best","--place-evals=30"]'

	# another TP and DP: the DAG, hence every run
	TP=2 DP=4 FLUXSOLVE_ARGS="-T 1" PLACE_EVALS=30 study
	stamps st > s5
	run changed s4 s5
	assert_output "$(cut -d ' ' -f 1 s4)"
	run bash -c "grep -o '^study: [^ ]*: made by other settings' err | sort"
	assert_output 'study: st/l1-tau10us-bvn.msgpack: made by other settings
study: st/l1-tau10us-flux.msgpack: made by other settings
study: st/l1-tau10us-ideal.msgpack: made by other settings
study: st/l1-tau10us-rotor-placed.msgpack: made by other settings
study: st/l1-tau10us.dag.msgpack: made by other settings'
	assert_equal "$(grep -c remade err)" 5
	run cat err
	assert_line "study: st/l1-tau10us.dag.msgpack: made by other settings (was: $dag, now: $t/tracegen -l 1 -t 2 -d 4 | $t/dagbuild -r 10us): remade"
	for f in st/*.msgpack; do
		run args "$f"
		assert_line --index 0 '["tracegen","-l","1","-t","2","-d","4"]'
	done
	# the table, its CSV and JSON: these runs, and the settings
	run cat out
	assert_line --index 0 --regexp '^workload +fabric +scheduler '
	assert_line --index 1 --regexp '^llama3-8b 1L tp2 dp4 +2x800Gbps +ideal +10us '
	assert_line --index 2 --regexp '^llama3-8b 1L tp2 dp4 +2x800Gbps +flux +10us '
	assert_line --index 3 --regexp '^llama3-8b 1L tp2 dp4 +2x800Gbps +bvn/direct +10us '
	assert_line --index 4 --regexp '^llama3-8b 1L tp2 dp4 +2x800Gbps +rotor/direct\+placed +10us '
	assert_line --index 5 "settings: tools $t; TP=2 DP=4 FLUXSOLVE_ARGS=\"-T 1\" PLACE_EVALS=30; each run's whole pipeline in FILE.cmd"
	run jq -sc 'map([.file, .tp, .dp])' st/runs.json
	assert_output '[["st/l1-tau10us-ideal.msgpack",2,4],["st/l1-tau10us-flux.msgpack",2,4],["st/l1-tau10us-bvn.msgpack",2,4],["st/l1-tau10us-rotor-placed.msgpack",2,4]]'
	[ "$(wc -l < st/runs.csv)" -eq 5 ]
	# and again: nothing
	TP=2 DP=4 FLUXSOLVE_ARGS="-T 1" PLACE_EVALS=30 study
	stamps st > s6
	run changed s5 s6
	assert_output ''
}

@test "study-settings: a stream with no command beside it, as an earlier study left, is made again; so is one older than its tool" {
	export LAYERS=1 TAUS=10us SCHEDULERS="ideal bvn" JOBS=1
	# a folder of tools of the test's own, to rebuild one by touching it
	mkdir bin
	cp -p "$BIN"/tracegen "$BIN"/dagbuild "$BIN"/rotorsched "$BIN"/ocssim \
	    "$BIN"/report bin/
	"$TOP/pipelines/study" "$PWD/bin" st > out 2> err
	stamps st > s1
	rm st/l1-tau10us-bvn.msgpack.cmd
	"$TOP/pipelines/study" "$PWD/bin" st > out 2> err
	stamps st > s2
	run changed s1 s2
	assert_output 'l1-tau10us-bvn.msgpack
l1-tau10us-bvn.msgpack.cmd'
	run grep remade err
	assert_output "study: st/l1-tau10us-bvn.msgpack: made by unknown settings (no l1-tau10us-bvn.msgpack.cmd): remade"
	touch bin/rotorsched
	"$TOP/pipelines/study" "$PWD/bin" st > out 2> err
	stamps st > s3
	run changed s2 s3
	assert_output 'l1-tau10us-bvn.msgpack
l1-tau10us-bvn.msgpack.cmd'
	run grep remade err
	assert_output "study: st/l1-tau10us-bvn.msgpack: older than $PWD/bin/rotorsched: remade"
}

@test "study-settings: a failing run leaves the old stream beside its own command, and it is made again next time" {
	export LAYERS=1 TAUS=10us SCHEDULERS="ideal flux" JOBS=1 \
	    FLUXSOLVE_ARGS="-m greedy"
	study
	cp st/l1-tau10us-flux.msgpack.cmd flux.cmd
	stamps st > s1
	run env FLUXSOLVE_ARGS="--no-such-option" "$TOP/pipelines/study" "$BIN" st
	assert_failure
	assert_line --partial 'made by other settings'
	assert_line --partial 'usage: fluxsolve'
	stamps st > s2
	run changed s1 s2
	assert_output ''
	# and no temporary file left
	run bash -c "ls st | grep msgpack"
	assert_output 'l1-tau10us-flux.msgpack
l1-tau10us-flux.msgpack.cmd
l1-tau10us-ideal.msgpack
l1-tau10us-ideal.msgpack.cmd
l1-tau10us.dag.msgpack
l1-tau10us.dag.msgpack.cmd'
	cmp flux.cmd st/l1-tau10us-flux.msgpack.cmd
	run args st/l1-tau10us-flux.msgpack
	assert_line --index 2 '["fluxsolve","-m","greedy"]'
	# make -q: up to date for the settings that made it, not for the
	# failed ones
	run make -q -f "$TOP/pipelines/study.mk" BIN="$BIN" OUT=st all
	assert_success
	run env FLUXSOLVE_ARGS="--no-such-option" \
	    make -q -f "$TOP/pipelines/study.mk" BIN="$BIN" OUT=st all
	assert_failure 1
}

@test "scale-study-settings: changing FLUX_BUDGET remakes the Flux runs alone, LAYERS every run; the same settings nothing" {
	export SIZES=8 LAYERS=1 TAUS=10us SCHEDULERS="ideal flux flux-greedy bvn" \
	    FLUX_BUDGET=1 JOBS=2
	local dag="$t/tracegen -l 1 -t 4 -d 2 | $t/dagbuild -r 10us"

	scale
	stamps sc > s1
	run cut -d ' ' -f 1 s1
	assert_output 'g8-ideal.json
g8-tau10us-bvn.json
g8-tau10us-flux-greedy.json
g8-tau10us-flux.json
g8-ideal.json.cmd
g8-tau10us-bvn.json.cmd
g8-tau10us-flux-greedy.json.cmd
g8-tau10us-flux.json.cmd'
	run cat sc/g8-ideal.json.cmd sc/g8-tau10us-flux.json.cmd
	assert_output "$dag | $t/ocssim -f ideal | $t/report -j -
$dag | $t/fluxsolve -T 1 | $t/ocssim | $t/report -j -"
	# the command beside a run file makes it again
	(cd "$TOP" && bash -o pipefail -c "$(cat "$T/sc/g8-tau10us-bvn.json.cmd")") > bvn.json
	cmp bvn.json sc/g8-tau10us-bvn.json

	scale
	stamps sc > s2
	run changed s1 s2
	assert_output ''
	run grep -c -e '^scale-study: \[' -e 'remade' err
	assert_output 0

	FLUX_BUDGET=2 scale
	stamps sc > s3
	run changed s2 s3
	assert_output 'g8-tau10us-flux.json
g8-tau10us-flux.json.cmd'
	run grep remade err
	assert_output "scale-study: sc/g8-tau10us-flux.json: made by other settings (was: $dag | $t/fluxsolve -T 1 | $t/ocssim | $t/report -j -, now: $dag | $t/fluxsolve -T 2 | $t/ocssim | $t/report -j -): remade"

	LAYERS=2 FLUX_BUDGET=2 scale
	stamps sc > s4
	run changed s3 s4
	assert_output "$(cut -d ' ' -f 1 s3)"
	assert_equal "$(grep -c 'made by other settings (was: .*-l 1 .*, now: .*-l 2 .*): remade$' err)" 4
	run cut -f 4,6 sc/runs.tsv
	assert_output 'layers	scheduler
2	ideal
2	flux
2	flux-greedy
2	bvn'
	run cat out
	assert_line --index 5 "settings: tools $t; LAYERS=2 FLUX_BUDGET=2 SIM_LIMIT=0 FABRIC=paper ALGORITHM=ring; each run's whole pipeline in FILE.cmd"
	# the ops and the DAG were intermediate: gone, and no command of
	# them left behind
	run bash -c "ls sc | grep msgpack"
	assert_output ''

	LAYERS=2 FLUX_BUDGET=2 scale
	stamps sc > s5
	run changed s4 s5
	assert_output ''
}

@test "scale-study-settings: an ops or DAG stream left with no command (a crashed run) is made again, not used" {
	export SIZES=8 LAYERS=2 TAUS=10us JOBS=1 KEEP=1
	mkdir sc
	# the streams of one layer, as if left by a crash of LAYERS=1
	tracegen -l 1 -t 4 -d 2 > sc/g8.ops.msgpack
	dagbuild -r 10us < sc/g8.ops.msgpack > sc/g8-tau10us.dag.msgpack
	SCHEDULERS=bvn scale
	run grep remade err
	assert_output 'scale-study: sc/g8.ops.msgpack: made by unknown settings (no g8.ops.msgpack.cmd): remade
scale-study: sc/g8-tau10us.dag.msgpack: made by unknown settings (no g8-tau10us.dag.msgpack.cmd): remade'
	run jq .layers sc/g8-tau10us-bvn.json
	assert_output 2
	run args sc/g8-tau10us.dag.msgpack
	assert_output '["tracegen","-l","2","-t","4","-d","2"]
["dagbuild","-r","10us"]'
	run cat sc/g8.ops.msgpack.cmd sc/g8-tau10us.dag.msgpack.cmd
	assert_output "$t/tracegen -l 2 -t 4 -d 2
$t/tracegen -l 2 -t 4 -d 2 | $t/dagbuild -r 10us"
	# kept with their commands, they are used as they are
	stamps sc > s1
	SCHEDULERS="bvn rotor-direct" scale
	stamps sc > s2
	run changed s1 s2
	assert_output 'g8-tau10us-rotor-direct.json
g8-tau10us-rotor-direct.json.cmd'
	run grep -c remade err
	assert_output 0
}
