/*
 * Unit tests of lib/model/fabric: every preset parses and holds on the
 * GPU counts it is made for, with its planes counted by hand; the
 * refusals name their figures (a radix, a K that does not divide, a
 * pair with no route, a GPU past the last); the text form's errors
 * name the line.
 */
#include <stdint.h>
#include <string.h>

#include "model/fabric.h"
#include "model/net.h"
#include "tap.h"

static char err[400];

static int
parse(struct fabric *f, const char *text)
{
	return fabric_parse(f, text, strlen(text), "f.txt", err,
	    sizeof(err));
}

static int
refused(const char *text, uint32_t gpus, const char *want)
{
	struct fabric f;
	int rc;

	fabric_init(&f);
	err[0] = '\0';
	rc = parse(&f, text);
	if (rc == 0)
		rc = fabric_check(&f, gpus, err, sizeof(err));
	fabric_free(&f);
	if (rc == 0 || strcmp(err, want) != 0)
		printf("# got \"%s\"\n", err);
	return rc != 0 && strcmp(err, want) == 0;
}

static int
holds(const char *text, uint32_t gpus)
{
	struct fabric f;
	int rc;

	fabric_init(&f);
	rc = parse(&f, text) == 0 && fabric_check(&f, gpus, err,
	    sizeof(err)) == 0;
	if (!rc)
		printf("# %s\n", err);
	fabric_free(&f);
	return rc;
}

static void
presets(void)
{
	static const struct {
		const char	*name;
		uint32_t	 gpus;
		uint64_t	 planes;
	} t[] = {
		{ "paper", 8, 2 },
		{ "hgx-h100-flat", 256, 32 + 1 },
		{ "hgx-h100-rail", 1024, 128 + 8 },
		{ "hgx-h100-rail-eps", 1024, 128 + 8 + 1 },
		{ "hgx-h100-uplink", 1024, 128 + 8 },
		{ "hgx-h100-uplink-eps", 2048, 256 + 8 + 1 },
		{ "gb200-nvl72-rail", 1152, 16 + 72 },
		{ "gb200-nvl72-uplink", 1152, 16 + 72 },
		{ "gb200-nvl72-flat-eps", 288, 4 + 1 + 1 },
	};
	struct fabric f;
	size_t i, n;

	for (n = 0; fabric_presets[n].name != NULL; n++)
		continue;
	ok(n == 13, "13 presets");
	fabric_init(&f);
	for (i = 0; fabric_presets[i].name != NULL; i++)
		ok(fabric_preset(&f, fabric_presets[i].name, err,
		    sizeof(err)) == 0 && strcmp(f.name,
		    fabric_presets[i].name) == 0, "preset %s parses",
		    fabric_presets[i].name);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ok(fabric_preset(&f, t[i].name, err, sizeof(err)) == 0 &&
		    fabric_check(&f, t[i].gpus, err, sizeof(err)) == 0 &&
		    fabric_planes(&f, t[i].gpus) == t[i].planes,
		    "%s on %u GPUs: %llu planes", t[i].name, t[i].gpus,
		    (unsigned long long)t[i].planes);
	ok(fabric_preset(&f, "paper", err, sizeof(err)) == 0 &&
	    fabric_is_paper(&f) && f.d[0].count == 2 &&
	    f.d[0].rate_bps == 800000000000ULL &&
	    f.d[0].reconfig_ps == 10000000, "paper: 2 x 800G, 10 us");
	ok(fabric_preset(&f, "hgx-h100-rail", err, sizeof(err)) == 0 &&
	    !fabric_is_paper(&f) && f.n == 2 &&
	    f.d[0].kind == PLANE_EPS && f.d[0].attach == ATTACH_GROUP &&
	    f.d[0].k == 8 && f.d[0].rate_bps == 3600000000000ULL &&
	    f.d[1].kind == PLANE_OCS && f.d[1].attach == ATTACH_RAIL &&
	    f.d[1].k == 8 && f.d[1].radix == 320 &&
	    f.d[1].rate_bps == 400000000000ULL,
	    "hgx-h100-rail: NVLink 3.6T in 8s, an OCS per rail at 400G");
	ok(fabric_preset(&f, "h100", err, sizeof(err)) != 0 &&
	    strcmp(err, "h100: no such fabric: a file, or a preset "
	    "(dagbuild --fabric=list)") == 0, "an unknown preset");
	fabric_free(&f);
}

static void
text(void)
{
	struct fabric f;

	fabric_init(&f);
	ok(parse(&f, "# a comment\n\n  eps gpus:0-3,8,12-15 rate=100Gbps "
	    "latency=1us oversub=1.5 # and another\nocs all count=4 "
	    "rate=800Gbps tau=1ms model=switch radix=136") == 0 &&
	    f.n == 2 && f.d[0].ngpus == 3 && f.d[0].gpus[1].lo == 8 &&
	    f.d[0].gpus[1].hi == 8 && f.d[0].gpus[2].hi == 15 &&
	    f.d[0].latency_ps == 1000000 && f.d[0].over_num == 3 &&
	    f.d[0].over_den == 2 && f.d[1].count == 4 &&
	    f.d[1].model == NET_SWITCH && f.d[1].radix == 136 &&
	    f.d[1].reconfig_ps == 1000000000ULL, "a file of two planes");
	ok(parse(&f, "eps uplink:8:2 rate=1Tbps oversub=4") == 0 &&
	    f.d[0].k == 8 && f.d[0].u == 2 && f.d[0].over_num == 4 &&
	    f.d[0].over_den == 1, "uplink:8:2, oversub 4");
	ok(parse(&f, "\n\nocs rail:8\n") != 0 && strcmp(err,
	    "f.txt: line 3: ocs plane: no rate (rate=400Gbps, say)") == 0,
	    "no rate");
	ok(parse(&f, "ocs ring rate=1Gbps") != 0 && strcmp(err,
	    "f.txt: line 1: \"ring\": not an attachment (all, group:K, "
	    "rail:K, uplink:K:U or gpus:LIST)") == 0, "a bad attachment");
	ok(parse(&f, "ocs rail:8:2 rate=1Gbps") != 0 && strcmp(err,
	    "f.txt: line 1: rail:8:2: group:K and rail:K take one figure, "
	    "uplink:K:U two") == 0, "rail with two figures");
	ok(parse(&f, "eps all rate=1Gbps tau=1us") != 0 && strcmp(err,
	    "f.txt: line 1: \"tau\": not a key of an eps plane") == 0,
	    "tau on an eps plane");
	ok(parse(&f, "ocs all rate=800G") != 0 && strncmp(err,
	    "f.txt: line 1: rate: unknown unit \"G\"", 37) == 0,
	    "a rate's unit error lists the units");
	ok(parse(&f, "eps all rate=1Gbps oversub=0.5") != 0 && strcmp(err,
	    "f.txt: line 1: oversub: a ratio of at least 1, as 1, 1.5 or 3")
	    == 0, "oversubscription below 1");
	ok(parse(&f, "# nothing\n") != 0 && strcmp(err,
	    "f.txt: describes no plane") == 0, "no plane");
	ok(parse(&f, "eps gpus:3-1 rate=1Gbps") != 0, "a range backwards");
	fabric_free(&f);
}

static void
checks(void)
{
	ok(refused("eps group:8 rate=3600Gbps\nocs all rate=400Gbps "
	    "radix=320", 1024, "fabric f.txt, plane 2 (ocs): 1024 ports on "
	    "1024 GPUs, above its radix of 320"), "a radix");
	ok(refused("eps group:72 rate=7200Gbps\nocs rail:72 rate=800Gbps",
	    1024, "fabric f.txt, plane 1 (eps): K = 72 does not divide the "
	    "1024 GPUs"), "K does not divide");
	ok(refused("eps group:8 rate=3600Gbps", 16, "fabric f.txt: no route "
	    "from GPU 0 to GPU 8: no plane joins them, and no group:K with "
	    "a rail:K"), "no route between groups");
	ok(refused("eps group:8 rate=1Gbps\nocs rail:4 rate=1Gbps", 16,
	    "fabric f.txt: no route from GPU 0 to GPU 9: no plane joins "
	    "them, and no group:K with a rail:K"),
	    "a group and a rail of different K");
	ok(refused("eps gpus:0-7 rate=1Gbps\nocs all rate=1Gbps", 4,
	    "fabric f.txt, plane 1: GPU 7 is past the last GPU"),
	    "a GPU past the last");
	ok(refused("ocs gpus:0-3,2 rate=1Gbps\nocs all rate=1Gbps", 8,
	    "fabric f.txt, plane 1: GPU 2 is listed out of order or twice"),
	    "a GPU twice");
	ok(refused("ocs group:8 rate=1Gbps\nocs rail:8 rate=1Gbps", 9004,
	    "fabric f.txt, plane 1 (ocs): K = 8 does not divide the 9004 "
	    "GPUs"), "9004 GPUs");
	ok(refused("eps group:8 rate=1Gbps\neps gpus:0,8 rate=1Gbps", 16000,
	    "fabric f.txt on 16000 GPUs: no plane of all GPUs, no uplink "
	    "plane, no group:K with a rail:K; routes are checked pair by "
	    "pair up to 8192 GPUs only"), "too many pairs to try");
	ok(refused("ocs all rate=1Gbps", 1, "fabric f.txt, plane 1 (ocs): 1 "
	    "port on 1 GPUs: a plane joins two at least"), "one GPU");
	ok(holds("eps group:8 rate=1Gbps\neps gpus:0,8 rate=1Gbps\n"
	    "ocs rail:8 rate=1Gbps", 16), "group and rail route all");
	ok(holds("eps group:4 rate=1Gbps\nocs gpus:0-15 rate=1Gbps", 16),
	    "a list of every GPU joins every pair, pair by pair");
	ok(refused("eps group:4 rate=1Gbps\nocs gpus:0-14 rate=1Gbps", 16,
	    "fabric f.txt: no route from GPU 0 to GPU 15: no plane joins "
	    "them, and no group:K with a rail:K"), "one GPU left out");
}

int
main(void)
{
	presets();
	text();
	checks();
	return tap_done();
}
