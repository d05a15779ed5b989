/* fablink: the links of a tiered fabric's simulation, shared max-min. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "records/mem.h"
#include "sim/fablink.h"

uint64_t
fablink_key(int kind, uint32_t where, uint32_t x, uint32_t y)
{
	return (uint64_t)kind << 61 | (uint64_t)(where & 0x1ffff) << 44 |
	    (uint64_t)(x & 0x3fffff) << 22 | (y & 0x3fffff);
}

void
fablinks_init(struct fablinks *ls)
{
	memset(ls, 0, sizeof(*ls));
}

void
fablinks_free(struct fablinks *ls)
{
	size_t i;

	for (i = 0; i < ls->n; i++)
		free(ls->l[i].f);
	free(ls->l);
	free(ls->slot);
	free(ls->act);
	free(ls->dirty);
	free(ls->cl);
	free(ls->cf);
	memset(ls, 0, sizeof(*ls));
}

static size_t
hash(uint64_t k, size_t n)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (n - 1);
}

static int
rehash(struct fablinks *ls)
{
	size_t n = ls->nslot ? ls->nslot * 2 : 64, i, h;
	uint32_t *s;

	if ((s = calloc(n, sizeof(*s))) == NULL)
		return -1;
	for (i = 0; i < ls->n; i++) {
		for (h = hash(ls->l[i].key, n); s[h] != 0; h = (h + 1) & (n - 1))
			;
		s[h] = (uint32_t)i + 1;
	}
	free(ls->slot);
	ls->slot = s;
	ls->nslot = n;
	return 0;
}

int64_t
fablinks_get(struct fablinks *ls, uint64_t key, uint64_t unit_cap,
    uint32_t units)
{
	size_t h;
	uint32_t i;

	if ((ls->n + 1) * 2 > ls->nslot && rehash(ls) != 0)
		return -1;
	for (h = hash(key, ls->nslot); (i = ls->slot[h]) != 0;
	    h = (h + 1) & (ls->nslot - 1))
		if (ls->l[i - 1].key == key)
			return i - 1;
	if (ls->n >= UINT32_MAX - 1 ||
	    mem_grow(&ls->l, &ls->cap, ls->n + 1, sizeof(*ls->l)) != 0)
		return -1;
	memset(&ls->l[ls->n], 0, sizeof(ls->l[0]));
	ls->l[ls->n].key = key;
	ls->l[ls->n].unit_cap = unit_cap;
	ls->l[ls->n].units = units;
	ls->slot[h] = (uint32_t)++ls->n;
	return (int64_t)ls->n - 1;
}

static int
enter(struct fablinks *ls, uint32_t li, uint32_t fi, uint32_t *pos)
{
	struct fablink *l = &ls->l[li];
	size_t c = l->cap;

	if (l->n == l->cap) {
		if (mem_grow(&l->f, &c, (size_t)l->n + 1, sizeof(*l->f)) != 0)
			return -1;
		l->cap = (uint32_t)c;
	}
	if (l->n == 0) {
		if (mem_grow(&ls->act, &ls->actcap, ls->nact + 1,
		    sizeof(*ls->act)) != 0)
			return -1;
		l->act = (uint32_t)ls->nact;
		ls->act[ls->nact++] = li;
	}
	*pos = l->n;
	l->f[l->n++] = fi;
	return 0;
}

int
fablinks_touch(struct fablinks *ls, uint32_t li)
{
	if (ls->l[li].dirty)
		return 0;
	if (mem_grow(&ls->dirty, &ls->dirtycap, ls->ndirty + 1,
	    sizeof(*ls->dirty)) != 0)
		return -1;
	ls->l[li].dirty = 1;
	ls->dirty[ls->ndirty++] = li;
	return 0;
}

int
fablinks_add(struct fablinks *ls, struct fabflow *fl, uint32_t fi)
{
	struct fabflow *f = &fl[fi];
	uint32_t k;

	f->seen = 0;
	for (k = 0; k < f->nl; k++)
		if (fablinks_touch(ls, f->link[k]) != 0 ||
		    enter(ls, f->link[k], fi, &f->pos[k]) != 0) {
			f->nl = k;
			(void)fablinks_del(ls, fl, fi);
			return -1;
		}
	return 0;
}

/* The slot of flow g that is on link li. */
static uint32_t
slot_of(const struct fabflow *g, uint32_t li)
{
	uint32_t k;

	for (k = 0; k < g->nl && g->link[k] != li; k++)
		;
	return k;
}

int
fablinks_del(struct fablinks *ls, struct fabflow *fl, uint32_t fi)
{
	struct fabflow *f = &fl[fi];
	struct fablink *l;
	uint32_t k, moved, last;
	int rc = 0;

	for (k = 0; k < f->nl; k++) {
		if (fablinks_touch(ls, f->link[k]) != 0)
			rc = -1;
		l = &ls->l[f->link[k]];
		moved = l->f[--l->n];
		l->f[f->pos[k]] = moved;
		if (moved != fi)
			fl[moved].pos[slot_of(&fl[moved], f->link[k])] =
			    f->pos[k];
		if (l->n > 0)
			continue;
		last = ls->act[--ls->nact];
		ls->act[l->act] = last;
		ls->l[last].act = l->act;
	}
	return rc;
}

static uint64_t
capacity(const struct fablink *l)
{
	if (l->units != 0 && l->unit_cap > UINT64_MAX / l->units)
		return UINT64_MAX;
	return l->unit_cap * l->units;
}

/* Fix the rate of the flows of link l not fixed yet at s. */
static void
fix(struct fablinks *ls, struct fabflow *fl, struct fablink *l, uint64_t s)
{
	uint32_t i, k;

	for (i = 0; i < l->n && l->left > 0; i++) {
		struct fabflow *f = &fl[l->f[i]];

		if (f->frozen)
			continue;
		f->frozen = 1;
		f->newrate = s;
		for (k = 0; k < f->nl; k++) {
			ls->l[f->link[k]].rem -= s;
			ls->l[f->link[k]].left--;
		}
	}
}

/* Collect the component of link li: its links and flows, in cl, cf. */
static int
collect(struct fablinks *ls, struct fabflow *fl, uint32_t li)
{
	size_t at = ls->ncl, i;
	uint32_t j, k;

	if (ls->l[li].seen == ls->epoch)
		return 0;
	if (mem_grow(&ls->cl, &ls->nclcap, ls->ncl + 1, sizeof(*ls->cl)))
		return -1;
	ls->l[li].seen = ls->epoch;
	ls->cl[ls->ncl++] = li;
	for (i = at; i < ls->ncl; i++) {
		const struct fablink *l = &ls->l[ls->cl[i]];

		for (j = 0; j < l->n; j++) {
			struct fabflow *f = &fl[l->f[j]];

			if (f->seen == ls->epoch)
				continue;
			f->seen = ls->epoch;
			if (mem_grow(&ls->cf, &ls->ncfcap, ls->ncf + 1,
			    sizeof(*ls->cf)))
				return -1;
			ls->cf[ls->ncf++] = l->f[j];
			for (k = 0; k < f->nl; k++) {
				struct fablink *m = &ls->l[f->link[k]];

				if (m->seen == ls->epoch)
					continue;
				if (mem_grow(&ls->cl, &ls->nclcap, ls->ncl + 1,
				    sizeof(*ls->cl)))
					return -1;
				m->seen = ls->epoch;
				ls->cl[ls->ncl++] = f->link[k];
			}
			l = &ls->l[ls->cl[i]];	/* cl may have moved */
		}
	}
	return 0;
}

int
fablinks_share(struct fablinks *ls, struct fabflow *fl)
{
	size_t i, open;
	uint64_t s;

	ls->epoch++;			/* 64 bits: never wraps */
	ls->ncl = ls->ncf = 0;
	for (i = 0; i < ls->ndirty; i++) {
		ls->l[ls->dirty[i]].dirty = 0;
		if (collect(ls, fl, ls->dirty[i]) != 0)
			return -1;
	}
	ls->ndirty = 0;
	for (i = 0; i < ls->ncl; i++) {
		struct fablink *l = &ls->l[ls->cl[i]];

		l->rem = capacity(l);
		l->left = l->n;
	}
	for (i = 0; i < ls->ncf; i++)
		fl[ls->cf[i]].frozen = 0;
	for (;;) {
		s = UINT64_MAX;
		open = 0;
		for (i = 0; i < ls->ncl; i++) {
			const struct fablink *l = &ls->l[ls->cl[i]];

			if (l->left == 0)
				continue;
			open++;
			if (l->rem / l->left < s)
				s = l->rem / l->left;
		}
		if (open == 0)
			return 0;
		for (i = 0; i < ls->ncl; i++) {
			struct fablink *l = &ls->l[ls->cl[i]];

			if (l->left > 0 && l->rem / l->left == s)
				fix(ls, fl, l, s);
		}
	}
}
