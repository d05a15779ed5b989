/*
 * Unit tests of lib/model/taskfast against msgpack-c: the task records it
 * encodes are byte for byte those of msgpack-c's packer, and its reader
 * agrees with the reader through the tree (return, message, DAG and the
 * key hints it leaves) on random records, good and bad: keys shuffled,
 * missing, twice or of another type, integers of every encoding, unknown
 * and non-string keys; half of them laid out as taskfast_write() lays
 * them out, which the reader takes by a quicker path.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "model/dag.h"
#include "model/taskfast.h"
#include "model/taskio.h"
#include "records/rec.h"
#include "records/splitmix.h"
#include "records/stream.h"
#include "tap.h"
#include "same.h"

static uint64_t seed = 42;

static uint64_t
rnd(uint64_t n)
{
	return n == 0 ? 0 : splitmix_next(&seed) % n;
}

/* A value of a random width: the encodings differ at these bounds. */
static uint64_t
any_width(void)
{
	static const uint64_t top[] = { 0x80, 0x100, 0x10000, 1ULL << 32,
	    UINT64_MAX };

	return splitmix_next(&seed) % top[rnd(5)];
}

static void
random_dag(struct dag *d, size_t n, size_t maxdep)
{
	uint32_t deps[20000];
	struct dag_task t;
	size_t i, j, k;

	dag_init(d);
	for (i = 0; i < n; i++) {
		memset(&t, 0, sizeof(t));
		t.kind = (uint8_t)rnd(2);
		t.gpu = (uint32_t)rnd(300);
		t.dst = t.gpu + 1 + (uint32_t)rnd(70000);
		t.amount = any_width();
		t.step = (uint16_t)rnd(3) == 0 ? (uint16_t)rnd(65536) : 0;
		k = i == 0 ? 0 : rnd(maxdep + 1);
		for (j = 0; j < k; j++)
			deps[j] = (uint32_t)rnd(i);
		dag_add(d, &t, deps, k);
	}
}

static int
sbuf_cb(void *data, const char *buf, size_t len)
{
	return msgpack_sbuffer_write(data, buf, len);
}

/*
 * n random tasks written by a stream writer (in place) and by a plain
 * msgpack-c packer (taskio_write() packs when the packer is not a
 * stream's): the stream is those bytes, then the end record.
 */
static int
same_bytes(size_t n, size_t maxdep)
{
	struct stream_writer *w;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct dag d;
	char name[400], *out;
	size_t i, len, nlen;
	uint64_t op;
	int named, hasop, same;
	FILE *fp;

	random_dag(&d, n, maxdep);
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, sbuf_cb);
	fp = tmpfile();
	w = stream_writer(fp);
	for (i = 0; i < n; i++) {
		nlen = rnd(4) == 0 ? rnd(sizeof(name)) : rnd(40);
		memset(name, 'a' + (int)rnd(26), nlen);
		name[nlen] = '\0';
		op = any_width();
		named = (int)rnd(2);
		hasop = (int)rnd(2);
		taskio_write(&pk, &d, i, named ? name : NULL,
		    hasop ? &op : NULL);
		taskio_write(stream_packer(w), &d, i, named ? name : NULL,
		    hasop ? &op : NULL);
	}
	same = stream_writer_close(w) == 0;
	len = (size_t)ftell(fp);
	rewind(fp);
	out = malloc(len + 1);
	same = same && fread(out, 1, len, fp) == len && len == sb.size + 10 &&
	    memcmp(out, sb.data, sb.size) == 0;
	free(out);
	fclose(fp);
	msgpack_sbuffer_destroy(&sb);
	dag_free(&d);
	return same;
}

/* A random value for a key: mostly right, sometimes anything. */
static void
pack_value(msgpack_packer *pk, uint64_t good, int str)
{
	static const char *const kinds[] = { "compute", "transfer", "x" };

	switch (rnd(150)) {
	case 0: msgpack_pack_nil(pk); return;
	case 1: msgpack_pack_int64(pk, -1 - (int64_t)rnd(1000)); return;
	case 2: msgpack_pack_double(pk, 1.5); return;
	case 3: msgpack_pack_array(pk, 0); return;
	case 4: msgpack_pack_str(pk, 7); msgpack_pack_str_body(pk,
	    "compute", 7); return;
	case 5: msgpack_pack_uint64(pk, any_width()); return;
	case 6: msgpack_pack_int64(pk, (int64_t)(good & INT64_MAX));
		return;			/* msgpack-c: the unsigned forms */
	case 7:				/* a signed encoding of >= 0 */
		msgpack_pack_int64(pk, -1);
		return;
	case 8: msgpack_pack_true(pk); return;
	}
	if (str) {
		const char *k = kinds[good < 2 ? good : 2];

		msgpack_pack_str(pk, strlen(k));
		msgpack_pack_str_body(pk, k, strlen(k));
	} else
		msgpack_pack_uint64(pk, good);
}

static void
pack_deps(msgpack_packer *pk, uint64_t id)
{
	size_t i, n = rnd(12) == 0 ? 0 : rnd(4);

	if (rnd(16) == 0) {
		pack_value(pk, 0, 0);
		return;
	}
	msgpack_pack_array(pk, n);
	for (i = 0; i < n; i++) {
		if (rnd(20) == 0)
			pack_value(pk, id, 0);
		else if (rnd(40) == 0)
			msgpack_pack_uint64(pk, id + rnd(3));
		else
			msgpack_pack_uint64(pk, id == 0 ? 0 : rnd(id));
	}
}

/* A task-like record: keys shuffled, dropped, twice, or unknown. */
static void
pack_record(msgpack_packer *pk, uint64_t id, uint32_t gpus)
{
	static const char *const keys[] = { "id", "kind", "deps", "step",
	    "gpu", "duration_ps", "src", "dst", "bytes", "op", "name" };
	const size_t nk = sizeof(keys) / sizeof(keys[0]);
	size_t order[24], n = 0, i, j, t;
	uint64_t kind = rnd(2), src = rnd(gpus + 1);
	int odd = rnd(10) == 0;

	for (i = 0; i < nk; i++)
		if (rnd(30) != 0)
			order[n++] = i;
	if (rnd(8) == 0)
		order[n++] = rnd(nk);		/* a key twice */
	for (i = 0; i + 1 < n && rnd(4) == 0; i++) {
		j = i + rnd(n - i);
		t = order[i]; order[i] = order[j]; order[j] = t;
	}
	msgpack_pack_map(pk, n + 1 + odd);
	if (odd) {				/* a key not a string */
		msgpack_pack_uint64(pk, 7);
		msgpack_pack_str(pk, 2);
		msgpack_pack_str_body(pk, "id", 2);
	}
	msgpack_pack_str(pk, 4);
	msgpack_pack_str_body(pk, "type", 4);
	msgpack_pack_str(pk, 4);
	msgpack_pack_str_body(pk, "task", 4);
	for (i = 0; i < n; i++) {
		const char *k = keys[order[i]];

		msgpack_pack_str(pk, strlen(k));
		msgpack_pack_str_body(pk, k, strlen(k));
		switch (order[i]) {
		case 0: pack_value(pk, rnd(30) == 0 ? id + 1 : id, 0); break;
		case 1: pack_value(pk, rnd(40) == 0 ? 2 : kind, 1); break;
		case 2: pack_deps(pk, id); break;
		case 3: pack_value(pk, rnd(8) == 0 ? any_width() : rnd(9), 0);
			break;
		case 6: case 4: pack_value(pk, src, 0); break;
		case 7: pack_value(pk, rnd(8) == 0 ? src : rnd(gpus + 1), 0);
			break;
		case 10: msgpack_pack_str(pk, 3);
			msgpack_pack_str_body(pk, "l.0", 3); break;
		default: pack_value(pk, any_width(), 0); break;
		}
	}
}
static void
pack_key(msgpack_packer *pk, const char *k)
{
	msgpack_pack_str(pk, strlen(k));
	msgpack_pack_str_body(pk, k, strlen(k));
}

/*
 * A record laid out as taskfast_write() lays it out (the reader's
 * quick path), with now and then a value of another type or width, a
 * key renamed, "op" and "name" swapped or gone, a long name, or the
 * map's count one off.
 */
static void
pack_canonical(msgpack_packer *pk, uint64_t id, uint32_t gpus)
{
	static const char *const comp[] = { "gpu", "duration_ps" };
	static const char *const xfer[] = { "src", "dst", "bytes" };
	static const char *const name = "a name longer than thirty-one bytes";
	uint64_t kind = rnd(2);
	size_t nk = kind ? 3 : 2, i, nlen = rnd(3) == 0 ? strlen(name) : 3;
	int op = rnd(3) != 0, nm = rnd(3) != 0, swap = rnd(6) == 0;
	int off = rnd(40) == 0 ? (int)rnd(3) - 1 : 0;

	msgpack_pack_map(pk, (size_t)((int)(5 + nk + op + nm) + off));
	pack_key(pk, "type");
	pack_key(pk, rnd(60) == 0 ? "tusk" : "task");
	pack_key(pk, "id");
	pack_value(pk, rnd(60) == 0 ? id + 1 : id, 0);
	pack_key(pk, "kind");
	pack_value(pk, kind, 1);
	pack_key(pk, rnd(80) == 0 ? "deeps" : "deps");
	pack_deps(pk, id);
	for (i = 0; i < nk; i++) {
		pack_key(pk, (kind ? xfer : comp)[i]);
		pack_value(pk, i == 0 || (kind && i == 1) ? rnd(gpus + 1) :
		    any_width(), 0);
	}
	pack_key(pk, "step");
	pack_value(pk, rnd(4), 0);
	if (op && !swap) {
		pack_key(pk, "op");
		pack_value(pk, any_width(), 0);
	}
	if (nm) {
		pack_key(pk, "name");
		if (rnd(50) == 0)
			pack_value(pk, 1, 0);
		else {
			msgpack_pack_str(pk, nlen);
			msgpack_pack_str_body(pk, name, nlen);
		}
	}
	if (op && swap) {
		pack_key(pk, "op");
		pack_value(pk, any_width(), 0);
	}
	if (off > 0) {			/* a key not a string */
		msgpack_pack_nil(pk);
		msgpack_pack_nil(pk);
	}
}

struct tally {
	size_t	same, fast, tree, refused;
};

/* One random record read both ways, and by the fast reader alone. */
static void
one_record(struct dag *fast, struct dag *tree, struct dag *probe,
    struct tally *t)
{
	struct stream_reader *rd;
	struct stream_rec sr;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct rec a, b, c;
	int ra, rb;
	FILE *fp;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, sbuf_cb);
	if (rnd(2) == 0)
		pack_record(&pk, fast->n, 8);
	else
		pack_canonical(&pk, fast->n, 8);
	fp = fmemopen(sb.data, sb.size, "r");
	rd = stream_open(fp, "mem");
	if (stream_next(rd, &sr) != 1)
		printf("# unread: %s\n", stream_error(rd));
	else {
		rec_init(&a, &sr, "mem");
		rec_init(&b, &sr, "mem");
		rec_init(&c, &sr, "mem");
		ra = taskio_read(&a, fast, 8);
		rb = taskio_read_tree(&b, tree, 8);
		if (ra == rb && rec_failed(&a) == rec_failed(&b) &&
		    strcmp(rec_error(&a), rec_error(&b)) == 0 &&
		    same_dag(fast, tree) &&
		    memcmp(fast->hint, tree->hint, sizeof(fast->hint)) == 0)
			t->same++;
		else
			printf("# differ: %d %s / %d %s\n", ra, rec_error(&a),
			    rb, rec_error(&b));
		if (taskfast_read(&c, probe, 8) == 0)
			t->fast++;
		else if (taskio_read_tree(&c, probe, 8) == 0)
			t->tree++;
		else
			t->refused++;
	}
	stream_close(rd);
	fclose(fp);
	msgpack_sbuffer_destroy(&sb);
}

static void
same_reading(size_t n)
{
	struct dag fast, tree, probe;
	struct tally t = { 0, 0, 0, 0 };
	size_t i;

	dag_init(&fast);
	dag_init(&tree);
	dag_init(&probe);
	for (i = 0; i < n; i++)
		one_record(&fast, &tree, &probe, &t);
	ok(t.same == n, "both readers agree on %zu random records (%zu "
	    "read fast, %zu through the tree, %zu refused)", t.same, t.fast,
	    t.tree, t.refused);
	ok(t.fast > n / 20 && t.tree > 0 && t.refused > n / 20,
	    "the fast reader, the fallback and the refusals all ran");
	ok(same_dag(&fast, &probe), "the DAGs read both ways are the same");
	dag_free(&fast);
	dag_free(&tree);
	dag_free(&probe);
}

int
main(void)
{
	ok(same_bytes(3000, 6), "3000 random tasks: the bytes written in "
	    "place are msgpack-c's");
	ok(same_bytes(40, 12000), "tasks with 12000 deps, past the "
	    "writer's buffer: the same bytes");
	same_reading(20000);
	return tap_done();
}
