#!/usr/bin/env bats
# dagbuild: ops to the task DAG and the network description.

load helpers

# op ID RANK KIND DEPS [EXTRA]: one op record as a JSON line
op() {
	echo "{\"type\":\"op\",\"id\":$1,\"rank\":$2,\"kind\":\"$3\",\"name\":\"o$1\",\"deps\":$4${5:+,$5}}"
}

# A compute on each of 4 ranks, an all-reduce of $1 bytes, a compute.
ar4() {
	{
		hdr
		for r in 0 1 2 3; do op $r $r compute '[]' '"duration_ps":1000'; done
		for r in 0 1 2 3; do
			op $((4 + r)) $r allreduce "[$r]" "\"group\":[0,1,2,3],\"size\":$1,\"coll\":7"
		done
		for r in 0 1 2 3; do op $((8 + r)) $r compute "[$((4 + r))]" '"duration_ps":1000'; done
	} | mk ops.mp
}

tasks() {
	records "$1" task
}

@test "dagbuild: ring all-reduce over 4 ranks of S bytes is 24 transfers of S/4" {
	ar4 4000
	dagbuild < ops.mp > dag.mp
	run bash -c "report --dump dag.mp | jq -s '[.[] | select(.type == \"task\" and .kind == \"transfer\")] | [length, (map(.bytes) | unique)]' -c"
	assert_output '[24,[1000]]'
}

@test "dagbuild: ring step k+1 of a rank waits for its receive in step k and its own inputs" {
	ar4 4000
	dagbuild < ops.mp > dag.mp
	# tasks 4..27: step k, sender r is task 4 + 4k + r; rank 1's step 1
	# waits for what 0 sent it (4) and for its own input (task 1)
	run bash -c "report --dump dag.mp | jq -c 'select(.type == \"task\" and .id == 9) | [.src, .dst, .deps]'"
	assert_output '[1,2,[1,4]]'
	run bash -c "report --dump dag.mp | jq -c 'select(.type == \"task\" and .id == 4) | [.src, .dst, .deps]'"
	assert_output '[0,1,[0]]'
}

@test "dagbuild: work after a collective waits for the rank's last receive" {
	ar4 4000
	dagbuild < ops.mp > dag.mp
	run bash -c "report --dump dag.mp | jq -c 'select(.type == \"task\" and .id == 30) | [.gpu, .deps, .name]'"
	assert_output '[2,[2,25],"o10"]'
	run bash -c "report --dump dag.mp | jq -c 'select(.type == \"task\" and .id == 25) | [.src, .dst, .name]'"
	assert_output '[1,2,"o5[5]"]'
}

@test "dagbuild: halving-doubling sends S/2, S/4, then back up" {
	ar4 4000
	dagbuild -a hd < ops.mp > dag.mp
	run bash -c "report --dump dag.mp | jq -r 'select(.type == \"task\" and .kind == \"transfer\" and .src == 0) | [.dst, .bytes] | @tsv' | tr '\t\n' ': '"
	assert_output '1:2000 2:1000 2:1000 1:2000 '
}

@test "dagbuild: direct all-reduce is an all-to-all of S/N, twice" {
	ar4 4000
	dagbuild -a direct < ops.mp > dag.mp
	run bash -c "report --dump dag.mp | jq -s -c '[.[] | select(.type == \"task\" and .kind == \"transfer\")] | [length, (map(.bytes) | unique), (map(.deps | length) | unique)]'"
	assert_output '[24,[1000],[1,4]]'
}

@test "dagbuild: halving-doubling refuses an all-gather on a group that is not a power of two" {
	{
		hdr
		for r in 0 1 2; do op $r $r allgather '[]' '"group":[0,1,2],"size":300,"coll":1'; done
	} | mk ops.mp
	run dagbuild -a hd < ops.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op 0 (o0): halving-doubling needs a group whose size is a power of two, but for an all-reduce'
}

@test "dagbuild: halving-doubling all-reduce on 3: 1 -> 0 whole, 0 <-> 2 by halves, 0 -> 1 whole" {
	{
		hdr
		for r in 0 1 2; do op $r $r allreduce '[]' '"group":[0,1,2],"size":300,"coll":1'; done
	} | mk ops.mp
	dagbuild -a hd < ops.mp > dag.mp
	# worked by hand: 3 = 2 + 1; 1 sends its 300 to 0; 0 and 2 reduce-
	# scatter (150 each way) and all-gather (150 each way); 0 sends the
	# 300 back to 1 after its last receive
	run bash -c "report --dump dag.mp | jq -c 'select(.type == \"task\" and .kind == \"transfer\") | [.src, .dst, .bytes]'"
	assert_output '[1,0,300]
[0,2,150]
[2,0,150]
[0,2,150]
[2,0,150]
[0,1,300]'
	ocssim -f ideal < dag.mp > i.mp
	[ "$(field i.mp result makespan_ps)" -gt 0 ]
}

@test "dagbuild: uneven sizes are split exactly" {
	ar4 4002
	dagbuild < ops.mp > dag.mp
	run bash -c "report --dump dag.mp | jq -s '[.[] | select(.type == \"task\" and .kind == \"transfer\") | .bytes] | add'"
	assert_output $((2 * 3 * 4002))
}

@test "dagbuild: the paper's workload is 1920 tasks, dense ids, every dependency earlier" {
	tracegen | dagbuild > dag.mp
	run bash -c "report --dump dag.mp | jq -s -c '[.[] | select(.type == \"task\")] | [length, (map(select(.kind == \"compute\")) | length), (to_entries | all(.[]; .key == .value.id)), all(.[]; . as \$t | \$t.deps | all(.[]; . < \$t.id))]'"
	assert_output '[1920,256,true,true]'
}

@test "dagbuild: compute tasks depend on their GPU's previous compute task" {
	tracegen -l 1 -t 1 -d 1 | dagbuild > dag.mp
	run bash -c "report --dump dag.mp | jq -c 'select(.type == \"task\") | [.id, .deps, .name]'"
	assert_output '[0,[],"l0.fwd.attn"]
[1,[0],"l0.fwd.mlp"]
[2,[1],"l0.bwd.mlp"]
[3,[2],"l0.bwd.attn"]'
}

@test "dagbuild: a send and its receive become one transfer" {
	{
		hdr
		op 0 0 compute '[]' '"duration_ps":5'
		op 1 0 send '[0]' '"peer":1,"size":64,"tag":3'
		op 2 1 recv '[]' '"peer":0,"size":64,"tag":3'
		op 3 1 compute '[2]' '"duration_ps":5'
	} | mk ops.mp
	dagbuild < ops.mp > dag.mp
	run bash -c "report --dump dag.mp | jq -c 'select(.type == \"task\") | [.id, .kind, .deps]'"
	assert_output '[0,"compute",[]]
[1,"transfer",[0]]
[2,"compute",[1]]'
}

@test "dagbuild: pipeline traces build" {
	tracegen -l 2 -p 2 -m 2 -t 2 -d 1 | dagbuild > dag.mp
	run bash -c "report --dump dag.mp | jq -s -c '[.[] | select(.type == \"task\" and .kind == \"transfer\" and .bytes == 33554432 and (.name | test(\"send\")))] | length'"
	assert_output 8
}

@test "dagbuild: the net record carries the options in exact units" {
	tracegen -l 1 | dagbuild -s 4 -b 400Gbps -r 1.5us -m switch -L 500ns > dag.mp
	run records dag.mp net
	assert_output '{"type":"net","gpus":8,"switches":4,"bandwidth_bps":400000000000,"reconfig_ps":1500000,"reconfig_model":"switch","latency_ps":500000}'
}

@test "dagbuild: defaults are 2 switches, 800 Gbit/s, 10 us, port model, no latency" {
	tracegen -l 1 | dagbuild > dag.mp
	run records dag.mp net
	assert_output '{"type":"net","gpus":8,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":10000000,"reconfig_model":"port","latency_ps":0}'
}

@test "dagbuild: -g sets more GPUs than the trace uses, and refuses fewer" {
	tracegen -l 1 | dagbuild -g 16 > dag.mp
	run bash -c "report --dump dag.mp | jq 'select(.type == \"net\") | .gpus'"
	assert_output 16
	run bash -c "tracegen -l 1 | dagbuild -g 4"
	assert_failure 1
	assert_output 'dagbuild: -g 4: the trace uses 8 GPUs'
}

@test "dagbuild: other records pass through in order, unknown keys are ignored" {
	{
		hdr
		echo '{"type":"note","text":"first"}'
		op 0 0 compute '[]' '"duration_ps":5,"colour":"red"'
		echo '{"type":"note","text":"second"}'
	} | mk ops.mp
	dagbuild < ops.mp > dag.mp
	run bash -c "report --dump dag.mp | jq -r '.type + \" \" + (.text // .tool // \"\")'"
	assert_output 'header test
header dagbuild
note first
note second
net 
task 
end '
}

@test "dagbuild: the same input and options give byte-identical output" {
	tracegen -l 2 | dagbuild -a hd > a.mp
	tracegen -l 2 | dagbuild -a hd > b.mp
	cmp a.mp b.mp
}

@test "dagbuild: output matches the golden stream" {
	dagbuild < "$DATA/tracegen-l1-t2-d2.msgpack" > dag.mp
	cmp dag.mp "$DATA/dagbuild-l1-t2-d2.msgpack"
}

# ringcheck OPS TASKS: the ids of the ops of the JSON lines OPS whose
# tasks in TASKS are not what the brief says: a compute op, one compute
# task on its rank with its duration; a ring all-reduce of S bytes over
# n ranks, 2(n - 1) transfers from the rank to the next of its group,
# S/n each.  Then whether TASKS holds those tasks and no others.
ringcheck() {
	jq -n -c --slurpfile o "$1" --slurpfile t "$2" '
	    [$o[] | select(.type == "op")] as $ops |
	    [$t[] | select(.type == "task")] as $tasks |
	    [$ops[] as $p | ($tasks | map(select(.op == $p.id))) as $ts |
	     if $p.kind == "compute" then
		select(($ts | length) != 1 or $ts[0].kind != "compute" or
		    $ts[0].gpu != $p.rank or
		    $ts[0].duration_ps != $p.duration_ps)
	     else
		($p.group | length) as $n |
		($p.group | index($p.rank)) as $i |
		select(($ts | length) != 2 * ($n - 1) or
		    ([$ts[] | .kind == "transfer" and .src == $p.rank and
		      .bytes * $n == $p.size and
		      .dst == $p.group[($i + 1) % $n]] | all | not))
	     end | $p.id],
	    ($tasks | length) == ($ops | map(if .kind == "compute" then 1
		else 2 * ((.group | length) - 1) end) | add)'
}

@test "dagbuild: the golden stream's tasks are those of its ops, checked from the ops" {
	report --dump "$DATA/tracegen-l1-t2-d2.msgpack" > ops.json
	report --dump "$DATA/dagbuild-l1-t2-d2.msgpack" > dag.json
	run ringcheck ops.json dag.json
	assert_output '[]
true'
	# the check can fail: a byte more in one transfer of op 12, a
	# compute task of op 0 a picosecond longer, a transfer dropped
	jq -c 'if .type == "task" and .id == 16 then .bytes += 1 else . end' dag.json > a.json
	run ringcheck ops.json a.json
	assert_output '[12]
true'
	jq -c 'if .type == "task" and .id == 0 then .duration_ps += 1 else . end' dag.json > b.json
	run ringcheck ops.json b.json
	assert_output '[0]
true'
	jq -c 'select(.type != "task" or .id != 16)' dag.json > c.json
	run ringcheck ops.json c.json
	assert_output '[12]
false'
}

@test "dagbuild: empty input exits 1" {
	run dagbuild < /dev/null
	assert_failure 1
	assert_output 'dagbuild: stdin: empty input: expected a fluxocs stream'
}

@test "dagbuild: garbage exits 1 and names the offset" {
	run bash -c "echo hello world | dagbuild"
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 0: record is not a map (first byte 0x68)'
}

@test "dagbuild: a stream without a header is refused" {
	op 0 0 compute '[]' '"duration_ps":5' | mk ops.mp
	run dagbuild < ops.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 0: stream does not begin with a header record'
}

@test "dagbuild: an unknown major version is refused" {
	echo '{"type":"header","format":"fluxocs","version":2,"tool":"x"}' | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 0: header record: stream format version 2 is not supported (this is version 1)'
}

@test "dagbuild: truncation at a record boundary and inside a record exit 1" {
	tracegen -l 1 > s.mp
	size=$(stat -c %s s.mp)
	head -c $((size - 1)) s.mp > cut.mp
	run dagbuild < cut.mp
	assert_failure 1
	assert_output --regexp '^dagbuild: stdin: byte [0-9]+: truncated record: input ends at byte '$((size - 1))'$'
	for n in 1 5 40 100 1000; do
		head -c $n s.mp > cut.mp
		run dagbuild < cut.mp
		[ "$status" -eq 1 ] || fail "cut at $n exited $status: $output"
		assert_output --regexp '^dagbuild: stdin: byte [0-9]+: truncated record'
	done
}

@test "dagbuild: a stream of headers only has no ops" {
	hdr | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: no op records in the input'
}

@test "dagbuild: wrong key types are refused with the key named" {
	{ hdr; echo '{"type":"op","id":0,"rank":0,"kind":"compute","name":"x","deps":"none","duration_ps":1}'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "deps": expected array, got string'
	{ hdr; echo '{"type":"op","id":-1,"rank":0,"kind":"compute","name":"x","deps":[],"duration_ps":1}'; } | mk s.mp
	run dagbuild < s.mp
	assert_output 'dagbuild: stdin: byte 60: op record: key "id": expected unsigned integer, got negative integer'
	{ hdr; echo '{"type":"op","id":0,"rank":0,"kind":"compute","name":"x","deps":[1.5],"duration_ps":1}'; } | mk s.mp
	run dagbuild < s.mp
	assert_output 'dagbuild: stdin: byte 60: op record: key "deps": item 0: expected unsigned integer, got float'
}

@test "dagbuild: missing keys and unknown kinds are refused" {
	{ hdr; echo '{"type":"op","id":0,"rank":0,"kind":"compute","name":"x","deps":[]}'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: missing key "duration_ps"'
	{ hdr; echo '{"type":"op","id":0,"rank":0,"kind":"dance","name":"x","deps":[]}'; } | mk s.mp
	run dagbuild < s.mp
	assert_output 'dagbuild: stdin: byte 60: op record: key "kind": unknown value "dance"'
	{ hdr; echo '{"rank":0}'; } | mk s.mp
	run dagbuild < s.mp
	assert_output 'dagbuild: stdin: byte 60: record has no key "type"'
}

@test "dagbuild: huge counts are refused before anything is allocated" {
	{ hdr | jsonpack; printf '\x81\xa4type\xdd\xff\xff\xff\xff'; } > s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 66: container of 4294967295 items exceeds the limit of 1048576'
	{ hdr | jsonpack; printf '\x81\xa4type\xdb\x7f\xff\xff\xff'; } > s.mp
	run dagbuild < s.mp
	assert_output 'dagbuild: stdin: byte 60: record larger than 16777216 bytes'
}

@test "dagbuild: nesting deeper than 16 is refused" {
	{ hdr; echo '{"type":"x","a":[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output --partial 'nesting deeper than 16'
}

@test "dagbuild: msgpack extension types and the unused byte 0xc1 are refused" {
	{ hdr | jsonpack; printf '\x81\xa4type\xc1'; } > s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 66: unsupported msgpack byte 0xc1'
	{ hdr | jsonpack; printf '\x81\xa4type\xd4\x01\x02'; } > s.mp
	run dagbuild < s.mp
	assert_output 'dagbuild: stdin: byte 66: unsupported msgpack byte 0xd4'
}

@test "dagbuild: a cyclic trace is refused as a deadlock" {
	{
		hdr
		op 0 0 compute '[1]' '"duration_ps":5'
		op 1 0 compute '[0]' '"duration_ps":5'
	} | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output --regexp 'op [01] \(o[01]\): is on a cycle: the trace deadlocks$'
}

@test "dagbuild: collectives entered in opposite orders deadlock" {
	{
		hdr
		op 0 0 allreduce '[]' '"group":[0,1],"size":10,"coll":1'
		op 1 0 allreduce '[0]' '"group":[0,1],"size":10,"coll":2'
		op 2 1 allreduce '[]' '"group":[0,1],"size":10,"coll":2'
		op 3 1 allreduce '[2]' '"group":[0,1],"size":10,"coll":1'
	} | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output --partial 'is on a cycle: the trace deadlocks'
}

@test "dagbuild: bad references and mismatched collectives are refused" {
	{ hdr; op 0 0 compute '[9]' '"duration_ps":5'; } | mk s.mp
	run dagbuild < s.mp
	assert_output 'dagbuild: stdin: byte 60: op 0 (o0): depends on an unknown op'
	{ hdr; op 0 0 compute '[]' '"duration_ps":5'; op 0 1 compute '[]' '"duration_ps":5'; } | mk s.mp
	run dagbuild < s.mp
	assert_output --partial 'duplicate op id'
	{ hdr; op 0 0 allreduce '[]' '"group":[0,1],"size":10,"coll":1'; } | mk s.mp
	run dagbuild < s.mp
	assert_output --partial 'collective is missing the op of some rank of its group'
	{ hdr; op 0 0 allreduce '[]' '"group":[0,1],"size":10,"coll":1'; op 1 1 allreduce '[]' '"group":[0,1],"size":20,"coll":1'; } | mk s.mp
	run dagbuild < s.mp
	assert_output --partial 'collective ops disagree on kind, size or group'
	{ hdr; op 0 2 allreduce '[]' '"group":[0,1],"size":10,"coll":1'; op 1 1 allreduce '[]' '"group":[0,1],"size":10,"coll":1'; } | mk s.mp
	run dagbuild < s.mp
	assert_output --partial 'rank is not in the group'
	{ hdr; op 0 0 send '[]' '"peer":1,"size":10'; } | mk s.mp
	run dagbuild < s.mp
	assert_output 'dagbuild: stdin: byte 60: op 0 (o0): send has no matching receive'
	{ hdr; op 0 0 recv '[]' '"peer":1,"size":10'; } | mk s.mp
	run dagbuild < s.mp
	assert_output 'dagbuild: stdin: byte 60: op 0 (o0): receive has no matching send'
}

@test "dagbuild: a stream that already holds a DAG is refused" {
	tracegen -l 1 | dagbuild > dag.mp
	run dagbuild < dag.mp
	assert_failure 1
	assert_output --regexp 'already holds a net record: it has been through dagbuild$'
}

@test "dagbuild: bad options exit 2 with usage" {
	for o in "-a ringo" "-b 10" "-b 0" "-r 5" "-r 1xs" "-s 0" "-s 2000" "-m all" \
	    "-L x" "-g 0" "-q" "extra"; do
		run bash -c "tracegen -l 1 | dagbuild $o"
		[ "$status" -eq 2 ] || fail "dagbuild $o exited $status"
		assert_line --partial 'usage: dagbuild'
	done
	run dagbuild -r 5
	assert_line --index 0 'dagbuild: -r 5: missing unit (a time takes ps, ns, us, ms or s, as in 10us)'
}

@test "dagbuild: a full disk is an error" {
	run bash -c "tracegen -l 1 | dagbuild > /dev/full"
	assert_failure 1
	assert_output --partial 'dagbuild: write error'
}

@test "dagbuild: refuses to write binary to a terminal" {
	tracegen -l 1 > s.mp
	run script -qec "$BIN/dagbuild < s.mp; echo rc=\$?" /dev/null
	assert_output --partial 'refusing to write a binary stream to a terminal'
	assert_output --partial 'rc=2'
}

@test "dagbuild: repeated dependencies count once (regression: fuzzing)" {
	{ hdr; op 0 0 compute '[]' '"duration_ps":5'; op 1 0 compute '[0,0,0,0]' '"duration_ps":5'; } | mk s.mp
	dagbuild < s.mp > dag.mp
	run bash -c "report --dump dag.mp | jq -c 'select(.type == \"task\" and .id == 1) | .deps'"
	assert_output '[0]'
}

@test "dagbuild: out-of-range steps and group ranks are refused, not cut (regression: fuzzing)" {
	{ hdr; op 0 0 compute '[]' '"duration_ps":5,"step":4294967301'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op record: key "step": 4294967301 exceeds 65535'
	{ hdr; op 0 1 allreduce '[]' '"group":[4294967296,1],"size":10,"coll":1'; } | mk s.mp
	run dagbuild < s.mp
	assert_output 'dagbuild: stdin: byte 60: op record: key "group": rank 4294967296 out of range'
	{ hdr; op 0 0 allreduce '[]' '"group":[0,0],"size":10,"coll":1'; } | mk s.mp
	run dagbuild < s.mp
	assert_output 'dagbuild: stdin: byte 60: op record: key "group": a rank is listed twice'
}

@test "dagbuild: op ids of 2^63 and more keep their op key (regression: fuzzing)" {
	{ hdr; op 18446744073709551615 0 compute '[]' '"duration_ps":5'; } | mk s.mp
	dagbuild < s.mp > dag.mp
	# jq rounds such numbers: read the JSON text itself
	run bash -c "report --dump dag.mp | grep -o '\"op\":[0-9]*'"
	assert_output '"op":18446744073709551615'
}

@test "dagbuild: a header in mid-stream is checked too (regression: fuzzing)" {
	{ hdr; op 0 0 compute '[]' '"duration_ps":5'
	  echo '{"type":"header","format":"fluxocs","version":2,"tool":"x"}'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output --partial 'stream format version 2 is not supported'
}

@test "dagbuild: names from the input are escaped in messages (regression: fuzzing)" {
	{ hdr; echo '{"type":"op","id":0,"rank":0,"kind":"compute","name":"a\u001b[31mb","deps":[9],"duration_ps":5}'; } | mk s.mp
	run dagbuild < s.mp
	assert_failure 1
	assert_output 'dagbuild: stdin: byte 60: op 0 (a\x1b[31mb): depends on an unknown op'
	{ hdr; echo '{"type":"op","id":0,"rank":0,"kind":"da\nce","name":"x","deps":[]}'; } | mk s.mp
	run dagbuild < s.mp
	assert_output 'dagbuild: stdin: byte 60: op record: key "kind": unknown value "da\x0ace"'
}
