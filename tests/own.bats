#!/usr/bin/env bats
# --own (ocssim, fluxsolve, rotorsched): the run's own records without
# the DAG, an omitted record in its place, and report relating such a
# stream to the whole streams of its DAG by the digest of its tasks.

load helpers

# types FILE: the record types of a stream, runs of one type as one.
types() {
	report --dump "$1" | jq -r .type | uniq | tr '\n' ' '
}

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	tracegen -l 2 | dagbuild > ring.mp
	tracegen -l 2 | dagbuild -a hd > hd.mp
	fluxsolve < ring.mp > flux.mp
	rotorsched -m bvn < ring.mp > bvn.mp
}

@test "own: ocssim --own writes the headers, what describes the run, an omitted record and its own, and the same result" {
	F=$BATS_FILE_TMPDIR
	ocssim < "$F/flux.mp" > whole.mp
	ocssim --own < "$F/flux.mp" > own.mp
	run types own.mp
	assert_output 'header workload net schedule solve omitted result gpustat switchstat end '
	# the result and the statistics are those of the whole run
	diff <(dump whole.mp | grep -v '"type":"header"' |
	    jq -c 'select(.type | test("result|gpustat|switchstat|workload|net|schedule|solve"))') \
	    <(dump own.mp | grep -v '"type":"header"' |
	    jq -c 'select(.type != "omitted" and .type != "end")')
	# what was left out: the ops, tasks, circuits and plans, counted
	ops=$(records "$F/flux.mp" op | wc -l)
	tasks=$(records "$F/flux.mp" task | wc -l)
	circ=$(records "$F/flux.mp" circuit | wc -l)
	plans=$(records "$F/flux.mp" plan | wc -l)
	[ "$tasks" -gt 100 ] && [ "$circ" -gt 10 ] && [ "$plans" -gt 10 ]
	run records own.mp omitted
	assert_output --regexp "^\{\"type\":\"omitted\",\"records\":$((ops + tasks + circ + plans)),\"bytes\":[0-9]+,\"tasks\":$tasks,\"tasks_xxh64\":[0-9]+\}$"
	# the bytes left out are the difference in size, but for the
	# header of --own and the omitted record itself
	left=$(records own.mp omitted | jq .bytes)
	[ "$(( $(wc -c < whole.mp) - left ))" -lt "$(wc -c < own.mp)" ]
	[ "$(( $(wc -c < whole.mp) - left + 200 ))" -gt "$(wc -c < own.mp)" ]
	# the same with -t: the taskrun records are its own, kept
	ocssim --own -t < "$F/flux.mp" > t.mp
	[ "$(records t.mp taskrun | wc -l)" -eq "$tasks" ]
}

@test "own: fluxsolve and rotorsched --own keep their schedule, and agree with ocssim on the digest of the tasks" {
	F=$BATS_FILE_TMPDIR
	fluxsolve --own < "$F/ring.mp" > f.mp
	run types f.mp
	assert_output 'header workload net omitted schedule circuit plan solve end '
	diff <(records "$F/flux.mp" circuit) <(records f.mp circuit)
	rotorsched -m bvn --own < "$F/ring.mp" > b.mp
	run types b.mp
	assert_output 'header workload net omitted schedule circuit end '
	ocssim -f ideal --own < "$F/ring.mp" > i.mp
	ocssim --own < "$F/flux.mp" > o.mp
	d=$(records i.mp omitted | jq .tasks_xxh64)
	for s in f.mp b.mp o.mp; do
		assert_equal "$(records $s omitted | jq .tasks_xxh64)" "$d"
	done
	# the hd all-reduce: the same workload and net, other tasks
	ocssim -f ideal --own < "$F/hd.mp" > h.mp
	[ "$(records h.mp omitted | jq .tasks_xxh64)" != "$d" ]
	assert_equal "$(records h.mp workload)" "$(records i.mp workload)"
	assert_equal "$(records h.mp net)" "$(records i.mp net)"
}

@test "own: report relates --own streams and whole ones of the same DAG, not those of another" {
	F=$BATS_FILE_TMPDIR
	ocssim -f ideal < "$F/ring.mp" > iw.mp
	ocssim < "$F/flux.mp" > fw.mp
	ocssim < "$F/bvn.mp" > bw.mp
	ocssim -f ideal --own < "$F/ring.mp" > io.mp
	ocssim --own < "$F/flux.mp" > fo.mp
	ocssim --own < "$F/bvn.mp" > bo.mp
	ocssim -f ideal --own < "$F/hd.mp" > ho.mp
	fluxsolve < "$F/hd.mp" | ocssim --own > hf.mp
	# the same table, but for the file column, whole or own
	report iw.mp fw.mp bw.mp | sed 's/  *[^ ]*$//' > whole.txt
	report io.mp fo.mp bo.mp | sed 's/  *[^ ]*$//' > own.txt
	diff whole.txt own.txt
	report iw.mp fo.mp bw.mp | sed 's/  *[^ ]*$//' > mixed.txt
	diff whole.txt mixed.txt
	# the hd runs are a DAG of their own: their rows come after, and
	# their ratios are to each other
	run report io.mp fo.mp ho.mp hf.mp
	assert_line --index 3 --regexp ' ideal .* 1\.00 .* ho\.mp$'
	assert_line --index 4 --regexp ' flux .* hf\.mp$'
	x=$(report -j ho.mp hf.mp | jq -s '.[1].makespan_ps / .[0].makespan_ps')
	assert_equal "$(report -j io.mp fo.mp ho.mp hf.mp | jq -s '.[3].x_ideal')" "$x"
}

@test "own: a stream without its DAG is refused by the tools that need it" {
	F=$BATS_FILE_TMPDIR
	fluxsolve --own < "$F/ring.mp" > f.mp
	run ocssim < f.mp
	assert_failure 1
	assert_output --regexp '^ocssim: stdin: byte [0-9]+: omitted record: the DAG was left out of this stream \(--own\): give the tool the whole stream$'
	run rotorsched < f.mp
	assert_failure 1
	assert_output --partial 'the DAG was left out of this stream (--own)'
	ocssim --own < "$F/flux.mp" > o.mp
	run report -g o.mp
	assert_failure 1
	assert_output 'report: o.mp: no taskrun records: simulate with ocssim -t'
	# a stream with task records and an omitted record
	{ hdr; records "$F/ring.mp" workload; records "$F/ring.mp" net
	  records "$F/ring.mp" task | head -n 3
	  echo '{"type":"omitted","records":1,"bytes":9,"tasks":0,"tasks_xxh64":5}'
	} | mk both.mp
	run report both.mp
	assert_failure 1
	assert_output --regexp '^report: both\.mp: byte [0-9]+: omitted record: task records and an omitted record: the DAG is either left out or not$'
	# and two omitted records
	{ hdr; records o.mp omitted; records o.mp omitted; } | mk two.mp
	run report two.mp
	assert_failure 1
	assert_output --partial 'a second omitted record: a stream holds one run'
}

@test "own: --own is in the usage of the three tools, and the others refuse it" {
	for t in ocssim fluxsolve rotorsched; do
		run $t --help
		assert_success
		assert_output --partial '[--own]'
		assert_line --regexp '^      --own  +write only the'
	done
	for t in tracegen dagbuild report chakra; do
		run $t --own < /dev/null
		assert_failure 2
	done
}
