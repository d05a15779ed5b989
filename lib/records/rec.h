/*
 * rec: typed access to the keys of one decoded record.
 *
 * Errors are sticky, as in MPack: a getter that finds a missing key or
 * a wrong type records the first error and returns a harmless value
 * (0, "", an empty array); the caller checks rec_failed() once per
 * record.  Messages read "name: byte N: TYPE record: key "k": what".
 * The record's msgpack-c object is only decoded (stream_rec_obj()) when
 * a getter first needs it; should that fail, rec_failed() says so and
 * rec_error() gives the reader's message.
 * Unknown keys are never an error.  Nothing here allocates; strings
 * point into the record and are not NUL-terminated.
 */
#ifndef REC_H
#define REC_H

#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "records/stream.h"

struct rec {
	struct stream_rec	 src;	/* the record (tree decoded lazily) */
	const char		*name;	/* stream name for messages */
	uint64_t		 off;
	char			 type[24];
	int			 failed;
	char			 err[320];
};

void	 rec_init(struct rec *, const struct stream_rec *, const char *);
void	 rec_fail(struct rec *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
int	 rec_failed(const struct rec *);
const char *rec_error(const struct rec *);

const msgpack_object *rec_get(const struct rec *, const char *);
int	 rec_has(const struct rec *, const char *);

uint64_t rec_u64(struct rec *, const char *);
uint64_t rec_u64_or(struct rec *, const char *, uint64_t);
uint64_t rec_u64_max(struct rec *, const char *, uint64_t);
double	 rec_dbl(struct rec *, const char *);
double	 rec_dbl_or(struct rec *, const char *, double);
int	 rec_bool_or(struct rec *, const char *, int);
const char *rec_str(struct rec *, const char *, size_t *);
int	 rec_streq(const char *, size_t, const char *);
int	 rec_enum(struct rec *, const char *, const char *const *);
int	 rec_enum_or(struct rec *, const char *, const char *const *, int);
const msgpack_object_array *rec_array(struct rec *, const char *);
const msgpack_object_array *rec_array_or_empty(struct rec *, const char *);
uint64_t rec_elem_u64(struct rec *, const char *,
	    const msgpack_object_array *, size_t);

/* One pass over the map for many keys; then typed checks on values. */
void	 rec_lookup(const struct rec *, const char *const *, size_t,
	    const msgpack_object **, uint32_t *);
uint64_t rec_val_u64(struct rec *, const char *, const msgpack_object *);
uint64_t rec_val_u64_or(struct rec *, const char *, const msgpack_object *,
	    uint64_t);
const msgpack_object_array *rec_val_array(struct rec *, const char *,
	    const msgpack_object *);
int	 rec_val_enum(struct rec *, const char *, const msgpack_object *,
	    const char *const *);

const char *rec_typename(const msgpack_object *);
const char *rec_printable(const char *, size_t, char *, size_t);

#endif
