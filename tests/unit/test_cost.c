/*
 * Unit tests of lib/model/cost, worked by hand on 8 GPUs in four groups
 * of two, and two rails of 4 ports at 100 Gbit/s, with a transceiver at $1 and 0.02 W a
 * Gbit/s, an EPS port at $0.5 and 0.01 W a Gbit/s, an OCS port at $200
 * and 0.1 W, and EPS switches of 0.2 Tbit/s (two ports: a rail of four
 * needs a spine).  OCS: 8 x (200 + 100) = $2400.  EPS without spines:
 * 8 x (50 + 2 x 100) = $2000; spines at o = 1: 8 x 2 x (50 + 100) =
 * $2400; so o = 2400 / (2400 - 2000) = 6.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "model/cost.h"
#include "model/fabric.h"
#include "tap.h"

static struct fabric f;
static char err[300];

static int
fab(const char *text)
{
	fabric_free(&f);
	fabric_init(&f);
	return fabric_parse(&f, text, strlen(text), "t", err, sizeof(err));
}

static int
near(double a, double b)
{
	return fabs(a - b) < 1e-6 * (fabs(b) + 1);
}

int
main(void)
{
	struct cost_figures fig = cost_defaults;
	struct cost_sum ocs, eps;
	struct fabric out;

	fabric_init(&f);
	ok(cost_parse(&fig, "xcvr_usd=1,xcvr_w=0.02,eps_usd=0.5,eps_w=0.01,"
	    "ocs_usd=200,ocs_w=0.1,eps_tbps=0.2", err, sizeof(err)) == 0,
	    "figures parsed");
	ok(fab("eps group:2 rate=1Tbps\nocs rail:2 rate=100Gbps") == 0,
	    "four groups of two, a rail per local rank");
	cost_fabric(&f, 8, &fig, &ocs);
	ok(near(ocs.usd, 2400) && near(ocs.w, 8 * (0.1 + 2)) &&
	    near(ocs.ports, 8) && near(ocs.xcvrs, 8),
	    "the OCS rails: $2400, 16.8 W, 8 ports, 8 transceivers; NVLink "
	    "not counted");
	fabric_init(&out);
	ok(cost_eps_equal(&f, 8, &fig, &out, &ocs, &eps, err,
	    sizeof(err)) == 0 && out.d[1].kind == PLANE_EPS &&
	    out.d[1].attach == ATTACH_RAIL && out.d[1].over_num == 6 &&
	    out.d[1].over_den == 1 && out.d[1].rate_bps == 100000000000ULL,
	    "the money buys EPS rails oversubscribed 6:1 at the same rate");
	ok(near(eps.usd, 2400) && near(eps.ports, 8 + 16.0 / 6) &&
	    near(eps.xcvrs, 16 + 16.0 / 6) && out.d[0].kind == PLANE_EPS &&
	    out.d[0].attach == ATTACH_GROUP,
	    "its cost is the OCS's: 8 leaf ports and 16/6 up and spine, the "
	    "group plane kept");
	fabric_free(&out);
	fig.ocs_usd = 1000;
	fabric_init(&out);
	ok(cost_eps_equal(&f, 8, &fig, &out, &ocs, &eps, err,
	    sizeof(err)) == 0 && out.d[1].over_num == out.d[1].over_den &&
	    near(eps.usd, 4400) && near(ocs.usd, 8800),
	    "OCS ports at $1000: a non-blocking EPS ($4400) fits the money");
	fabric_free(&out);
	fig.ocs_usd = 100;
	fig.eps_tbps = 51.2;
	fabric_init(&out);
	ok(cost_eps_equal(&f, 8, &fig, &out, &ocs, &eps, err,
	    sizeof(err)) == 0 && out.d[1].over_num == out.d[1].over_den &&
	    out.d[1].rate_bps == 80000000000ULL && near(eps.usd, 1600),
	    "one switch a rail and OCS ports at $100: $1600 buys the EPS "
	    "rails at 80 Gbit/s");
	fabric_free(&out);
	ok(fab("eps all rate=100Gbps") == 0 &&
	    cost_eps_equal(&f, 8, &fig, &out, &ocs, &eps, err,
	    sizeof(err)) == -1 && strstr(err, "no ocs plane") != NULL,
	    "a fabric with no OCS: refused");
	fabric_free(&out);
	ok(cost_parse(&fig, "foo=1", err, sizeof(err)) == -1 &&
	    cost_parse(&fig, "xcvr_usd=-1", err, sizeof(err)) == -1 &&
	    cost_parse(&fig, "xcvr_usd=", err, sizeof(err)) == -1 &&
	    cost_parse(&fig, "eps_tbps=0", err, sizeof(err)) == -1 &&
	    cost_parse(&fig, "ocs_w", err, sizeof(err)) == -1 &&
	    cost_parse(&fig, "ocs_w=1x", err, sizeof(err)) == -1,
	    "bad figures refused: an unknown key, a negative, none, a zero "
	    "switch, no value, a trailing letter");
	ok(cost_parse(&fig, "ocs_w=0", err, sizeof(err)) == 0 &&
	    fig.ocs_w == 0 && cost_parse(&fig, "", err, sizeof(err)) == 0,
	    "a zero figure and no figure at all are fine");
	fabric_free(&f);
	return tap_done();
}
