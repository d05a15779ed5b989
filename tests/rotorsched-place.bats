#!/usr/bin/env bats
# rotorsched -p: where the ranks sit on RotorNet's ports, given, drawn
# or searched, and the schedule record's placement key that records it.

load helpers

NET4='{"type":"net","gpus":4,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":1000000}'

# ring4 ROUNDS: ROUNDS turns of a ring 0 -> 1 -> 2 -> 3 -> 0 on 4 GPUs,
# each transfer of 1000 bytes (10 ns at 800 Gbit/s) waiting for the one
# before, at tau = 1 us; in ring.mp.
ring4() {
	local i d='[]'

	{
		hdr
		echo "$NET4"
		for ((i = 0; i < 4 * $1; i++)); do
			xfer $i "$d" $((i % 4)) $(((i + 1) % 4)) 1000
			d="[$i]"
		done
	} | mk ring.mp
}

# makespan FILE: the makespan of a simulated stream.
makespan() {
	report --dump "$1" | jq 'select(.type == "result") | .makespan_ps'
}

# body FILE: the records of a stream as JSON lines, but for the args of
# rotorsched's header, which say how it was run.
body() {
	report --dump "$1" |
	    jq -c 'if .type == "header" and .tool == "rotorsched" then del(.args) else . end'
}

# perms N: every permutation of 0..N-1, one a line, as 3,0,1,2.
perms() {
	perl -e 'sub p { my ($d, @r) = @_; unless (@r) { print join(",", @$d), "\n"; return }
	    for my $i (0 .. $#r) { my @s = @r; my ($x) = splice(@s, $i, 1); p([@$d, $x], @s) } }
	    p([], 0 .. $ARGV[0] - 1)' "$1"
}

@test "rotorsched -p: identity writes the same bytes as no -p" {
	tracegen -l 1 | dagbuild -r 1us > dag.mp
	for f in direct vlb; do
		rotorsched -f $f < dag.mp > a.mp
		rotorsched -p identity -f $f < dag.mp > b.mp
		rotorsched --placement=0,1,2,3,4,5,6,7 -f $f < dag.mp > c.mp
		[ "$(body a.mp | grep -c '"circuit"')" -eq 28 ]
		diff <(body a.mp) <(body b.mp)
		diff <(body a.mp) <(body c.mp)
		# byte for byte, but for the args of rotorsched's header: the
		# first byte that differs is their array's length, after which
		# b.mp has "-p" and "identity" (12 bytes), c.mp
		# "--placement=0,1,2,3,4,5,6,7" (28), then the same bytes
		k=$(cmp a.mp b.mp | sed -n 's/.*differ: byte \([0-9]*\),.*/\1/p')
		[ "$k" = "$(cmp a.mp c.mp | sed -n 's/.*differ: byte \([0-9]*\),.*/\1/p')" ]
		[ "$(($(stat -c %s b.mp) - $(stat -c %s a.mp)))" -eq 12 ]
		[ "$(($(stat -c %s c.mp) - $(stat -c %s a.mp)))" -eq 28 ]
		cmp <(tail -c +$((k + 1)) a.mp) <(tail -c +$((k + 13)) b.mp)
		cmp <(tail -c +$((k + 1)) a.mp) <(tail -c +$((k + 29)) c.mp)
	done
	run bash -c "report --dump b.mp | jq -c 'select(.type == \"schedule\") | has(\"placement\")'"
	assert_output false
}

@test "rotorsched -p: a given placement relabels the identity table (4 GPUs, by hand)" {
	ring4 1
	rotorsched -p 1,2,0,3 < ring.mp > s.mp
	run bash -c "report --dump s.mp | jq -c 'select(.type == \"schedule\") | .placement'"
	assert_output '[1,2,0,3]'
	# ports 0 1 2 3 hold ranks 2 0 1 3.  Identity table: slot 0 (from
	# 1 us) switch 0 XOR 1 {0,1} {2,3}, switch 1 XOR 2 {0,2} {1,3};
	# slot 1 (from 11 us) switch 0 XOR 3 {0,3} {1,2}.  Renamed:
	# {2,0} {1,3}, {2,1} {0,3}, {2,3} {0,1}.  (Renaming by the
	# placement itself instead of its inverse would give {1,2} {0,3}
	# in the first: this placement tells the two apart, as a cyclic
	# shift on 4 GPUs does not.)
	run bash -c "report --dump s.mp | jq -r 'select(.type == \"circuit\") | \"\(.switch) \(.from_ps) \(.a)-\(.b)\"' | tr '\n' ,"
	assert_output '0 1000000 0-2,0 1000000 1-3,0 11000000 0-1,0 11000000 2-3,1 1000000 0-3,1 1000000 1-2,'
}

@test "rotorsched -p: a given placement relabels the identity table (8 GPUs, by jq)" {
	tracegen -l 1 | dagbuild -r 1us > dag.mp
	p=5,2,7,0,3,6,1,4
	rotorsched < dag.mp > id.mp
	rotorsched -p $p < dag.mp > p.mp
	# rank[port]: the inverse of p; each identity circuit {x, y} on
	# ports becomes {rank[x], rank[y]}, same switch and times
	report --dump id.mp | jq -c --argjson p "[$p]" '
	    ([range(0; 8) as $r | {key: ($p[$r] | tostring), value: $r}] | from_entries) as $rank |
	    select(.type == "circuit") | [$rank[.a | tostring], $rank[.b | tostring]] as $g |
	    [.switch, .from_ps, .to_ps, ($g | min), ($g | max)]' | sort > want
	report --dump p.mp | jq -c 'select(.type == "circuit") | [.switch, .from_ps, .to_ps, .a, .b]' | sort > got
	[ "$(wc -l < got)" -eq 28 ]
	diff want got
	# all else alike, the schedule record but for its placement
	diff <(body id.mp | grep -v '"circuit"') \
	    <(body p.mp | grep -v '"circuit"' | jq -c 'del(.placement)')
	run bash -c "report --dump p.mp | jq -c 'select(.type == \"schedule\") | .placement'"
	assert_output "[$p]"
}

@test "rotorsched -p: random:SEED is the same on every run, differs by seed, and is a permutation" {
	tracegen -l 1 | dagbuild -r 1us > dag.mp
	rotorsched -p random:1 < dag.mp > a.mp
	rotorsched -p random:1 < dag.mp > b.mp
	rotorsched -p random:2 < dag.mp > c.mp
	cmp a.mp b.mp
	! cmp -s a.mp c.mp
	# splitmix64 from the seed and Fisher-Yates from the top, as a
	# second implementation (Python's ints) works them out
	run bash -c "report --dump a.mp | jq -c 'select(.type == \"schedule\") | .placement'"
	assert_output '[4,3,2,7,5,6,0,1]'
	run bash -c "report --dump c.mp | jq -c 'select(.type == \"schedule\") | .placement'"
	assert_output '[5,2,7,4,1,3,0,6]'
	for s in 0 3 18446744073709551615; do
		rotorsched -p random:$s < dag.mp > r.mp
		run bash -c "report --dump r.mp | jq -c 'select(.type == \"schedule\") | .placement | sort'"
		assert_output '[0,1,2,3,4,5,6,7]'
		ocssim < r.mp > /dev/null
	done
}

@test "rotorsched -p best: the ring's optimum, that of all 24 placements simulated one by one" {
	ring4 2
	# Identity: 0-1 and 2-3 meet in slot 0, 1-2 and 3-0 in slot 1, so
	# each of the 8 hops waits for the next 10 us slot: the last ends at
	# 70 us + 1 us + 10 ns.  A placement that puts all four ring edges
	# in slot 0 (XOR 1 on one switch, XOR 2 on the other) runs every hop
	# in the first slot: 1 us + 8 x 10 ns, which no placement beats, as
	# no circuit is up before 1 us and the hops run one after another.
	rotorsched < ring.mp | ocssim > id.mp
	run makespan id.mp
	assert_output 71010000
	best=
	for p in $(perms 4); do
		rotorsched -p $p < ring.mp | ocssim > o.mp
		t=$(makespan o.mp)
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then
			best=$t
		fi
		echo "$p $t" >> all
	done
	[ "$(wc -l < all)" -eq 24 ]
	[ "$best" -eq 1080000 ]
	run bash -c "rotorsched -v -p best < ring.mp > b.mp"
	assert_success
	assert_line 'rotorsched: placement 0,1,3,2: makespan 1080000 ps (1.08us)'
	assert_line --regexp '^rotorsched: placement search: 6 of 6 placements \(rank 0 on port 0\) simulated, exhaustive, in [0-9.]+ s$'
	ocssim < b.mp > bo.mp
	run makespan bo.mp
	assert_output "$best"
	# the first optimum in lexicographic order, rank 0 kept on port 0
	run bash -c "report --dump b.mp | jq -c 'select(.type == \"schedule\") | .placement'"
	assert_output '[0,1,3,2]'
	# p and p XOR c give the same makespan: the symmetry the search uses
	run bash -c "grep -E '^(0,1,3,2|1,0,2,3|2,3,1,0|3,2,0,1) ' all | cut -d' ' -f2 | uniq"
	assert_output 1080000
}

@test "rotorsched -p best: on the paper's 8 GPUs, no slower than identity, the ring's placement or a random one" {
	tracegen -l 1 | dagbuild -r 1ms > dag.mp
	run bash -c "rotorsched -v -p best < dag.mp > b.mp"
	assert_success
	assert_line --regexp '^rotorsched: placement search: 5040 of 5040 placements \(rank 0 on port 0\) simulated, exhaustive, in [0-9.]+ s$'
	ocssim < b.mp > bo.mp
	best=$(makespan bo.mp)
	for p in identity 0,1,7,6,2,3,5,4 random:1 random:2 7,6,5,4,3,2,1,0; do
		rotorsched -p $p < dag.mp | ocssim > o.mp
		[ "$best" -le "$(makespan o.mp)" ] || fail "best $best, -p $p $(makespan o.mp)"
	done
	# the TP ring's neighbours in one slot on two rotors is 7.7x faster
	# than identity here; best is better still
	rotorsched < dag.mp | ocssim > id.mp
	[ "$(makespan id.mp)" -eq 481083886080 ]
	[ "$best" -lt 62090560000 ]
}

@test "rotorsched -p best: ties keep the earlier placement, so identity stays when nothing beats it" {
	# one transfer 0 -> 1: identity joins 0-1 in the first slot already
	{ hdr; echo "$NET4"; xfer 0 '[]' 0 1 1000; } | mk one.mp
	rotorsched < one.mp > a.mp
	rotorsched -v -p best < one.mp > b.mp 2> err
	diff <(body a.mp) <(body b.mp)
	grep -qx 'rotorsched: placement 0,1,2,3: makespan 1010000 ps (1.01us)' err
}

@test "rotorsched -p best: the local search keeps to --place-evals and beats identity" {
	ring4 2
	# 6 placements left, 3 allowed: identity, then the transpositions
	# of ranks 0-1 (1,0,2,3, as 0,1,3,2 once rank 0 is back on port 0)
	# and 0-2
	run bash -c "rotorsched -v -p best --place-evals=3 < ring.mp > b.mp"
	assert_success
	assert_line 'rotorsched: placement 0,1,3,2: makespan 1080000 ps (1.08us)'
	assert_line --regexp '^rotorsched: placement search: 3 of 6 placements \(rank 0 on port 0\) simulated, local search, in [0-9.]+ s$'
	rotorsched -v -p best --place-evals=3 < ring.mp 2> /dev/null | cmp - b.mp
	# a time limit that the search does not reach changes nothing
	rotorsched -p best -T 600 < ring.mp > t.mp
	rotorsched -p best < ring.mp > u.mp
	diff <(body t.mp) <(body u.mp)
}

@test "rotorsched -p best: 6 GPUs, no power of two, search all 720 placements" {
	{
		hdr
		echo '{"type":"net","gpus":6,"switches":2,"bandwidth_bps":800000000000,"reconfig_ps":1000000}'
		d='[]'
		for i in 0 1 2 3 4 5; do
			xfer $i "$d" $i $(((i + 1) % 6)) 1000
			d="[$i]"
		done
	} | mk ring6.mp
	run bash -c "rotorsched -v -p best < ring6.mp > b.mp"
	assert_success
	assert_line --regexp '^rotorsched: placement search: 720 of 720 placements simulated, exhaustive, in [0-9.]+ s$'
	rotorsched < ring6.mp | ocssim > id.mp
	ocssim < b.mp > bo.mp
	[ "$(makespan bo.mp)" -lt "$(makespan id.mp)" ]
}

@test "rotorsched -p: -v says the makespan that ocssim finds" {
	tracegen -l 1 | dagbuild -r 1ms > dag.mp
	for p in identity 0,1,7,6,2,3,5,4 random:9; do
		run bash -c "rotorsched -v -p $p < dag.mp > s.mp"
		assert_success
		ocssim < s.mp > o.mp
		assert_output --regexp "^rotorsched: placement [0-9,]+: makespan $(makespan o.mp) ps \([^)]*\)$"
	done
	run bash -c "rotorsched -v -p 0,1,7,6,2,3,5,4 < dag.mp > /dev/null"
	assert_output --regexp '^rotorsched: placement 0,1,7,6,2,3,5,4: makespan '
}

@test "rotorsched -p: bad placements and options exit 2 with a message and usage" {
	ring4 1
	while IFS='|' read -r opt msg; do
		run bash -c "rotorsched $opt < ring.mp > /dev/null"
		[ "$status" -eq 2 ] || fail "rotorsched $opt exited $status"
		assert_line "rotorsched: $msg"
		assert_line --partial 'usage: rotorsched'
	done <<-'END'
	-p 0,0,1,2|-p 0,0,1,2: not a permutation of 0..3: port 0 appears twice
	-p 0,1,2,4|-p 0,1,2,4: not a permutation of 0..3: port 4 out of range
	-p 0,1,2|-p: 3 ports given for a net of 4 GPUs
	-p 0,1,2,3,4|-p: 5 ports given for a net of 4 GPUs
	-p 0,1,,2|-p 0,1,,2: item 2 is not a port number (expected a list like 3,0,1,2)
	-p 0,1,2,3,|-p 0,1,2,3,: item 4 is not a port number (expected a list like 3,0,1,2)
	-p 0,-1,2,3|-p 0,-1,2,3: item 1 is not a port number (expected a list like 3,0,1,2)
	-p ring|-p ring: placement is identity, best, best:SEED, random:SEED or a list of ports like 3,0,1,2
	-p ''|-p : placement is identity, best, best:SEED, random:SEED or a list of ports like 3,0,1,2
	-p random:|-p random:: the seed is a whole number from 0 to 18446744073709551615
	-p random:x|-p random:x: the seed is a whole number from 0 to 18446744073709551615
	-p random:-1|-p random:-1: the seed is a whole number from 0 to 18446744073709551615
	-p random:18446744073709551616|-p random:18446744073709551616: the seed is a whole number from 0 to 18446744073709551615
	-p best:1x|-p best:1x: the seed is a whole number from 0 to 18446744073709551615
	-m bvn -p best|-p goes with -m rotor
	-m bvn -p identity|-p goes with -m rotor
	-m bvn -v|-v goes with -m rotor, -m static and -m phase
	-p best --place-evals=0|--place-evals 0: a whole number from 1 to 1000000000000
	-p best --place-evals=1000000000001|--place-evals 1000000000001: a whole number from 1 to 1000000000000
	-p best --place-evals=x|--place-evals x: a whole number from 1 to 1000000000000
	-p best -T 0|-T 0: not a positive number of seconds (a duration takes ps, ns, us, ms or s, or none for seconds, as in 500ms or 10)
	--place-evals=5|--place-evals goes with -p best
	-m bvn --place-evals=5|--place-evals goes with -p best
	-p random:1 -T 5|-T goes with -p best, -m bvn, -m solstice and -m eclipse
	-T 5|-T goes with -p best, -m bvn, -m solstice and -m eclipse
	END
}

# A 4-GPU stream whose schedule record holds placement $1, in bad.mp.
bad_placement() {
	rotorsched -p 0,1,3,2 < ring.mp > s.mp
	report --dump s.mp | grep -v '"tool":"rotorsched"' |
	    sed "s/\"placement\":\[0,1,3,2\]/\"placement\":$1/" | grep -v '"end"' | mk bad.mp
}

@test "rotorsched -p: readers take a good placement key and ignore it, and refuse a bad one" {
	ring4 1
	rotorsched -p 0,1,3,2 < ring.mp > s.mp
	ocssim -t < s.mp > o.mp
	# the same circuits without the key simulate alike
	report --dump s.mp | grep -v '"tool":"rotorsched"' | grep -v '"end"' |
	    sed 's/,"placement":\[0,1,3,2\]//' | mk plain.mp
	ocssim < plain.mp > p.mp
	[ "$(makespan o.mp)" -eq "$(makespan p.mp)" ]
	run bash -c "report --dump o.mp | jq -c 'select(.type == \"schedule\") | .placement'"
	assert_output '[0,1,3,2]'
	report -g o.mp > /dev/null
	while IFS='|' read -r v msg; do
		bad_placement "$v"
		run bash -c "ocssim < bad.mp > /dev/null"
		[ "$status" -eq 1 ] || fail "placement $v: exit $status"
		assert_output --regexp "^ocssim: stdin: byte [0-9]+: schedule record: key \"placement\": $msg\$"
	done <<-'END'
	[0,1,3]|item 2: port 3 out of range \(3 ports listed\)
	[0,1,3,3]|item 3: port 3 appears twice
	[0,1,3,4]|item 3: port 4 out of range \(4 ports listed\)
	[0,1,3,2,4]|5 ports, but the net has 4 GPUs
	[1,0]|2 ports, but the net has 4 GPUs
	[]|0 ports, but the net has 4 GPUs
	"0,1,3,2"|expected array, got string
	[0,1,"3",2]|item 2: expected unsigned integer, got string
	[0,-1,3,2]|item 1: expected unsigned integer, got negative integer
	END
}

@test "rotorsched -p: the timeline's reader checks the placement against the net" {
	ring4 1
	rotorsched -p 0,1,3,2 < ring.mp | ocssim -t > o.mp
	report --dump o.mp | grep -v '"end"' | sed 's/"placement":\[0,1,3,2\]/"placement":[1,0]/' | mk bad.mp
	run report -g bad.mp
	assert_failure 1
	assert_output --partial 'placement: 2 ports, but the net has 4 GPUs'
}

# Two 1 MB transfers on 1024 GPUs: a candidate used to build and check
# the whole period, 523,776 circuits, before its simulation and before
# the limit was looked at (4096 GPUs: 100 s and 1 GB under -T 1, for
# one placement).  Now it holds the two pairs' circuits: thousands of
# placements fit in the limit where a few did.
@test "rotorsched -p: regression: best built each candidate's whole period; now the circuits of the pairs with traffic, within -T" {
	{
		hdr
		echo '{"type":"net","gpus":1024,"switches":1,"bandwidth_bps":800000000000,"reconfig_ps":10000000}'
		xfer 0 '[]' 0 1023 1000000
		xfer 1 '[0]' 1 2 1000000
	} | mk big.mp
	rotorsched -p best -T 3 -v < big.mp 2> err > s.mp
	n=$(sed -n 's/.*placement search: \([0-9]*\) of .*/\1/p' err)
	echo "simulated: $n"
	[ "$n" -ge 300 ]
	# the placement written replays to the makespan it was chosen by
	ms=$(sed -n 's/.*: makespan \([0-9]*\) ps.*/\1/p' err)
	ocssim < s.mp > o.mp
	[ "$(report --dump o.mp | jq 'select(.type == "result") | .makespan_ps')" = "$ms" ]
}

# -p's ports were counted against the net after the whole DAG had gone
# through to stdout: 103 KB of stream before the usage error (issue 36).
@test "rotorsched -p: regression: a list of the wrong length wrote the DAG before its usage error" {
	# a DAG of 100 KB on 16 GPUs: more than the writer holds before it writes
	tracegen -l 2 -t 4 -d 4 | dagbuild > g.mp
	run bash -c "rotorsched -p 0,1,2 < g.mp > out.mp"
	assert_failure 2
	assert_line --index 0 "rotorsched: -p: 3 ports given for a net of 16 GPUs"
	[ ! -s out.mp ]
}
