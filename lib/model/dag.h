/*
 * dag: the task DAG in memory, and topological ordering.
 *
 * A task is a compute task (on one GPU, for a duration) or a transfer
 * (src to dst, a number of bytes).  Dependencies are stored once, in
 * one array, as task ids.  In a well-formed DAG (fluxocs(5)) ids are
 * dense from 0 and every dependency is smaller than its task's id;
 * dag_add() refuses anything else, so a struct dag is always acyclic.
 * The dag owns its arrays; functions return -1 on error (out of
 * memory, or a bad dependency) and never exit.
 *
 * dag_dep_space() returns room for the next task's n dependencies,
 * so that a reader can fill them in place before dag_add().
 *
 * dag_reserve() makes room for n more tasks; within it dag_push() is
 * dag_add() for a reader that has checked the task: its n dependencies
 * already in the room dag_dep_space() gave for them, each below d->n,
 * and d->n below UINT32_MAX.  It cannot fail, and the DAG is the same
 * as dag_add()'s.  After a run of pushes from n0 tasks and ndep0
 * dependencies, dag_pushed() maps the pages ahead of the arrays' ends
 * as dag_add() would have (mem_ahead()).
 *
 * dag_toposort() orders any graph given as dependency lists, stably:
 * among ready nodes the smallest index goes first.
 *
 * dag_sort_desc() sorts the task ids of idx by key[id], largest first,
 * ties by id: in linear time when idx is in id order, else by qsort(3),
 * with the keys in a static, so it is not reentrant.
 *
 * dag_successors() inverts the dependencies: the tasks that wait for
 * task i are nx[off[i]] .. nx[off[i + 1] - 1], in id order, with one
 * more predecessor per task when prev is given (prev[i], or
 * UINT32_MAX for none).  The caller frees both arrays.
 *
 * dag_same_shape() compares two DAGs but for their amounts (durations
 * and bytes): SIZE_MAX when every task has the same kind, GPUs, step
 * and dependencies, else the first task that differs (the length of
 * the shorter, when one DAG is a prefix of the other).
 */
#ifndef DAG_H
#define DAG_H

#include <stddef.h>
#include <stdint.h>

enum dag_kind { DAG_COMPUTE, DAG_TRANSFER };

struct dag_task {
	uint64_t	amount;	/* compute: duration in ps; transfer: bytes */
	uint64_t	dep_off;
	uint32_t	gpu;	/* compute: its GPU; transfer: the source */
	uint32_t	dst;	/* transfer: the destination */
	uint32_t	ndep;
	uint16_t	step;	/* training step the task belongs to */
	uint8_t		kind;
};

#define DAG_MAX_STEP	UINT16_MAX

struct dag {
	struct dag_task	*t;
	size_t		 n, cap;
	uint32_t	*dep;
	size_t		 ndep, depcap;
	uint32_t	 hint[2][8];	/* taskio: where keys were last seen */
};

void	dag_init(struct dag *);
void	dag_free(struct dag *);
int	dag_add(struct dag *, const struct dag_task *, const uint32_t *,
	    size_t);
const uint32_t *dag_deps(const struct dag *, size_t);
uint32_t *dag_dep_space(struct dag *, size_t);
int	dag_reserve(struct dag *, size_t);
void	dag_pushed(struct dag *, size_t, size_t);

static inline void
dag_push(struct dag *d, const struct dag_task *t, uint32_t n)
{
	struct dag_task *to = &d->t[d->n++];

	*to = *t;
	to->dep_off = d->ndep;
	to->ndep = n;
	d->ndep += n;
}

int	dag_toposort(size_t, const size_t *, const uint32_t *, uint32_t *,
	    size_t *);
void	dag_sort_desc(uint32_t *, size_t, const uint64_t *);
size_t	dag_same_shape(const struct dag *, const struct dag *);
int	dag_successors(const struct dag *, const uint32_t *, size_t **,
	    uint32_t **);

#endif
