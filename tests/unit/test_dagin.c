/*
 * Unit tests of lib/model/dagin's quick path (filter_run_quick(), stream_peek(),
 * stream_accept(), taskfast_run()): streams read by dagin_read(),
 * which takes task records straight from the reader's buffer, and by
 * the same loop with every record framed by stream_next() and read
 * through taskio_read() and sched_take(), agree on the return, the
 * message, the DAG with its key hints, the schedule (plans and circuits
 * go the quick way too, as in ocssim), and every byte written.  The
 * streams are random DAGs and schedules as dagbuild and the schedulers
 * write them (past many refills of the 64 KiB buffer), with now and
 * then a task in another key order or a plan among the tasks (where the
 * quick runs stop), then damaged: a byte changed, cut short, a record
 * after the end record, a dependency list past the reader's item limit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dag.h"
#include "model/dagin.h"
#include "model/net.h"
#include "model/sched.h"
#include "model/schedfast.h"
#include "model/taskio.h"
#include "records/filter.h"
#include "records/header.h"
#include "records/rec.h"
#include "records/splitmix.h"
#include "records/stream.h"
#include "tap.h"
#include "framed.h"
#include "same.h"

static uint64_t seed = 7;

static uint64_t
rnd(uint64_t n)
{
	return n == 0 ? 0 : splitmix_next(&seed) % n;
}

/*
 * Task i with "step" first: a layout the quick reader does not take,
 * so that it stops there and the record goes the usual way.
 */
static void
write_step_first(msgpack_packer *pk, const struct dag *d, size_t i)
{
	const struct dag_task *t = &d->t[i];
	const uint32_t *dep = dag_deps(d, i);
	uint32_t j;

	stream_pack_record(pk, "task", 7 + (t->kind == DAG_TRANSFER));
	stream_pack_ku64(pk, "step", t->step);
	stream_pack_ku64(pk, "id", i);
	stream_pack_kstr(pk, "kind", t->kind == DAG_COMPUTE ? "compute" :
	    "transfer");
	stream_pack_str(pk, "deps");
	msgpack_pack_array(pk, t->ndep);
	for (j = 0; j < t->ndep; j++)
		msgpack_pack_uint32(pk, dep[j]);
	if (t->kind == DAG_COMPUTE) {
		stream_pack_ku64(pk, "gpu", t->gpu);
		stream_pack_ku64(pk, "duration_ps", t->amount);
		return;
	}
	stream_pack_ku64(pk, "src", t->gpu);
	stream_pack_ku64(pk, "dst", t->dst);
	stream_pack_ku64(pk, "bytes", t->amount);
}

/*
 * A stream of n random tasks on 16 GPUs, as dagbuild writes it but for
 * a task now and then with its keys in another order, and a plan now
 * and then among the tasks: the quick reader's runs end there.
 */
static char *
make_stream(size_t n, size_t bigdeps, size_t *len)
{
	static const uint64_t top[] = { 0x80, 0x100, 0x10000, 1ULL << 32,
	    UINT64_MAX };
	struct net net = { 0 };
	struct stream_writer *w;
	struct dag d;
	struct dag_task t;
	uint32_t *deps;
	char *buf = NULL;
	size_t i, j, k, sz = 0;
	FILE *fp = open_memstream(&buf, &sz);

	if ((deps = calloc(bigdeps + 8, sizeof(*deps))) == NULL)
		abort();
	w = stream_writer(fp);
	header_write(w, "test", 0, NULL);
	net.gpus = 16;
	net.switches = 2;
	net.bandwidth_bps = 800000000000ULL;
	net_write(stream_packer(w), &net);
	dag_init(&d);
	for (i = 0; i < n; i++) {
		memset(&t, 0, sizeof(t));
		t.kind = (uint8_t)rnd(2);
		t.gpu = (uint32_t)rnd(16);
		t.dst = (t.gpu + 1 + (uint32_t)rnd(15)) % 16;
		t.amount = splitmix_next(&seed) % top[rnd(5)];
		t.step = (uint16_t)rnd(3);
		k = i == 0 ? 0 : (i == n / 2 ? bigdeps : rnd(5));
		for (j = 0; j < k; j++)
			deps[j] = (uint32_t)rnd(i);
		dag_add(&d, &t, deps, k);
		if (rnd(64) == 0)
			write_step_first(stream_packer(w), &d, i);
		else
			taskio_write(stream_packer(w), &d, i, rnd(4) ?
			    "l0.fwd" : NULL, rnd(3) ? &i : NULL);
		if (rnd(128) == 0) {
			struct plan pl = { (uint32_t)i, (uint32_t)rnd(2),
			    rnd(1000) };

			sched_write_plan(stream_packer(w), &pl);
		}
	}
	for (i = 0; i < n / 4; i++) {	/* circuits and plans */
		struct circuit c = { (uint32_t)rnd(2), (uint32_t)rnd(16),
		    (uint32_t)rnd(16), rnd(1000), 0 };
		struct plan pl = { (uint32_t)rnd(n), (uint32_t)rnd(2),
		    rnd(3) ? splitmix_next(&seed) % top[rnd(5)] : 0 };

		c.to = rnd(3) ? c.from + 1 + rnd(1000) : SCHED_FOREVER;
		if (c.a == c.b)
			c.b = (c.a + 1) % 16;
		sched_write_circuit(stream_packer(w), &c);
		sched_write_plan(stream_packer(w), &pl);
	}
	stream_writer_close(w);
	fclose(fp);
	dag_free(&d);
	free(deps);
	*len = sz;
	return buf;
}

struct run {
	struct dagin	 in;
	struct schedule	 sc;
	int		 rc;
	char		 err[400];
	char		*out;
	size_t		 outlen;
};

/* As ocssim does: plans and circuits the quick way too. */
static void
other(void *arg, struct rec *r, const struct stream_rec *sr)
{
	struct run *q = arg;

	(void)sched_take(r, sr, &q->sc, q->in.have_net ? &q->in.net : NULL);
}

static size_t
quick(void *arg, const uint8_t *p, size_t n, const struct stream_limits *lim,
    size_t *len)
{
	struct run *q = arg;

	return schedfast_run(p, n, lim, &q->sc, &q->in.net, len);
}

static void
read_both(const char *b, size_t n, struct run *q, struct run *s)
{
	struct run *r[2] = { q, s };
	struct stream_writer *w;
	FILE *fp, *out;
	int i;

	for (i = 0; i < 2; i++) {
		dagin_init(&r[i]->in);
		sched_init(&r[i]->sc);
		r[i]->err[0] = '\0';
		fp = fmemopen((void *)(uintptr_t)b, n, "r");
		out = open_memstream(&r[i]->out, &r[i]->outlen);
		w = stream_writer(out);
		if (i == 0) {
			q->in.quick = (struct filter_quick){ quick, q };
			r[i]->rc = dagin_read(&r[i]->in, fp, "mem", w, "t", 0,
			    NULL, other, q, r[i]->err, sizeof(r[i]->err));
		} else
			r[i]->rc = framed_read(&s->in, &s->sc, fp, "mem", w,
			    s->err, sizeof(s->err));
		(void)stream_writer_close(w);
		fclose(out);
		fclose(fp);
	}
}

/* Both readings of one stream agree; 1 when they do. */
static int
agree(const char *b, size_t n, int *failed)
{
	struct run q, s;
	int same;

	read_both(b, n, &q, &s);
	same = q.rc == s.rc && strcmp(q.err, s.err) == 0 &&
	    same_dag(&q.in.dag, &s.in.dag) &&
	    memcmp(q.in.dag.hint, s.in.dag.hint, sizeof(q.in.dag.hint)) == 0 &&
	    same_sched(&q.sc, &s.sc) &&
	    q.outlen == s.outlen && memcmp(q.out, s.out, q.outlen) == 0;
	if (!same)
		printf("# differ: %d \"%s\" / %d \"%s\"; %zu / %zu tasks\n",
		    q.rc, q.err, s.rc, s.err, q.in.dag.n, s.in.dag.n);
	*failed = q.rc != 0;
	dagin_free(&q.in);
	dagin_free(&s.in);
	sched_free(&q.sc);
	sched_free(&s.sc);
	free(q.out);
	free(s.out);
	return same;
}

/* Where the first task record at or after byte at begins, or n. */
static size_t
task_at(const char *b, size_t n, size_t at)
{
	static const char key[] = "\xa4type\xa4task";

	for (at++; at + sizeof(key) - 1 <= n; at++)
		if (memcmp(b + at, key, sizeof(key) - 1) == 0)
			return at - 1;
	return n;
}

static void
damaged(const char *b, size_t n)
{
	size_t i, good = 0, failed = 0, runs = 300;
	char *c;
	int f;

	if ((c = malloc(n + 64)) == NULL)
		abort();
	for (i = 0; i < runs; i++) {
		size_t len = n, at = rnd(n);

		memcpy(c, b, n);
		switch (i % 3) {
		case 0:
			c[at] = (char)splitmix_next(&seed);
			break;
		case 1:
			len = at;
			break;
		default:	/* an end record, then the stream goes on */
			at = task_at(b, n, at);
			memcpy(c + at, "\x81\xa4type\xa3" "end", 10);
			memcpy(c + at + 10, b + at, n - at);
			len = n + 10;
			break;
		}
		good += agree(c, len, &f);
		failed += f;
	}
	ok(good == runs, "%zu of %zu damaged streams read alike both ways "
	    "(%zu refused)", good, runs, failed);
	ok(failed > runs / 3, "most damaged streams are refused");
	free(c);
}

/* Three tasks, then one circuit or plan that ocssim must refuse. */
static void
bad_schedule(void)
{
	static const struct circuit cs[] = {
		{ 0, 3, 3, 0, 10 },		/* a GPU to itself */
		{ 2, 0, 1, 0, 10 },		/* switch out of range */
		{ 0, 0, 16, 0, 10 },		/* GPU out of range */
		{ 0, 0, 1, 10, 10 },		/* from not before to */
	};
	static const struct plan ps[] = {
		{ 1, 2, 0 },			/* switch out of range */
		{ UINT32_MAX, 0, 0 },		/* task past the limit */
	};
	size_t i, good = 0, k = 0, n;
	char *b, *c = NULL;
	FILE *fp;
	int f;

	b = make_stream(3, 0, &n);
	for (i = 0; i < 6; i++) {
		struct stream_writer *w;
		size_t len = 0;

		fp = open_memstream(&c, &len);
		fwrite(b, 1, n - 10, fp);	/* all but the end record */
		w = stream_writer(fp);
		if (i < 4)
			sched_write_circuit(stream_packer(w), &cs[i]);
		else
			sched_write_plan(stream_packer(w), &ps[i - 4]);
		stream_writer_close(w);
		fclose(fp);
		good += agree(c, len, &f);
		k += f;
		free(c);
	}
	ok(good == 6 && k == 6, "circuits and plans a scheduler lays out but "
	    "out of range: the same refusals both ways (%zu of 6)", good);
	free(b);
}

int
main(void)
{
	size_t n;
	char *b;
	int f;

	b = make_stream(20000, 0, &n);
	ok(agree(b, n, &f) && !f, "20000 tasks, 5000 circuits and plans "
	    "(%zu bytes): the same DAG, hints, schedule, message and output "
	    "both ways", n);
	free(b);
	/* damage finds as much in a tenth of it, at a tenth of the cost */
	b = make_stream(2000, 0, &n);
	damaged(b, n);
	free(b);
	bad_schedule();
	b = make_stream(50, 1048577, &n);
	ok(agree(b, n, &f) && f, "a task with more dependencies than the "
	    "reader's item limit: the same refusal both ways");
	free(b);
	return tap_done();
}
