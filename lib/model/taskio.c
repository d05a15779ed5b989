/* taskio: task records to and from a struct dag. */
#include <stdint.h>
#include <stdlib.h>

#include "model/dag.h"
#include "model/taskfast.h"
#include "model/taskio.h"
#include "records/rec.h"
#include "records/stream.h"

static const char *const kinds[] = { "compute", "transfer", NULL };

void
taskio_write(msgpack_packer *pk, const struct dag *d, size_t i,
    const char *name, const uint64_t *op)
{
	const struct dag_task *t = &d->t[i];
	const uint32_t *dep = dag_deps(d, i);
	size_t j, n = 7 + (t->kind == DAG_TRANSFER) + (name != NULL) +
	    (op != NULL);
	struct stream_writer *w = stream_packer_writer(pk);

	if (w != NULL && taskfast_write(w, d, i, name, op) == 0)
		return;
	stream_pack_record(pk, "task", n);
	stream_pack_ku64(pk, "id", i);
	stream_pack_kstr(pk, "kind", kinds[t->kind]);
	stream_pack_str(pk, "deps");
	msgpack_pack_array(pk, t->ndep);
	for (j = 0; j < t->ndep; j++)
		msgpack_pack_uint32(pk, dep[j]);
	if (t->kind == DAG_COMPUTE) {
		stream_pack_ku64(pk, "gpu", t->gpu);
		stream_pack_ku64(pk, "duration_ps", t->amount);
	} else {
		stream_pack_ku64(pk, "src", t->gpu);
		stream_pack_ku64(pk, "dst", t->dst);
		stream_pack_ku64(pk, "bytes", t->amount);
	}
	stream_pack_ku64(pk, "step", t->step);
	if (op != NULL)
		stream_pack_ku64(pk, "op", *op);
	if (name != NULL)
		stream_pack_kstr(pk, "name", name);
}

enum { K_ID, K_KIND, K_DEPS, K_STEP, K_A, K_B, K_C, K_N };

/* Keys of every task, then those of a compute task or a transfer. */
static const char *const keys[2][K_N] = {
	{ "id", "kind", "deps", "step", "gpu", "duration_ps", NULL },
	{ "id", "kind", "deps", "step", "src", "dst", "bytes" }
};

static uint32_t
gpu_key(struct rec *r, const char *key, const msgpack_object *v)
{
	uint64_t x = rec_val_u64(r, key, v);

	if (x > UINT32_MAX) {
		rec_fail(r, "key \"%s\": %llu is too large", key,
		    (unsigned long long)x);
		return 0;
	}
	return (uint32_t)x;
}

/* Check the dependencies and store them in place in the dag. */
static int
read_deps(struct rec *r, struct dag *d, const msgpack_object_array *a,
    uint64_t id, uint32_t **out)
{
	uint32_t *deps;
	size_t i;

	if ((deps = dag_dep_space(d, a->size)) == NULL) {
		rec_fail(r, "out of memory");
		return -1;
	}
	for (i = 0; i < a->size && !rec_failed(r); i++) {
		const msgpack_object *o = &a->ptr[i];

		if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
			rec_fail(r, "key \"deps\": item %zu: expected "
			    "unsigned integer, got %s", i, rec_typename(o));
		else if (o->via.u64 >= id)
			rec_fail(r, "task %llu depends on %llu, which is not "
			    "an earlier task", (unsigned long long)id,
			    (unsigned long long)o->via.u64);
		else
			deps[i] = (uint32_t)o->via.u64;
	}
	*out = deps;
	return rec_failed(r) ? -1 : 0;
}

int
taskio_read(struct rec *r, struct dag *d, uint32_t gpus)
{
	if (taskfast_read(r, d, gpus) == 0)
		return 0;
	return taskio_read_tree(r, d, gpus);
}

int
taskio_read_tree(struct rec *r, struct dag *d, uint32_t gpus)
{
	const msgpack_object *v[K_N];
	const msgpack_object_array *a;
	struct dag_task t = { 0 };
	uint32_t *deps;
	uint64_t id, step;

	t.kind = (uint8_t)rec_enum(r, "kind", kinds);
	if (rec_failed(r))
		return -1;
	rec_lookup(r, keys[t.kind], t.kind == DAG_COMPUTE ? K_N - 1 : K_N, v,
	    d->hint[t.kind]);
	id = rec_val_u64(r, "id", v[K_ID]);
	a = rec_val_array(r, "deps", v[K_DEPS]);
	if (t.kind == DAG_COMPUTE) {
		t.gpu = gpu_key(r, "gpu", v[K_A]);
		t.amount = rec_val_u64(r, "duration_ps", v[K_B]);
	} else {
		t.gpu = gpu_key(r, "src", v[K_A]);
		t.dst = gpu_key(r, "dst", v[K_B]);
		t.amount = rec_val_u64(r, "bytes", v[K_C]);
	}
	step = rec_val_u64_or(r, "step", v[K_STEP], 0);
	if (!rec_failed(r) && step > DAG_MAX_STEP)
		rec_fail(r, "key \"step\": %llu exceeds %u",
		    (unsigned long long)step, DAG_MAX_STEP);
	if (rec_failed(r))
		return -1;
	t.step = (uint16_t)step;
	if (id != d->n) {
		rec_fail(r, "id %llu out of order (expected %zu)",
		    (unsigned long long)id, d->n);
		return -1;
	}
	if (t.gpu >= gpus || (t.kind == DAG_TRANSFER && t.dst >= gpus)) {
		rec_fail(r, "GPU out of range (the net has %u)", gpus);
		return -1;
	}
	if (t.kind == DAG_TRANSFER && t.gpu == t.dst) {
		rec_fail(r, "transfer from GPU %u to itself", t.gpu);
		return -1;
	}
	if (read_deps(r, d, a, id, &deps) != 0)
		return -1;
	if (dag_add(d, &t, deps, a->size) != 0) {
		rec_fail(r, "out of memory");
		return -1;
	}
	return 0;
}
