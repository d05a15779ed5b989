/*
 * Unit tests of lib/model/relay: a hand-worked DAG on four GPUs whose
 * transfer 0->3 is relayed through 1 and 2; paths that are none (a
 * GPU out of the net, the transfer's own end, one GPU twice in a row,
 * longer than the caller's bound) refused; no relay, the DAG copied.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/relay.h"
#include "tap.h"

static void
add(struct dag *d, int kind, uint32_t gpu, uint32_t dst, uint64_t amount,
    const uint32_t *deps, size_t n)
{
	struct dag_task t;

	memset(&t, 0, sizeof(t));
	t.kind = (uint8_t)kind;
	t.gpu = gpu;
	t.dst = dst;
	t.amount = amount;
	t.step = 5;
	if (dag_add(d, &t, deps, n) != 0)
		printf("# dag_add failed\n");
}

static int
task_is(const struct dag *d, size_t i, int kind, uint32_t gpu, uint32_t dst,
    uint64_t amount, const uint32_t *deps, uint32_t n)
{
	const struct dag_task *t = &d->t[i];

	return t->kind == kind && t->gpu == gpu && (kind != DAG_TRANSFER ||
	    t->dst == dst) && t->amount == amount && t->ndep == n &&
	    t->step == 5 && (n == 0 ||
	    memcmp(dag_deps(d, i), deps, n * sizeof(*deps)) == 0);
}

/* The path of task 1 is via[0..nvia); every other transfer goes whole. */
static uint32_t path_via[4];
static size_t path_n, calls;

static size_t
path(void *arg, size_t t, uint32_t *via, size_t max)
{
	(void)arg;
	(void)max;
	calls++;
	if (t != 1)
		return 0;
	memcpy(via, path_via, path_n * sizeof(*via));
	return path_n;
}

static int64_t
run(const struct dag *in, const uint32_t *via, size_t n, size_t max,
    struct dag *out, uint32_t **from)
{
	memcpy(path_via, via, n * sizeof(*via));
	path_n = n;
	dag_free(out);
	dag_init(out);
	free(*from);
	return relay_dag(in, 4, path, NULL, max, out, from);
}

int
main(void)
{
	static const uint32_t d0[] = { 0 }, d1[] = { 1 }, d2[] = { 2 },
	    d3[] = { 3 }, d13[] = { 1, 3 }, d35[] = { 3, 5 };
	static const uint32_t v12[] = { 1, 2 }, v9[] = { 9 }, v0[] = { 0 },
	    v3[] = { 3 }, v11[] = { 1, 1 };
	uint32_t *from = NULL;
	struct dag in, out;

	dag_init(&in);
	dag_init(&out);
	/* c0 on 0; t1 0->3 after c0; c2 on 3 after t1; t3 1->2; c4 on 2 */
	add(&in, DAG_COMPUTE, 0, 0, 100, NULL, 0);
	add(&in, DAG_TRANSFER, 0, 3, 4096, d0, 1);
	add(&in, DAG_COMPUTE, 3, 0, 50, d1, 1);
	add(&in, DAG_TRANSFER, 1, 2, 512, NULL, 0);
	add(&in, DAG_COMPUTE, 2, 0, 7, d13, 2);
	calls = 0;
	ok(run(&in, v12, 2, 2, &out, &from) == 1 && out.n == 7 &&
	    calls == 2, "t1 relayed through 1 and 2: seven tasks, the path "
	    "asked of the two transfers alone");
	ok(task_is(&out, 0, DAG_COMPUTE, 0, 0, 100, NULL, 0) &&
	    task_is(&out, 1, DAG_TRANSFER, 0, 1, 4096, d0, 1) &&
	    task_is(&out, 2, DAG_TRANSFER, 1, 2, 4096, d1, 1) &&
	    task_is(&out, 3, DAG_TRANSFER, 2, 3, 4096, d2, 1),
	    "0->1 after c0, then 1->2, then 2->3, each of its bytes and step");
	ok(task_is(&out, 4, DAG_COMPUTE, 3, 0, 50, d3, 1) &&
	    task_is(&out, 5, DAG_TRANSFER, 1, 2, 512, NULL, 0) &&
	    task_is(&out, 6, DAG_COMPUTE, 2, 0, 7, d35, 2),
	    "c2 and c4 wait for the last hop; t3 and c4 renumbered");
	ok(from != NULL && from[0] == 0 && from[1] == 1 && from[2] == 1 &&
	    from[3] == 1 && from[4] == 2 && from[5] == 3 && from[6] == 4,
	    "each task's origin");
	ok(run(&in, v12, 0, 2, &out, &from) == 0 && out.n == in.n &&
	    dag_same_shape(&in, &out) == SIZE_MAX && from[4] == 4,
	    "no relay: the DAG as it was");
	ok(run(&in, v9, 1, 2, &out, &from) == -1 && from == NULL,
	    "a relay past the net's GPUs: refused");
	ok(run(&in, v0, 1, 2, &out, &from) == -1 &&
	    run(&in, v3, 1, 2, &out, &from) == -1,
	    "a relay at the transfer's own source or destination: refused");
	ok(run(&in, v11, 2, 2, &out, &from) == -1,
	    "one GPU twice in a row: refused");
	ok(run(&in, v12, 2, 1, &out, &from) == -1,
	    "a path longer than the bound: refused");
	dag_free(&out);
	dag_free(&in);
	free(from);
	return tap_done();
}
