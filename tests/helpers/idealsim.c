/*
 * idealsim: test helper that replays a task DAG on the ideal fabric of
 * ocssim(1), written from that page's words alone, so that the
 * makespans and task times of ocssim -f ideal are checked by a second
 * implementation.  It is an independent checker: it shares no code
 * with lib/, frames records with the scanner of recscan.h (which
 * fluxenum uses too) and decodes them with msgpack-c.
 *
 * usage: idealsim [-t] < stream
 *
 * It reads the net record and the task records, ignores every other
 * record and every unknown key, and prints the makespan in
 * picoseconds; -t prints instead one line per task, in id order,
 * "id start_ps end_ps".  Exit 0; 1 on bad input, on a time past 2^64
 * ps or when no transfer can move; 2 on misuse.  Work is O(flows^2)
 * per instant at which something ends: enough for tests.
 *
 * The model.  Every GPU sends, and receives, up to switches x
 * bandwidth_bps in all.  A transfer starts when its dependencies have
 * ended; the transfers in progress share the GPUs' sides max-min
 * fairly by progressive filling: all rates rise together, the flows
 * through the first side to fill are held at their share, rounded down
 * to a whole bit/s, which is taken off both of their sides, and the
 * rest rise on.  The first side to fill is the one whose capacity left
 * over its flows not yet held is least, compared exactly as fractions;
 * sides of the same least share fill at once.  A flow whose share
 * rounds down to 0 waits; when nothing can move any more, idealsim
 * names the instant and exits 1.  Rates are
 * shared anew at every instant a transfer starts or ends.  The work
 * of a transfer is kept exactly, bytes x 8 x 10^12 units, of which a
 * rate of r bit/s does r a picosecond; a transfer has sent all at the
 * first picosecond by which its work is done and ends latency_ps
 * later.  A compute task ends duration_ps after it starts; those of a
 * GPU run one at a time in id order, each once the one before it has
 * ended and its own dependencies have.
 */
#include <err.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <msgpack.h>

#include "recscan.h"

#define MAX_GPUS	1048576
#define MAX_SWITCHES	1024
#define PS		1000000000000ULL

typedef unsigned __int128 u128;

enum { WAIT, FLOW, TIMED, DONE };

struct task {
	int		 xfer;
	int		 state;
	uint64_t	 gpu, src, dst, bytes, dur;
	uint64_t	 start, end;
	uint64_t	 left;		/* dependencies not ended */
	uint64_t	 ndeps, dep0;	/* slice of deps[] */
	uint64_t	 nsucc, succ0;	/* slice of succ[] */
	u128		 rem;		/* work left, in bit ps */
	uint64_t	 rate;		/* bit/s */
	int		 frozen;
};


static int		 netseen;
static uint64_t		 gpus, capacity, latency;

static struct task	*t;
static uint64_t		 nt, tcap;
static uint64_t		*deps, ndep, depcap;
static uint64_t		*succ;
static uint64_t		*flows, nflow;	/* transfers in progress */
static uint64_t		*stack, nstack;	/* tasks ending now */
static uint64_t		*chain, *chain0, *chainpos; /* per GPU */
static int		*busy;
static u128		*side;		/* capacity left per side */
static uint64_t		*cnt;		/* flows not held */
static uint64_t		 now;

static _Noreturn void
usage(void)
{
	fprintf(stderr, "usage: idealsim [-t]\n");
	exit(2);
}

static void *
xreallocarray(void *p, size_t n, size_t sz)
{
	if (n != 0 && SIZE_MAX / n < sz)
		errx(1, "out of memory");
	if ((p = realloc(p, n * sz)) == NULL)
		err(1, NULL);
	return p;
}

static void *
xcalloc(size_t n, size_t sz)
{
	void *p;

	if ((p = calloc(n == 0 ? 1 : n, sz)) == NULL)
		err(1, NULL);
	return p;
}

static void
read_net(const struct rec *r)
{
	const msgpack_object *o;
	uint64_t sw, bw;

	if (netseen)
		errx(1, "byte %" PRIu64 ": second net record", r->off);
	netseen = 1;
	gpus = getu(r, "gpus");
	sw = getu(r, "switches");
	bw = getu(r, "bandwidth_bps");
	if ((o = get(r, "latency_ps")) != NULL)
		latency = uint_of(r, "latency_ps", o);
	if (gpus == 0 || gpus > MAX_GPUS)
		bad(r, "gpus", "not from 1 to 1048576");
	if (sw == 0 || sw > MAX_SWITCHES)
		bad(r, "switches", "not from 1 to 1024");
	if (bw == 0)
		bad(r, "bandwidth_bps", "must be positive");
	if ((u128)sw * bw > UINT64_MAX)
		bad(r, "bandwidth_bps", "switches x bandwidth_bps past 2^64");
	capacity = sw * bw;
}

static void
read_deps(const struct rec *r, struct task *p)
{
	const msgpack_object *o = need_key(r, "deps");
	uint32_t i;
	uint64_t d;

	if (o->type != MSGPACK_OBJECT_ARRAY)
		bad(r, "deps", "not an array");
	p->dep0 = ndep;
	p->ndeps = o->via.array.size;
	for (i = 0; i < o->via.array.size; i++) {
		if (o->via.array.ptr[i].type != MSGPACK_OBJECT_POSITIVE_INTEGER)
			bad(r, "deps", "not an array of unsigned integers");
		if ((d = o->via.array.ptr[i].via.u64) >= nt)
			bad(r, "deps", "not an earlier task");
		if (ndep == depcap) {
			depcap = depcap == 0 ? 1024 : depcap * 2;
			deps = xreallocarray(deps, depcap, sizeof(*deps));
		}
		deps[ndep++] = d;
	}
}

static void
read_task(const struct rec *r)
{
	const msgpack_object *kind;
	struct task *p;

	if (!netseen)
		errx(1, "byte %" PRIu64 ": task record before the net record",
		    r->off);
	if (nt == tcap) {
		tcap = tcap == 0 ? 256 : tcap * 2;
		t = xreallocarray(t, tcap, sizeof(*t));
	}
	p = &t[nt];
	memset(p, 0, sizeof(*p));
	if (getu(r, "id") != nt)
		bad(r, "id", "ids must be dense from 0 in stream order");
	read_deps(r, p);
	kind = need_key(r, "kind");
	if (getstr_is(r, "kind", kind, "transfer")) {
		p->xfer = 1;
		p->src = getu(r, "src");
		p->dst = getu(r, "dst");
		p->bytes = getu(r, "bytes");
		if (p->src >= gpus)
			bad(r, "src", "not below the net's gpus");
		if (p->dst >= gpus)
			bad(r, "dst", "not below the net's gpus");
		if (p->src == p->dst)
			bad(r, "dst", "same as src");
	} else if (getstr_is(r, "kind", kind, "compute")) {
		p->gpu = getu(r, "gpu");
		if (p->gpu >= gpus)
			bad(r, "gpu", "not below the net's gpus");
		p->dur = getu(r, "duration_ps");
	} else
		bad(r, "kind", "neither \"compute\" nor \"transfer\"");
	nt++;
}

static void
parse(void)
{
	scan_records(SIZE_MAX, read_net, read_task);
	if (!netseen)
		errx(1, "no net record");
	if (nt == 0)
		errx(1, "no task record");
}

/* Successor lists and the compute chain of every GPU, in id order. */
static void
prepare(void)
{
	uint64_t i, j, g, *fill;

	succ = xcalloc(ndep, sizeof(*succ));
	fill = xcalloc(nt, sizeof(*fill));
	for (j = 0; j < ndep; j++)
		t[deps[j]].nsucc++;
	for (i = 0, j = 0; i < nt; i++) {
		t[i].succ0 = j;
		j += t[i].nsucc;
		t[i].left = t[i].ndeps;
	}
	for (i = 0; i < nt; i++)
		for (j = 0; j < t[i].ndeps; j++) {
			g = deps[t[i].dep0 + j];
			succ[t[g].succ0 + fill[g]++] = i;
		}
	free(fill);
	chain = xcalloc(nt, sizeof(*chain));
	chain0 = xcalloc(gpus + 1, sizeof(*chain0));
	chainpos = xcalloc(gpus, sizeof(*chainpos));
	busy = xcalloc(gpus, sizeof(*busy));
	for (i = 0; i < nt; i++)
		if (!t[i].xfer)
			chain0[t[i].gpu + 1]++;
	for (g = 0; g < gpus; g++)
		chain0[g + 1] += chain0[g];
	for (i = 0; i < nt; i++)
		if (!t[i].xfer)
			chain[chain0[t[i].gpu] + chainpos[t[i].gpu]++] = i;
	memset(chainpos, 0, gpus * sizeof(*chainpos));
	flows = xcalloc(nt, sizeof(*flows));
	stack = xcalloc(nt, sizeof(*stack));
	side = xcalloc(2 * gpus, sizeof(*side));
	cnt = xcalloc(2 * gpus, sizeof(*cnt));
}

static uint64_t
add_time(uint64_t a, u128 b, uint64_t id)
{
	if (b > UINT64_MAX - a)
		errx(1, "task %" PRIu64 " would end after "
		    "18446744073709551615 ps", id);
	return a + (uint64_t)b;
}

/* Task i ends at e: now, or later. */
static void
end_at(uint64_t i, uint64_t e)
{
	t[i].end = e;
	if (e == now)
		stack[nstack++] = i;
	else
		t[i].state = TIMED;
}

/* Start the next compute task of GPU g if it is free and that is ready. */
static void
try_gpu(uint64_t g)
{
	uint64_t i;

	if (busy[g] || chain0[g] + chainpos[g] == chain0[g + 1])
		return;
	i = chain[chain0[g] + chainpos[g]];
	if (t[i].left > 0)
		return;
	busy[g] = 1;
	t[i].start = now;
	end_at(i, add_time(now, t[i].dur, i));
}

static void
ready(uint64_t i)
{
	if (!t[i].xfer) {
		try_gpu(t[i].gpu);
		return;
	}
	t[i].start = now;
	t[i].rem = (u128)t[i].bytes * 8 * PS;
	if (t[i].rem == 0) {
		end_at(i, add_time(now, latency, i));
		return;
	}
	t[i].state = FLOW;
	flows[nflow++] = i;
}

/* Everything that ends at this instant, and what that lets start. */
static void
settle(void)
{
	uint64_t i, j, k;

	while (nstack > 0) {
		i = stack[--nstack];
		t[i].state = DONE;
		if (!t[i].xfer) {
			busy[t[i].gpu] = 0;
			chainpos[t[i].gpu]++;
		}
		for (j = 0; j < t[i].nsucc; j++) {
			k = succ[t[i].succ0 + j];
			if (--t[k].left == 0)
				ready(k);
		}
		if (!t[i].xfer)
			try_gpu(t[i].gpu);
	}
}

/* Whether side s's share is below (or, with eq, equal to) n / d. */
static int
below(uint64_t s, u128 n, u128 d, int eq)
{
	u128 a = side[s] * d, b = n * cnt[s];

	return eq ? a == b : a < b;
}

/* Progressive filling over the sides of the flows in progress. */
static void
share(void)
{
	uint64_t f, i, s[2], left = nflow;
	u128 n, d;
	int k;

	for (f = 0; f < nflow; f++) {
		i = flows[f];
		t[i].frozen = 0;
		side[t[i].src] = side[gpus + t[i].dst] = capacity;
		cnt[t[i].src] = cnt[gpus + t[i].dst] = 0;
	}
	for (f = 0; f < nflow; f++) {
		cnt[t[flows[f]].src]++;
		cnt[gpus + t[flows[f]].dst]++;
	}
	while (left > 0) {
		n = 0;
		d = 0;
		for (f = 0; f < nflow; f++) {
			i = flows[f];
			if (t[i].frozen)
				continue;
			s[0] = t[i].src;
			s[1] = gpus + t[i].dst;
			for (k = 0; k < 2; k++)
				if (d == 0 || below(s[k], n, d, 0)) {
					n = side[s[k]];
					d = cnt[s[k]];
				}
		}
		for (f = 0; f < nflow; f++) {
			i = flows[f];
			if (!t[i].frozen && (below(t[i].src, n, d, 1) ||
			    below(gpus + t[i].dst, n, d, 1)))
				t[i].frozen = 2;
		}
		for (f = 0; f < nflow; f++) {
			i = flows[f];
			if (t[i].frozen != 2)
				continue;
			t[i].frozen = 1;
			t[i].rate = (uint64_t)(n / d);
			side[t[i].src] -= t[i].rate;
			side[gpus + t[i].dst] -= t[i].rate;
			cnt[t[i].src]--;
			cnt[gpus + t[i].dst]--;
			left--;
		}
	}
}

/* The next instant something ends, in *ep; 0 if nothing will. */
static int
next_event(uint64_t *ep)
{
	uint64_t i, f, last = UINT64_MAX;
	int any = 0;
	u128 d, e = (u128)UINT64_MAX + 1;

	for (i = 0; i < nt; i++)
		if (t[i].state == TIMED && t[i].end < e) {
			e = t[i].end;
			any = 1;
		}
	for (f = 0; f < nflow; f++) {
		i = flows[f];
		if (t[i].rate == 0)
			continue;
		any = 1;
		d = now + (t[i].rem + t[i].rate - 1) / t[i].rate;
		if (d < e || last == UINT64_MAX)
			last = i;
		if (d < e)
			e = d;
	}
	if (any && e > UINT64_MAX)
		errx(1, "task %" PRIu64 " would end after "
		    "18446744073709551615 ps", last);
	*ep = (uint64_t)e;
	return any;
}

/* Move time on to e: work done, flows that have sent all, tasks due. */
static void
advance(uint64_t e)
{
	uint64_t f, i, w = 0;
	u128 done;

	for (f = 0; f < nflow; f++) {
		i = flows[f];
		done = (u128)t[i].rate * (e - now);
		t[i].rem = done >= t[i].rem ? 0 : t[i].rem - done;
	}
	now = e;
	for (f = 0; f < nflow; f++) {
		i = flows[f];
		if (t[i].rem > 0) {
			flows[w++] = i;
			continue;
		}
		t[i].state = WAIT;
		end_at(i, add_time(now, latency, i));
	}
	nflow = w;
	for (i = 0; i < nt; i++)
		if (t[i].state == TIMED && t[i].end == now)
			stack[nstack++] = i;
}

static uint64_t
simulate(void)
{
	uint64_t i, e, span = 0;

	for (i = 0; i < nt; i++)
		if (t[i].left == 0)
			ready(i);
	for (;;) {
		settle();
		share();
		if (!next_event(&e))
			break;
		advance(e);
	}
	for (i = 0; i < nt; i++) {
		if (t[i].state != DONE)
			errx(1, "no transfer can move at %" PRIu64 " ps: "
			    "task %" PRIu64 " not done", now, i);
		if (t[i].end > span)
			span = t[i].end;
	}
	return span;
}

int
main(int argc, char *argv[])
{
	uint64_t i, span;
	int ch, tflag = 0;

	while ((ch = getopt(argc, argv, "t")) != -1)
		switch (ch) {
		case 't':
			tflag = 1;
			break;
		default:
			usage();
		}
	if (argc != optind)
		usage();
	slurp();
	parse();
	prepare();
	span = simulate();
	if (tflag)
		for (i = 0; i < nt; i++)
			printf("%" PRIu64 " %" PRIu64 " %" PRIu64 "\n", i,
			    t[i].start, t[i].end);
	else
		printf("%" PRIu64 "\n", span);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(1, "stdout");
	return 0;
}
