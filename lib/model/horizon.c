#include <stdint.h>

#include "model/dag.h"
#include "model/horizon.h"
#include "model/net.h"

#define PS	1000000000000ULL

/* One task's length plus a reconfiguration, in 128 bits. */
static unsigned __int128
span(const struct dag_task *t, const struct net *n)
{
	unsigned __int128 b;

	if (t->kind == DAG_COMPUTE)
		return (unsigned __int128)t->amount + n->reconfig_ps;
	b = (unsigned __int128)t->amount * 8 * PS;
	return (b + n->bandwidth_bps - 1) / n->bandwidth_bps +
	    n->latency_ps + n->reconfig_ps;
}

int
horizon_total(const struct dag *d, const struct net *n,
    unsigned __int128 *total)
{
	unsigned __int128 sum = 0;
	size_t i;

	for (i = 0; i < d->n; i++) {
		sum += span(&d->t[i], n);	/* <= 2^62 + 2^108 */
		if (sum > HORIZON_MAX_PS)
			break;
	}
	*total = sum;
	return sum > HORIZON_MAX_PS ? -1 : 0;
}
