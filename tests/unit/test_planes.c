/*
 * Unit tests of lib/model/planes: plane numbers, ports and the planes
 * joining a pair, worked by hand on the paper's net, HGX H100 with the
 * OCS per rail and per uplink, a list, and rails of two planes each.
 */
#include <stdint.h>
#include <string.h>

#include "model/fabric.h"
#include "model/planes.h"
#include "tap.h"

static struct fabric f;
static struct planes pl;
static char err[300];

static int
setup(const char *text, const char *preset, uint32_t gpus)
{
	planes_free(&pl);
	if (preset != NULL ? fabric_preset(&f, preset, err, sizeof(err)) :
	    fabric_parse(&f, text, strlen(text), "t", err, sizeof(err)))
		return -1;
	if (fabric_check(&f, gpus, err, sizeof(err)) != 0)
		return -1;
	return planes_expand(&pl, &f, gpus);
}

/* The planes joining g and h are exactly want[0..n). */
static int
joins(uint32_t g, uint32_t h, const uint32_t *want, size_t n)
{
	uint32_t out[64];
	size_t k = planes_joining(&pl, g, h, out, 64);

	return k == n && (n == 0 || memcmp(out, want, n * sizeof(*out)) == 0);
}

int
main(void)
{
	static const uint32_t p01[] = { 0, 1 }, p0[] = { 0 }, p1[] = { 1 },
	    p11[] = { 11 }, up[] = { 8, 9, 10, 11, 12, 13, 14, 15 },
	    p012[] = { 0, 1, 2 }, p12[] = { 1, 2 }, p23[] = { 2, 3 }, p8[] = { 8 };
	uint32_t one[1];

	fabric_init(&f);
	memset(&pl, 0, sizeof(pl));
	ok(setup(NULL, "paper", 8) == 0 && pl.n == 2 && joins(0, 5, p01, 2) &&
	    planes_port(&pl, 1, 5) == 5 && pl.p[1].ports == 8 &&
	    pl.p[0].kind == PLANE_OCS && pl.p[0].rate_bps == 800000000000ULL,
	    "paper on 8: two planes of 8 ports, both join any pair");
	ok(setup(NULL, "hgx-h100-rail", 64) == 0 && pl.n == 16 &&
	    pl.base[1] == 8 && pl.p[0].ports == 8 && pl.p[8].ports == 8 &&
	    pl.p[0].kind == PLANE_EPS && pl.p[11].kind == PLANE_OCS &&
	    pl.p[11].unit == 3 && pl.p[11].reconfig_ps == 10000000,
	    "hgx-h100-rail on 64: 8 servers, then 8 rails");
	ok(joins(3, 5, p0, 1) && joins(9, 13, p1, 1) && joins(3, 11, p11, 1) &&
	    joins(3, 12, NULL, 0), "a server's NVLink, a rail, or nothing");
	ok(planes_port(&pl, 11, 11) == 1 && planes_port(&pl, 11, 3) == 0 &&
	    planes_port(&pl, 11, 4) == -1 && planes_port(&pl, 0, 9) == -1 &&
	    planes_port(&pl, 1, 13) == 5, "ports: g / 8 on a rail, g mod 8 "
	    "in a server");
	ok(setup(NULL, "hgx-h100-uplink", 64) == 0 && pl.n == 16 &&
	    joins(3, 12, up, 8) && pl.p[8].ports == 8 &&
	    planes_port(&pl, 8, 12) == 1 && planes_port(&pl, 15, 63) == 7,
	    "hgx-h100-uplink on 64: every uplink plane joins servers, a port "
	    "a server");
	ok(setup("eps gpus:2-3,8 rate=1Gbps\nocs all count=2 rate=1Gbps",
	    NULL, 16) == 0 && pl.n == 3 && pl.p[0].ports == 3 &&
	    joins(3, 8, p012, 3) && joins(3, 4, p12, 2) &&
	    planes_port(&pl, 0, 8) == 2 && planes_port(&pl, 0, 4) == -1,
	    "a list: its own place numbers");
	ok(setup("ocs rail:4 count=2 rate=1Gbps\neps group:4 rate=1Gbps",
	    NULL, 8) == 0 && pl.n == 10 && joins(1, 5, p23, 2) &&
	    joins(1, 2, p8, 1) && planes_joining(&pl, 1, 5, one, 1) == 2 &&
	    one[0] == 2, "two planes a rail; a short out array still counts");
	planes_free(&pl);
	fabric_free(&f);
	return tap_done();
}
