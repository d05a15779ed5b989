/*
 * fuzz_pb: the protobuf wire reader (lib/records/pbwire), on a file of frames
 * as Chakra writes them.
 *
 * Every frame is read field by field, length-delimited fields again as
 * messages (to a depth of 8) and as packed varints; every field read is
 * written again with the writer and must read back as itself.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "records/pbwire.h"

/* The field written alone reads back with its number, type and value. */
static void
again(const struct pb_field *f)
{
	struct pbuf b;
	struct pb_field g;
	struct pbw w;
	char err[200];
	size_t pos = 0;

	pbw_init(&w);
	switch (f->wt) {
	case PB_VARINT:
		pbw_varint(&w, f->num, f->v);
		break;
	case PB_I64:
		pbw_fixed64(&w, f->num, f->v);
		break;
	case PB_I32:
		pbw_fixed32(&w, f->num, (uint32_t)f->v);
		break;
	default:
		pbw_bytes(&w, f->num, f->sub.p, f->sub.n);
	}
	if (pbw_failed(&w)) {
		pbw_free(&w);
		return;
	}
	b = (struct pbuf){ w.p, w.n, 0 };
	if (pb_next(&b, &pos, &g, err, sizeof(err)) != 1 || g.num != f->num ||
	    g.wt != f->wt || pos != w.n || (f->wt != PB_LEN && g.v != f->v) ||
	    (f->wt == PB_LEN && (g.sub.n != f->sub.n || (g.sub.n > 0 &&
	    memcmp(g.sub.p, f->sub.p, g.sub.n) != 0))))
		abort();
	pbw_free(&w);
}

static void
message(const struct pbuf *m, int depth)
{
	struct pb_field f;
	char err[200];
	size_t pos = 0, p2;
	uint64_t v;
	int rc;

	while ((rc = pb_next(m, &pos, &f, err, sizeof(err))) == 1) {
		again(&f);
		if (f.wt != PB_LEN)
			continue;
		if (depth < 8)
			message(&f.sub, depth + 1);
		for (p2 = 0; p2 < f.sub.n;)
			if (pb_varint(&f.sub, &p2, &v, err, sizeof(err)) != 0)
				break;
	}
	if (rc < 0 && strncmp(err, "byte ", 5) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pb_frames fr;
	struct pbuf m;
	char err[200];
	FILE *fp;
	int rc;

	if ((fp = fuzz_open(data, size)) == NULL)
		return 0;
	pb_frames_init(&fr, fp);
	while ((rc = pb_frame_next(&fr, &m, err, sizeof(err))) == 1) {
		if (m.base + m.n > size)
			abort();
		message(&m, 0);
	}
	if (rc < 0 && strncmp(err, "byte ", 5) != 0)
		abort();
	pb_frames_free(&fr);
	fclose(fp);
	return 0;
}
