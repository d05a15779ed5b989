/*
 * report_rows.c: runs read back from report's own CSV (--csv) or JSON
 * lines (--json), so that a kept table can be printed, plotted or
 * joined with new streams.
 *
 * The columns, or keys, must be those report writes, in its order
 * (runs_keys, report_run.c); every value is checked as the stream it came from
 * would have been: counts are whole numbers, ratios finite numbers,
 * "placed" true or false, "dag" 16 hexadecimal digits.  The ratios are
 * not taken: runs_relate() works them out again from every run given,
 * as for streams.  Errors name the file, the line and the byte.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "records/die.h"
#include "report.h"

#define ROW_MAX	(1UL << 20)	/* bytes in one row */

struct field {
	size_t	 at;		/* offset of its text in the row's buffer */
	size_t	 len;
	int	 null;		/* JSON null, or an empty CSV field */
	int	 str;		/* a JSON string (CSV: every field) */
	uint64_t off;		/* byte offset in the file */
};

struct rowin {
	FILE		*fp;
	const char	*path;
	int		 csv;
	int		 head;		/* reading the CSV header line */
	uint64_t	 off;		/* of the next byte */
	uint64_t	 line;		/* of the row being read, from 1 */
	char		*buf;		/* the row's texts, each NUL-ended */
	size_t		 len, cap;
	struct field	 f[RUNS_NKEY];
	size_t		 nf;
	char		*err;
	size_t		 n;
};

static int
fail(struct rowin *ri, uint64_t off, const char *fmt, const char *a)
{
	char what[200];

	snprintf(what, sizeof(what), fmt, a);
	snprintf(ri->err, ri->n, "%s: line %llu, byte %llu: %s", ri->path,
	    (unsigned long long)ri->line, (unsigned long long)off, what);
	return -1;
}

static int
next(struct rowin *ri)
{
	int c = getc(ri->fp);

	if (c != EOF)
		ri->off++;
	return c;
}

static int
put(struct rowin *ri, int c)
{
	if (c == '\0')
		return fail(ri, ri->off - 1, "a NUL byte%s", "");
	if (ri->len + 1 >= ROW_MAX)
		return fail(ri, ri->off, "a row longer than 1 MiB%s", "");
	xgrow(&ri->buf, &ri->cap, ri->len + 2, 1);
	ri->buf[ri->len++] = (char)c;
	return 0;
}

/* A new value whose first byte is at off. */
static int
field_begin(struct rowin *ri, uint64_t off)
{
	struct field *f;

	if (ri->nf == RUNS_NKEY)
		return fail(ri, off, "more %s than report writes",
		    ri->head ? "columns" : "values");
	f = &ri->f[ri->nf++];
	memset(f, 0, sizeof(*f));
	f->at = ri->len;
	f->off = off;
	return 0;
}

/* End the text at the end of the buffer with a NUL. */
static void
terminate(struct rowin *ri)
{
	xgrow(&ri->buf, &ri->cap, ri->len + 1, 1);
	ri->buf[ri->len++] = '\0';
}

static int
field_end(struct rowin *ri)
{
	struct field *f = &ri->f[ri->nf - 1];

	f->len = ri->len - f->at;
	if (ri->csv)
		f->null = f->len == 0;
	terminate(ri);
	return 0;
}

/* One CSV field, quoted or not; *end is the byte after it. */
static int
csv_field(struct rowin *ri, int *end)
{
	int c;

	if (field_begin(ri, ri->off) != 0)
		return -1;
	ri->f[ri->nf - 1].str = 1;
	c = next(ri);
	if (c == '"') {
		for (;;) {
			if ((c = next(ri)) == EOF)
				return fail(ri, ri->off, "a quoted value not "
				    "closed%s", "");
			if (c == '"' && (c = next(ri)) != '"')
				break;
			if (put(ri, c) != 0)
				return -1;
		}
	} else
		for (; c != ',' && c != '\n' && c != '\r' && c != EOF;
		    c = next(ri))
			if (c == '"')
				return fail(ri, ri->off - 1, "a quote in an "
				    "unquoted value%s", "");
			else if (put(ri, c) != 0)
				return -1;
	if (c == '\r' && (c = next(ri)) != '\n')
		return fail(ri, ri->off - 1, "a carriage return not before a "
		    "line feed%s", "");
	if (c != ',' && c != '\n' && c != EOF)
		return fail(ri, ri->off - 1, "a quoted value goes on after its "
		    "quote%s", "");
	*end = c;
	return field_end(ri);
}

/* A CSV row: 1, 0 at the end of the file, -1 on error. */
static int
csv_row(struct rowin *ri)
{
	int c, end;

	ri->len = ri->nf = 0;
	if ((c = getc(ri->fp)) == EOF)
		return 0;
	ungetc(c, ri->fp);
	do {
		if (csv_field(ri, &end) != 0)
			return -1;
	} while (end == ',');
	return 1;
}

static int
ws(struct rowin *ri)
{
	int c;

	while ((c = next(ri)) == ' ' || c == '\t' || c == '\r')
		continue;
	return c;
}

static int
hexdig(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int
json_u4(struct rowin *ri, unsigned *u)
{
	int i, d;

	for (*u = 0, i = 0; i < 4; i++) {
		if ((d = hexdig(next(ri))) < 0)
			return fail(ri, ri->off - 1, "a \\u escape wants four "
			    "hexadecimal digits%s", "");
		*u = *u << 4 | (unsigned)d;
	}
	return 0;
}

static int
put_utf8(struct rowin *ri, unsigned u)
{
	if (u < 0x80)
		return put(ri, (int)u);
	if (u < 0x800)
		return put(ri, 0xc0 | u >> 6) || put(ri, 0x80 | (u & 0x3f));
	if (u < 0x10000)
		return put(ri, 0xe0 | u >> 12) ||
		    put(ri, 0x80 | (u >> 6 & 0x3f)) ||
		    put(ri, 0x80 | (u & 0x3f));
	return put(ri, 0xf0 | u >> 18) || put(ri, 0x80 | (u >> 12 & 0x3f)) ||
	    put(ri, 0x80 | (u >> 6 & 0x3f)) || put(ri, 0x80 | (u & 0x3f));
}

static int
json_escape(struct rowin *ri)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *p;
	unsigned u, lo;
	int c = next(ri);

	if (c != 'u')
		return c != EOF && c != '\0' && (p = strchr(from, c)) != NULL ?
		    put(ri, to[p - from]) :
		    fail(ri, ri->off - 1, "an unknown escape%s", "");
	if (json_u4(ri, &u) != 0)
		return -1;
	if (u >= 0xdc00 && u < 0xe000)
		return fail(ri, ri->off - 1, "a lone low surrogate%s", "");
	if (u >= 0xd800 && u < 0xdc00) {
		if (next(ri) != '\\' || next(ri) != 'u' ||
		    json_u4(ri, &lo) != 0 || lo < 0xdc00 || lo >= 0xe000)
			return fail(ri, ri->off - 1, "a high surrogate without "
			    "its low one%s", "");
		u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
	}
	return put_utf8(ri, u);
}

/* A JSON string, its opening quote read. */
static int
json_string(struct rowin *ri)
{
	int c;

	while ((c = next(ri)) != '"') {
		if (c == EOF || c == '\n')
			return fail(ri, ri->off, "a string not closed%s", "");
		if (c < 0x20)
			return fail(ri, ri->off - 1, "a control character in a "
			    "string%s", "");
		if (c == '\\' ? json_escape(ri) != 0 : put(ri, c) != 0)
			return -1;
	}
	return 0;
}

/* A JSON value whose first byte is c: string, null, boolean or number;
 * returns the byte after it. */
static int
json_value(struct rowin *ri, int c)
{
	struct field *f;
	const char *w = c == 'n' ? "null" : c == 't' ? "true" :
	    c == 'f' ? "false" : NULL;

	if (field_begin(ri, ri->off - 1) != 0)
		return -2;
	f = &ri->f[ri->nf - 1];
	if (c == '"') {
		f->str = 1;
		return json_string(ri) || field_end(ri) ? -2 : ws(ri);
	}
	if (w != NULL) {
		for (w++; *w != '\0'; w++)
			if (next(ri) != *w)
				return fail(ri, f->off, "not a value%s", ""), -2;
		f->null = c == 'n';
		for (w = c == 't' ? "true" : "false"; !f->null && *w != '\0';
		    w++)
			if (put(ri, *w) != 0)
				return -2;
		return field_end(ri) ? -2 : ws(ri);
	}
	for (; c != EOF && c != '\0' && strchr("-+.eE0123456789", c) != NULL;
	    c = next(ri))
		if (put(ri, c) != 0)
			return -2;
	if (ri->len == f->at)
		return fail(ri, f->off, "not a value%s", ""), -2;
	if (field_end(ri) != 0)
		return -2;
	return c == ' ' || c == '\t' || c == '\r' ? ws(ri) : c;
}

static int
json_key(struct rowin *ri, size_t k)
{
	size_t at = ri->len;
	uint64_t off = ri->off - 1;

	if (json_string(ri) != 0)
		return -1;
	if (k >= RUNS_NKEY || ri->len - at != strlen(runs_keys[k]) ||
	    memcmp(ri->buf + at, runs_keys[k], ri->len - at) != 0) {
		terminate(ri);
		return fail(ri, off, k < RUNS_NKEY ? "key \"%s\" where report "
		    "writes another (see report(1))" : "key \"%s\" after the "
		    "last", ri->buf + at);
	}
	ri->len = at;
	return 0;
}

/* A JSON line: 1, 0 at the end of the file, -1 on error. */
static int
json_row(struct rowin *ri)
{
	int c;

	ri->len = ri->nf = 0;
	if ((c = ws(ri)) == EOF)
		return 0;
	if (c != '{')
		return fail(ri, ri->off - 1, "not a JSON object%s", "");
	do {
		if ((c = ws(ri)) != '"')
			return fail(ri, ri->off - 1, "a key wanted%s", "");
		if (json_key(ri, ri->nf) != 0)
			return -1;
		if (ws(ri) != ':')
			return fail(ri, ri->off - 1, "a colon wanted%s", "");
		if ((c = json_value(ri, ws(ri))) == -2)
			return -1;
	} while (c == ',');
	if (c != '}')
		return fail(ri, ri->off - 1, "a comma or a closing brace "
		    "wanted%s", "");
	if ((c = ws(ri)) != '\n' && c != EOF)
		return fail(ri, ri->off - 1, "more after the object%s", "");
	return 1;
}

/* The values, one kind each. */

static const char *
text(const struct rowin *ri, size_t k)
{
	return ri->buf + ri->f[k].at;
}

static int
bad(struct rowin *ri, size_t k, const char *what)
{
	char m[120];

	snprintf(m, sizeof(m), "%s: %s", runs_keys[k], what);
	return fail(ri, ri->f[k].off, "%s", m);
}

static int
get_str(struct rowin *ri, size_t k, char **s)
{
	*s = NULL;
	if (ri->f[k].null)
		return 0;
	if (!ri->f[k].str)
		return bad(ri, k, "not a string");
	*s = xstrdup(text(ri, k));
	return 0;
}

static int
get_u64(struct rowin *ri, size_t k, uint64_t *v)
{
	const char *s = text(ri, k);
	char *end;

	if (ri->f[k].null || (ri->f[k].str && !ri->csv))
		return bad(ri, k, "not a whole number");
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 ||
	    (s[0] == '0' && s[1] != '\0'))
		return bad(ri, k, "not a whole number below 2^64");
	return 0;
}

static int
get_dbl(struct rowin *ri, size_t k, double *v)
{
	const char *s = text(ri, k);
	char *end;

	*v = 0;
	if (ri->f[k].null)
		return 0;
	if (ri->f[k].str && !ri->csv)
		return bad(ri, k, "not a number");
	*v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || strspn(s, "-+.eE0123456789") !=
	    strlen(s) || !isfinite(*v) || *v < 0)
		return bad(ri, k, "not a number from 0 up");
	return 0;
}

/* A value that must be there exactly when another is. */
static int
with(struct rowin *ri, size_t k, int present)
{
	if (ri->f[k].null == !present)
		return 0;
	return bad(ri, k, present ? "missing" : "a value where the run has "
	    "none");
}

enum { K_FILE, K_MODEL, K_LAYERS, K_TP, K_DP, K_PP, K_SCHED, K_MODE,
	K_TAU, K_MAKESPAN, K_XIDEAL, K_XBEST, K_BUFFER, K_RECONF, K_STATUS,
	K_GAP, K_BOUND, K_LB, K_XBOUND, K_NIC, K_HOST, K_PACKET, K_TRACE,
	K_RANKS, K_PLACED, K_DAG, K_FABRIC };

static int
take_workload(struct rowin *ri, struct run *u)
{
	int m;

	if (get_str(ri, K_MODEL, &u->model) != 0)
		return -1;
	m = u->model != NULL;
	if (with(ri, K_LAYERS, m) || with(ri, K_TP, m) || with(ri, K_DP, m) ||
	    with(ri, K_PP, m) || (m && (get_u64(ri, K_LAYERS, &u->layers) ||
	    get_u64(ri, K_TP, &u->tp) || get_u64(ri, K_DP, &u->dp) ||
	    get_u64(ri, K_PP, &u->pp))))
		return -1;
	if (get_str(ri, K_TRACE, &u->trace) != 0 ||
	    with(ri, K_RANKS, u->trace != NULL) != 0 ||
	    (u->trace != NULL && get_u64(ri, K_RANKS, &u->ranks) != 0))
		return -1;
	if (u->trace != NULL && !m)
		return bad(ri, K_TRACE, "a trace without a model");
	return 0;
}

static int
take_result(struct rowin *ri, struct run *u)
{
	double x;
	int r;

	u->has_net = !ri->f[K_TAU].null;
	u->has_result = !ri->f[K_MAKESPAN].null;
	r = u->has_result;
	if (with(ri, K_FABRIC, u->has_net) || get_str(ri, K_FABRIC,
	    &u->fabric) ||
	    (u->has_net && get_u64(ri, K_TAU, &u->tau_ps)) ||
	    (r && get_u64(ri, K_MAKESPAN, &u->makespan_ps)) ||
	    with(ri, K_BUFFER, r) || with(ri, K_RECONF, r) ||
	    (r && (get_u64(ri, K_BUFFER, &u->buffer_bytes) ||
	    get_u64(ri, K_RECONF, &u->reconfigs))) ||
	    get_dbl(ri, K_XIDEAL, &x) || get_dbl(ri, K_XBEST, &x) ||
	    get_dbl(ri, K_XBOUND, &x))
		return -1;
	u->has_lb = !ri->f[K_LB].null;
	u->has_nic = !ri->f[K_NIC].null;
	if ((u->has_lb && (!r || get_u64(ri, K_LB, &u->lower_bound_ps))) ||
	    (u->has_nic && !r))
		return bad(ri, u->has_lb ? K_LB : K_NIC, "a value where the "
		    "run has no result");
	if (with(ri, K_HOST, u->has_nic) || with(ri, K_PACKET, u->has_nic) ||
	    (u->has_nic && (get_u64(ri, K_NIC, &u->nic_bytes) ||
	    get_str(ri, K_HOST, &u->host) ||
	    get_u64(ri, K_PACKET, &u->packet_bytes))))
		return -1;
	return 0;
}

static int
take_solve(struct rowin *ri, struct run *u)
{
	if (get_str(ri, K_STATUS, &u->status) != 0)
		return -1;
	u->has_solve = u->status != NULL;
	if (with(ri, K_GAP, u->has_solve) || with(ri, K_BOUND, u->has_solve))
		return -1;
	if (u->has_solve && (get_dbl(ri, K_GAP, &u->gap) ||
	    get_u64(ri, K_BOUND, &u->bound_ps)))
		return -1;
	return 0;
}

static int
take_key(struct rowin *ri, struct run *u)
{
	const char *p = text(ri, K_PLACED), *d = text(ri, K_DAG);
	int i, h;

	if (ri->f[K_PLACED].null || (ri->f[K_PLACED].str && !ri->csv) ||
	    (strcmp(p, "true") != 0 && strcmp(p, "false") != 0))
		return bad(ri, K_PLACED, "not true or false");
	u->placed = strcmp(p, "true") == 0;
	if (ri->f[K_DAG].null || !ri->f[K_DAG].str || strlen(d) != 16)
		return bad(ri, K_DAG, "not 16 hexadecimal digits");
	for (u->dag = 0, i = 0; i < 16; i++) {
		if ((h = hexdig(d[i])) < 0)
			return bad(ri, K_DAG, "not 16 hexadecimal digits");
		u->dag = u->dag << 4 | (uint64_t)h;
	}
	return 0;
}

static int
take_row(struct rowin *ri, struct run *u)
{
	if (ri->nf != RUNS_NKEY)
		return fail(ri, ri->off, "%s values, not the columns of report "
		    "--csv (see report(1))", ri->nf < RUNS_NKEY ? "fewer" :
		    "more");
	if (get_str(ri, K_FILE, &u->file) != 0)
		return -1;
	if (u->file == NULL)
		return bad(ri, K_FILE, "missing");
	if (take_workload(ri, u) || get_str(ri, K_SCHED, &u->sched) ||
	    get_str(ri, K_MODE, &u->mode) || take_result(ri, u) ||
	    take_solve(ri, u) || take_key(ri, u))
		return -1;
	return 0;
}

static int
csv_head(struct rowin *ri)
{
	size_t k;
	int rc;

	ri->head = 1;
	rc = csv_row(ri);
	ri->head = 0;
	if (rc < 0)
		return -1;
	if (rc == 0)
		return fail(ri, ri->off, "no header line%s", "");
	for (k = 0; k < ri->nf && k < RUNS_NKEY; k++)
		if (strcmp(text(ri, k), runs_keys[k]) != 0)
			return fail(ri, ri->f[k].off, "column \"%s\" where "
			    "report writes another (see report(1))",
			    text(ri, k));
	if (ri->nf != RUNS_NKEY)
		return fail(ri, ri->off, "%s columns than report writes",
		    ri->nf < RUNS_NKEY ? "fewer" : "more");
	return 0;
}

int
rows_read(struct runs *rs, FILE *fp, const char *path, int csv, char *err,
    size_t n)
{
	struct rowin ri;
	struct run *u;
	int rc;

	memset(&ri, 0, sizeof(ri));
	ri.fp = fp;
	ri.path = path;
	ri.csv = csv;
	ri.line = 1;
	ri.err = err;
	ri.n = n;
	if (csv && csv_head(&ri) != 0) {
		free(ri.buf);
		return -1;
	}
	for (;;) {
		ri.line += csv ? 1 : 0;
		if ((rc = csv ? csv_row(&ri) : json_row(&ri)) <= 0)
			break;
		xgrow(&rs->v, &rs->cap, rs->n + 1, sizeof(*rs->v));
		u = &rs->v[rs->n];
		memset(u, 0, sizeof(*u));
		u->order = rs->n++;
		if ((rc = take_row(&ri, u)) != 0)
			break;
		ri.line += csv ? 0 : 1;
	}
	free(ri.buf);
	if (rc == 0 && ferror(fp)) {
		snprintf(err, n, "%s: %s", path, strerror(errno));
		return -1;
	}
	return rc;
}
