#!/usr/bin/env bats
# report reads its own CSV and JSON lines back: the same table, plots
# and rows as from the streams, alone or with streams; bad rows are
# refused with the line and the byte.

load helpers

golden() {
	(cd "$DATA" && report "$@" run-ideal.msgpack run-greedy.msgpack \
	    run-rotor.msgpack run-bvn.msgpack)
}

@test "rows: the golden runs' CSV and JSON give back their table, and each other" {
	golden --csv > r.csv
	golden --json > r.json
	golden > want.txt
	report r.csv > t.txt
	diff want.txt t.txt
	report r.json > t.txt
	diff want.txt t.txt
	report --csv r.json | cmp - r.csv
	report --json r.csv | cmp - r.json
	# from standard input too; the file column is the rows'
	report - < r.csv | diff want.txt -
	report < r.json | diff want.txt -
}

@test "rows: rows join streams: the ratios are worked out again from every run given" {
	(cd "$DATA" && report --csv run-ideal.msgpack) > i.csv
	(cd "$DATA" && report --json run-greedy.msgpack) > g.json
	golden > want.txt
	# the greedy run alone: no ideal run, no other schedule
	run jq -c '[.x_ideal, .x_best]' g.json
	assert_output '[null,null]'
	(cd "$DATA" && report "$OLDPWD/i.csv" "$OLDPWD/g.json" \
	    run-rotor.msgpack run-bvn.msgpack) |
	    sed 's|  *[^ ]*$||' > t.txt
	sed 's|  *[^ ]*$||' want.txt | diff - t.txt
}

@test "rows: the plots of rows are those of the streams" {
	golden --csv > r.csv
	golden --gnuplot -p fig > want.gp
	report --gnuplot -p fig r.csv > got.gp
	diff want.gp got.gp
}

@test "rows: a file name with a comma, a quote and a line feed, a trace, a placement" {
	tracegen -l 1 -t 2 -d 2 | dagbuild > d.mp
	n=$'odd, "name"\nhere.mp'
	rotorsched -p 1,0,3,2 < d.mp | ocssim > "$n"
	ocssim -f ideal < d.mp > i.mp
	report --csv "$n" i.mp > r.csv
	report --json "$n" i.mp > r.json
	run jq -r .placed r.json
	assert_output 'true
false'
	report "$n" i.mp > want.txt
	report r.csv | diff want.txt -
	report r.json | diff want.txt -
	report --csv r.json | cmp - r.csv
	# a chakra trace: its name and ranks come back
	a=$SHARED/chakra/astra-sim/all_reduce-8npus_1MB/all_reduce
	chakra "$a" | dagbuild | ocssim -f ideal > c.mp
	report --json c.mp > c.json
	report c.mp > want.txt
	report c.json | diff want.txt -
	run jq -r '[.trace, .ranks] | @tsv' c.json
	assert_output "$a"$'\t8'
}

# bad FILE MESSAGE: report FILE fails with "report: MESSAGE".
bad() {
	run report "$1"
	assert_failure 1
	assert_output "report: $2"
}

@test "rows: bad CSV is refused with its line and byte" {
	golden --csv > r.csv
	head -n 2 r.csv > one.csv
	sed '1s/^file,model/file,modle/' one.csv > h.csv
	bad h.csv 'h.csv: line 1, byte 5: column "modle" where report writes another (see report(1))'
	sed '1s/,fabric$//' one.csv > h.csv
	bad h.csv "h.csv: line 1, byte $(head -n 1 h.csv | wc -c): fewer columns than report writes"
	sed '1s/$/,more/' one.csv > h.csv
	# the byte where the column after the last begins
	bad h.csv "h.csv: line 1, byte $(head -n 1 one.csv | wc -c): more columns than report writes"
	sed '2s/,false,/,0,/' one.csv > b.csv
	bad b.csv "b.csv: line 2, byte $(( $(head -n 1 one.csv | wc -c) + $(sed -n 2p one.csv | sed 's/,false,.*//' | wc -c) )): placed: not true or false"
	sed '2s/,10000000,/,1e7,/' one.csv > b.csv
	run report b.csv
	assert_failure 1
	assert_output --regexp '^report: b\.csv: line 2, byte [0-9]+: tau_ps: not a whole number below 2\^64$'
	sed '2s/,10000000,/,18446744073709551616,/' one.csv > b.csv
	run report b.csv
	assert_output --regexp 'tau_ps: not a whole number below 2\^64$'
	sed '2s/,10000000,/,-1,/' one.csv > b.csv
	run report b.csv
	assert_output --regexp 'tau_ps: not a whole number below 2\^64$'
	sed '2s/,1,0.9458[0-9]*,/,1,-0.5,/' one.csv > b.csv
	run report b.csv
	assert_output --regexp 'x_best: not a number from 0 up$'
	sed '2s/,[0-9a-f]\{16\},/,xyz,/' one.csv > b.csv
	run report b.csv
	assert_output --regexp 'dag: not 16 hexadecimal digits$'
	sed '2s/,plan,4096,/,,4096,/' one.csv > b.csv
	run report b.csv
	assert_output --regexp 'nic_host: missing$'
	sed '2s/^run-ideal.msgpack,llama3-8b,/run-ideal.msgpack,,/' one.csv > b.csv
	run report b.csv
	assert_output --regexp 'layers: a value where the run has none$'
	sed '2s/,[0-9a-zA-Z]*$//' one.csv > b.csv
	bad b.csv "b.csv: line 2, byte $(wc -c < b.csv): fewer values, not the columns of report --csv (see report(1))"
	{ head -n 1 one.csv; printf '"run,1.mp"x,'; sed -n 2p one.csv | cut -d, -f2-; } > q.csv
	run report q.csv
	assert_output --regexp 'line 2, byte [0-9]+: a quoted value goes on after its quote$'
	{ head -n 1 one.csv; printf 'run"1.mp,'; sed -n 2p one.csv | cut -d, -f2-; } > q.csv
	run report q.csv
	assert_output --regexp 'line 2, byte [0-9]+: a quote in an unquoted value$'
	{ head -n 1 one.csv; printf '"run1.mp,'; } > q.csv
	run report q.csv
	assert_output --regexp 'line 2, byte [0-9]+: a quoted value not closed$'
	{ head -n 1 one.csv; printf 'run\0001.mp,'; sed -n 2p one.csv | cut -d, -f2-; } > z.csv
	run report z.csv
	assert_output --regexp 'line 2, byte [0-9]+: a NUL byte$'
	# an empty line is a row of one empty value
	{ cat one.csv; echo; } > e.csv
	run report e.csv
	assert_output --regexp 'line 3, byte [0-9]+: fewer values'
	# nothing but the header: no runs, the table's head alone
	head -n 1 one.csv > only.csv
	run report only.csv
	assert_success
	assert_output --regexp '^workload +fabric +scheduler +tau'
	# a header line cut short
	printf 'file,mo' > cut.csv
	run report cut.csv
	assert_failure 1
}

@test "rows: bad JSON lines are refused with their line and byte" {
	golden --json > r.json
	head -n 1 r.json > one.json
	jq -c '{model} + .' one.json > k.json
	bad k.json 'k.json: line 1, byte 1: key "model" where report writes another (see report(1))'
	jq -c '.tau_ps = "10000000"' one.json > s.json
	run report s.json
	assert_output --regexp '^report: s\.json: line 1, byte [0-9]+: tau_ps: not a whole number$'
	jq -c '.model = 5' one.json > s.json
	run report s.json
	assert_output --regexp 'model: not a string$'
	jq -c '.placed = "true"' one.json > s.json
	run report s.json
	assert_output --regexp 'placed: not true or false$'
	jq -c '. + {extra: 1}' one.json > s.json
	run report s.json
	assert_output --regexp 'key "extra" after the last$'
	jq -c 'del(.fabric)' one.json > s.json
	run report s.json
	assert_output --regexp 'fewer values, not the columns'
	sed 's/}$/} x/' one.json > s.json
	run report s.json
	assert_output --regexp 'more after the object$'
	sed 's/"file":"run-ideal.msgpack"/"file":"a\\qb"/' one.json > s.json
	run report s.json
	assert_output --regexp 'line 1, byte 11: an unknown escape$'
	sed 's/"file":"run-ideal.msgpack"/"file":"a\\ud800b"/' one.json > s.json
	run report s.json
	assert_output --regexp 'a high surrogate without its low one$'
	sed 's/"file":"run-ideal.msgpack"/"file":"a\\udc00b"/' one.json > s.json
	run report s.json
	assert_output --regexp 'a lone low surrogate$'
	sed 's/"file":"run-ideal.msgpack"/"file":"a\\u0000b"/' one.json > s.json
	run report s.json
	assert_output --regexp 'a NUL byte$'
	sed 's/"model":"llama3-8b"/"model":nul/' one.json > s.json
	run report s.json
	assert_output --regexp 'not a value$'
	sed 's/,"layers"/ "layers"/' one.json > s.json
	run report s.json
	assert_output --regexp 'a comma or a closing brace wanted$'
	head -c 40 one.json > s.json
	run report s.json
	assert_output --regexp 'a string not closed$'
	# the second line is counted as such; escapes are decoded
	{ cat one.json; sed 's/"file":"run-ideal.msgpack"/"file":"caf\\u00e9 \\ud83d\\ude00"/' one.json; } > two.json
	run report --csv two.json
	assert_success
	assert_line --index 2 --regexp '^café 😀,'
	{ cat one.json; sed 's/"tau_ps":10000000/"tau_ps":1.5/' one.json; } > two.json
	run report two.json
	assert_output --regexp '^report: two\.json: line 2, byte [0-9]+: tau_ps: not a whole number below 2\^64$'
}

@test "rows: -d, -s and -g read streams only" {
	golden --csv > r.csv
	golden --json > r.json
	for o in -d -s -g; do
		run report $o r.csv
		assert_failure 1
		assert_output 'report: r.csv: report'"'"'s CSV, not a stream: -d, -s and -g read streams'
		run report $o r.json
		assert_output 'report: r.json: report'"'"'s JSON, not a stream: -d, -s and -g read streams'
	done
}

# gnuplot passes a title's bytes into its SVG as they come: a name with
# "]]>" or a byte that is not UTF-8 made SVG that is not XML, exit 0
# (issue 36); such bytes are drawn as '?'.
@test "rows: regression: a scheduler's name with ]]> and a byte not UTF-8 made plots that are not XML" {
	golden --csv > r.csv
	{ head -1 r.csv; tail -n +2 r.csv | sed "s/,greedy,greedy,/,gr]]>ee$(printf '\377')dy,greedy,/"; } > bad.csv
	grep -q 'gr]]>ee' bad.csv
	report -p fig bad.csv > /dev/null
	for f in iteration buffer nic; do
		xmllint --noout "fig-$f.svg"
	done
	grep -q '>gr]]?ee?dy/greedy<' fig-iteration.svg
}
