#!/usr/bin/env bats
# pipelines/scale-study and its table, pipelines/scale-table.  The study
# runs once for the whole file at 8 GPUs and 2 layers, every scheduler,
# the flux method limited to 1 s a run; the tests read what it left and
# run the tools by hand beside it.

load helpers

setup_file() {
	S=$BATS_FILE_TMPDIR/sc
	export S
	SIZES=8 LAYERS=2 TAUS="10us 1ms" FLUX_BUDGET=1 JOBS=2 \
	    "$TOP/pipelines/scale-study" "$BIN" "$S" \
	    > "$BATS_FILE_TMPDIR/out" 2> "$BATS_FILE_TMPDIR/err"
	echo $? > "$BATS_FILE_TMPDIR/rc"
}

# col SCHEDULER TAU N: field N of the scheduler's line in runs.tsv
col() {
	awk -F '\t' -v s="$1" -v t="$2" -v n="$3" \
	    '$6 == s && $5 == t { print $n }' "$S/runs.tsv"
}

# result STREAM KEY...: those keys of the result record, space-separated
result() {
	local f=$1 keys
	shift
	keys=$(IFS=,; echo "$*")
	report -d "$f" | jq -r "select(.type == \"result\") | [$keys] | map(tostring) | join(\" \")"
}

@test "scale-study: one command, 11 runs at 8 GPUs, the table in order, the plots" {
	assert_equal "$(cat "$BATS_FILE_TMPDIR/rc")" 0
	run cat "$BATS_FILE_TMPDIR/out"
	assert_line --index 0 --regexp '^gpus +shape +tau +scheduler +iteration +x ideal +x bound +x best +peak buffer +nic buffer +reconfigs +solve +gap$'
	assert_line --index 1 --regexp '^8 +tp4 dp2 +- +ideal +25\.937 ms +1\.00 +1\.01 +- +60\.0 MiB +60\.0 MiB +0 +- +-$'
	assert_line --index 3 --regexp '^8 +tp4 dp2 +10us +flux-greedy +27\.767 ms +1\.07 +1\.08 +1\.00 +60\.8 MiB +8\.0 KiB +60 +feasible +0\.094%$'
	assert_line --index 4 --regexp '^8 +tp4 dp2 +10us +rotor-direct +44\.121 ms +1\.70 '
	assert_line --index 11 --regexp '^8 +tp4 dp2 +1ms +bvn +38\.948 ms '
	assert_line "table: $S/table.txt (runs: $S/runs.tsv)"
	assert_line "  $S/scale-iteration.png"
	assert_line "  $S/scale-buffer.png"
	assert_line "  $S/scale-nic.png"
	run cut -f 5,6 "$S/runs.tsv"
	assert_output "tau	scheduler
-	ideal
10us	flux
10us	flux-greedy
10us	rotor-direct
10us	rotor-vlb
10us	bvn
1ms	flux
1ms	flux-greedy
1ms	rotor-direct
1ms	rotor-vlb
1ms	bvn"
	run grep -c '^scale-study: \[[0-9]*/11\] g8-' "$BATS_FILE_TMPDIR/err"
	assert_output 11
	for p in iteration buffer nic; do
		file -b "$S/scale-$p.png" | grep -q '^PNG image data' ||
		    fail "scale-$p.png: $(file -b "$S/scale-$p.png")"
	done
}

@test "scale-study: no ops, DAG or run stream is left behind, only report's line of each run and its command" {
	run bash -c "ls '$S' | grep -v '^g8-.*\.json\(\.cmd\)\?$'"
	assert_output 'plots.txt
runs.tsv
scale-buffer.png
scale-iteration.png
scale-nic.png
table.txt'
	[ "$(ls "$S" | grep -c '\.json$')" -eq 11 ]
	[ "$(ls "$S" | grep -c '^g8-.*\.json\.cmd$')" -eq 11 ]
	run jq -r '.scheduler + "/" + (.mode // "-") + " " + (.tau_ps | tostring)' \
	    "$S/g8-ideal.json" "$S/g8-tau1ms-rotor-vlb.json" "$S/g8-tau10us-flux.json"
	assert_output 'ideal/- 10000000
rotor/vlb 1000000000
flux/flux 10000000'
}

@test "scale-study: its rows are what the tools give when run by hand" {
	set -o pipefail
	tracegen -l 2 -t 4 -d 2 > ops.mp
	dagbuild -r 10us < ops.mp > d10.mp
	dagbuild -r 1ms < ops.mp > d1.mp
	# the ideal fabric, at either tau
	ocssim -f ideal < d10.mp > ideal.mp
	ocssim -f ideal < d1.mp > ideal1.mp
	run result ideal.mp .makespan_ps .peak_buffer_bytes .lower_bound_ps
	assert_output "$(col ideal - 7) $(col ideal - 9) $(col ideal - 8)"
	assert_output '25936951138 62916608 25685292898'
	run result ideal1.mp .makespan_ps
	assert_output 25936951138
	# Flux's greedy, RotorNet direct and two-hop, BvN
	fluxsolve -m greedy < d1.mp | ocssim > g.mp
	run result g.mp .makespan_ps .peak_nic_bytes .reconfigs
	assert_output "$(col flux-greedy 1ms 7) $(col flux-greedy 1ms 10) $(col flux-greedy 1ms 11)"
	rotorsched -m rotor -f direct < d10.mp | ocssim > rd.mp
	run result rd.mp .makespan_ps .reconfigs
	assert_output "$(col rotor-direct 10us 7) $(col rotor-direct 10us 11)"
	assert_output '44120560000 3088'
	rotorsched -m rotor -f vlb < d1.mp | ocssim > rv.mp
	run result rv.mp .makespan_ps .peak_buffer_bytes
	assert_output "$(col rotor-vlb 1ms 7) $(col rotor-vlb 1ms 9)"
	rotorsched -m bvn < d10.mp | ocssim > b.mp
	run result b.mp .makespan_ps .peak_nic_bytes
	assert_output "$(col bvn 10us 7) $(col bvn 10us 10)"
	# the flux method never ends after its greedy start
	[ "$(col flux 1ms 7)" -le "$(col flux-greedy 1ms 7)" ]
	[ "$(col flux 10us 7)" -le "$(col flux-greedy 10us 7)" ]
}

@test "scale-study: x ideal, x bound and x best are worked from the runs" {
	run awk -F '\t' 'NR == 1 { next }
	    $6 == "ideal" { id = $7 }
	    { ms[NR] = $7; lb[NR] = $8; t[NR] = $5; s[NR] = $6 }
	    $6 != "ideal" && (!($5 in b) || $7 < b[$5]) { b[$5] = $7 }
	    END { for (i = 2; i <= NR; i++)
	        printf "%.2f %.2f %s\n", ms[i] / id, ms[i] / lb[i],
	            s[i] == "ideal" ? "-" : sprintf("%.2f", ms[i] / b[t[i]]) }' "$S/runs.tsv"
	expected=$output
	run bash -c "sed 1d '$S/table.txt' | sed 's/  */ /g' | cut -d ' ' -f 8-10"
	assert_output "$expected"
	# the bound is tau's own: it asks for no reconfiguration
	run bash -c "cut -f 8 '$S/runs.tsv' | sort -u | wc -l"
	assert_output 2
}

@test "scale-study: bad knobs are refused before anything runs" {
	for knob in SIZES=12 SIZES=abc SIZES=08 LAYERS=33 LAYERS=0 \
	    TAUS=10 TAUS=1h SCHEDULERS=rotor SCHEDULERS=flux,bvn FLUX_BUDGET=0 \
	    FLUX_BUDGET=-1 FLUX_BUDGET=1e3 SIM_LIMIT=.5 JOBS=0 JOBS=two; do
		run env "$knob" "$TOP/pipelines/scale-study" "$BIN" out
		[ "$status" -eq 2 ] || fail "$knob: exit $status"
		[[ $output == "scale-study: ${knob%%=*}: "* || $output == "scale-study: ${knob%%=*} is empty" ]] ||
		    fail "$knob: $output"
		[ ! -e out ] || fail "$knob: out was made"
	done
	run env SIZES="8 20" "$TOP/pipelines/scale-study" "$BIN" out
	assert_failure 2
	assert_output 'scale-study: SIZES: 20 GPUs: 8 (tp4 dp2) or a multiple of 8 from 16 to 524288 (tp8) only'
	run env SCHEDULERS="flux rotor" "$TOP/pipelines/scale-study" "$BIN" out
	assert_output 'scale-study: SCHEDULERS: unknown rotor (ideal flux flux-greedy rotor-direct rotor-vlb bvn)'
	run "$TOP/pipelines/scale-table" -x < /dev/null
	assert_failure 2
	assert_output 'usage: pipelines/scale-table [-p prefix] < runs.tsv'
	run bash -c "echo nonsense | '$TOP/pipelines/scale-table'"
	assert_failure 1
	assert_output 'scale-table: stdin is not a runs.tsv of scale-study'
}

@test "scale-study: run again, it keeps its runs and prints the same table" {
	cp "$S/table.txt" before.txt
	run env SIZES=8 LAYERS=2 TAUS="10us 1ms" FLUX_BUDGET=1 \
	    "$TOP/pipelines/scale-study" "$BIN" "$S"
	assert_success
	refute_line --regexp '^scale-study: \['
	cmp before.txt "$S/table.txt"
}

@test "scale-study: tp8 past 8 GPUs; a run past SIM_LIMIT is dnf, not a failure; KEEP keeps the DAG" {
	# ocssim reads its clock every 65536 events: RotorNet two-hop on 4
	# layers has 174843 of them, slot by slot (BvN, 10 times fewer)
	run env SIZES=64 LAYERS=4 TAUS=10us SCHEDULERS="bvn rotor-vlb" \
	    SIM_LIMIT=0.000001 KEEP=1 JOBS=1 "$TOP/pipelines/scale-study" "$BIN" out
	assert_success
	assert_line --regexp '^64 +tp8 dp8 +10us +bvn +[0-9]+\.[0-9]{3} ms +- +[0-9.]+ +1\.00 '
	assert_line --regexp '^64 +tp8 dp8 +10us +rotor-vlb +dnf +- +- +- +- +- +- +- +-$'
	run cat out/g64-tau10us-rotor-vlb.json
	assert_output '{"dnf":true,"sim_limit_s":0.000001}'
	run ls out/g64.ops.msgpack out/g64-tau10us.dag.msgpack
	assert_success
	# the DAG kept is the one of tracegen -t 8 -d 8
	run bash -c "report -d out/g64-tau10us.dag.msgpack | jq -c 'select(.type == \"header\") | [.tool] + .args'"
	assert_output '["tracegen","-l","4","-t","8","-d","8"]
["dagbuild","-r","10us"]'
}

@test "scale-study: a failing run fails the study, names its error and leaves no run file" {
	printf '#!/bin/sh\necho "rotorsched: out of luck" >&2\nexit 1\n' |
	    stand_in bin "$BIN" rotorsched
	run env SIZES=8 LAYERS=1 TAUS=10us SCHEDULERS="ideal bvn" JOBS=1 \
	    "$TOP/pipelines/scale-study" "$PWD/bin" out
	assert_failure
	assert_line 'rotorsched: out of luck'
	run ls out
	assert_output 'g8-ideal.json
g8-ideal.json.cmd'
}

@test "scale-study: FABRIC runs the study on a tiered fabric, and refuses what does not run on planes" {
	run env FABRIC=hgx-h100-rail SIZES=16 LAYERS=1 TAUS="10us 1ms" \
	    JOBS=1 "$TOP/pipelines/scale-study" "$BIN" out
	assert_success
	assert_line --regexp '^16 +tp8 dp2 +- +ideal +[0-9.]+ ms +1\.00 '
	assert_line --regexp '^16 +tp8 dp2 +10us +flux +[0-9.]+ ms '
	assert_line --regexp '^16 +tp8 dp2 +1ms +flux +[0-9.]+ ms '
	assert_line --regexp '^16 +tp8 dp2 +1ms +rotor-direct +[0-9.]+ ms '
	assert_line --regexp '^16 +tp8 dp2 +10us +bvn +[0-9.]+ ms '
	assert_line --partial 'FABRIC=hgx-h100-rail ALGORITHM=ring;'
	# the runs are made on the fabric's planes: their pipeline says so
	grep -q -- '--fabric=hgx-h100-rail -r 1ms' out/g16-tau1ms-flux.json.cmd
	[ "$(jq -r .fabric out/g16-tau1ms-flux.json)" = hgx-h100-rail ]
	for knob in FABRIC=nosuch 'FABRIC=a b' SIZES=8 ALGORITHM=tree; do
		run env FABRIC=hgx-h100-rail "$knob" "$TOP/pipelines/scale-study" "$BIN" bad
		[ "$status" -eq 2 ] || fail "$knob: exit $status"
		[ ! -e bad ] || fail "$knob: bad was made"
	done
	run env FABRIC=hgx-h100-rail SCHEDULERS="ideal rotor-vlb" "$TOP/pipelines/scale-study" "$BIN" bad
	assert_failure 2
	assert_output 'scale-study: SCHEDULERS: rotor-vlb does not run on a tiered fabric yet (FABRIC=hgx-h100-rail): ideal, flux, flux-greedy, rotor-direct and bvn do'
}
