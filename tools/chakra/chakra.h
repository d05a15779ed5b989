/*
 * chakra: the parts of chakra(1), the Chakra execution trace importer.
 *
 * chakra_et.c decodes one rank's file, <prefix>.<rank>.et, into nodes
 * (the fields and attributes of the schema, 0.0.4, that the import
 * uses), and reads a communicator-group file, {"name": [ranks], ...}.
 * Both die on bad input with "chakra: FILE: node ID: message" or
 * "chakra: FILE: byte N: message"; what they return the caller frees
 * with ck_rank_free() and ck_groups_free().
 *
 * ck_rank_fread() decodes a stream the caller opened (and closes),
 * named FILE in messages, as ck_rank_read() does the file it opens;
 * ck_groups_parse() reads N bytes of JSON the caller holds (not
 * NUL-terminated), as ck_groups_read() does the file it reads whole.
 * The fuzz target tests/fuzz/fuzz_chakra.c reads through them.  The
 * groups come back sorted by name, and ck_groups_find() finds one by
 * name in log time, or returns NULL.
 */
#ifndef CHAKRA_H
#define CHAKRA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* NodeType of et_def.proto. */
enum { CK_INVALID, CK_METADATA, CK_MEM_LOAD, CK_MEM_STORE, CK_COMP,
	CK_SEND, CK_RECV, CK_COLL, CK_NTYPES };

#define CK_HAS_DUR	0x01
#define CK_HAS_TYPE	0x02	/* comm_type */
#define CK_HAS_SIZE	0x04
#define CK_HAS_SRC	0x08
#define CK_HAS_DST	0x10
#define CK_HAS_TAG	0x20
#define CK_HAS_PG	0x40
#define CK_HAS_OPS	0x80	/* num_ops */
#define CK_HAS_TSIZE	0x100	/* tensor_size */

struct ck_node {
	uint64_t	 id;
	char		*name;
	uint32_t	 type;
	unsigned	 has;		/* CK_HAS_* */
	int		 cpu;		/* is_cpu_op */
	uint64_t	*dep;		/* data_deps then ctrl_deps */
	size_t		 ndep, depcap;
	uint64_t	 dur_us;
	int64_t		 comm_type, src, dst, tag;
	uint64_t	 size;
	uint64_t	 ops, tsize;	/* num_ops, tensor_size */
	char		*pg;
	uint64_t	 off;		/* file offset of its frame */
};

struct ck_rank {
	char		*file;
	char		*version;	/* NULL: no GlobalMetadata */
	struct ck_node	*node;
	size_t		 n, cap;
};

void	 ck_rank_read(const char *, struct ck_rank *);
void	 ck_rank_fread(const char *, FILE *, struct ck_rank *);
void	 ck_rank_free(struct ck_rank *);

struct ck_group {
	char		*name;
	uint32_t	*rank;
	size_t		 n;
	uint64_t	 off;		/* in the file, after the name */
};

struct ck_groups {
	char		*file;
	struct ck_group	*g;
	size_t		 n, cap;
	uint8_t		*seen;		/* parse's scratch, until it ends */
};

void	 ck_groups_read(const char *, struct ck_groups *);
void	 ck_groups_parse(const char *, const char *, size_t,
	    struct ck_groups *);
void	 ck_groups_free(struct ck_groups *);
const struct ck_group *ck_groups_find(const struct ck_groups *, const char *);

#endif
