/*
 * fuzz_ops: the op reader, that is dagbuild's input: the op records
 * through lib/records/stream, lib/records/header and lib/records/rec, then dagbuild's own
 * checks of the trace (ids, dependencies, matching of collectives and
 * of sends with receives, deadlocks) and the expansion into tasks.
 *
 * No library function reads ops: tools/dagbuild/dagbuild.c and its parts
 * (dagbuild_match.c, dagbuild_expand.c) do, and they stop on bad input
 * with die(), which exits.  So this file includes the three with die()
 * renamed to fuzz_die() for this translation unit only: fuzz_die()
 * returns to the target by longjmp, the target frees what dagbuild held
 * and the input counts as refused.  lib/records/die is untouched; so are the
 * tool's files.  What a refused input had allocated
 * inside one of dagbuild's functions is lost on the way out, so leak
 * detection is off for this target (__lsan_is_turned_off below).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "fuzz.h"

#define die	fuzz_die
#define main	dagbuild_main
int	dagbuild_main(int, char **);
#include "../../tools/dagbuild/dagbuild.c"
#include "../../tools/dagbuild/dagbuild_match.c"
#include "../../tools/dagbuild/dagbuild_expand.c"
#undef die
#undef main

#include "fuzzdie.h"

/* filter_run()'s loop, with the reader held here to close it. */
static struct stream_reader *rd;

static void
read_ops(struct build *b, FILE *fp, struct stream_writer *w)
{
	struct header_end end = { 0, 0, 0 };
	struct stream_rec sr;
	char err[400];
	int rc;

	if ((rd = stream_open(fp, b->input)) == NULL)
		abort();
	if ((rc = header_pass(rd, w, &sr, "dagbuild", 0, NULL, &end, err,
	    sizeof(err))) < 0)
		fuzz_die("%s", err);
	for (; rc > 0; rc = stream_next(rd, &sr)) {
		if (header_follow(&end, rd, &sr, err, sizeof(err)) != 0 ||
		    (stream_rec_is(&sr, "header") &&
		    header_check(rd, &sr, err, sizeof(err)) != 0))
			fuzz_die("%s", err);
		if (!stream_rec_is(&sr, "header") &&
		    !stream_rec_is(&sr, "end"))
			(void)take(b, &sr);
	}
	if (rc < 0)
		fuzz_die("%s", stream_error(rd));
	if (header_finish(&end, rd, err, sizeof(err)) != 0)
		fuzz_die("%s", err);
}

/* dagbuild's main() from the input on: read, check, expand, write. */
static void
build(struct build *b, FILE *fp, struct stream_writer *w)
{
	static char *argv[] = { "dagbuild", NULL };
	struct fabopt fo;
	struct net net;
	uint32_t need;

	optind = 1;
	memset(&fo, 0, sizeof(fo));
	parse_args(b, &net, &fo, 1, argv);
	read_ops(b, fp, w);
	if (b->ops.n == 0)
		fuzz_die("no op records");
	resolve_deps(b);
	make_nodes(b);
	need = count_gpus(b);
	net.gpus = need;
	expand(b);
	net_write(stream_packer(w), &net);
	write_tasks(b, stream_packer(w));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stream_writer *w = fuzz_writer();
	static struct build b;
	FILE *fp;

	memset(&b, 0, sizeof(b));
	b.input = "fuzz";
	rd = NULL;
	fp = fuzz_open(data, size);
	if (setjmp(refused) == 0)
		build(&b, fp, w);
	if (rd != NULL)
		stream_close(rd);
	free_build(&b);
	(void)stream_writer_close(w);
	fclose(fp);
	return 0;
}
