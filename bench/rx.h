/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vjrx: guest-side receivers of the vjchan benchmark; shared declarations.
 *
 * One process measures one cell: one receive method (a "mode"), one
 * payload size, one offered load.  It sets the method up on the benchmark
 * NIC, tells the host it is ready, waits for the first frame of its cell,
 * lets a warm-up pass, then measures over a window: frames delivered,
 * frames sent (from the sequence numbers), guest CPU time from /proc/stat
 * and, where the method stamps frames, the latency from the kernel's stamp
 * to user space.  After the window it keeps receiving until the host says
 * the generator has stopped, then appends one CSV row to OUTDIR/rows.csv.
 *
 * Coordination with the host (bench/lib.sh) is by files in OUTDIR, the
 * vm.sh output share (9p, cache=none, so host writes are seen at once):
 *
 *   guest: ready-K   "size=S rate=R maxsec=M tag=T": start the generator
 *   guest: skip-K    this cell sends nothing (set-up failed)
 *   guest: win-K     the window is over: stop the generator
 *   host:  done-K    the generator's result line (key=value ...)
 *
 * Every receiver does the same work per packet: it sums the UDP payload
 * with the Internet checksum arithmetic and compares every byte with the
 * pattern of its sequence number.  Receivers that get raw frames (packet,
 * AF_XDP, vjchan) use that sum to verify the UDP checksum and also check
 * the IPv4 header, as nothing on their path did; the UDP socket's sum is the
 * same work on data whose checksum the kernel has verified.
 *
 * The receive methods are one file per family: rx_socket.c (a UDP
 * socket, a UDP channel socket, groups of either), rx_packet.c (AF_PACKET), rx_xdp.c (AF_XDP and XDP_DROP),
 * rx_vjchan.c (a vjchan channel through libvjchan); rx_main.c measures
 * and writes the row.  Adding a receive method is one struct rx_mode with
 * its open/poll/drops/close functions, in its family's file or a new one,
 * and one line in modes[] in rx_main.c.  The payload pattern and the
 * checksum arithmetic are the shared test library's (tests/lib).
 */
#ifndef BENCH_RX_H
#define BENCH_RX_H

#include <semaphore.h>
#include <stdint.h>
#include <time.h>
#include <netinet/in.h>

#include "common.h"
#include "measure.h"
#include "csum.h"
#include "pattern.h"
#include "util.h"

#define BATCH		64
#define QUEUE_PKTS	4096		/* receive queue depth of each method */
#define SLICE_MS	100		/* longest block, to notice the end */
#define MAX_LAT		(1U << 20)	/* latency samples kept */

enum phase { PH_FIRST, PH_WARMUP, PH_WINDOW, PH_DRAIN, PH_STOP };

struct rx;

/**
 * struct rx_mode - one receive method, defined in its rx_*.c file
 * @name: the mode's name, as in the CSV and on the command line
 * @stamp: what its latency stamp is, or NULL if it has none
 * @open: set up on rx->ifname; 0 or -errno with rx->why set
 * @poll: handle what is ready, blocking up to @timeout_ms if nothing is;
 *	the number of packets handled or -errno
 * @counts: optional: fill rx->cnt from elsewhere (xdp-drop counts in BPF)
 * @drops: describe the method's own drop counters into rx->drops
 * @close: undo @open
 * @arg: mode-specific (XDP bind flags, the vjchan path, ...)
 * @flows: flows the generator sends the cell (source ports BENCH_SPORT
 *	onwards); 0 for the one flow of BENCH_SPORT
 */
struct rx_mode {
	const char	*name;
	const char	*stamp;
	int		(*open)(struct rx *rx);
	int		(*poll)(struct rx *rx, int timeout_ms);
	void		(*counts)(struct rx *rx);
	void		(*drops)(struct rx *rx);
	void		(*close)(struct rx *rx);
	unsigned long	arg;
	unsigned int	flows;
};

/* Counters: written by the receiving thread, read by the clock thread. */
struct counts {
	uint64_t	pkts;
	uint64_t	bytes;
	uint64_t	max_ctr;	/* 1 + the highest frame counter seen */
	uint64_t	bad;		/* malformed, bad checksum or pattern */
	uint64_t	stale;		/* an earlier cell's frames */
	uint64_t	calls;		/* receive calls that returned packets */
};

struct snap {
	double		t;
	struct counts	cnt;
	struct cpu	cpu;
};

struct rx {
	const struct rx_mode	*mode;
	const char	*label;		/* the row's method: MODE[@WHERE] */
	/* configuration */
	const char	*ifname;
	int		ifindex;
	struct cell_cfg	cfg;
	unsigned int	tag;
	int		lat;		/* latency cell: enable and take stamps */
	const char	*kind;
	const char	*bpf_obj;
	/* state */
	struct counts	cnt;
	uint64_t	sink;
	int		phase;		/* enum phase, RD()/WR() */
	int		stop;		/* RD()/WR() */
	int		started;
	int		unsupported;	/* open failed: the method cannot run here */
	sem_t		first;
	char		why[256];	/* reason of a failure or skip */
	char		drops[256];	/* the method's drop counters */
	char		done[512];	/* the host's generator result */
	struct snap	s0, s1;
	int64_t		*lat_ns;
	unsigned int	nlat;
	clockid_t	lat_clock;
	void		*priv;
};

void set_why(struct rx *rx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int rx_run(struct rx *rx);
void rx_check_path(struct rx *rx, uint64_t path, uint64_t packets);

static inline int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define RD(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WR(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* A negative errno from a positive or negative one. */
static inline int err(int e)
{
	return e > 0 ? -e : e;
}

/*
 * A UDP payload of the benchmark flow has arrived; @lat_ns is its latency,
 * or negative if it has none.
 */
static inline void deliver(struct rx *rx, const uint8_t *pl, uint32_t len,
			   int64_t lat_ns)
{
	uint32_t seq, ctr;

	if (len != rx->cfg.size || !payload_ok(pl, len, &seq)) {
		WR(rx->cnt.bad, rx->cnt.bad + 1);
		return;
	}
	if (seq >> BENCH_CTR_BITS != rx->tag) {
		WR(rx->cnt.stale, rx->cnt.stale + 1);
		return;
	}
	ctr = seq & BENCH_CTR_MASK;
	if (ctr + 1 > rx->cnt.max_ctr)
		WR(rx->cnt.max_ctr, ctr + 1);
	WR(rx->cnt.bytes, rx->cnt.bytes + len);
	WR(rx->cnt.pkts, rx->cnt.pkts + 1);
	if (lat_ns >= 0 && RD(rx->phase) == PH_WINDOW && rx->nlat < MAX_LAT)
		rx->lat_ns[rx->nlat++] = lat_ns;
	if (!rx->started) {
		rx->started = 1;
		sem_post(&rx->first);
	}
}

/* The socket path: the kernel has verified the checksums. */
static inline void deliver_udp(struct rx *rx, const uint8_t *pl,
			       uint32_t len, int64_t lat_ns)
{
	rx->sink += csum_partial(0, pl, len);
	deliver(rx, pl, len, lat_ns);
}

/* A raw IPv4 packet: check it the way the stack would, then deliver. */
static inline void deliver_ipv4(struct rx *rx, const uint8_t *ip,
				uint32_t len, int64_t lat_ns)
{
	const uint8_t *pl = bench_udp4(ip, &len, BENCH_DPORT, &rx->sink);

	if (!pl) {
		WR(rx->cnt.bad, rx->cnt.bad + 1);
		return;
	}
	deliver(rx, pl, len, lat_ns);
}

static inline void deliver_eth(struct rx *rx, const uint8_t *f, uint32_t len,
			       int64_t lat_ns)
{
	if (len < 14 || f[12] != 0x08 || f[13] != 0x00) {
		WR(rx->cnt.bad, rx->cnt.bad + 1);
		return;
	}
	deliver_ipv4(rx, f + 14, len - 14, lat_ns);
}

/*
 * vjchan's XDP program (xdp/vjchan.bpf.o) on rx->ifindex in native mode,
 * for the modes that a bypass channel fed by XDP measures (rx_vjxdp.c).
 * vjxdp_attach() sets *prog, or rx->why and returns -errno; vjxdp_detach()
 * copes with NULL.
 */
struct xdp_program;
int vjxdp_attach(struct rx *rx, struct xdp_program **prog);
void vjxdp_detach(struct rx *rx, struct xdp_program *prog);

/* The receive methods (rx_socket.c, rx_packet.c, rx_xdp.c, rx_vjchan.c). */
extern const struct rx_mode rx_udp_recvmmsg, rx_udp_vjchan, rx_udp_vjchan_xdp,
	rx_udp_vjchan_filtered,
	rx_udp_reuseport_1, rx_udp_reuseport_2, rx_udp_vjchan_group_1,
	rx_udp_vjchan_group_2, rx_packet_v3,
	rx_afxdp_copy, rx_afxdp_zc, rx_vjchan_hook, rx_vjchan_hook_crowd,
	rx_vjchan_driver,
	rx_vjchan_direct, rx_vjchan_filtered, rx_vjchan_sanctioned,
	rx_vjchan_xdp, rx_xdp_drop;

#endif /* BENCH_RX_H */
