/*
 * rotorsched -m static's output: the stream it read, kept in a file as
 * the reader passed it, written again with the DAG that holds the
 * relays.  A task record keeps its keys and their order (its op, its
 * name, keys unknown here) but for id, deps, src and dst, which come
 * from the new DAG; a relayed transfer is written once per hop.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "model/dag.h"
#include "records/die.h"
#include "records/stream.h"
#include "rotorsched_static.h"

static int
key_is(const msgpack_object *k, const char *s)
{
	size_t n = strlen(s);

	return k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
	    memcmp(k->via.str.ptr, s, n) == 0;
}

/* Task j of d as the record m lays out its keys. */
static void
task_again(msgpack_packer *pk, const msgpack_object_map *m,
    const struct dag *d, size_t j)
{
	const struct dag_task *t = &d->t[j];
	const uint32_t *dep = dag_deps(d, j);
	uint32_t i, k;

	msgpack_pack_map(pk, m->size);
	for (i = 0; i < m->size; i++) {
		const msgpack_object *key = &m->ptr[i].key;

		msgpack_pack_object(pk, *key);
		if (key_is(key, "id"))
			msgpack_pack_uint64(pk, j);
		else if (key_is(key, "src"))
			msgpack_pack_uint32(pk, t->gpu);
		else if (key_is(key, "dst"))
			msgpack_pack_uint32(pk, t->dst);
		else if (key_is(key, "deps")) {
			msgpack_pack_array(pk, t->ndep);
			for (k = 0; k < t->ndep; k++)
				msgpack_pack_uint32(pk, dep[k]);
		} else
			msgpack_pack_object(pk, m->ptr[i].val);
	}
}

void
static_write(struct stream_writer *w, FILE *fp, const struct dag *out,
    const uint32_t *from)
{
	struct stream_reader *rd;
	struct stream_rec sr;
	uint64_t task = 0;
	size_t j = 0;
	int rc;

	if ((rd = stream_open(fp, "the stream read")) == NULL)
		die("out of memory (the stream again)");
	while ((rc = stream_next(rd, &sr)) > 0) {
		const msgpack_object *o;

		if (stream_rec_is(&sr, "end"))
			continue;
		if (out == NULL || !stream_rec_is(&sr, "task")) {
			stream_write_raw(w, sr.raw, sr.rawlen);
			continue;
		}
		if ((o = stream_rec_obj(&sr)) == NULL ||
		    o->type != MSGPACK_OBJECT_MAP)
			die("internal error: task record %llu read again",
			    (unsigned long long)task);
		for (; j < out->n && from[j] == task; j++)
			task_again(stream_packer(w), &o->via.map, out, j);
		task++;
	}
	if (rc < 0)
		die("internal error: the stream read again: %s",
		    stream_error(rd));
	stream_close(rd);
}
