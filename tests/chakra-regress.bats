#!/usr/bin/env bats
# chakra: regressions found by an adversarial test of the importer
# (issue 36).  Work and memory follow the trace's content; the hang and
# memory guards (timeout, ulimit -v) only turn a hang into a failure,
# they assert no speed.

load helpers

ETGEN=$TOP/tests/helpers/etgen.py
SHAPE=$TOP/tests/helpers/etshape.py

# shape PREFIX SHAPE N: a large trace of one shape (etshape.py)
shape() {
	python3 "$SHAPE" "$2" "$3" | python3 "$ETGEN" "$1"
}

# bounded CMD...: run CMD with a memory cap and a hang guard, on the
# release build (the sanitizers reserve more address space than the cap).
bounded() {
	(ulimit -v 1000000; timeout 60 "$@")
}

@test "chakra: regression: a chain of 60,000 skipped nodes overflowed the stack (resolved by recursion)" {
	shape t chain 60000
	chakra t > o.mp
	[ "$(records o.mp workload | jq -c '[.nodes,.nodes_skipped]')" = '[60001,60000]' ]
	[ "$(records o.mp op | jq -c '[.id,.name,.deps]')" = '[0,"c",[]]' ]
}

@test "chakra: regression: 20,000 receives each after the one before took cubic time and quadratic memory" {
	shape t recv 20000
	bounded "$FLUXOCS_RELBIN/chakra" t > o.mp
	# the compute waits for every receive (a receive's op has no deps:
	# what depends on it takes them), the receives for nothing
	[ "$(records o.mp op | jq -c 'select(.kind == "compute") | .deps | length')" = 20000 ]
	[ "$(records o.mp op | jq -c 'select(.kind == "recv") | .deps | length' | sort -u)" = 0 ]
	chakra t | dagbuild -g 2 > /dev/null
}

# 0.5 s on the release build, 13.5 s before (a 2-core VM of 2026)
@test "chakra: regression: a compute depending on 300,000 others took quadratic time (a linear search per dependency)" {
	shape t fan 300000
	(ulimit -v 1000000; timeout 4 "$FLUXOCS_RELBIN/chakra" t) > o.mp
	[ "$(records o.mp op | jq -c 'select(.name == "j") | .deps | length')" = 300000 ]
}

@test "chakra: regression: a dependency cycle of kept nodes was imported (exit 0)" {
	printf '%s' '{"meta":"0.0.4","ranks":[[{"id":1,"name":"a","type":4,"dur":1,"data_deps":[1]}]]}' |
	    python3 "$ETGEN" t
	run chakra t
	assert_failure 1
	assert_output 'chakra: t.0.et: node 1: a dependency cycle through this node'
	printf '%s' '{"meta":"0.0.4","ranks":[[{"id":1,"name":"a","type":4,"dur":1,"data_deps":[2]},{"id":2,"name":"b","type":4,"dur":1,"ctrl_deps":[1]}]]}' |
	    python3 "$ETGEN" t
	run chakra t
	assert_failure 1
	assert_output 'chakra: t.0.et: node 1: a dependency cycle through this node'
	# through skipped nodes, as before
	printf '%s' '{"meta":"0.0.4","ranks":[[{"id":1,"name":"a","type":4,"dur":1,"data_deps":[2]},{"id":2,"name":"m","type":1,"data_deps":[3]},{"id":3,"name":"m","type":1,"data_deps":[2]}]]}' |
	    python3 "$ETGEN" t
	run chakra t
	assert_failure 1
	assert_output 'chakra: t.0.et: node 2: a dependency cycle through this node'
}

@test "chakra: regression: a NUL byte in a node's name cut the name silently" {
	printf '%s' '{"meta":"0.0.4","ranks":[[{"id":1,"name":"a\u0000b","type":4,"dur":1}]]}' |
	    python3 "$ETGEN" t
	run chakra t
	assert_failure 1
	# the frame's length, the metadata, the node's length, its id, the
	# name's key, length and "a": the NUL is byte 14
	assert_output 'chakra: t.0.et: byte 14: a NUL byte in a string'
}

# Each communicator kept a counter for every rank of the trace: 10,000
# one-rank groups over 10,000 rank files (9,999 of them empty) took
# 690 MB, 30,000 of each 2.3 GB; a communicator's counters are its
# members' now (20 MB).
@test "chakra: regression: -g sized every communicator's counters by the trace's ranks, not the group's" {
	python3 - g.json > spec.json <<'PY'
import json, sys
n = 10000
open(sys.argv[1], "w").write(json.dumps({str(k + 1): [0] for k in range(n)}))
sys.stdout.write(json.dumps({"meta": "0.0.4", "ranks": [[
    {"id": k, "name": "ar", "type": 7,
     "attr": {"comm_type": ["int64", 0], "comm_size": ["int64", 64],
              "pg_name": ["string", str(k + 1)]}} for k in range(n)]]}))
PY
	python3 "$ETGEN" t < spec.json
	for ((i = 1; i < 10000; i++)); do : > t.$i.et; done
	(ulimit -v 300000; timeout 60 "$FLUXOCS_RELBIN/chakra" -g g.json t) > o.mp
	[ "$(records o.mp op | jq -r .kind | sort | uniq -c | tr -s ' ')" = " 10000 allreduce" ]
}
