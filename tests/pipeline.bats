#!/usr/bin/env bats
# Whole pipelines, and the sample streams of traces/.

load helpers

@test "pipeline: the sample traces are what the tools make now" {
	"$TOP/pipelines/make-traces" "$BIN" new > /dev/null
	for f in new/*; do
		cmp "$f" "$TOP/traces/$(basename "$f")" ||
		    fail "traces/$(basename "$f") is stale: run make traces"
	done
	run ls new
	assert_output 'llama3-8b-l16-tp4-dp2.dag.msgpack
llama3-8b-l16-tp4-dp2.ops.msgpack
llama3-8b-l8-tp4-dp2.dag.msgpack
llama3-8b-l8-tp4-dp2.ops.msgpack'
}

@test "pipeline: the release and sanitizer builds write identical streams" {
	set -o pipefail
	tracegen -l 2 -p 2 -m 2 -E | dagbuild -a hd > a.mp
	"$FLUXOCS_RELBIN/tracegen" -l 2 -p 2 -m 2 -E | "$FLUXOCS_RELBIN/dagbuild" -a hd > b.mp
	cmp a.mp b.mp
}

@test "pipeline: the 16-layer workload has twice the tasks of the 8-layer one" {
	run bash -c "report -s '$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack' '$TOP/traces/llama3-8b-l16-tp4-dp2.dag.msgpack' | grep records"
	assert_output '  records: header 2, workload 1, net 1, task 1920, end 1
  records: header 2, workload 1, net 1, task 3840, end 1'
}

@test "pipeline: a failing stage fails the pipeline under pipefail" {
	set -o pipefail
	run bash -c "set -o pipefail; tracegen -l 1 | head -c 500 | dagbuild > out.mp"
	assert_failure 1
	assert_output --partial 'truncated record'
}

@test "pipeline: a closed pipe ends a tool quietly" {
	run bash -c "set -o pipefail; tracegen -l 8 -d 64 | head -c 10 > /dev/null"
	# SIGPIPE keeps its default: no message, status 141
	assert_equal "$status" 141
	assert_output ''
}

@test "pipeline: the simulator benchmark prints one row per case" {
	run env RUNS=1 MAXGPUS=8 "$TOP/pipelines/bench-ocssim" "$BIN" work
	assert_success
	assert_line --index 0 --regexp '^case +gpus +layers +fabric +tasks +events +events/s +wall_s +cpu_s +rss_MiB +in_MiB +read_s +floor_s$'
	assert_line --index 1 --regexp '^g8 +8 +8 +ideal +1920 +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+$'
	assert_line --index 2 --regexp '^g8 +8 +8 +flux +1920 +[0-9]+ '
	assert_line --index 4 --regexp '^g8 +8 +8 +rotor +1920 '
	assert_line --index 5 --regexp '^g8 +8 +8 +rotor-vlb +1920 +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+$'
	# five fabrics, the same DAG of 1920 tasks under each
	[ "${#lines[@]}" -eq 6 ]
	for l in "${lines[@]:1}"; do
		[[ $l =~ ^g8\ +8\ +8\ +[a-z-]+\ +1920\  ]] || fail "row: $l"
	done
	# two-hop: more events than direct
	direct=$(echo "${lines[4]}" | awk '{ print $6 }')
	vlb=$(echo "${lines[5]}" | awk '{ print $6 }')
	[ "$vlb" -ne "$direct" ] || fail "the same events: $vlb"
}

@test "pipeline: make install honours DESTDIR, PREFIX and MANPREFIX, and uninstall undoes it" {
	run make -s -C "$TOP" install DESTDIR="$T/inst" PREFIX=/opt/fx MANPREFIX=/opt/fx/man
	assert_success
	for t in tracegen dagbuild fluxsolve rotorsched ocssim report; do
		[ -x "$T/inst/opt/fx/bin/$t" ] || fail "$t not installed"
		[ -f "$T/inst/opt/fx/man/man1/$t.1" ] || fail "$t.1 not installed"
	done
	[ -f "$T/inst/opt/fx/man/man5/fluxocs.5" ]
	[ -f "$T/inst/opt/fx/man/man7/fluxocs.7" ]
	run make -s -C "$TOP" uninstall DESTDIR="$T/inst" PREFIX=/opt/fx MANPREFIX=/opt/fx/man
	assert_success
	run find "$T/inst" -type f
	assert_output ''
}

@test "pipeline: a stream cut at a record boundary is refused by every reader (regression: fuzzing)" {
	size=$(stat -c %s "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack")
	# the end record is the last 10 bytes
	head -c $((size - 10)) "$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack" > cut.mp
	for tool in "ocssim -f ideal" "fluxsolve" "rotorsched" "report" "report --dump"; do
		run bash -c "$tool < cut.mp > /dev/null"
		[ "$status" -eq 1 ] || fail "$tool exited $status"
		assert_output --regexp "byte $((size - 10)): the stream stops without its end record: it was cut short, or a tool before failed$"
	done
	run bash -c "head -c \$(( \$(stat -c %s '$TOP/traces/llama3-8b-l8-tp4-dp2.ops.msgpack') - 10 )) '$TOP/traces/llama3-8b-l8-tp4-dp2.ops.msgpack' | dagbuild > /dev/null"
	assert_failure 1
	assert_output --partial 'the stream stops without its end record'
}

@test "pipeline: a tool that fails leaves no end record behind it" {
	set -o pipefail
	# ocssim fails after passing much of its input through
	run bash -c "ocssim -f static -c 0-9@0 < '$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack' | report"
	assert_failure 1
	assert_line --index 0 --partial 'ocssim: -c 0-9@0'
	assert_output --regexp 'report: stdin: byte [0-9]+: (truncated record|the stream stops without its end record)'
}

@test "pipeline: records after the end record are refused; streams of format 1.0 need none" {
	{ hdr; echo '{"type":"end"}'; echo '{"type":"note"}'; } | jsonpack > s.mp
	run report s.mp
	assert_failure 1
	assert_output --partial 'a note record after the end record'
	echo '{"type":"header","format":"fluxocs","version":1,"minor":0,"tool":"old"}
{"type":"op","id":0,"rank":0,"kind":"compute","name":"x","deps":[],"duration_ps":5}' | jsonpack > old.mp
	run bash -c "dagbuild < old.mp | report -s | tail -1"
	assert_success
	assert_output '  records: header 2, net 1, task 1, end 1'
}

@test "pipeline: the fluxsolve benchmark prints its tables, every case optimal" {
	run env RUNS=1 LIMIT=20 SETS=paper LAYERS=8 TAUS="1us 1ms" \
	    "$TOP/pipelines/bench-fluxsolve" "$FLUXOCS_RELBIN" out
	assert_success
	assert_line --index 0 --regexp '^gpus +tp +layers +tau +greedy_ms +final_ms +bound_ms +gap_pct +status +seconds +windows +failed +improved$'
	assert_line --index 1 --regexp '^8 +4 +8 +1us +109\.200 +109\.200 +109\.200 +0\.000 +optimal +[0-9.]+ +0 +0 +0$'
	# at 1 ms the windows prove the greedy schedule optimal
	assert_line --index 2 --regexp '^8 +4 +8 +1ms +110\.620 +110\.620 +110\.620 +0\.000 +optimal +[0-9.]+ +[1-9][0-9]* +0 +0$'
	assert_line --regexp '^8 +1ms +110\.620 +34\.72x +28\.94x +1\.62x +0\.93x$'
	refute_output --partial '# '
	run env RUNS=1 LIMIT=5 SETS=scale GPUS=16 TAUS=1ms \
	    "$TOP/pipelines/bench-fluxsolve" "$FLUXOCS_RELBIN" out
	assert_success
	# 16 GPUs: the greedy meets the ports' bound
	assert_line --index 1 --regexp '^16 +4 +8 +1ms +111\.249 +111\.249 +111\.249 +0\.000 +optimal '
}

@test "pipeline: the pipeline benchmark times each stage and the pipe, whose output is the stages'" {
	run env GPUS=8 LAYERS=2 RUNS=1 "$TOP/pipelines/bench-pipeline" "$BIN" work
	assert_success
	assert_line --index 0 'bench-pipeline: llama3-8b 2L tp8 dp1 on 8 GPUs, the flat net, median of 1 run(s)'
	assert_line --index 1 --regexp '^stage +command +wall_s +cpu_s +rss_MiB +out_MiB$'
	assert_line --index 2 --regexp '^tracegen +tracegen -l 2 -t 8 -d 1 +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9] +0\.0$'
	assert_line --index 3 --regexp '^dagbuild +dagbuild +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9] +0\.1$'
	assert_line --index 4 --regexp '^fluxsolve +fluxsolve -m greedy +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9] +0\.1$'
	assert_line --index 5 --regexp '^ocssim +ocssim +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9] +0\.1$'
	assert_line --index 6 --regexp '^stages +one after another \(sum\) +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9] +-$'
	assert_line --index 7 --regexp '^pipe +one core \(taskset -c 0\) +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +- +0\.1$'
	assert_line --index 8 --regexp '^pipe +every core +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +- +0\.1$'
	assert_line --index 9 "pipe output: the same as the stages' but for the solve record's seconds"
	[ "${#lines[@]}" -eq 10 ]
	# each stage's output is its tool's, from the stage before
	set -o pipefail
	tracegen -l 2 -t 8 -d 1 | cmp - work/tracegen.out
	dagbuild < work/tracegen.out | cmp - work/dagbuild.out
	# fluxsolve's seconds differ from run to run: in the 8 bytes of
	# one float, the rest is the pipe's byte for byte
	run cmp -l work/ocssim.out work/pipe.out
	[ "$(wc -c < work/ocssim.out)" -eq "$(wc -c < work/pipe.out)" ]
	if [ -n "$output" ]; then
		first=$(echo "$output" | head -1 | awk '{ print $1 }')
		last=$(echo "$output" | tail -1 | awk '{ print $1 }')
		[ $((last - first)) -lt 8 ] || fail "bytes $first to $last differ"
	fi
	run bash -c "report -d work/ocssim.out | grep -v '\"type\":\"solve\"' > a.txt; report -d work/pipe.out | grep -v '\"type\":\"solve\"' > b.txt; cmp a.txt b.txt && wc -l < a.txt"
	assert_output 1883
	run bash -c "report -d work/pipe.out | jq -c 'select(.type == \"solve\") | [.method, .objective_ps]'"
	assert_output "$(report -d work/ocssim.out | jq -c 'select(.type == "solve") | [.method, .objective_ps]')"
	run env GPUS=12 "$TOP/pipelines/bench-pipeline" "$BIN"
	assert_failure 2
	assert_output 'bench-pipeline: GPUS: 12 is not a multiple of TP (8)'
}
