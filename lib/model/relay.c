/* relay: transfers sent over paths of hops. */
#include <stdint.h>
#include <stdlib.h>

#include "model/dag.h"
#include "model/relay.h"

/* Task i of in as t, its dependencies mapped to out's ids. */
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

/* Is via[0..k) a path for t? */
static int
is_path(const struct dag_task *t, const uint32_t *via, size_t k,
    uint32_t gpus)
{
	size_t j;

	for (j = 0; j < k; j++)
		if (via[j] >= gpus || via[j] == t->gpu || via[j] == t->dst ||
		    (j > 0 && via[j] == via[j - 1]))
			return 0;
	return 1;
}

/* Transfer i of in over its k relays: k + 1 hops. */
static int
hops(const struct dag *in, size_t i, const uint32_t *via, size_t k,
    const uint32_t *map, struct dag *out, uint32_t **from, size_t *cap)
{
	const struct dag_task *t = &in->t[i];
	struct dag_task hop = *t;
	uint32_t prev;
	size_t j;

	for (j = 0; j <= k; j++) {
		hop.gpu = j == 0 ? t->gpu : via[j - 1];
		hop.dst = j == k ? t->dst : via[j];
		if (out->n + 1 >= UINT32_MAX)
			return -1;
		if (j == 0 && copy(in, i, &hop, map, out) != 0)
			return -1;
		prev = (uint32_t)(out->n - 1);
		hop.ndep = 1;
		if (j > 0 && dag_add(out, &hop, &prev, 1) != 0)
			return -1;
		if (out->n > *cap) {
			size_t n = *cap * 2 + 16;
			uint32_t *p = reallocarray(*from, n, sizeof(**from));

			if (p == NULL)
				return -1;
			*from = p;
			*cap = n;
		}
		(*from)[out->n - 1] = (uint32_t)i;
	}
	return 0;
}

int64_t
relay_dag(const struct dag *in, uint32_t gpus, relay_path_fn path,
    void *arg, size_t max, struct dag *out, uint32_t **from)
{
	uint32_t *map, *via;
	int64_t relayed = 0;
	size_t i, k, cap = 0;

	*from = NULL;
	map = calloc(in->n + 1, sizeof(*map));
	via = calloc(max + 1, sizeof(*via));
	if (map == NULL || via == NULL)
		goto fail;
	for (i = 0; i < in->n; i++) {
		const struct dag_task *t = &in->t[i];

		k = t->kind == DAG_TRANSFER ? path(arg, i, via, max) : 0;
		if (k > max || !is_path(t, via, k, gpus) ||
		    hops(in, i, via, k, map, out, from, &cap) != 0)
			goto fail;
		relayed += k > 0;
		map[i] = (uint32_t)(out->n - 1);
	}
	free(map);
	free(via);
	return relayed;
fail:
	free(map);
	free(via);
	free(*from);
	*from = NULL;
	return -1;
}
