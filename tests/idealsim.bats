#!/usr/bin/env bats
# idealsim: a second implementation of ocssim's ideal fabric, written
# from ocssim(1) alone (tests/helpers/idealsim.c), held to the answers
# worked by hand and then to ocssim -f ideal, task by task.

load helpers

# the net of tests/maxmin.bats: S x B = 1.5 Tbit/s a side
MAXMIN='{"type":"net","gpus":7,"switches":2,"bandwidth_bps":750000000000,"reconfig_ps":10000000,"reconfig_model":"port","latency_ps":0}'

# net G S B L: a net record as a JSON line
net() {
	echo "{\"type\":\"net\",\"gpus\":$1,\"switches\":$2,\"bandwidth_bps\":$3,\"reconfig_ps\":0,\"latency_ps\":$4}"
}

# ocssim_runs FILE: the taskruns of ocssim -f ideal as "id start end"
ocssim_runs() {
	set -o pipefail
	ocssim -f ideal -t < "$1" > out.mp &&
	    report --dump out.mp |
	    jq -r 'select(.type == "taskrun") | "\(.id) \(.start_ps) \(.end_ps)"'
}

# agree FILE N: idealsim -t and ocssim -f ideal -t give the same start
# and end to each of the N tasks of FILE (chained with &&, as set -e
# does not hold in a function called before ||)
agree() {
	idealsim -t < "$1" > ideal.txt &&
	    ocssim_runs "$1" > ocssim.txt &&
	    [ "$(wc -l < ideal.txt)" -eq "$2" ] &&
	    diff ideal.txt ocssim.txt
}

# flows SEED G N: N transfers of 1 to 5 bytes on G GPUs, none with a
# dependency, so that they all share the GPUs at once
flows() {
	local i src
	RANDOM=$1
	for ((i = 0; i < $3; i++)); do
		src=$((RANDOM % $2))
		xfer $i '[]' $src $(((src + 1 + RANDOM % ($2 - 1)) % $2)) \
		    $((1 + RANDOM % 5))
	done
}

@test "idealsim: the paper's workload has ocssim's golden makespan, and every task its times" {
	f=$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack
	run idealsim < "$f"
	assert_success
	assert_output 102866939272
	ocssim -f ideal < "$f" > out.mp
	run records out.mp result
	assert_success
	[ "$(echo "$output" | jq -r .makespan_ps)" = 102866939272 ]
	agree "$f" 1920
}

@test "idealsim: a receiver shared with a sender-bound flow gives the other flow what is left (maxmin)" {
	{
		hdr; echo "$MAXMIN"
		xfer 0 '[]' 0 1 1500000
		xfer 1 '[]' 0 2 1500000
		xfer 2 '[]' 0 3 1500000
		xfer 3 '[]' 4 1 1500000
	} | mk dag.mp
	run idealsim -t < dag.mp
	assert_success
	assert_output '0 0 24000000
1 0 24000000
2 0 24000000
3 0 12000000'
}

@test "idealsim: a sender shared with a receiver-bound flow gives the other flow what is left (maxmin)" {
	{
		hdr; echo "$MAXMIN"
		xfer 0 '[]' 1 0 1500000
		xfer 1 '[]' 2 0 1500000
		xfer 2 '[]' 3 0 1500000
		xfer 3 '[]' 1 4 1500000
	} | mk dag.mp
	run idealsim -t < dag.mp
	assert_success
	assert_output '0 0 24000000
1 0 24000000
2 0 24000000
3 0 12000000'
}

@test "idealsim: three rounds of filling, and the shares change as flows end (maxmin)" {
	{
		hdr; echo "$MAXMIN"
		xfer 0 '[]' 0 1 1500000
		xfer 1 '[]' 0 2 1500000
		xfer 2 '[]' 0 3 1500000
		xfer 3 '[]' 4 1 1500000
		xfer 4 '[]' 4 5 1500000
		xfer 5 '[]' 6 5 1500000
	} | mk dag.mp
	run idealsim -t < dag.mp
	assert_success
	assert_output '0 0 24000000
1 0 24000000
2 0 24000000
3 0 16000000
4 0 16000000
5 0 16000000'
}

@test "idealsim: rates round down to whole bit/s, work is exact, latency follows the last bit" {
	# 3 bit/s a side.  Flows 0 (16 bits) and 1 (8 bits) leave GPU 0
	# at 1 bit/s each, 3/2 rounded down; 2 (8 bits) goes alone from
	# GPU 1 at 3 and has sent all at 8/3 s, so at the first ps after:
	# 2666666666667 ps, and ends 5 ps later.  1 has sent all at 8 s;
	# then 0, 8 bits left, goes alone at 3: 8 s + 2666666666667 ps.
	# Compute 3 waits for 2; compute 4, on GPU 2 too and with no
	# dependency, waits behind 3.
	{
		hdr; net 4 1 3 5
		xfer 0 '[]' 0 1 2
		xfer 1 '[]' 0 2 1
		xfer 2 '[]' 1 3 1
		comp 3 '[2]' 2 10
		comp 4 '[]' 2 0
	} | mk dag.mp
	run idealsim -t < dag.mp
	assert_success
	assert_output '0 0 10666666666672
1 0 8000000000005
2 0 2666666666672
3 2666666666672 2666666666682
4 2666666666682 2666666666682'
	agree dag.mp 5
}

@test "idealsim: the side whose exact share is least fills first, not every side of the same share rounded down" {
	# 5 bit/s a side.  GPU 0 sends four flows (0 to 3), 5/4 each;
	# GPU 1 receives three (0, 4 and 5), 5/3 each: both round down to
	# 1, but GPU 0 fills first, holding 0 to 3 at 1.  GPU 1 has 4 left
	# for 4 and 5: 2 each, 8 bits in 4 s.  Were GPU 1 filled with GPU
	# 0, its 5/3 rounded down to 1, 4 and 5 would take 8 s.  At 8 s
	# 1 to 3 end, and 0, 8 bits left, goes alone at 5: 1.6 s more.
	{
		hdr; net 7 1 5 0
		xfer 0 '[]' 0 1 2
		xfer 1 '[]' 0 2 1
		xfer 2 '[]' 0 3 1
		xfer 3 '[]' 0 4 1
		xfer 4 '[]' 5 1 1
		xfer 5 '[]' 6 1 1
	} | mk dag.mp
	run idealsim -t < dag.mp
	assert_success
	assert_output '0 0 9600000000000
1 0 8000000000000
2 0 8000000000000
3 0 8000000000000
4 0 4000000000000
5 0 4000000000000'
	agree dag.mp 6
}

@test "idealsim: sides that fill at the same share hold their flows together" {
	# 11 bit/s a side.  GPU 0 sends 0, 1 and 2; GPU 1 receives 0, 3
	# and 4: both at 11/3, rounded down to 3, fill at once, and all
	# five go at 3, 24 bits in 8 s.  Were GPU 0 filled first, GPU 1
	# would have 8 left for 3 and 4: 4 each, 6 s.
	{
		hdr; net 6 1 11 0
		xfer 0 '[]' 0 1 3
		xfer 1 '[]' 0 2 3
		xfer 2 '[]' 0 3 3
		xfer 3 '[]' 4 1 3
		xfer 4 '[]' 5 1 3
	} | mk dag.mp
	run idealsim -t < dag.mp
	assert_success
	assert_output '0 0 8000000000000
1 0 8000000000000
2 0 8000000000000
3 0 8000000000000
4 0 8000000000000'
	agree dag.mp 5
}

@test "idealsim: random DAGs run as on ocssim -f ideal, task by task" {
	# GPU counts 2 to 6, 1 and 2 switches, bandwidths that leave
	# remainders, with and without latency
	local s g sw bw lat nx nc
	for ((s = 1; s <= 24; s++)); do
		g=$((2 + s % 5))
		sw=$((1 + s % 2))
		case $((s % 3)) in
		0) bw=7 ;;
		1) bw=999999937 ;;
		*) bw=3000000019 ;;
		esac
		lat=$(((s % 2) * (1000 * (s % 5) + 13)))
		nx=$((6 + s % 9))
		nc=$((s % 6))
		# seeded inside the pipeline's subshell, which bash reseeds
		{
			RANDOM=$s
			hdr; net $g $sw $bw $lat; randtasks $g $nx $nc
		} | mk dag.mp
		agree dag.mp $((nx + nc)) || { echo "seed $s"; return 1; }
	done
}

@test "idealsim: many flows at once on a few bit/s share as on ocssim -f ideal" {
	# up to 12 flows on 3 to 7 GPUs of 11 to 23 bit/s: each round of
	# filling rounds down, and sides fill at once
	local s
	for ((s = 1; s <= 16; s++)); do
		{
			hdr; net $((3 + s % 5)) 1 $((11 + s % 13)) 0
			flows $s $((3 + s % 5)) $((4 + s % 9))
		} | mk dag.mp
		agree dag.mp $((4 + s % 9)) || { echo "seed $s"; return 1; }
	done
}

@test "idealsim: bad input exits 1 and names the problem" {
	: > empty.mp
	run idealsim < empty.mp
	assert_failure 1
	assert_output 'idealsim: no net record'
	{ hdr; net 2 1 8 0; } | mk nonet.mp
	run idealsim < nonet.mp
	assert_failure 1
	assert_output 'idealsim: no task record'
	{ hdr; xfer 0 '[]' 0 1 1; net 2 1 8 0; } | mk order.mp
	run idealsim < order.mp
	assert_failure 1
	assert_output --partial 'task record before the net record'
	{ hdr; net 2 1 8 0; xfer 0 '[]' 0 0 1; } | mk self.mp
	run idealsim < self.mp
	assert_failure 1
	assert_output --partial 'key "dst": same as src'
	{ hdr; net 2 1 8 0; comp 0 '[0]' 0 1; } | mk dep.mp
	run idealsim < dep.mp
	assert_failure 1
	assert_output --partial 'key "deps": not an earlier task'
	{ hdr; net 2 1 8 0; comp 0 '[]' 2 1; } | mk gpu.mp
	run idealsim < gpu.mp
	assert_failure 1
	assert_output --partial 'key "gpu": not below the net'
	{ hdr; net 2 1 8 0; echo '{"type":"task","id":0,"kind":"compute","deps":[],"gpu":0}'; } | mk miss.mp
	run idealsim < miss.mp
	assert_failure 1
	assert_output --partial 'missing key "duration_ps"'
	{ hdr; net 2 1 8 0; comp 0 '[]' 0 1; } | mk ok.mp
	head -c $(($(stat -c %s ok.mp) - 3)) ok.mp > cut.mp
	run idealsim < cut.mp
	assert_failure 1
	assert_output --partial 'end of input inside a record'
	{ hdr; net 2 1024 18446744073709551615 0; comp 0 '[]' 0 1; } | mk bw.mp
	run idealsim < bw.mp
	assert_failure 1
	assert_output --partial 'switches x bandwidth_bps past 2^64'
	{ hdr; net 2 1 8 0; comp 0 '[]' 0 18446744073709551615; comp 1 '[]' 0 1; } | mk late.mp
	run idealsim < late.mp
	assert_failure 1
	assert_output 'idealsim: task 1 would end after 18446744073709551615 ps'
	# 1 bit/s shared by two flows: 0 each, and nothing moves
	{ hdr; net 3 1 1 0; xfer 0 '[]' 0 1 1; xfer 1 '[]' 0 2 1; } | mk stuck.mp
	run idealsim < stuck.mp
	assert_failure 1
	assert_output 'idealsim: no transfer can move at 0 ps: task 0 not done'
}

@test "idealsim: misuse exits 2" {
	run idealsim -x
	assert_failure 2
	run idealsim extra
	assert_failure 2
	assert_output 'usage: idealsim [-t]'
}
