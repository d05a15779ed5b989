/* route: transfers no plane carries whole, split into hops. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/fabric.h"
#include "model/relay.h"
#include "model/route.h"

struct hops {
	const struct dag	*d;
	const struct fabric	*f;
	uint32_t		 bad_g, bad_h;
};

/* Transfer i's relay, if no plane joins its GPUs: the relay_path_fn. */
static size_t
hop(void *arg, size_t i, uint32_t *via, size_t max)
{
	struct hops *h = arg;
	const struct dag_task *t = &h->d->t[i];
	uint32_t r;

	if (fabric_joined(h->f, t->gpu, t->dst))
		return 0;
	if ((r = fabric_relay(h->f, t->gpu, t->dst)) == UINT32_MAX) {
		h->bad_g = t->gpu;
		h->bad_h = t->dst;
		return max + 1;
	}
	via[0] = r;
	return 1;
}

/*
 * On failure, *bad_g and *bad_h name the pair that has no route (both
 * UINT32_MAX when memory or ids ran out).
 */
int64_t
route_dag(const struct dag *in, const struct fabric *f, struct dag *out,
    uint32_t *from, uint32_t *bad_g, uint32_t *bad_h)
{
	struct hops h = { in, f, UINT32_MAX, UINT32_MAX };
	uint32_t *fr;
	int64_t split;

	split = relay_dag(in, UINT32_MAX, hop, &h, 1, out, &fr);
	*bad_g = h.bad_g;
	*bad_h = h.bad_h;
	if (split < 0)
		return -1;
	if (out->n > 0)
		memcpy(from, fr, out->n * sizeof(*from));
	free(fr);
	return split;
}
