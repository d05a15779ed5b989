/*
 * rotorsched's private parts.  rotorsched.c reads the options and the
 * stream and writes the schedule; rotorsched_rotor.c makes RotorNet's
 * period and rotorsched_tm.c the traffic-matrix schedules (BvN).  Each
 * maker adds one period of circuits to a schedule the caller owns and
 * initialized, sets it periodic with its period, and dies (die()) with
 * a message on input it cannot schedule or when memory runs out.
 */
#ifndef ROTORSCHED_H
#define ROTORSCHED_H

#include <stdint.h>

#include "dagin.h"
#include "net.h"
#include "sched.h"

#define RS_NONE	UINT32_MAX
#define RS_PS	1000000000000ULL

/*
 * A period of K <= NET_MAX_GPUS slots then ends below SCHED_FOREVER:
 * (2^20 - 1) x (2^44 - 1) < 2^64 - 1.
 */
#define SLOT_MAX	(UINT64_MAX / NET_MAX_GPUS)

enum { MODE_ROTOR, MODE_BVN };

struct args {
	int		 mode;
	int		 fwd;
	int		 duty_set, slot_set, fwd_set;
	double		 duty;
	uint64_t	 slot;
	uint64_t	 cap;
	int		 cap_set;
};

/* rotorsched_rotor.c */
uint64_t	rotor_slot(const struct net *, const struct args *);
void		rotor(struct schedule *, const struct net *,
		    const struct args *);

/* rotorsched_tm.c */
void		bvn(struct schedule *, const struct dagin *);

#endif
