/*
 * rotorsched -m phase: the class of each transfer, the kind of traffic
 * it is part of, read from its task record's "name" (fluxocs(5)) with
 * every run of digits made one "#": dagbuild names a transfer after its
 * op (and its part of a collective), so that "l3.fwd.attn.ar[5]", a
 * tensor-parallel all-reduce of layer 3, is of class
 * "l#.fwd.attn.ar[#]" with those of every layer, "s0.m1.act.send", a
 * pipeline send, of "s#.m#.act.send", and "l0.fwd.dispatch", an
 * expert all-to-all, of "l#.fwd.dispatch".  Classes of the same
 * traffic (a layer's two tensor-parallel all-reduces) make the same
 * configuration, which then costs nothing to go on with.  A transfer of
 * no name is of class 0, "unlabelled".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "records/die.h"
#include "records/rec.h"
#include "records/stream.h"
#include "records/xxh64.h"
#include "rotorsched_phase.h"

/* An open-addressing table of the classes by their name's digest. */
struct table {
	uint32_t	*slot;		/* class + 1, 0: empty */
	uint64_t	*hash;		/* of each class */
	size_t		 cap;		/* a power of 2 */
};

/* The name with every run of digits one '#', in buf (NUL-ended). */
static size_t
stem(const char *s, size_t n, char *buf, size_t max)
{
	size_t i, k = 0;

	for (i = 0; i < n && k + 1 < max; i++) {
		if (s[i] >= '0' && s[i] <= '9') {
			if (k == 0 || buf[k - 1] != '#')
				buf[k++] = '#';
			continue;
		}
		buf[k++] = s[i];
	}
	buf[k] = '\0';
	return k;
}

static void
grow(struct table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64, i, j;
	uint32_t *slot = xcalloc(cap, sizeof(*slot));

	for (i = 0; i < t->cap; i++) {
		if (t->slot[i] == 0)
			continue;
		for (j = t->hash[t->slot[i] - 1] & (cap - 1); slot[j] != 0;
		    j = (j + 1) & (cap - 1))
			;
		slot[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
}

/* The class of this stem, added when new. */
static uint32_t
class_of(struct classes *c, struct table *t, const char *s, size_t n)
{
	struct xxh64 x;
	uint64_t h;
	size_t j;

	xxh64_init(&x);
	xxh64_update(&x, s, n);
	h = xxh64_digest(&x);
	if (2 * (c->n + 1) > t->cap)
		grow(t);
	for (j = h & (t->cap - 1); t->slot[j] != 0; j = (j + 1) & (t->cap - 1))
		if (t->hash[t->slot[j] - 1] == h &&
		    strcmp(c->name[t->slot[j] - 1], s) == 0)
			return t->slot[j] - 1;
	c->name = xreallocarray(c->name, c->n + 1, sizeof(*c->name));
	t->hash = xreallocarray(t->hash, c->n + 1, sizeof(*t->hash));
	c->name[c->n] = xmalloc(n + 1);
	memcpy(c->name[c->n], s, n + 1);
	t->hash[c->n] = h;
	t->slot[j] = c->n + 1;
	return c->n++;
}

void
classes_read(struct classes *c, FILE *fp, const struct dag *d)
{
	struct stream_reader *rd;
	struct stream_rec sr;
	struct table t = { 0 };
	char buf[CLASS_NAME];
	size_t task = 0, n;
	int rc;

	memset(c, 0, sizeof(*c));
	c->of = xcalloc(d->n + 1, sizeof(*c->of));
	(void)class_of(c, &t, "unlabelled", strlen("unlabelled"));
	if ((rd = stream_open(fp, "the stream read")) == NULL)
		die("out of memory (the stream again)");
	while ((rc = stream_next(rd, &sr)) > 0) {
		const msgpack_object *o;
		struct rec r;

		if (!stream_rec_is(&sr, "task") || task >= d->n)
			continue;
		rec_init(&r, &sr, "the stream read");
		o = rec_get(&r, "name");
		if (d->t[task].kind == DAG_TRANSFER && o != NULL &&
		    o->type == MSGPACK_OBJECT_STR) {
			n = stem(o->via.str.ptr, o->via.str.size, buf,
			    sizeof(buf));
			c->of[task] = class_of(c, &t, buf, n);
		}
		task++;
	}
	if (rc < 0)
		die("internal error: the stream read again: %s",
		    stream_error(rd));
	stream_close(rd);
	free(t.slot);
	free(t.hash);
}

void
classes_free(struct classes *c)
{
	uint32_t i;

	for (i = 0; i < c->n; i++)
		free(c->name[i]);
	free(c->of);
	free(c->name);
	memset(c, 0, sizeof(*c));
}
