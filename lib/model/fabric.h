/*
 * fabric: the network as planes (BRIEF section 2b; fluxocs(5), FABRICS).
 *
 * A fabric is a list of plane descriptions over GPUs 0..N-1.  Each
 * description has a kind, ocs (circuits) or eps (an electrical packet
 * switch), and an attachment:
 *
 *	all		one port per GPU;
 *	group:K		one plane per block of K consecutive GPUs (a
 *			server's NVLink, a rack), a port per member;
 *	rail:K		one plane per local rank r (g mod K = r), a port
 *			per GPU of that rank;
 *	uplink:K:U	one plane whose ports belong to the groups of K,
 *			U each, reached by any GPU of the group through the
 *			group's own fabric;
 *	gpus:LIST	one plane of the GPUs listed (as 0-3,8,12-15).
 *
 * "count" planes stand for each one the attachment makes (the paper's
 * S switches are "ocs all count=S").  Every port sends and receives at
 * rate_bps each way, and every transfer on the plane pays latency_ps.
 * An ocs plane has its reconfiguration delay and model and a radix (0:
 * none): a plane with more ports than its radix is refused.  An eps
 * plane has an oversubscription num/den >= 1 capping its throughput at
 * ports x rate x den / num.
 *
 * fabric_parse() reads the text form (one description a line, "#"
 * comments; see fluxocs(5)); fabric_preset() fills a named preset and
 * fabric_presets[] lists them; fabric_check() refuses, naming the
 * figures, what cannot be built on N GPUs: a K that does not divide N,
 * a listed GPU out of range, a plane over its radix, a pair of GPUs
 * that no plane joins and no two hops (group, then rail) connect.  All
 * return 0, or -1 with a message in the caller's buffer.
 * fabric_joined() says whether a plane joins GPUs g and h;
 * fabric_relay() gives, for a pair no plane joins, the GPU of g's group
 * on h's rail, through which it is routed (UINT32_MAX when a plane
 * joins them, or none can route them).  fabric_describe() writes one
 * description in the text form, its figures rounded for people, into
 * the caller's buffer and returns it.  fabric_planes() counts the
 * planes of a fabric on N GPUs, fabric_plane_count() those of one
 * description; fabric_shape() gives a description's units (groups,
 * ranks, else 1) and the ports of each of its planes.  The struct
 * owns its descriptions; fabric_free() releases them.  Planes are
 * numbered in the order of the descriptions, and within one in the
 * order of its units (groups, ranks), then its count.
 */
#ifndef FABRIC_H
#define FABRIC_H

#include <stddef.h>
#include <stdint.h>

enum plane_kind { PLANE_OCS, PLANE_EPS };
enum attach { ATTACH_ALL, ATTACH_GROUP, ATTACH_RAIL, ATTACH_UPLINK,
	ATTACH_GPUS };

#define FABRIC_MAX_DESC		64
#define FABRIC_MAX_PLANES	65536U
#define FABRIC_NAME		64

struct span {				/* GPUs lo..hi, both included */
	uint32_t	lo, hi;
};

struct plane_desc {
	int		 kind;		/* enum plane_kind */
	int		 attach;	/* enum attach */
	uint32_t	 k;		/* group, rail or uplink: the K */
	uint32_t	 u;		/* uplink: ports per group */
	uint32_t	 count;		/* planes per unit */
	uint64_t	 rate_bps;
	uint64_t	 latency_ps;
	uint64_t	 reconfig_ps;	/* ocs */
	int		 model;		/* ocs: enum net_model */
	uint32_t	 radix;		/* ocs: 0 for none */
	uint32_t	 over_num;	/* eps: oversubscription num/den */
	uint32_t	 over_den;
	struct span	*gpus;		/* gpus: the list */
	size_t		 ngpus;
};

struct fabric {
	char		 name[FABRIC_NAME];
	struct plane_desc d[FABRIC_MAX_DESC];
	size_t		 n;
};

struct fabric_preset {
	const char	*name;
	const char	*what;		/* one line: the hardware */
	const char	*text;		/* its description, as a file has it */
};

extern const struct fabric_preset fabric_presets[];
extern const char *const plane_kinds[];

void	fabric_init(struct fabric *);
void	fabric_free(struct fabric *);
int	fabric_parse(struct fabric *, const char *, size_t, const char *,
	    char *, size_t);
int	fabric_preset(struct fabric *, const char *, char *, size_t);
int	fabric_check(const struct fabric *, uint32_t, char *, size_t);
uint64_t fabric_planes(const struct fabric *, uint32_t);
uint64_t fabric_plane_count(const struct plane_desc *, uint32_t);
void	fabric_shape(const struct plane_desc *, uint32_t, uint64_t *,
	    uint64_t *);
int	fabric_is_paper(const struct fabric *);
int	fabric_joined(const struct fabric *, uint32_t, uint32_t);
uint32_t fabric_relay(const struct fabric *, uint32_t, uint32_t);
char	*fabric_describe(const struct plane_desc *, char *, size_t);

#endif
