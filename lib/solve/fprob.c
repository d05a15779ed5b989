/* fprob: a Flux scheduling problem (fmodel.h), made task by task. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "records/mem.h"
#include "solve/fmodel.h"
#include "solve/greedy.h"

void
fprob_init(struct fprob *p)
{
	memset(p, 0, sizeof(*p));
}

/* An empty problem on the net's switches, with a known horizon and
 * bound. */
void
fprob_setup(struct fprob *p, const struct net *n, uint64_t horizon,
    uint64_t lb)
{
	fprob_init(p);
	p->switches = n->switches;
	p->model = n->model;
	p->tau = n->reconfig_ps;
	p->horizon = horizon;
	p->lb = lb;
}

void
fprob_free(struct fprob *p)
{
	free(p->t);
	free(p->arc);
	free(p->port);
	fprob_init(p);
}

int
fprob_task(struct fprob *p, const struct fptask *t)
{
	if (mem_grow(&p->t, &p->tcap, p->n + 1, sizeof(*p->t)) != 0)
		return -1;
	p->t[p->n++] = *t;
	return 0;
}

int
fprob_arc(struct fprob *p, uint32_t i, uint32_t j, uint64_t lag)
{
	if (mem_grow(&p->arc, &p->acap, p->narc + 1, sizeof(*p->arc)) != 0)
		return -1;
	p->arc[p->narc++] = (struct fparc){ i, j, lag };
	return 0;
}

int
fprob_port(struct fprob *p, const struct fpport *x)
{
	if (mem_grow(&p->port, &p->pcap, p->nport + 1, sizeof(*p->port)) != 0)
		return -1;
	p->port[p->nport++] = *x;
	return 0;
}

/*
 * The whole DAG: its dependencies as arcs, and each GPU's compute
 * tasks in id order.  No release times or tails.
 */
int
fprob_whole(const struct dag *d, const struct net *n, uint64_t horizon,
    uint64_t lb, struct fprob *p)
{
	uint32_t *last;
	size_t i, j;
	int rc = -1;

	fprob_setup(p, n, horizon, lb);
	if ((last = malloc((n->gpus + 1) * sizeof(*last))) == NULL)
		return -1;
	memset(last, 0xff, (n->gpus + 1) * sizeof(*last));
	for (i = 0; i < d->n; i++) {
		const struct dag_task *tk = &d->t[i];
		struct fptask t = { (uint32_t)i, tk->kind, tk->gpu, tk->dst,
		    tk->amount, greedy_length(d, n, i), 0, 0 };

		if (tk->kind == DAG_TRANSFER) {
			t.len = greedy_duration(n, tk->amount);
			t.len = t.len > 0 ? t.len : 1;
		}
		if (fprob_task(p, &t) != 0)
			goto out;
		for (j = 0; j < tk->ndep; j++)
			if (fprob_arc(p, dag_deps(d, i)[j], (uint32_t)i,
			    0) != 0)
				goto out;
		if (tk->kind != DAG_COMPUTE)
			continue;
		if (last[tk->gpu] != UINT32_MAX &&
		    fprob_arc(p, last[tk->gpu], (uint32_t)i, 0) != 0)
			goto out;
		last[tk->gpu] = (uint32_t)i;
	}
	rc = 0;
out:
	free(last);
	return rc;
}
