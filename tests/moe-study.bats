#!/usr/bin/env bats
# pipelines/moe-study and its table, pipelines/moe-table.

load helpers

@test "moe-study: one small sweep, its checks, one line a case, the table" {
	GPUS=8 SKEWS="uniform gini:0.3" TAUS=10us SEEDS="1 2" JOBS=2 \
	    "$TOP/pipelines/moe-study" "$BIN" out > log.txt 2> err.txt
	run head -1 err.txt
	assert_output 'moe-study: 4 cases into out/, 2 at a time'
	run cut -f 1-4 out/runs.tsv
	assert_output "gpus	skew	tau	seed
8	uniform	10us	1
8	uniform	10us	2
8	gini:0.3	10us	1
8	gini:0.3	10us	2"
	# uniform routing is not sampled: both seeds are the nominal step,
	# robust Flux is the clairvoyant plan itself, online never re-plans
	run awk -F '\t' 'NR > 1 && $2 == "uniform" { print ($8 == $9 && $9 == $5 && $22 == $5 && $23 == 0) }' out/runs.tsv
	assert_output '1
1'
	# every bound below every run, asap never after hold
	run awk -F '\t' 'NR > 1 { ok = $7 <= $6 && $6 <= $22; for (c = 8; c <= 13; c++) ok = ok && $6 <= $c; print (ok && $14 >= $7 && $10 <= $9) }' out/runs.tsv
	assert_output '1
1
1
1'
	run wc -l < out/table.txt
	assert_output 3
	[ -s out/moe-iteration.png ] || [ ! -x "$(command -v gnuplot)" ]
}

@test "moe-study: regression: cases run at once wrote their lines to one pipe, interleaved" {
	# each case writes its own file, whole or not at all; the study
	# joins them in case order
	mkdir lines
	bin=$BIN layers=2 capacity= latency=1ms \
	    "$TOP/pipelines/moe-study" --one lines/2 8 gini:0.3 10us 2
	[ ! -e lines/2.part ]
	run awk -F '\t' '{ print NF, $1, $2, $3, $4 }' lines/2
	assert_output '24 8 gini:0.3 10us 2'
}

@test "moe-study: the table's means, spreads and kept share, worked by hand" {
	{
		printf 'gpus\tskew\ttau\tseed\tplan_ps\tbound_ps\tcp_bound_ps\tclair_ps\trobust_ps\tasap_ps\tblind_ps\trotor_ps\tbvn_ps\tideal_ps\tclair_nic\trobust_nic\tasap_nic\tblind_nic\trotor_nic\tbvn_nic\tideal_nic\tonline_ps\treplans\tonline_nic\n'
		# base 120 ms (rotor), clair 100, robust 110: half kept; online 104
		printf '8\tgini:0.2\t1us\t1\t1\t90000000000\t80000000000\t100000000000\t110000000000\t105000000000\t115000000000\t120000000000\t130000000000\t95000000000\t8192\t8192\t8192\t8192\t2097152\t3145728\t1048576\t104000000000\t10\t8192\n'
		# base 110 ms (bvn), clair 100, robust 100: all kept; online 100
		printf '8\tgini:0.2\t1us\t2\t1\t92000000000\t80000000000\t100000000000\t100000000000\t100000000000\t104000000000\t140000000000\t110000000000\t97000000000\t8192\t4096\t8192\t8192\t1048576\t1048576\t1048576\t100000000000\t20\t4096\n'
	} > runs.tsv
	run "$TOP/pipelines/moe-table" < runs.tsv
	assert_line --index 1 '8    gini:0.2  1us   91.00~1.00   100.00~0.00  105.00~5.00  102.50~2.50  102.00~2.00  109.50~5.50  130.00~10.00 120.00~10.00 96.00~1.00    75.0%  90.0%    15.0  8K/8K/8K/2M/3M/1M'
}

@test "moe-study: a case that fails a check fails the study and names it" {
	# an ocssim that runs the ideal fabric when asked to replay
	stand_in bin "$BIN" ocssim <<EOF
#!/bin/sh
case "\$*" in
*-R*) exec "$BIN/ocssim" -f ideal ;;
*) exec "$BIN/ocssim" "\$@" ;;
esac
EOF
	GPUS=8 SKEWS=gini:0.2 TAUS=10us SEEDS=1 JOBS=1 run "$TOP/pipelines/moe-study" "$PWD/bin" out
	assert_failure
	assert_output --partial 'moe-study: 8 GPUs, gini:0.2, tau 10us, seed 1: check failed: the nominal plan replays to'
	assert_output --partial 'moe-study: 1 of 1 cases failed'
}
