/*
 * dagbuild's private parts.  dagbuild.c reads the options and the op
 * records and writes the net and the tasks; dagbuild_match.c resolves
 * the ops' dependencies and merges the ranks' parts of each collective,
 * and each send with its receive, into nodes; dagbuild_expand.c orders
 * the nodes and expands each into tasks of b->dag, numbered densely in
 * that order.  All of them die() with a message on a bad trace or when
 * memory runs out.
 */
#ifndef DAGBUILD_H
#define DAGBUILD_H

#include <stddef.h>
#include <stdint.h>

#include "model/cost.h"
#include "model/dag.h"
#include "model/fabric.h"
#include "model/net.h"

enum { OP_COMPUTE, OP_ALLREDUCE, OP_ALLGATHER, OP_REDUCESCATTER,
	OP_ALLTOALL, OP_BROADCAST, OP_SEND, OP_RECV };

#define IS_COLL(k)	((k) >= OP_ALLREDUCE && (k) <= OP_BROADCAST)

struct op {
	uint64_t	 id;
	uint64_t	 off;		/* byte offset, for messages */
	char		*name;
	int		 kind;
	uint32_t	 rank, step;
	uint64_t	 amount;	/* compute: ps; others: bytes */
	uint64_t	 key;		/* coll id, or tag */
	uint32_t	 peer;
	uint32_t	*group;
	uint32_t	 ngroup;
	uint32_t	 root;		/* broadcast: position in group */
	uint64_t	*sizes;		/* all-to-all: bytes to each member */
	size_t		 dep_off;	/* into ops.dep: op indices */
	uint32_t	 ndep;
	uint32_t	 node;		/* merged node */
	uint32_t	 prev;		/* previous compute op on the rank */
	size_t		 done_off;	/* into done[]: task ids */
	uint32_t	 ndone;
};

struct ops {
	struct op	*o;
	size_t		 n, cap;
	uint64_t	*rawdep;	/* ids as read, then indices */
	size_t		 ndep, depcap;
};

/* A merged node: one op, a whole collective, or a send with its recv. */
struct node {
	uint32_t	 first;		/* op index of the first member */
	uint32_t	*member;
	uint32_t	 nmember;
};

struct build {
	struct ops	 ops;
	struct node	*node;
	size_t		 nnode;
	struct dag	 dag;
	uint32_t	*taskop;	/* task -> op index */
	int32_t		*taskpart;	/* task -> collective step, or -1 */
	size_t		 tcap;
	uint32_t	*done;
	size_t		 ndone, donecap;
	uint32_t	*scratch;
	size_t		 scap;
	int		 algo;
	const char	*input;
};

/* --fabric and the options of the net it goes with */
struct fabopt {
	struct fabric	 fab;
	int		 given;		/* --fabric */
	int		 on;		/* a fabric that is not the flat net */
	int		 set_r, set_m, set_L, set_s, set_b;
	uint64_t	 split;		/* transfers routed in two hops */
	int		 equal;		/* --eps-equal-cost */
	struct cost_figures fig;	/* its figures */
};

/* dagbuild_fabric.c */
void		 fabric_opt(struct fabopt *, const char *);
void		 fabric_apply(struct fabopt *, struct net *);
void		 fabric_check_gpus(const struct fabopt *, uint32_t);
void		 equal_opt(struct fabopt *, const char *);
void		 fabric_equal_cost(struct fabopt *, const struct net *);
void		 fabric_route(struct fabopt *, struct build *);

/* dagbuild.c */
int		 cmp_u32(const void *, const void *);
int		 cmp_u64(const void *, const void *);
/* Sort n items of sz bytes by cmp and drop repeats; the new count. */
size_t		 sort_uniq(void *, size_t, size_t,
		    int (*)(const void *, const void *));
uint64_t	*op_deps(const struct ops *, const struct op *);
void		 opfail(const struct build *, const struct op *, const char *,
		    const char *);
/* dagbuild_match.c: ids to indices, then the nodes */
void		 resolve_deps(struct build *);
void		 make_nodes(struct build *);
/* dagbuild_expand.c: the tasks, in the nodes' order */
void		 expand(struct build *);

#endif
