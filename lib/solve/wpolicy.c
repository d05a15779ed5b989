/* wpolicy: which windows the flux method solves, and for how long. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/net.h"
#include "records/mem.h"
#include "solve/fmodel.h"
#include "solve/greedy.h"
#include "solve/wbound.h"
#include "solve/wfix.h"
#include "solve/wpolicy.h"
#include "solve/wsolve.h"

/* Rounds at most: the budget grows 4x each, so 4^8 times the first. */
#define ROUNDS		9
/* Sizes a family's window may grow by without raising the bound. */
#define PATIENCE	2
/* Tails of the schedule: transfers, from the smallest. */
#define TAIL_STEP	8

enum fstate { F_OPEN, F_CUT, F_DONE };

struct family {
	uint8_t		*set;
	size_t		 nset;
	size_t		 k;		/* transfers touching the set */
	size_t		 lastn;		/* transfers in its last window */
	uint64_t	 value;		/* its best bound */
	size_t		 stall;
	size_t		 raised;	/* sizes that raised its bound */
	int		 state;
};

/* A window solved: its problem, for its class, and its optimum. */
struct known {
	struct fprob	p;
	uint64_t	value;
	int		status;		/* OPTIMAL or ABOVE */
};

struct run {
	struct wpolicy	*w;
	uint64_t	*head, *bl;
	size_t		*soff;
	uint32_t	*succ;
	struct family	*f;
	size_t		 nf;
	struct known	*kn;
	size_t		 nkn, kcap;
	size_t		 tail_k;	/* next tail to try */
	int		 tail_done;
	char		*err;
	size_t		 elen;
};

static int
oom(struct run *r)
{
	snprintf(r->err, r->elen, "out of memory");
	return -1;
}

static int
closed(const struct run *r)
{
	return *r->w->bound >= r->w->best->makespan || r->w->left(r->w->arg)
	    == 0;
}

static void
raise_bound(struct run *r, uint64_t b)
{
	uint64_t ms = r->w->best->makespan;

	if (b > ms)
		b = ms;		/* above the target: the schedule's optimal */
	if (b > *r->w->bound)
		*r->w->bound = b;
}

/*
 * The tail of the best schedule of about r->tail_k transfers, solved
 * again with the rest fixed.  Returns 1 when it made the schedule
 * shorter, 0 when not, 2 when it was cut short, 3 when it is too big
 * or the whole DAG was solved, -1 on error.
 */
static int
improve_one(struct run *r, uint64_t nodes)
{
	struct wpolicy *w = r->w;
	struct wsolve_result res;
	struct greedy g;
	struct fprob p;
	uint64_t T;
	char name[48];
	long nk;
	int rc = 0;

	T = wfix_threshold(w->d, w->best, r->tail_k);
	if ((nk = wfix_tail(w->d, w->n, w->best, T, &p)) < 0)
		return oom(r);
	if ((size_t)nk > w->max_tasks || nk == 0) {
		fprob_free(&p);
		return 3;
	}
	snprintf(name, sizeof(name), "tail %ld", nk);
	if (w->solve(w->arg, &p, name, w->best->makespan, nodes, &res) != 0) {
		fprob_free(&p);
		return -1;
	}
	if (res.status == WSOLVE_CUT)
		rc = 2;
	else if (T == 0 || res.status == WSOLVE_TOOBIG)
		rc = 3;		/* the whole DAG: no larger tail */
	if (res.value < w->best->makespan) {
		uint64_t before = w->best->makespan;
		int sp = wfix_splice(w->d, w->n, w->best, &p, res.sw,
		    res.start, &g);

		if (sp == -1)
			rc = oom(r);
		else if (sp == 0 && w->adopt(w->arg, &g) != 0)
			rc = -1;
		else if (sp == 0 && w->best->makespan < before)
			rc = 1;
	}
	wsolve_result_free(&res);
	fprob_free(&p);
	return rc;
}

/*
 * Tails from 8 transfers up, while they are solved in the budget; one
 * cut short is tried again in the next round, with a larger budget.
 */
static int
improve(struct run *r, uint64_t nodes)
{
	int rc;

	for (; !r->tail_done && !closed(r); r->tail_k += TAIL_STEP) {
		if ((rc = improve_one(r, nodes)) < 0)
			return -1;
		if (rc == 1)
			r->tail_k = 0;	/* a new schedule: small tails */
		else if (rc == 2)
			break;
		else if (rc == 3)
			r->tail_done = 1;
	}
	return 0;
}

static int
known_add(struct run *r, struct fprob *p, const struct wsolve_result *res)
{
	if (mem_grow(&r->kn, &r->kcap, r->nkn + 1, sizeof(*r->kn)) != 0)
		return -1;
	r->kn[r->nkn].p = *p;
	r->kn[r->nkn].value = res->status == WSOLVE_OPTIMAL ? res->value :
	    res->bound;
	r->kn[r->nkn].status = res->status;
	r->nkn++;
	fprob_init(p);
	return 0;
}

static const struct known *
known_find(const struct run *r, const struct fprob *p)
{
	size_t i;

	for (i = 0; i < r->nkn; i++)
		if (wbound_same(&r->kn[i].p, p))
			return &r->kn[i];
	return NULL;
}

/* The GPUs of a family, as a window's name says them. */
static void
family_name(const struct run *r, const struct family *f, long nk,
    char *buf, size_t len)
{
	size_t g, o;

	o = (size_t)snprintf(buf, len, "window gpus");
	for (g = 0; g < r->w->n->gpus && o < len; g++)
		if (f->set[g])
			o += (size_t)snprintf(buf + o, len - o, "%s%zu",
			    o == 11 ? " " : ",", g);
	if (o < len)
		snprintf(buf + o, len - o, " last %ld", nk);
}

/* The family's next size: its window grows, or its set does. */
static int
grow(struct run *r, struct family *f, const struct fprob *p,
    const struct wsolve_result *res, uint64_t T)
{
	long g;

	if (res->value == UINT64_MAX || f->stall < PATIENCE) {
		f->k += WPOLICY_STEP * f->nset;
		return 0;
	}
	g = wbound_grow(r->w->d, r->w->n, r->head, r->bl, r->soff, r->succ,
	    f->set, T, p, res->start, res->sw);
	if (g == -2)
		return oom(r);
	if (g < 0) {		/* nothing to add: deeper instead */
		f->stall = 0;
		f->k += WPOLICY_STEP * f->nset;
		return 0;
	}
	f->set[g] = 1;
	f->nset++;
	f->stall = 0;
	f->raised = 0;
	f->value = 0;
	f->lastn = 0;
	f->k = WPOLICY_STEP * f->nset;
	return 0;
}

/*
 * One window of family f, solved in the budget.  Returns 0, or -1 on
 * error.
 */
static int
family_step(struct run *r, struct family *f, uint64_t nodes)
{
	struct wpolicy *w = r->w;
	struct wsolve_result res;
	const struct known *kn;
	struct fprob p;
	uint64_t T;
	char name[96];
	long nk;
	int rc = 0;

	T = wbound_threshold(w->d, r->head, f->set, f->k);
	/* lb 0: the window's own optimum, whose schedule tells the
	 * binding lags */
	nk = wbound_window(w->d, w->n, r->head, r->bl, f->set, f->k,
	    w->max_tasks, w->best->makespan, 0, &p);
	if (nk < 0)
		return oom(r);
	if (nk == 0 || (size_t)nk > w->max_tasks ||
	    f->k > wbound_touching(w->d, f->set) + WPOLICY_STEP * f->nset) {
		f->state = F_DONE;	/* nothing, too big, or all of it */
		fprob_free(&p);
		return 0;
	}
	if ((size_t)nk == f->lastn) {	/* no new transfer: larger k */
		f->k += WPOLICY_STEP * f->nset;
		fprob_free(&p);
		return 0;
	}
	f->lastn = (size_t)nk;
	if ((kn = known_find(r, &p)) != NULL) {
		raise_bound(r, kn->value);
		f->state = F_DONE;	/* a mirror of another family */
		fprob_free(&p);
		return 0;
	}
	family_name(r, f, nk, name, sizeof(name));
	if (w->solve(w->arg, &p, name, w->best->makespan, nodes, &res) != 0) {
		fprob_free(&p);
		return -1;
	}
	switch (res.status) {
	case WSOLVE_FAILED:
	case WSOLVE_TOOBIG:
		f->state = F_DONE;
		break;
	case WSOLVE_CUT:
		raise_bound(r, res.bound);
		f->state = F_CUT;
		f->lastn = 0;
		break;
	default:
		raise_bound(r, res.status == WSOLVE_OPTIMAL ? res.value :
		    res.bound);
		if (res.status == WSOLVE_OPTIMAL && res.value > f->value) {
			f->stall = f->value > 0 ? 0 : f->stall;
			f->raised += f->value > 0;
			f->value = res.value;
		} else if (f->raised)
			f->stall++;	/* flat after rising: grow the set */
		rc = grow(r, f, &p, &res, T);
		if (rc == 0 && known_add(r, &p, &res) != 0)
			rc = oom(r);
	}
	wsolve_result_free(&res);
	fprob_free(&p);
	return rc;
}

/* The open family with the highest bound (ties: the first). */
static struct family *
next_family(struct run *r)
{
	struct family *b = NULL;
	size_t i;

	for (i = 0; i < r->nf; i++)
		if (r->f[i].state == F_OPEN &&
		    (b == NULL || r->f[i].value > b->value))
			b = &r->f[i];
	return b;
}

static int
bounds(struct run *r, uint64_t nodes)
{
	struct family *f;
	size_t i;

	for (i = 0; i < r->nf; i++)
		if (r->f[i].state == F_CUT)
			r->f[i].state = F_OPEN;
	while (!closed(r) && (f = next_family(r)) != NULL)
		if (family_step(r, f, nodes) != 0)
			return -1;
	return 0;
}

static int
families(struct run *r)
{
	uint32_t G = r->w->n->gpus, g;

	if ((r->f = calloc(G + 1, sizeof(*r->f))) == NULL)
		return -1;
	for (g = 0; g < G; g++, r->nf++) {
		if ((r->f[g].set = calloc(G + 1, 1)) == NULL)
			return -1;
		r->f[g].set[g] = 1;
		r->f[g].nset = 1;
		r->f[g].k = WPOLICY_STEP;
	}
	return 0;
}

static void
run_free(struct run *r)
{
	size_t i;

	for (i = 0; i < r->nf; i++)
		free(r->f[i].set);
	for (i = 0; i < r->nkn; i++)
		fprob_free(&r->kn[i].p);
	free(r->f);
	free(r->kn);
	free(r->head);
	free(r->bl);
	free(r->soff);
	free(r->succ);
}

int
wpolicy_run(struct wpolicy *w, char *err, size_t len)
{
	struct run r;
	uint64_t nodes = WPOLICY_NODES;
	int round, rc = -1;

	memset(&r, 0, sizeof(r));
	r.w = w;
	r.err = err;
	r.elen = len;
	r.tail_k = TAIL_STEP;
	if (greedy_levels(w->d, w->n, &r.head, &r.bl) != 0 ||
	    dag_successors(w->d, NULL, &r.soff, &r.succ) != 0 ||
	    families(&r) != 0) {
		oom(&r);
		goto out;
	}
	/*
	 * A better tail, when there is one, is found in few nodes; it is
	 * proving that there is none that takes many, and the bound does
	 * that: the tails get an eighth of the budget.
	 */
	for (round = 0; round < ROUNDS && !closed(&r); round++, nodes *= 4)
		if (improve(&r, nodes / 8) != 0 || bounds(&r, nodes) != 0)
			goto out;
	rc = 0;
out:
	run_free(&r);
	return rc;
}
