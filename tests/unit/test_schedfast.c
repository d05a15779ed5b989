/*
 * Unit tests of lib/model/schedfast against msgpack-c: plan and circuit
 * records encoded in place are byte for byte those of msgpack-c's
 * packer, and the readers from the bytes agree with those through the
 * tree (return, message and schedule) on random records, good and bad.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "model/net.h"
#include "model/sched.h"
#include "model/schedfast.h"
#include "records/rec.h"
#include "records/splitmix.h"
#include "records/stream.h"
#include "tap.h"
#include "same.h"

static uint64_t seed = 7;

static uint64_t
rnd(uint64_t n)
{
	return n == 0 ? 0 : splitmix_next(&seed) % n;
}

static uint64_t
any_width(void)
{
	static const uint64_t top[] = { 0x80, 0x100, 0x10000, 1ULL << 32,
	    UINT64_MAX };

	return splitmix_next(&seed) % top[rnd(5)];
}

static int
sbuf_cb(void *data, const char *buf, size_t len)
{
	return msgpack_sbuffer_write(data, buf, len);
}

static int
same_bytes(size_t n)
{
	struct stream_writer *w;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct circuit c;
	struct plan p;
	char *out;
	size_t i, len;
	int same;
	FILE *fp;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, sbuf_cb);
	fp = tmpfile();
	w = stream_writer(fp);
	for (i = 0; i < n; i++) {
		p = (struct plan){ (uint32_t)any_width(),
		    (uint32_t)any_width(), any_width() };
		c = (struct circuit){ (uint32_t)any_width(),
		    (uint32_t)any_width(), (uint32_t)any_width(), any_width(),
		    rnd(3) == 0 ? SCHED_FOREVER : any_width() };
		sched_write_plan(&pk, &p);
		sched_write_plan(stream_packer(w), &p);
		sched_write_circuit(&pk, &c);
		sched_write_circuit(stream_packer(w), &c);
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
	return same;
}

static void
pack_value(msgpack_packer *pk, uint64_t good)
{
	switch (rnd(40)) {
	case 0: msgpack_pack_nil(pk); return;
	case 1: msgpack_pack_int64(pk, -1 - (int64_t)rnd(9)); return;
	case 2: msgpack_pack_str(pk, 1); msgpack_pack_str_body(pk, "1", 1);
		return;
	case 3: msgpack_pack_uint64(pk, any_width()); return;
	case 4: msgpack_pack_uint64(pk, (1ULL << 32) + good); return;
	case 5: msgpack_pack_double(pk, 2.0); return;
	}
	msgpack_pack_uint64(pk, good);
}

/* A plan or circuit record: keys shuffled, dropped, twice, unknown. */
static void
pack_record(msgpack_packer *pk, int circ)
{
	static const char *const keys[] = { "task", "switch", "start_ps",
	    "a", "b", "from_ps", "to_ps", "other" };
	static const size_t pk_[] = { 0, 1, 2, 7 }, ck[] = { 1, 3, 4, 5, 6, 7 };
	const size_t *ks = circ ? ck : pk_, nk = circ ? 6 : 4;
	size_t order[16], n = 0, i, j, t;
	uint64_t a = rnd(9), b = rnd(9), from = rnd(100);
	int odd = rnd(12) == 0;

	for (i = 0; i < nk; i++)
		if (rnd(25) != 0)
			order[n++] = ks[i];
	if (rnd(10) == 0)
		order[n++] = ks[rnd(nk)];
	for (i = 0; i + 1 < n && rnd(3) == 0; i++) {
		j = i + rnd(n - i);
		t = order[i]; order[i] = order[j]; order[j] = t;
	}
	msgpack_pack_map(pk, n + 1 + odd);
	msgpack_pack_str(pk, 4);
	msgpack_pack_str_body(pk, "type", 4);
	msgpack_pack_str(pk, circ ? 7 : 4);
	msgpack_pack_str_body(pk, circ ? "circuit" : "plan", circ ? 7 : 4);
	if (odd) {
		msgpack_pack_int64(pk, -3);
		msgpack_pack_nil(pk);
	}
	for (i = 0; i < n; i++) {
		const char *k = keys[order[i]];

		msgpack_pack_str(pk, strlen(k));
		msgpack_pack_str_body(pk, k, strlen(k));
		switch (order[i]) {
		case 0: pack_value(pk, rnd(50) == 0 ? UINT32_MAX : rnd(1000));
			break;
		case 1: pack_value(pk, rnd(3)); break;
		case 3: pack_value(pk, a); break;
		case 4: pack_value(pk, b); break;
		case 5: pack_value(pk, from); break;
		case 6: pack_value(pk, from + rnd(100) - 10); break;
		default: pack_value(pk, any_width()); break;
		}
	}
}

struct tally {
	size_t	same, fast;
};

static void
one_record(struct schedule *fast, struct schedule *tree,
    const struct net *net, struct tally *t)
{
	struct stream_reader *rd;
	struct stream_rec sr;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct schedule probe;
	struct rec a, b, c;
	int circ = (int)rnd(2), ra, rb;
	FILE *fp;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, sbuf_cb);
	pack_record(&pk, circ);
	fp = fmemopen(sb.data, sb.size, "r");
	rd = stream_open(fp, "mem");
	sched_init(&probe);
	if (stream_next(rd, &sr) == 1) {
		rec_init(&a, &sr, "mem");
		rec_init(&b, &sr, "mem");
		rec_init(&c, &sr, "mem");
		ra = circ ? sched_read_circuit(&a, fast, net) :
		    sched_read_plan(&a, fast, net);
		rb = circ ? sched_read_circuit_tree(&b, tree, net) :
		    sched_read_plan_tree(&b, tree, net);
		if (ra == rb && rec_failed(&a) == rec_failed(&b) &&
		    strcmp(rec_error(&a), rec_error(&b)) == 0 &&
		    same_sched(fast, tree))
			t->same++;
		else
			printf("# differ: %d %s / %d %s\n", ra, rec_error(&a),
			    rb, rec_error(&b));
		if ((circ ? schedfast_read_circuit(&c, &probe, net) :
		    schedfast_read_plan(&c, &probe, net)) == 0)
			t->fast++;
	}
	sched_free(&probe);
	stream_close(rd);
	fclose(fp);
	msgpack_sbuffer_destroy(&sb);
}

int
main(void)
{
	struct net net = { .gpus = 8, .switches = 2 };
	struct schedule fast, tree;
	struct tally t = { 0, 0 };
	size_t i, n = 20000;

	ok(same_bytes(5000), "5000 random plans and circuits: the bytes "
	    "written in place are msgpack-c's");
	sched_init(&fast);
	sched_init(&tree);
	for (i = 0; i < n; i++)
		one_record(&fast, &tree, &net, &t);
	ok(t.same == n, "both readers agree on %zu random plans and circuits "
	    "(%zu read fast, %zu kept)", t.same, t.fast, fast.np + fast.nc);
	ok(t.fast > n / 10 && fast.np + fast.nc > t.fast,
	    "the fast reader and the fallback both ran");
	sched_free(&fast);
	sched_free(&tree);
	return tap_done();
}
