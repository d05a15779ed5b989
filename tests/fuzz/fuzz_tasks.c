/*
 * fuzz_tasks: the task reader (lib/model/dagin, lib/model/taskio, lib/model/net), as
 * fluxsolve, ocssim and report read their input; then, record by
 * record, the reader straight from the bytes (lib/model/taskfast, behind
 * taskio_read()) against the one through msgpack-c's tree alone: the
 * same return, the same message and the same DAG, or abort().  And the
 * whole reading, dagin_read() (task records taken straight from the
 * reader's buffer, filter_run_quick()), against the same loop with
 * every record framed by stream_next(): the same return, message, DAG,
 * hints and output (the records passed through).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/dagin.h"
#include "records/filter.h"
#include "fuzz.h"
#include "model/net.h"
#include "model/taskio.h"
#include "records/rec.h"
#include "records/stream.h"
#include "../unit/framed.h"
#include "../unit/same.h"

/* One task record both ways; 0 to go on, -1 when both refused it. */
static int
both(const struct stream_rec *sr, struct dag *fast, struct dag *tree,
    uint32_t gpus)
{
	struct rec a, b;
	int ra, rb;

	rec_init(&a, sr, "fuzz");
	rec_init(&b, sr, "fuzz");
	ra = taskio_read(&a, fast, gpus);
	rb = taskio_read_tree(&b, tree, gpus);
	if (ra != rb || rec_failed(&a) != rec_failed(&b) ||
	    strcmp(rec_error(&a), rec_error(&b)) != 0 ||
	    !same_dag(fast, tree)) {
		fprintf(stderr, "fuzz_tasks: the readers differ at byte "
		    "%llu: %d \"%s\", %d \"%s\"\n",
		    (unsigned long long)sr->off, ra, rec_error(&a), rb,
		    rec_error(&b));
		abort();
	}
	return ra;
}

static void
differential(const uint8_t *data, size_t size)
{
	struct stream_reader *rd;
	struct stream_rec sr;
	struct dag fast, tree;
	struct net net;
	struct rec r;
	int have = 0;
	FILE *fp;

	fp = fuzz_open(data, size);
	if ((rd = stream_open(fp, "fuzz")) == NULL)
		abort();
	dag_init(&fast);
	dag_init(&tree);
	while (stream_next(rd, &sr) > 0) {
		if (!have && stream_rec_is(&sr, "net")) {
			rec_init(&r, &sr, "fuzz");
			if (net_read(&r, &net) != 0)
				break;
			have = 1;
		} else if (have && stream_rec_is(&sr, "task") &&
		    both(&sr, &fast, &tree, net.gpus) != 0)
			break;
	}
	dag_free(&fast);
	dag_free(&tree);
	stream_close(rd);
	fclose(fp);
}

/* A writer into memory, *buf and *len once fp is closed. */
static struct stream_writer *
mem_writer(FILE **fp, char **buf, size_t *len)
{
	struct stream_writer *w;

	if ((*fp = open_memstream(buf, len)) == NULL ||
	    (w = stream_writer(*fp)) == NULL)
		abort();
	return w;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stream_writer *w, *fw;
	struct dagin di, sl;
	char err[400], serr[400], *out, *fout;
	size_t olen, folen;
	int rc, src;
	FILE *fp, *fs, *op, *fop;

	w = mem_writer(&op, &out, &olen);
	fw = mem_writer(&fop, &fout, &folen);
	fp = fuzz_open(data, size);
	dagin_init(&di);
	dagin_init(&sl);
	err[0] = serr[0] = '\0';
	/* the tool "t", as framed_read() names it in the header it adds */
	rc = dagin_read(&di, fp, "fuzz", w, "t", 0, NULL, NULL, NULL, err,
	    sizeof(err));
	fs = fuzz_open(data, size);
	src = framed_read(&sl, NULL, fs, "fuzz", fw, serr, sizeof(serr));
	fclose(fs);
	if (rc != src || strcmp(err, serr) != 0 ||
	    !same_dag(&di.dag, &sl.dag) ||
	    memcmp(di.dag.hint, sl.dag.hint, sizeof(di.dag.hint)) != 0) {
		fprintf(stderr, "fuzz_tasks: quick and framed readings "
		    "differ: %d \"%s\", %d \"%s\"\n", rc, err, src, serr);
		abort();
	}
	dagin_free(&di);
	dagin_free(&sl);
	(void)stream_writer_close(w);
	(void)stream_writer_close(fw);
	fclose(op);
	fclose(fop);
	if (olen != folen || memcmp(out, fout, olen) != 0) {
		fprintf(stderr, "fuzz_tasks: quick and framed readings pass "
		    "different bytes through: %zu and %zu\n", olen, folen);
		abort();
	}
	free(out);
	free(fout);
	fclose(fp);
	differential(data, size);
	return 0;
}
