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
	run bash -c "report '$TOP/traces/llama3-8b-l8-tp4-dp2.dag.msgpack' '$TOP/traces/llama3-8b-l16-tp4-dp2.dag.msgpack' | grep records"
	assert_output '  records: header 2, workload 1, net 1, task 1920
  records: header 2, workload 1, net 1, task 3840'
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
