/*
 * Unit tests of lib/model/route: a hand-worked DAG on four GPUs in two
 * groups of two with a rail per local rank, split where no plane joins
 * source and destination; a fabric with no relay; the paper's net,
 * copied as it is.
 */
#include <stdint.h>
#include <string.h>

#include "model/dag.h"
#include "model/fabric.h"
#include "model/route.h"
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
	t.step = 3;
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
	    t->step == 3 && (n == 0 ||
	    memcmp(dag_deps(d, i), deps, n * sizeof(*deps)) == 0);
}

static struct fabric f;
static char err[300];

static int
fab(const char *text)
{
	return fabric_parse(&f, text, strlen(text), "t", err, sizeof(err));
}

int
main(void)
{
	static const uint32_t d0[] = { 0 }, d1[] = { 1 }, d2[] = { 2 };
	uint32_t from[16], g, h;
	struct dag in, out;

	fabric_init(&f);
	dag_init(&in);
	dag_init(&out);
	/* c0 on 0; t1 0->3; c2 on 3 after t1; t3 0->1; c4 on 1 after c0, t3 */
	add(&in, DAG_COMPUTE, 0, 0, 100, NULL, 0);
	add(&in, DAG_TRANSFER, 0, 3, 4096, d0, 1);
	add(&in, DAG_COMPUTE, 3, 0, 50, d1, 1);
	add(&in, DAG_TRANSFER, 0, 1, 512, d0, 1);
	{
		static const uint32_t d03[] = { 0, 3 };

		add(&in, DAG_COMPUTE, 1, 0, 7, d03, 2);
	}
	ok(fab("eps group:2 rate=1Tbps\nocs rail:2 rate=100Gbps") == 0 &&
	    fabric_check(&f, 4, err, sizeof(err)) == 0, "two groups of two, "
	    "two rails");
	ok(fabric_relay(&f, 0, 3) == 1 && fabric_relay(&f, 2, 1) == 3 &&
	    fabric_relay(&f, 0, 2) == UINT32_MAX &&
	    fabric_relay(&f, 0, 1) == UINT32_MAX, "relays: 0->3 via 1, 2->1 "
	    "via 3, none where a plane joins");
	ok(route_dag(&in, &f, &out, from, &g, &h) == 1 && out.n == 6,
	    "one transfer split: six tasks");
	ok(task_is(&out, 0, DAG_COMPUTE, 0, 0, 100, NULL, 0) &&
	    task_is(&out, 1, DAG_TRANSFER, 0, 1, 4096, d0, 1) &&
	    task_is(&out, 2, DAG_TRANSFER, 1, 3, 4096, d1, 1) &&
	    task_is(&out, 3, DAG_COMPUTE, 3, 0, 50, d2, 1) &&
	    task_is(&out, 4, DAG_TRANSFER, 0, 1, 512, d0, 1),
	    "0->3 is 0->1 over the group, then 1->3 over the rail; c2 waits "
	    "for the second hop");
	{
		static const uint32_t d04[] = { 0, 4 };

		ok(task_is(&out, 5, DAG_COMPUTE, 1, 0, 7, d04, 2),
		    "c4 waits for c0 and t3, renumbered");
	}
	ok(from[0] == 0 && from[1] == 1 && from[2] == 1 && from[3] == 2 &&
	    from[4] == 3 && from[5] == 4, "each task's origin");
	dag_free(&out);
	dag_init(&out);
	ok(fab("eps group:2 rate=1Tbps\nocs rail:4 rate=100Gbps") == 0 &&
	    route_dag(&in, &f, &out, from, &g, &h) == -1 && g == 0 &&
	    h == 3, "no relay when the rail's K is not the group's: the pair "
	    "named");
	dag_free(&out);
	dag_init(&out);
	ok(fab("ocs all count=2 rate=800Gbps") == 0 &&
	    route_dag(&in, &f, &out, from, &g, &h) == 0 && out.n == in.n &&
	    dag_same_shape(&in, &out) == SIZE_MAX && out.t[1].amount == 4096,
	    "the paper's net: the DAG as it was");
	dag_free(&out);
	dag_free(&in);
	fabric_free(&f);
	return tap_done();
}
