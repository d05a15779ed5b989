/*
 * sched: schedules as records (fluxocs(5): schedule, circuit, plan)
 * and their validation against the network's reconfiguration model.
 *
 * A schedule is a set of circuits, each {a, b} on one switch, usable in
 * [from_ps, to_ps); a periodic schedule gives one period and repeats.
 * Plans pin transfers to a switch, in start order per directed pair.
 * The struct owns its arrays; sched_add_circuit() and sched_add_plan()
 * append to them (-1 when memory runs out).  Readers report through the record's
 * sticky error; sched_take() routes a schedule, circuit or plan record
 * to its reader (returns 1; 0 for any other record), refusing a circuit
 * or plan when no net has been read (net NULL).  sched_check() sorts
 * the circuits by (switch, from, a) and names the first violation in
 * the caller's buffer.
 *
 * On a tiered fabric, a schedule of circuits alone may say
 * circuits_first: a transfer goes over the ocs planes whose circuits
 * join its ports at some time in the schedule, else over the plane
 * planes_route() gives it (an eps one first); rotorsched -m static
 * says so where an eps plane is beside its circuits.
 *
 * A schedule may record a placement, the port of each GPU on a table
 * whose circuits were relabelled (rotorsched -p): place[g] for every
 * GPU g, a permutation of the net's GPUs, or place NULL for none.  The
 * reader checks it is a permutation, sched_take() (with the net) and
 * sched_check() that it covers the net's GPUs; nothing else uses it.
 *
 * Plans and circuits go straight between the record's bytes and the
 * struct when they can (lib/model/schedfast), through msgpack-c otherwise,
 * with the same bytes and results; the *_tree() readers go through
 * msgpack-c's tree alone, for the tests to compare.
 */
#ifndef SCHED_H
#define SCHED_H

#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include "model/net.h"
#include "records/rec.h"

#define SCHED_FOREVER	UINT64_MAX

/*
 * Forwarding (ocssim(1), Two-hop forwarding): direct only; two-hop
 * (vlb), relaying whenever a circuit has spare capacity; or two-hop
 * with look-ahead (rotorlb), relaying only bytes that the relay's next
 * circuit to their destination comes up before their source's own
 * (simnext.h).  sched_fwds[] names them in this order.
 */
enum sched_fwd { SCHED_DIRECT, SCHED_VLB, SCHED_ROTORLB };

#define SCHED_TWO_HOP(f)	((f) == SCHED_VLB || (f) == SCHED_ROTORLB)

struct circuit {
	uint32_t	sw, a, b;	/* a < b */
	uint64_t	from, to;
};

struct plan {
	uint32_t	task, sw;
	uint64_t	start;
};

struct schedule {
	char		 scheduler[32];
	int		 present;	/* a schedule record was read */
	int		 periodic;
	uint64_t	 period;
	int		 forwarding;
	uint64_t	 vlb_cap;
	int		 circuits_first; /* tiered: a circuit, else eps */
	uint32_t	*place;		/* port of each GPU, or NULL */
	uint32_t	 nplace;
	struct circuit	*c;
	size_t		 nc, ccap;
	struct plan	*p;
	size_t		 np, pcap;
	/*
	 * A reader's own check of each plan as it is read, or NULL: NULL
	 * when the plan may stand, else why not, which the record's
	 * reader reports with the record's offset.  Called again on a
	 * record that a fast reader left to the tree reader.
	 */
	const char	*(*plan_check)(void *, const struct plan *);
	void		*plan_arg;
};

extern const char *const sched_fwds[];

void	sched_init(struct schedule *);
void	sched_free(struct schedule *);
int	sched_read_schedule(struct rec *, struct schedule *);
int	sched_read_circuit(struct rec *, struct schedule *,
	    const struct net *);
int	sched_read_plan(struct rec *, struct schedule *, const struct net *);
int	sched_read_circuit_tree(struct rec *, struct schedule *,
	    const struct net *);
int	sched_read_plan_tree(struct rec *, struct schedule *,
	    const struct net *);
int	sched_take(struct rec *, const struct stream_rec *,
	    struct schedule *, const struct net *);
int	sched_add_circuit(struct schedule *, uint32_t, uint32_t, uint32_t,
	    uint64_t, uint64_t);
int	sched_add_plan(struct schedule *, uint32_t, uint32_t, uint64_t);
void	sched_write_schedule(msgpack_packer *, const struct schedule *);
void	sched_write_circuit(msgpack_packer *, const struct circuit *);
void	sched_write_plan(msgpack_packer *, const struct plan *);
int	sched_check(struct schedule *, const struct net *, char *, size_t);

#endif
