/* route: transfers no plane carries whole, split into hops. */
#include <stdint.h>
#include <stdlib.h>

#include "model/dag.h"
#include "model/fabric.h"
#include "model/route.h"

/* Task t, task i of in, its dependencies mapped to out's ids. */
static int
copy(const struct dag *in, size_t i, const struct dag_task *t,
    const uint32_t *map, struct dag *out)
{
	const uint32_t *dep = dag_deps(in, i);
	uint32_t *to;
	size_t j;

	if ((to = dag_dep_space(out, t->ndep)) == NULL)
		return -1;
	for (j = 0; j < t->ndep; j++)
		to[j] = map[dep[j]];
	return dag_add(out, t, to, t->ndep);
}

/* The hop from relay r to h after the one just added. */
static int
second_hop(const struct dag_task *t, uint32_t r, struct dag *out)
{
	struct dag_task hop = *t;
	uint32_t prev = (uint32_t)(out->n - 1);

	hop.gpu = r;
	hop.ndep = 1;
	return dag_add(out, &hop, &prev, 1);
}

/*
 * On failure, *bad_g and *bad_h name the pair that has no route (both
 * UINT32_MAX when memory or ids ran out).
 */
int64_t
route_dag(const struct dag *in, const struct fabric *f, struct dag *out,
    uint32_t *from, uint32_t *bad_g, uint32_t *bad_h)
{
	uint32_t *map, r;
	struct dag_task first;
	int64_t split = 0;
	size_t i;

	*bad_g = *bad_h = UINT32_MAX;
	if ((map = calloc(in->n + 1, sizeof(*map))) == NULL)
		return -1;
	for (i = 0; i < in->n; i++) {
		const struct dag_task *t = &in->t[i];

		r = UINT32_MAX;
		if (t->kind == DAG_TRANSFER && !fabric_joined(f, t->gpu,
		    t->dst) && (r = fabric_relay(f, t->gpu, t->dst)) ==
		    UINT32_MAX) {
			*bad_g = t->gpu;
			*bad_h = t->dst;
			goto fail;
		}
		first = *t;
		if (r != UINT32_MAX)
			first.dst = r;
		if (copy(in, i, &first, map, out) != 0)
			goto fail;
		from[out->n - 1] = (uint32_t)i;
		if (r != UINT32_MAX) {
			if (second_hop(t, r, out) != 0)
				goto fail;
			from[out->n - 1] = (uint32_t)i;
			split++;
		}
		map[i] = (uint32_t)(out->n - 1);
	}
	free(map);
	return split;
fail:
	free(map);
	return -1;
}
