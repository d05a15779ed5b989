/* fabric: the network as planes: descriptions, presets and checks. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/fabric.h"
#include "model/net.h"
#include "records/units.h"

const char *const plane_kinds[] = { "ocs", "eps", NULL };

/*
 * The presets.  Per GPU the NIC's rate is the same in every variant of
 * a machine: the "-eps" ones split it in half between the OCS and an
 * EPS beside it, so that they compare with the others at equal cost.
 */
#define H100_NVL	"eps group:8 rate=3600Gbps\n"
#define NVL72		"eps group:72 rate=7200Gbps\n"
#define OCS		" tau=10us radix=320"

const struct fabric_preset fabric_presets[] = {
	{ "paper", "the paper's net: 2 OCS, a port per GPU on each, "
	    "800 Gbit/s", "ocs all count=2 rate=800Gbps tau=10us\n" },
	{ "hgx-h100-flat", "HGX H100: NVLink in servers of 8, one 400G "
	    "NIC per GPU on one OCS", H100_NVL "ocs all rate=400Gbps" OCS
	    "\n" },
	{ "hgx-h100-flat-eps", "HGX H100, the NIC split: 200G on one OCS, "
	    "200G on an EPS", H100_NVL "ocs all rate=200Gbps" OCS "\n"
	    "eps all rate=200Gbps\n" },
	{ "hgx-h100-rail", "HGX H100: NVLink in servers of 8, an OCS per "
	    "rail, 400G", H100_NVL "ocs rail:8 rate=400Gbps" OCS "\n" },
	{ "hgx-h100-rail-eps", "HGX H100, the NIC split: 200G on the rail's "
	    "OCS, 200G on an EPS", H100_NVL "ocs rail:8 rate=200Gbps" OCS
	    "\n" "eps all rate=200Gbps\n" },
	{ "hgx-h100-uplink", "HGX H100: 8 OCS, each with one 400G port per "
	    "server", H100_NVL "ocs uplink:8:1 count=8 rate=400Gbps" OCS
	    "\n" },
	{ "hgx-h100-uplink-eps", "HGX H100, the uplinks split: 8 OCS and an "
	    "EPS, 200G each per server and plane", H100_NVL
	    "ocs uplink:8:1 count=8 rate=200Gbps" OCS "\n"
	    "eps uplink:8:8 rate=200Gbps\n" },
	{ "gb200-nvl72-flat", "GB200 NVL72: NVLink in racks of 72, one 800G "
	    "NIC per GPU on one OCS", NVL72 "ocs all rate=800Gbps" OCS "\n" },
	{ "gb200-nvl72-flat-eps", "GB200 NVL72, the NIC split: 400G on one "
	    "OCS, 400G on an EPS", NVL72 "ocs all rate=400Gbps" OCS "\n"
	    "eps all rate=400Gbps\n" },
	{ "gb200-nvl72-rail", "GB200 NVL72: NVLink in racks of 72, an OCS "
	    "per rail, 800G", NVL72 "ocs rail:72 rate=800Gbps" OCS "\n" },
	{ "gb200-nvl72-rail-eps", "GB200 NVL72, the NIC split: 400G on the "
	    "rail's OCS, 400G on an EPS", NVL72 "ocs rail:72 rate=400Gbps" OCS
	    "\n" "eps all rate=400Gbps\n" },
	{ "gb200-nvl72-uplink", "GB200 NVL72: 72 OCS, each with one 800G port "
	    "per rack", NVL72 "ocs uplink:72:1 count=72 rate=800Gbps" OCS
	    "\n" },
	{ "gb200-nvl72-uplink-eps", "GB200 NVL72, the uplinks split: 72 OCS "
	    "and an EPS, 400G each per rack and plane", NVL72
	    "ocs uplink:72:1 count=72 rate=400Gbps" OCS "\n"
	    "eps uplink:72:72 rate=400Gbps\n" },
	{ NULL, NULL, NULL }
};

void
fabric_init(struct fabric *f)
{
	memset(f, 0, sizeof(*f));
}

void
fabric_free(struct fabric *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->d[i].gpus);
	fabric_init(f);
}

/* Parsing.  A line's words are NUL-ended in place. */

struct line {
	const char	*file;
	unsigned	 no;
	char		*err;
	size_t		 n;
};

static int
bad(const struct line *l, const char *fmt, const char *a, const char *b)
{
	char m[300];

	snprintf(m, sizeof(m), fmt, a, b);
	snprintf(l->err, l->n, "%s: line %u: %s", l->file, l->no, m);
	return -1;
}

static int
u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *v)
{
	uint64_t x;

	if (units_parse_count(s, lo, hi, &x) != NULL)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/* "0-3,8,12-15" */
static int
gpu_list(struct plane_desc *d, char *s, const struct line *l)
{
	char *tok, *dash, *save = NULL;
	struct span sp;

	for (tok = strtok_r(s, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if ((dash = strchr(tok, '-')) != NULL)
			*dash++ = '\0';
		if (u32(tok, 0, NET_MAX_GPUS - 1, &sp.lo) != 0 ||
		    u32(dash != NULL ? dash : tok, 0, NET_MAX_GPUS - 1,
		    &sp.hi) != 0 || sp.hi < sp.lo)
			return bad(l, "gpus:%s%s: not a list of GPUs or ranges "
			    "such as 0-3,8", tok, dash != NULL ? "-..." : "");
		d->gpus = realloc(d->gpus, (d->ngpus + 1) * sizeof(*d->gpus));
		if (d->gpus == NULL)
			return bad(l, "out of memory%s%s", "", "");
		d->gpus[d->ngpus++] = sp;
	}
	if (d->ngpus == 0)
		return bad(l, "gpus: lists no GPU%s%s", "", "");
	return 0;
}

static int
attachment(struct plane_desc *d, char *w, const struct line *l)
{
	char *a = strchr(w, ':'), *b;

	if (a != NULL)
		*a++ = '\0';
	if (strcmp(w, "all") == 0 && a == NULL) {
		d->attach = ATTACH_ALL;
		return 0;
	}
	if (strcmp(w, "gpus") == 0 && a != NULL) {
		d->attach = ATTACH_GPUS;
		return gpu_list(d, a, l);
	}
	d->attach = strcmp(w, "group") == 0 ? ATTACH_GROUP :
	    strcmp(w, "rail") == 0 ? ATTACH_RAIL :
	    strcmp(w, "uplink") == 0 ? ATTACH_UPLINK : -1;
	if (d->attach < 0 || a == NULL)
		return bad(l, "\"%s\": not an attachment (all, group:K, "
		    "rail:K, uplink:K:U or gpus:LIST)%s", w, "");
	b = strchr(a, ':');
	if ((b != NULL) != (d->attach == ATTACH_UPLINK))
		return bad(l, "%s:%s: group:K and rail:K take one figure, "
		    "uplink:K:U two", w, a);
	if (b != NULL)
		*b++ = '\0';
	if (u32(a, 1, NET_MAX_GPUS, &d->k) != 0 ||
	    (b != NULL && u32(b, 1, NET_MAX_GPUS, &d->u) != 0))
		return bad(l, "%s: K and U are whole numbers from 1%s", w, "");
	return 0;
}

/* "1.5" or "2" or "3/2": a ratio of at least 1, kept exact. */
static int
oversub(struct plane_desc *d, const char *v)
{
	const char *dot = strchr(v, '.');
	uint64_t num, den = 1;
	char buf[32];
	size_t i;

	if (strlen(v) >= sizeof(buf) || (dot != NULL && strlen(dot) > 7))
		return -1;
	snprintf(buf, sizeof(buf), "%s", v);
	if (dot != NULL) {		/* 1.25 -> 125/100 */
		memmove(buf + (dot - v), buf + (dot - v) + 1, strlen(dot));
		for (i = 1; i < strlen(dot); i++)
			den *= 10;
	}
	if (units_parse_count(buf, 1, 1000000000, &num) != NULL ||
	    num < den)
		return -1;
	while (den % 10 == 0 && num % 10 == 0) {
		num /= 10;
		den /= 10;
	}
	while (den % 2 == 0 && num % 2 == 0) {
		num /= 2;
		den /= 2;
	}
	while (den % 5 == 0 && num % 5 == 0) {
		num /= 5;
		den /= 5;
	}
	d->over_num = (uint32_t)num;
	d->over_den = (uint32_t)den;
	return 0;
}

static int
option(struct plane_desc *d, char *w, const struct line *l)
{
	char *v = strchr(w, '=');
	const char *e = NULL;
	uint64_t x;
	int ocs = d->kind == PLANE_OCS;

	if (v == NULL)
		return bad(l, "\"%s\": not key=value%s", w, "");
	*v++ = '\0';
	if (strcmp(w, "count") == 0)
		e = u32(v, 1, 1024, &d->count) ? "a count from 1 to 1024" :
		    NULL;
	else if (strcmp(w, "rate") == 0)
		e = units_parse_rate(v, &d->rate_bps);
	else if (strcmp(w, "latency") == 0)
		e = units_parse_time(v, &d->latency_ps);
	else if (strcmp(w, "tau") == 0 && ocs)
		e = units_parse_time(v, &d->reconfig_ps);
	else if (strcmp(w, "model") == 0 && ocs) {
		d->model = strcmp(v, "port") == 0 ? NET_PORT :
		    strcmp(v, "switch") == 0 ? NET_SWITCH : -1;
		e = d->model < 0 ? "port or switch" : NULL;
	} else if (strcmp(w, "radix") == 0 && ocs)
		e = units_parse_count(v, 2, NET_MAX_GPUS, &x) ?
		    "a port count from 2" : (d->radix = (uint32_t)x, NULL);
	else if (strcmp(w, "oversub") == 0 && !ocs)
		e = oversub(d, v) ? "a ratio of at least 1, as 1, 1.5 or 3" :
		    NULL;
	else
		return bad(l, "\"%s\": not a key of an %s plane", w,
		    plane_kinds[d->kind]);
	return e != NULL ? bad(l, "%s: %s", w, e) : 0;
}

static int
parse_line(struct fabric *f, char *s, const struct line *l)
{
	char *w[32], *save = NULL, *t;
	struct plane_desc *d;
	size_t n = 0, i;

	if ((t = strchr(s, '#')) != NULL)
		*t = '\0';
	for (t = strtok_r(s, " \t\r", &save); t != NULL && n < 32;
	    t = strtok_r(NULL, " \t\r", &save))
		w[n++] = t;
	if (n == 0)
		return 0;
	if (t != NULL)
		return bad(l, "more than 32 words%s%s", "", "");
	if (f->n == FABRIC_MAX_DESC)
		return bad(l, "more than 64 plane descriptions%s%s", "", "");
	d = &f->d[f->n++];
	memset(d, 0, sizeof(*d));
	d->count = 1;
	d->over_num = d->over_den = 1;
	if (strcmp(w[0], "ocs") != 0 && strcmp(w[0], "eps") != 0)
		return bad(l, "\"%s\": a plane is ocs or eps%s", w[0], "");
	d->kind = strcmp(w[0], "ocs") == 0 ? PLANE_OCS : PLANE_EPS;
	if (n < 2)
		return bad(l, "%s: no attachment%s", w[0], "");
	if (attachment(d, w[1], l) != 0)
		return -1;
	for (i = 2; i < n; i++)
		if (option(d, w[i], l) != 0)
			return -1;
	if (d->rate_bps == 0)
		return bad(l, "%s plane: no rate (rate=400Gbps, say)%s",
		    plane_kinds[d->kind], "");
	return 0;
}

int
fabric_parse(struct fabric *f, const char *text, size_t len,
    const char *file, char *err, size_t n)
{
	struct line l = { file, 0, err, n };
	const char *p = text, *end = text + len, *nl;
	char buf[1024];

	fabric_free(f);
	for (; p < end; p = nl + 1) {
		l.no++;
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		if (memchr(p, '\0', nl - p) != NULL)
			return bad(&l, "a NUL byte%s%s", "", "");
		if ((size_t)(nl - p) >= sizeof(buf))
			return bad(&l, "a line longer than 1023 bytes%s%s", "",
			    "");
		memcpy(buf, p, nl - p);
		buf[nl - p] = '\0';
		if (parse_line(f, buf, &l) != 0)
			return -1;
	}
	if (f->n == 0) {
		snprintf(err, n, "%s: describes no plane", file);
		return -1;
	}
	snprintf(f->name, sizeof(f->name), "%s", file);
	return 0;
}

int
fabric_preset(struct fabric *f, const char *name, char *err, size_t n)
{
	size_t i;

	for (i = 0; fabric_presets[i].name != NULL; i++)
		if (strcmp(fabric_presets[i].name, name) == 0)
			break;
	if (fabric_presets[i].name == NULL) {
		snprintf(err, n, "%s: no such fabric: a file, or a preset "
		    "(dagbuild --fabric=list)", name);
		return -1;
	}
	if (fabric_parse(f, fabric_presets[i].text,
	    strlen(fabric_presets[i].text), name, err, n) != 0)
		return -1;
	return 0;
}

/* Checks on N GPUs. */

static uint64_t
listed(const struct plane_desc *d)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < d->ngpus; i++)
		n += (uint64_t)d->gpus[i].hi - d->gpus[i].lo + 1;
	return n;
}

/* Units (planes before count) and ports per plane of a description. */
void
fabric_shape(const struct plane_desc *d, uint32_t gpus, uint64_t *units,
    uint64_t *ports)
{
	switch (d->attach) {
	case ATTACH_ALL:
		*units = 1;
		*ports = gpus;
		break;
	case ATTACH_GROUP:
		*units = gpus / d->k;
		*ports = d->k;
		break;
	case ATTACH_RAIL:
		*units = d->k;
		*ports = gpus / d->k;
		break;
	case ATTACH_UPLINK:
		*units = 1;
		*ports = (uint64_t)gpus / d->k * d->u;
		break;
	default:
		*units = 1;
		*ports = listed(d);
	}
}

uint64_t
fabric_plane_count(const struct plane_desc *d, uint32_t gpus)
{
	uint64_t units, ports;

	fabric_shape(d, gpus, &units, &ports);
	return units * d->count;
}

uint64_t
fabric_planes(const struct fabric *f, uint32_t gpus)
{
	uint64_t units, ports, n = 0;
	size_t i;

	for (i = 0; i < f->n; i++) {
		fabric_shape(&f->d[i], gpus, &units, &ports);
		n += units * f->d[i].count;
	}
	return n;
}

static int
in_list(const struct plane_desc *d, uint32_t g)
{
	size_t i;

	for (i = 0; i < d->ngpus; i++)
		if (g >= d->gpus[i].lo && g <= d->gpus[i].hi)
			return 1;
	return 0;
}

/* Does a plane of d join g and h? */
static int
joins(const struct plane_desc *d, uint32_t g, uint32_t h)
{
	switch (d->attach) {
	case ATTACH_GROUP:
		return g / d->k == h / d->k;
	case ATTACH_RAIL:
		return g % d->k == h % d->k;
	case ATTACH_GPUS:
		return in_list(d, g) && in_list(d, h);
	case ATTACH_UPLINK:		/* within a group, its own fabric */
		return g / d->k != h / d->k;
	default:
		return 1;
	}
}

/* Is there a group:K description? */
static int
has_group(const struct fabric *f, uint32_t k)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->d[i].attach == ATTACH_GROUP && f->d[i].k == k)
			return 1;
	return 0;
}

/* The K of a group:K that has a rail:K beside it, or 0. */
static uint32_t
group_rail(const struct fabric *f)
{
	size_t i, j;

	for (i = 0; i < f->n; i++)
		for (j = 0; j < f->n; j++)
			if (f->d[i].attach == ATTACH_GROUP &&
			    f->d[j].attach == ATTACH_RAIL &&
			    f->d[i].k == f->d[j].k)
				return f->d[i].k;
	return 0;
}

static int
direct(const struct fabric *f, uint32_t g, uint32_t h)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (joins(&f->d[i], g, h))
			return 1;
	return 0;
}

#define CHECK_PAIRS_MAX	8192U	/* GPUs whose every pair is tried */

/* Every pair joined by a plane, or by a group's then a rail's. */
static int
routes(const struct fabric *f, uint32_t gpus, char *err, size_t n)
{
	uint32_t g, h, k = group_rail(f);
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->d[i].attach == ATTACH_ALL ||
		    (f->d[i].attach == ATTACH_UPLINK && (f->d[i].k == 1 ||
		    has_group(f, f->d[i].k))))
			return 0;
	if (k != 0)
		return 0;
	if (gpus > CHECK_PAIRS_MAX) {
		snprintf(err, n, "fabric %s on %u GPUs: no plane of all GPUs, "
		    "no uplink plane, no group:K with a rail:K; routes are "
		    "checked pair by pair up to %u GPUs only", f->name, gpus,
		    CHECK_PAIRS_MAX);
		return -1;
	}
	for (g = 0; g < gpus; g++)
		for (h = g + 1; h < gpus; h++)
			if (!direct(f, g, h)) {
				snprintf(err, n, "fabric %s: no route from GPU "
				    "%u to GPU %u: no plane joins them, and no "
				    "group:K with a rail:K", f->name, g, h);
				return -1;
			}
	return 0;
}

static int
check_desc(const struct fabric *f, size_t i, uint32_t gpus, char *err,
    size_t n)
{
	const struct plane_desc *d = &f->d[i];
	uint64_t units, ports;
	size_t j;

	if (d->attach != ATTACH_ALL && d->attach != ATTACH_GPUS &&
	    gpus % d->k != 0) {
		snprintf(err, n, "fabric %s, plane %zu (%s): K = %u does not "
		    "divide the %u GPUs", f->name, i + 1,
		    plane_kinds[d->kind], d->k, gpus);
		return -1;
	}
	for (j = 0; d->attach == ATTACH_GPUS && j < d->ngpus; j++)
		if (d->gpus[j].hi >= gpus || (j > 0 &&
		    d->gpus[j].lo <= d->gpus[j - 1].hi)) {
			snprintf(err, n, "fabric %s, plane %zu: GPU %u %s",
			    f->name, i + 1, d->gpus[j].hi >= gpus ?
			    d->gpus[j].hi : d->gpus[j].lo, d->gpus[j].hi >=
			    gpus ? "is past the last GPU" : "is listed out "
			    "of order or twice");
			return -1;
		}
	fabric_shape(d, gpus, &units, &ports);
	if (d->kind == PLANE_OCS && d->radix != 0 && ports > d->radix) {
		snprintf(err, n, "fabric %s, plane %zu (ocs): %" PRIu64
		    " ports on %u GPUs, above its radix of %u", f->name,
		    i + 1, ports, gpus, d->radix);
		return -1;
	}
	if (ports < 2) {
		snprintf(err, n, "fabric %s, plane %zu (%s): %" PRIu64
		    " port on %u GPUs: a plane joins two at least", f->name,
		    i + 1, plane_kinds[d->kind], ports, gpus);
		return -1;
	}
	return 0;
}

int
fabric_check(const struct fabric *f, uint32_t gpus, char *err, size_t n)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (check_desc(f, i, gpus, err, n) != 0)
			return -1;
	if (fabric_planes(f, gpus) > FABRIC_MAX_PLANES) {
		snprintf(err, n, "fabric %s on %u GPUs: %" PRIu64 " planes, "
		    "above %u", f->name, gpus, fabric_planes(f, gpus),
		    FABRIC_MAX_PLANES);
		return -1;
	}
	return routes(f, gpus, err, n);
}

int
fabric_is_paper(const struct fabric *f)
{
	return f->n == 1 && f->d[0].kind == PLANE_OCS &&
	    f->d[0].attach == ATTACH_ALL && f->d[0].radix == 0;
}

int
fabric_joined(const struct fabric *f, uint32_t g, uint32_t h)
{
	return direct(f, g, h);
}

uint32_t
fabric_relay(const struct fabric *f, uint32_t g, uint32_t h)
{
	uint32_t k = group_rail(f);

	if (direct(f, g, h) || k == 0)
		return UINT32_MAX;
	return g / k * k + h % k;
}

/* "ocs rail:8 rate=400Gbps tau=10us radix=320", for people. */
char *
fabric_describe(const struct plane_desc *d, char *buf, size_t n)
{
	char r[UNITS_BUFSZ], t[UNITS_BUFSZ], at[32];
	size_t k;

	if (d->attach == ATTACH_ALL)
		snprintf(at, sizeof(at), "all");
	else if (d->attach == ATTACH_UPLINK)
		snprintf(at, sizeof(at), "uplink:%u:%u", d->k, d->u);
	else if (d->attach == ATTACH_GPUS)
		snprintf(at, sizeof(at), "gpus:%u-%u%s", d->gpus[0].lo,
		    d->gpus[0].hi, d->ngpus > 1 ? ",..." : "");
	else
		snprintf(at, sizeof(at), "%s:%u", d->attach == ATTACH_GROUP ?
		    "group" : "rail", d->k);
	k = (size_t)snprintf(buf, n, "%s %s", plane_kinds[d->kind], at);
	if (d->count > 1 && k < n)
		k += (size_t)snprintf(buf + k, n - k, " count=%u", d->count);
	if (k < n)
		k += (size_t)snprintf(buf + k, n - k, " rate=%s",
		    units_fmt_rate(r, sizeof(r), d->rate_bps));
	if (d->latency_ps > 0 && k < n)
		k += (size_t)snprintf(buf + k, n - k, " latency=%s",
		    units_fmt_time(t, sizeof(t), d->latency_ps));
	if (d->kind == PLANE_OCS && k < n)
		k += (size_t)snprintf(buf + k, n - k, " tau=%s%s",
		    units_fmt_time(t, sizeof(t), d->reconfig_ps),
		    d->model == NET_SWITCH ? " model=switch" : "");
	if (d->kind == PLANE_OCS && d->radix > 0 && k < n)
		k += (size_t)snprintf(buf + k, n - k, " radix=%u", d->radix);
	if (d->kind == PLANE_EPS && d->over_num != d->over_den && k < n)
		snprintf(buf + k, n - k, " oversub=%u/%u", d->over_num,
		    d->over_den);
	return buf;
}
