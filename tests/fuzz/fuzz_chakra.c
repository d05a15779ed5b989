/*
 * fuzz_chakra: chakra(1)'s import of a Chakra execution trace: one
 * rank's .et file decoded into nodes (tools/chakra/chakra_et.c, through
 * lib/records/pbwire), the communicator groups of a comm_group.json, and the
 * importer's checks across ranks (tools/chakra/chakra.c: ids, collectives
 * matched in each communicator, sends paired with receives,
 * dependencies resolved through skipped nodes, cycles) up to the op
 * stream it writes (to /dev/null).
 *
 * The low two bits of the input's first byte say what the rest is:
 *
 *	0	one rank's file, fuzz.0.et, read by ck_rank_fread();
 *	1	a comm_group.json, fuzz.json, read by ck_groups_parse();
 *	2	a trace: the rest cut at each SEP ("\n--\n") into up to
 *		NRANKS rank files (the last takes what follows, SEPs and
 *		all), imported as chakra fuzz does fuzz.0.et ...;
 *	3	the same, with a comm_group.json before the first SEP,
 *		as chakra -g fuzz.json fuzz does.
 *
 * The readers die on bad input, and so does chakra.c, whose checks no
 * library function has: this file includes chakra_et.c and chakra.c
 * with die() renamed to fuzz_die() (and main() to chakra_main()),
 * which returns to the target by longjmp, as fuzz_ops does with
 * dagbuild.c; both files are otherwise as the tool builds them.  The
 * exporter half, chakra_out.c, is linked as it is (see the Makefile)
 * and not run.  What a refused input had allocated inside a function
 * that died is lost on the way out (but for the frame buffer of the
 * rank reader, freed here), so leak detection is off here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"

void	fuzz_die(const char *, ...)
	    __attribute__((noreturn, format(printf, 1, 2)));

#include "records/pbwire.h"

/*
 * The frame buffer of the rank being read, freed here when the reader
 * dies: refused inputs are most of a run, and their buffers would
 * otherwise pile up to the fuzzer's memory limit.
 */
static uint8_t *frames_buf;

static int
fuzz_frame_next(struct pb_frames *fr, struct pbuf *m, char *err, size_t len)
{
	int rc;

	rc = pb_frame_next(fr, m, err, len);
	frames_buf = fr->buf;
	return rc;
}

static void
fuzz_frames_free(struct pb_frames *fr)
{
	pb_frames_free(fr);
	frames_buf = NULL;
}

#define die	fuzz_die
#define main	chakra_main
#define add_dep	et_add_dep	/* chakra.c has an add_dep() of its own */
#define pb_frame_next	fuzz_frame_next
#define pb_frames_free	fuzz_frames_free
#include "../../tools/chakra/chakra_et.c"
#undef add_dep
#undef pb_frame_next
#undef pb_frames_free
int	chakra_main(int, char **);
#include "../../tools/chakra/chakra.c"
#undef die
#undef main

#define SEP	"\n--\n"
#define NRANKS	4

#include "fuzzdie.h"

struct part {
	const uint8_t	*p;
	size_t		 n;
};

/* The offset of the first SEP in p[0..n), or n. */
static size_t
find_sep(const uint8_t *p, size_t n)
{
	size_t i, l = strlen(SEP);

	for (i = 0; i + l <= n; i++)
		if (memcmp(p + i, SEP, l) == 0)
			return i;
	return n;
}

/* The input cut at SEP into at most max parts; returns how many. */
static size_t
cut(const uint8_t *p, size_t n, struct part *pt, size_t max)
{
	size_t k = 0, s;

	while (k + 1 < max && (s = find_sep(p, n)) < n) {
		pt[k++] = (struct part){ p, s };
		n -= s + strlen(SEP);
		p += s + strlen(SEP);
	}
	pt[k++] = (struct part){ p, n };
	return k;
}

/* One rank's file through the reader chakra's main() uses. */
static FILE *fp;

static void
read_rank(const struct part *pt, const char *file, struct ck_rank *rk)
{
	fp = fuzz_open(pt->p, pt->n);
	ck_rank_fread(file, fp, rk);
	fclose(fp);
	fp = NULL;
}

/* chakra's main() from list_ranks() on, with the parts as its files. */
static void
import(struct imp *im, const struct part *pt, size_t npt, int groups)
{
	static char *argv[] = { "chakra", "fuzz", NULL };
	char file[32];
	uint32_t rank;

	im->prefix = "fuzz";
	im->nranks = (uint32_t)(npt - (groups != 0));
	/* Before anything can die, so that free_all() finds them. */
	im->all = xcalloc(im->nranks, sizeof(*im->all));
	for (rank = 0; rank < im->nranks; rank++)
		im->all[rank] = rank;
	im->rk = xcalloc(im->nranks, sizeof(*im->rk));
	if (groups) {
		im->have_groups = 1;
		ck_groups_parse("fuzz.json", (const char *)pt->p, pt->n,
		    &im->groups);
		pt++;
	}
	for (rank = 0; rank < im->nranks; rank++) {
		snprintf(file, sizeof(file), "fuzz.%u.et", rank);
		read_rank(&pt[rank], file, &im->rk[rank].tr);
	}
	import_all(im);
	write_all(im, 2, argv);
}

/* free_all() frees the ops of every rank: those not reached have none. */
static void
free_import(struct imp *im)
{
	uint32_t rank;

	for (rank = 0; im->rk != NULL && rank < im->nranks; rank++)
		if (im->rk[rank].op == NULL) {
			ck_rank_free(&im->rk[rank].tr);
			memset(&im->rk[rank].tr, 0, sizeof(im->rk[rank].tr));
		}
	if (im->rk == NULL)
		im->nranks = 0;
	free_all(im);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct imp im;
	static struct ck_rank rk;
	static struct ck_groups gs;
	static int quiet;
	struct part pt[NRANKS + 1];
	size_t npt = 1;
	int mode;

	if (size == 0)
		return 0;
	/* write_all() writes the op stream to stdout. */
	if (!quiet && freopen("/dev/null", "w", stdout) == NULL)
		abort();
	quiet = 1;
	mode = data[0] & 3;
	pt[0] = (struct part){ data + 1, size - 1 };
	if (mode >= 2)
		npt = cut(pt[0].p, pt[0].n, pt, mode == 3 ? NRANKS + 1 :
		    NRANKS);
	imp_init(&im);
	memset(&rk, 0, sizeof(rk));
	memset(&gs, 0, sizeof(gs));
	fp = NULL;
	if (setjmp(refused) == 0) {
		if (mode == 0)
			read_rank(&pt[0], "fuzz.0.et", &rk);
		else if (mode == 1)
			ck_groups_parse("fuzz.json", (const char *)pt[0].p,
			    pt[0].n, &gs);
		else if (mode == 2 || npt > 1)
			import(&im, pt, npt, mode == 3);
	}
	if (fp != NULL)
		fclose(fp);
	free(frames_buf);
	frames_buf = NULL;
	ck_rank_free(&rk);
	ck_groups_free(&gs);
	free_import(&im);
	return 0;
}
