/*
 * fabbuild: the builder of fabmodel.h's model, shared by its files
 * (private to lib/solve): fabmodel.c (columns, precedence, bounds, the
 * entry points), fabpair.c (shared resources: orders and big-M rows),
 * fabwin.c (a window's releases), fabmodel_io.c (solutions in and out).
 *
 * The builder's functions return 0, or -1 with a message in b->err
 * (fabbuild_fail(), fabbuild_oom()).
 */
#ifndef FABBUILD_H
#define FABBUILD_H

#include <stddef.h>
#include <stdint.h>

#include "model/dag.h"
#include "model/planes.h"
#include "solve/fabcand.h"
#include "solve/fabmodel.h"

#define NONE		UINT32_MAX
#define T(f, ps)	((double)(ps) / (double)(f)->unit)

struct ent {			/* a resource a transfer may hold */
	uint64_t	 res;
	uint32_t	 t;		/* the transfer's task */
	uint32_t	 k;		/* on plane column y[k] */
};

struct pent {			/* two transfers that may share one */
	uint32_t	 i, j;		/* tasks, i < j */
	size_t		 a, b;		/* their first entries on it */
};

struct build {
	const struct dag	*d;
	const struct fabwin	*w;		/* or NULL: the whole DAG */
	const struct planes	*pl;
	struct fabmodel		*f;
	char			*err;
	size_t			 errlen;
	struct fabcand_ctx	 cx;
	struct fabcand		*cand;		/* per plane column */
	uint64_t		 nport;
	size_t			 maxc;		/* most columns of a transfer */
	uint32_t		*xi;		/* per task: transfer index */
	size_t			 nx, words;
	uint64_t		*reach;		/* [t * words]: who reaches t */
	uint32_t		*prev;		/* a compute's predecessor */
	uint64_t		*span;		/* per task: its least span */
	uint64_t		*head;		/* its earliest start */
	uint64_t		*tail;		/* least time after its end */
	uint64_t		*fend;		/* a fixed task's end, window */
	struct ent		*e;
	size_t			 ne;
	struct pent		*pe;
	size_t			 npe;
	int			*rc;
	double			*rv;
};

static inline uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline uint64_t
max2(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* Is task t a column of the model (the window's, or any)? */
static inline int
is_free(const struct build *b, size_t t)
{
	return b->w == NULL || b->w->free[t];
}

int	fabbuild_fail(struct build *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
int	fabbuild_oom(struct build *, const char *);
int	fabbuild_row(struct build *, size_t, int, double);
uint32_t fabbuild_slots(const struct build *, size_t);
int	fabbuild_reach(struct build *);
int	fabbuild_resources(struct build *);
int	fabbuild_pairs(struct build *);
int	fabbuild_conflicts(struct build *, size_t);
int	fabbuild_releases(struct build *);

#endif
