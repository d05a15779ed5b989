/*
 * fuzz_fabric: the text form of a fabric (lib/model/fabric): parsed,
 * checked on a few GPU counts, each description written back for
 * people, and, when it holds on 16 GPUs, every pair routed
 * (fabric_joined(), fabric_relay()) and a DAG of a transfer between
 * every pair split into hops (lib/model/route), each hop on one plane.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/dag.h"
#include "model/fabric.h"
#include "model/route.h"

#define GPUS	16

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
routes(const struct fabric *f)
{
	struct dag in, out;
	struct dag_task t = { 1, 0, 0, 0, 0, 0, DAG_TRANSFER };
	uint32_t g, h, from[2 * GPUS * GPUS], bg, bh;
	size_t i;

	dag_init(&in);
	dag_init(&out);
	for (g = 0; g < GPUS; g++)
		for (h = 0; h < GPUS; h++) {
			if (g == h)
				continue;
			t.gpu = g;
			t.dst = h;
			if (dag_add(&in, &t, NULL, 0) != 0)
				abort();
		}
	if (route_dag(&in, f, &out, from, &bg, &bh) < 0)
		abort();	/* the fabric held on these GPUs */
	for (i = 0; i < out.n; i++)
		if (!fabric_joined(f, out.t[i].gpu, out.t[i].dst))
			abort();
	dag_free(&in);
	dag_free(&out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t gpus[] = { 1, 8, GPUS, 72, 1024, 9000 };
	struct fabric f;
	char err[400], line[200];
	size_t i;

	fabric_init(&f);
	if (fabric_parse(&f, (const char *)data, size, "fuzz", err,
	    sizeof(err)) == 0) {
		for (i = 0; i < f.n; i++)
			(void)fabric_describe(&f.d[i], line, sizeof(line));
		for (i = 0; i < sizeof(gpus) / sizeof(gpus[0]); i++)
			(void)fabric_check(&f, gpus[i], err, sizeof(err));
		if (fabric_check(&f, GPUS, err, sizeof(err)) == 0)
			routes(&f);
	}
	fabric_free(&f);
	return 0;
}
