/*
 * same.h: whether two DAGs, or two schedules, read two ways hold the
 * same thing, down to where each task's dependencies sit; for the
 * differential tests of the fast readers (test_taskfast,
 * test_schedfast) and their fuzz targets (fuzz_tasks, fuzz_sched).
 * Header only: each test is one file.
 */
#ifndef SAME_H
#define SAME_H

#include <string.h>

#include "model/dag.h"
#include "model/sched.h"

static inline int
same_dag(const struct dag *a, const struct dag *b)
{
	size_t i;

	if (a->n != b->n || a->ndep != b->ndep)
		return 0;
	for (i = 0; i < a->n; i++) {
		const struct dag_task *x = &a->t[i], *y = &b->t[i];

		if (x->amount != y->amount || x->dep_off != y->dep_off ||
		    x->gpu != y->gpu || x->ndep != y->ndep ||
		    x->step != y->step || x->kind != y->kind ||
		    (x->kind == DAG_TRANSFER && x->dst != y->dst))
			return 0;
	}
	return a->ndep == 0 ||
	    memcmp(a->dep, b->dep, a->ndep * sizeof(*a->dep)) == 0;
}

static inline int
same_sched(const struct schedule *x, const struct schedule *y)
{
	size_t i;

	if (x->np != y->np || x->nc != y->nc)
		return 0;
	for (i = 0; i < x->np; i++)
		if (x->p[i].task != y->p[i].task || x->p[i].sw != y->p[i].sw ||
		    x->p[i].start != y->p[i].start)
			return 0;
	for (i = 0; i < x->nc; i++)
		if (x->c[i].sw != y->c[i].sw || x->c[i].a != y->c[i].a ||
		    x->c[i].b != y->c[i].b || x->c[i].from != y->c[i].from ||
		    x->c[i].to != y->c[i].to)
			return 0;
	return 1;
}

#endif
