/* Unit tests of lib/model/dag and lib/records/heap: order, cycles, stability, sorts. */
#include <stdint.h>
#include <stdlib.h>

#include "model/dag.h"
#include "records/heap.h"
#include "same.h"
#include "records/splitmix.h"
#include "tap.h"

static void
heap_order(void)
{
	struct heap h;
	struct heap_item it;
	uint64_t prev_key = 0, prev_seq = 0, i;
	int sorted = 1;
	size_t n = 0;

	heap_init(&h);
	for (i = 0; i < 1000; i++)
		heap_push(&h, (i * 7919) % 97, i, i);
	while (heap_pop(&h, &it)) {
		if (n > 0 && (it.key < prev_key || (it.key == prev_key &&
		    it.seq < prev_seq)))
			sorted = 0;
		prev_key = it.key;
		prev_seq = it.seq;
		n++;
	}
	ok(sorted && n == 1000, "heap pops by key, then by sequence");
	ok(heap_peek(&h) == NULL && !heap_pop(&h, &it), "empty heap");
	heap_free(&h);
}

static void
toposort(void)
{
	/* 0 <- 2, 1 <- 0, 3 <- 1 2 */
	size_t off[] = { 0, 1, 2, 2, 4 };
	uint32_t adj[] = { 2, 0, 1, 2 }, order[4];
	size_t cyc = 99;
	/* cycle: 0 <- 1, 1 <- 0, 2 free */
	size_t coff[] = { 0, 1, 2, 2 };
	uint32_t cadj[] = { 1, 0 };

	ok(dag_toposort(4, off, adj, order, &cyc) == 0 && order[0] == 2 &&
	    order[1] == 0 && order[2] == 1 && order[3] == 3,
	    "stable topological order");
	ok(dag_toposort(3, coff, cadj, order, &cyc) == -1 && cyc <= 1,
	    "a cycle is found and a node on it named (%zu)", cyc);
}

static void
add_rules(void)
{
	struct dag d;
	struct dag_task t = { .kind = DAG_COMPUTE, .amount = 5 };
	uint32_t dep[] = { 0 }, self[] = { 2 };

	dag_init(&d);
	ok(dag_add(&d, &t, NULL, 0) == 0, "a task without dependencies");
	ok(dag_add(&d, &t, dep, 1) == 0, "a task on an earlier one");
	ok(dag_add(&d, &t, self, 1) != 0 && d.n == 2, "refuses a task that "
	    "depends on itself");
	ok(d.n == 2 && dag_deps(&d, 1)[0] == 0, "deps stored");
	dag_free(&d);
}

/* Regression: with no dependency in the whole dag, the dependency
 * array was never allocated and dag_deps() added 0 to NULL (UB that
 * clang's UBSan reports in every caller, e.g. greedy's levels). */
static void
deps_without_any(void)
{
	struct dag d;
	struct dag_task t = { .kind = DAG_COMPUTE, .amount = 5 };

	dag_init(&d);
	ok(dag_add(&d, &t, NULL, 0) == 0 && dag_add(&d, &t, NULL, 0) == 0,
	    "two tasks without dependencies");
	ok(dag_deps(&d, 0) != NULL && dag_deps(&d, 1) != NULL,
	    "regression: dag_deps of a dag without any dependency is not "
	    "NULL plus 0");
	dag_free(&d);
}

/*
 * A random task, its dependencies in p's room, added to a and pushed
 * into p (whose room the caller reserved); 0 when dag_add() fails.
 */
static int
add_and_push(struct dag *a, struct dag *p, uint64_t *st)
{
	struct dag_task t = { 0 };
	uint32_t *dep, nd, j;

	t.kind = p->n % 3 == 0 ? DAG_COMPUTE : DAG_TRANSFER;
	t.gpu = (uint32_t)(p->n % 8);
	t.dst = (uint32_t)((p->n + 1) % 8);
	t.amount = splitmix_next(st);
	t.step = (uint16_t)(p->n % 5);
	nd = p->n == 0 ? 0 : (uint32_t)(splitmix_next(st) % 5);
	dep = dag_dep_space(p, nd);
	for (j = 0; j < nd; j++)
		dep[j] = (uint32_t)(splitmix_next(st) % p->n);
	if (dag_add(a, &t, dep, nd) != 0)
		return 0;
	dag_push(p, &t, nd);
	return 1;
}

/*
 * Tasks pushed into reserved room (dag_reserve(), dag_push()) make the
 * DAG dag_add() makes of them, in batches that end where the room does
 * and past it (more reserved than used); a reservation that cannot be
 * made is refused and changes nothing.
 */
static void
push_as_add(void)
{
	struct dag a, p;
	uint64_t st = 7;
	size_t batch, room, i, cap, n0, ndep0;
	int fine = 1;

	dag_init(&a);
	dag_init(&p);
	while (p.n < 5000 && fine) {
		batch = 1 + splitmix_next(&st) % 300;
		room = batch + splitmix_next(&st) % 3;
		if (dag_reserve(&p, room) != 0 || p.cap - p.n < room) {
			fine = 0;
			break;
		}
		n0 = p.n;
		ndep0 = p.ndep;
		for (i = 0; i < batch && fine; i++)
			fine = add_and_push(&a, &p, &st);
		dag_pushed(&p, n0, ndep0);
	}
	while (fine && p.n < p.cap)
		fine = add_and_push(&a, &p, &st);
	ok(fine && same_dag(&a, &p), "%zu tasks pushed in batches into "
	    "reserved room, the last filling it: the DAG dag_add() makes of "
	    "them", p.n);
	ok(dag_reserve(&p, 1) == 0 && p.cap > p.n, "room for one more task "
	    "once it is full");
	i = p.n;
	cap = p.cap;
	ok(dag_reserve(&p, SIZE_MAX) != 0 && p.n == i &&
	    p.cap == cap && same_dag(&a, &p), "room past SIZE_MAX is refused "
	    "and the DAG left as it was");
	dag_free(&a);
	dag_free(&p);
}

/*
 * dag_sort_desc() against a selection sort by (key desc, id asc), on
 * ids in order (the radix path, from 64 ids on) and shuffled (qsort),
 * with keys from a few values (ties) or from all 64 bits.
 */
static void
sort_case(size_t n, int shuffled, int narrow, uint64_t *st)
{
	static uint32_t idx[700], ref[700];
	static uint64_t key[1000];
	size_t i, j, k, good;

	for (i = 0; i < 1000; i++)
		key[i] = narrow ? splitmix_next(st) % 5 : splitmix_next(st);
	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)(i * 1000 / 701);
	for (i = 0; shuffled && i + 1 < n; i++) {
		j = i + splitmix_next(st) % (n - i);
		k = idx[i], idx[i] = idx[j], idx[j] = (uint32_t)k;
	}
	for (i = 0; i < n; i++)
		ref[i] = idx[i];
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (key[ref[j]] > key[ref[i]] || (key[ref[j]] ==
			    key[ref[i]] && ref[j] < ref[i]))
				k = ref[i], ref[i] = ref[j], ref[j] = (uint32_t)k;
	dag_sort_desc(idx, n, key);
	for (i = 0, good = 1; i < n; i++)
		good = good && idx[i] == ref[i];
	ok(good, "dag_sort_desc: %zu ids%s, %s keys: by key, largest first, "
	    "ties by id", n, shuffled ? " shuffled" : "",
	    narrow ? "5" : "64-bit");
}

static void
sort_desc(void)
{
	uint64_t st = 7;
	size_t n;

	for (n = 0; n <= 700; n += 35) {
		sort_case(n, 0, 0, &st);
		sort_case(n, 0, 1, &st);
		sort_case(n, 1, 0, &st);
		sort_case(n, 1, 1, &st);
	}
}

int
main(void)
{
	heap_order();
	sort_desc();
	toposort();
	add_rules();
	push_as_add();
	deps_without_any();
	return tap_done();
}
