/*
 * wstate: the state of wsearch's branch and bound (wsearch.h), shared
 * by its three parts, and private to them: wsetup.c builds it from the
 * problem, wload.c keeps the per-GPU loads and gives a node's lower
 * bound, and wsearch.c places transfers and searches.  Every change a
 * node makes to it goes through set(), on the trail, so that undo()
 * takes the search back to a node.  Only ws_setup() allocates (into
 * w, freed by wsearch.c) or fails: it writes its message into err, by
 * fail(), and returns -1.
 */
#ifndef WSTATE_H
#define WSTATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "solve/fmodel.h"
#include "solve/wsearch.h"

#define NOGPU	UINT64_MAX		/* a port with no partner */
#define OTHER	(UINT64_MAX - 1)	/* a partner outside the problem */
#define INF	UINT64_MAX

/* A port (switch, GPU): every field a word, so that the trail keeps
 * it. */
struct wport {
	uint64_t	partner;	/* local GPU, NOGPU or OTHER */
	uint64_t	used;
	uint64_t	tx, rx, last;	/* ends of sends, receives, uses */
	uint64_t	pe;		/* switch model: epoch of last use */
};

/* A switch under the switch model: its current epoch (number, start)
 * and when its last use ends. */
struct wsw {
	uint64_t	eid, ep, lastuse, any;
};

struct wtask {
	int		 xfer;
	uint32_t	 a, b;		/* local GPUs: compute a; ends a->b */
	uint64_t	 len, span, rel, tail;
	uint64_t	 q;		/* longest path from start to the end */
	uint64_t	 after;		/* q - len, or 0: after the ports */
	size_t		 soff, ns;	/* successors */
};

/*
 * What is left to a GPU, by direction (0 receives, 1 sends, 2 both),
 * kept up to date as transfers are placed: the work (both ways, each
 * partner weighs its larger direction), the partners, the earliest
 * ready time and the shortest path after, with the tasks that give
 * those two.  Every field a word, for the trail.
 */
struct gl {
	uint64_t	L[3];
	uint64_t	P[3][2];
	uint64_t	np[3];		/* partners: bits of P */
	uint64_t	er[3], ea[3];
	uint64_t	mv[3], ma[3];
};

/* A child of a node: transfer j on switch s at t. */
struct cand {
	uint64_t	t, raw, cb;
	uint32_t	j, s;
	uint32_t	newep;		/* switch model: opens an epoch */
};

struct trail {
	uint64_t	*p;
	uint64_t	 v;
};

struct ws {
	const struct fprob		*p;
	const struct wsearch_opts	*o;
	size_t		 n, ng;
	uint32_t	 S;
	uint64_t	 tau, floor;
	struct wtask	 t[WSEARCH_MAX];
	uint32_t	*succ;
	uint64_t	*lag;
	struct wport	*pt;		/* [s * ng + g] */
	struct wsw	*swst;		/* [s], switch model */
	int		 allstop;	/* the switch model */
	int		 sym;
	/* The node. */
	uint64_t	 placed, elig;
	uint64_t	 left[WSEARCH_MAX];	/* predecessors unplaced */
	uint64_t	 rdy[WSEARCH_MAX], st[WSEARCH_MAX];
	uint64_t	 sw[WSEARCH_MAX];
	uint64_t	 cursor, last, maxend, nused, touched;
	struct trail	*tr;
	size_t		 ntr, trcap;
	struct cand	*cand;		/* [depth * ccap] */
	size_t		 ccap;
	/* The best. */
	uint64_t	 best;
	int		 have;
	uint64_t	 bst[WSEARCH_MAX];
	uint32_t	 bsw[WSEARCH_MAX];
	uint64_t	 nodes;
	double		 t0;
	int		 cut;
	uint64_t	 R;		/* max of earliest start + path */
	uint32_t	 byq[WSEARCH_MAX];	/* transfers, longest path first */
	size_t		 nbyq;
	uint32_t	*gx;		/* each GPU's transfers: [g * n] */
	uint64_t	*wt;		/* unplaced work [(g * ng + o) * 2 + snd] */
	struct gl	*gl;		/* [ng] */
	size_t		*ngx;
};

static inline uint64_t
max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static inline uint64_t
min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Sums in this module stay below 2^63: the caller's times are
 * checked against WSEARCH_TMAX first. */
#define WSEARCH_TMAX	((uint64_t)1 << 61)

static inline void
set(struct ws *w, uint64_t *p, uint64_t v)
{
	w->tr[w->ntr].p = p;
	w->tr[w->ntr].v = *p;
	w->ntr++;
	*p = v;
}

static inline void
undo(struct ws *w, size_t mark)
{
	while (w->ntr > mark) {
		w->ntr--;
		*w->tr[w->ntr].p = w->tr[w->ntr].v;
	}
}

static inline struct wport *
port(struct ws *w, uint64_t s, uint32_t g)
{
	return &w->pt[s * w->ng + g];
}

/* The message into err; -1. */
static inline int
fail(char *err, size_t len, const char *msg)
{
	snprintf(err, len, "%s", msg);
	return -1;
}

/* wsetup.c: the state from w->p and w->o, the loads at the root. */
int	ws_setup(struct ws *, char *, size_t);

/* wload.c: the per-GPU loads as the search goes (wsearch.h). */
void	ws_load_init(struct ws *);
void	ws_later(struct ws *, uint32_t);
void	ws_unload(struct ws *, uint32_t);
uint64_t ws_node_bound(struct ws *, uint64_t);

#endif
