// SPDX-License-Identifier: GPL-2.0
/*
 * vjrx: guest-side receivers of the vjchan benchmark.
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
 * Adding a receive method is one set of open/poll/drops/close functions
 * and one line in modes[].
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/if_xdp.h>
#include <linux/sock_diag.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/xsk.h>

#include "vjchan.h"
#include "common.h"
#include "xdp_bench.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BATCH		64
#define QUEUE_PKTS	4096		/* receive queue depth of each method */
#define SLICE_MS	100		/* longest block, to notice the end */
#define MAX_LAT		(1U << 20)	/* latency samples kept */

enum phase { PH_FIRST, PH_WARMUP, PH_WINDOW, PH_DRAIN, PH_STOP };

struct rx;

/**
 * struct rx_mode - one receive method
 * @name: the mode's name, as in the CSV and on the command line
 * @stamp: what its latency stamp is, or NULL if it has none
 * @open: set up on rx->ifname; 0 or -errno with rx->why set
 * @poll: handle what is ready, blocking up to @timeout_ms if nothing is;
 *	the number of packets handled or -errno
 * @counts: optional: fill rx->cnt from elsewhere (xdp-drop counts in BPF)
 * @drops: describe the method's own drop counters into rx->drops
 * @close: undo @open
 * @arg: mode-specific (XDP bind flags, the vjchan path, ...)
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

struct cpu {
	unsigned long long	user, nice, sys, idle, iowait, irq, softirq,
				steal;
};

struct snap {
	double		t;
	struct counts	cnt;
	struct cpu	cpu;
};

struct rx {
	const struct rx_mode	*mode;
	/* configuration */
	const char	*ifname;
	int		ifindex;
	unsigned int	size, tag, cell, smp, run, rate;
	double		warmup, seconds;
	int		lat;		/* latency cell: enable and take stamps */
	const char	*kind;
	const char	*outdir;
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
	uint8_t		ramp[BENCH_RAMP_LEN];
};

static void set_why(struct rx *rx, const char *fmt, ...)
{
	va_list ap;
	char *c;

	va_start(ap, fmt);
	vsnprintf(rx->why, sizeof(rx->why), fmt, ap);
	va_end(ap);
	for (c = rx->why; *c; c++)	/* keep the CSV simple */
		if (*c == ',' || *c == '"' || *c == '\n')
			*c = ';';
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#define RD(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WR(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/*
 * A UDP payload of the benchmark flow has arrived; @lat_ns is its latency,
 * or negative if it has none.
 */
static inline void deliver(struct rx *rx, const uint8_t *pl, uint32_t len,
			   int64_t lat_ns)
{
	uint32_t seq, ctr;

	if (len != rx->size || bench_pattern_check(rx->ramp, pl, len, &seq)) {
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
	rx->sink += bench_csum_add(0, pl, len);
	deliver(rx, pl, len, lat_ns);
}

/* A raw IPv4 packet: check it the way the stack would, then deliver. */
static inline void deliver_ipv4(struct rx *rx, const uint8_t *ip,
				uint32_t len, int64_t lat_ns)
{
	uint32_t ihl, tot, ulen;
	const uint8_t *udp;
	uint16_t csum, port;
	uint64_t sum;

	if (len < 20 || ip[0] >> 4 != 4)
		goto bad;
	ihl = (ip[0] & 15) * 4;
	tot = (uint32_t)ip[2] << 8 | ip[3];
	if (ihl < 20 || tot < ihl + 8 || tot > len || ip[9] != IPPROTO_UDP ||
	    ((ip[6] & 0x3f) | ip[7]) || bench_csum_fold(bench_csum_add(0, ip, ihl)))
		goto bad;
	udp = ip + ihl;
	memcpy(&port, udp + 2, 2);
	ulen = (uint32_t)udp[4] << 8 | udp[5];
	if (port != htons(BENCH_DPORT) || ulen < 8 || ulen > tot - ihl)
		goto bad;
	memcpy(&csum, udp + 6, 2);
	/* Pseudo header: addresses, protocol, UDP length. */
	sum = bench_csum_add(0, ip + 12, 8);
	sum += htons(IPPROTO_UDP) + htons(ulen);
	sum = bench_csum_add(sum, udp, ulen);
	rx->sink += sum;
	if (csum && bench_csum_fold(sum))
		goto bad;
	deliver(rx, udp + 8, ulen - 8, lat_ns);
	return;
bad:
	WR(rx->cnt.bad, rx->cnt.bad + 1);
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

static int err(int e)
{
	return e > 0 ? -e : e;
}

/* ---- udp-recvmmsg: a UDP socket, recvmmsg() batches of 64 ---------------- */

struct udp_rx {
	int		fd;
	struct mmsghdr	msgs[BATCH];
	struct iovec	iov[BATCH];
	uint8_t		bufs[BATCH][2048];
	char		ctl[BATCH][CMSG_SPACE(sizeof(struct timespec))];
};

static int udp_open(struct rx *rx)
{
	struct udp_rx *u = calloc(1, sizeof(*u));
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct timeval tv = { 0, SLICE_MS * 1000 };
	int one = 1, buf = 8 << 20, i;

	if (!u)
		return -ENOMEM;
	rx->priv = u;
	u->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (u->fd < 0) {
		set_why(rx, "socket: %s", strerror(errno));
		return -errno;
	}
	/* A queue like the others' (the kernel doubles the value). */
	if (setsockopt(u->fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)) ||
	    setsockopt(u->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    (rx->lat && setsockopt(u->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one,
				   sizeof(one)))) {
		set_why(rx, "setsockopt: %s", strerror(errno));
		return -errno;
	}
	inet_pton(AF_INET, BENCH_DST_IP, &a.sin_addr);
	a.sin_port = htons(BENCH_DPORT);
	if (bind(u->fd, (struct sockaddr *)&a, sizeof(a))) {
		set_why(rx, "bind: %s", strerror(errno));
		return -errno;
	}
	for (i = 0; i < BATCH; i++) {
		u->iov[i].iov_base = u->bufs[i];
		u->iov[i].iov_len = sizeof(u->bufs[i]);
		u->msgs[i].msg_hdr.msg_iov = &u->iov[i];
		u->msgs[i].msg_hdr.msg_iovlen = 1;
	}
	rx->lat_clock = CLOCK_REALTIME;
	return 0;
}

static int udp_poll(struct rx *rx, int timeout_ms)
{
	struct udp_rx *u = rx->priv;
	int64_t now = 0;
	int n, i;

	(void)timeout_ms;	/* SO_RCVTIMEO is SLICE_MS */
	for (i = 0; i < BATCH; i++) {
		u->msgs[i].msg_hdr.msg_control = rx->lat ? u->ctl[i] : NULL;
		u->msgs[i].msg_hdr.msg_controllen = rx->lat ? sizeof(u->ctl[i]) : 0;
	}
	/* Block for the first datagram, then take what is queued. */
	n = recvmmsg(u->fd, u->msgs, BATCH, MSG_WAITFORONE, NULL);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (rx->lat)
		now = clock_ns(CLOCK_REALTIME);
	for (i = 0; i < n; i++) {
		struct msghdr *m = &u->msgs[i].msg_hdr;
		int64_t lat = -1;

		if (rx->lat) {
			struct cmsghdr *c;

			for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
				struct timespec ts;

				if (c->cmsg_level != SOL_SOCKET ||
				    c->cmsg_type != SCM_TIMESTAMPNS)
					continue;
				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				lat = now - ((int64_t)ts.tv_sec * 1000000000 +
					     ts.tv_nsec);
			}
		}
		if (m->msg_flags & MSG_TRUNC) {
			WR(rx->cnt.bad, rx->cnt.bad + 1);
			continue;
		}
		deliver_udp(rx, u->bufs[i], u->msgs[i].msg_len, lat);
	}
	return n;
}

static void udp_drops(struct rx *rx)
{
	struct udp_rx *u = rx->priv;
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mi);

	if (!getsockopt(u->fd, SOL_SOCKET, SO_MEMINFO, mi, &len))
		snprintf(rx->drops, sizeof(rx->drops), "sk_drops=%u",
			 mi[SK_MEMINFO_DROPS]);
}

static void udp_close(struct rx *rx)
{
	struct udp_rx *u = rx->priv;

	if (u && u->fd >= 0)
		close(u->fd);
	free(u);
}

/* ---- packet-v3: AF_PACKET TPACKET_V3 receive ring ------------------------ */

#define PKT_BLOCK_SIZE	(1U << 16)
#define PKT_FRAME_SIZE	2048
#define PKT_BLOCKS	(QUEUE_PKTS * PKT_FRAME_SIZE / PKT_BLOCK_SIZE)
#define PKT_TOV_MS	1		/* block retire timeout: a jiffy */

struct pkt_rx {
	int		fd;
	uint8_t		*map;
	size_t		map_len;
	unsigned int	cur;
};

static int pkt_open(struct rx *rx)
{
	/* The flow: IPv4, UDP, not a fragment, destination port. */
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 8),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 23),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 6),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 20),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x3fff, 4, 0),
		BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 14),
		BPF_STMT(BPF_LD | BPF_H | BPF_IND, 16),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BENCH_DPORT, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0x40000),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { ARRAY_SIZE(code), code };
	struct tpacket_req3 req = {
		.tp_block_size = PKT_BLOCK_SIZE,
		.tp_block_nr = PKT_BLOCKS,
		.tp_frame_size = PKT_FRAME_SIZE,
		.tp_frame_nr = PKT_BLOCKS * (PKT_BLOCK_SIZE / PKT_FRAME_SIZE),
		.tp_retire_blk_tov = PKT_TOV_MS,
	};
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_IP),
		.sll_ifindex = rx->ifindex,
	};
	struct pkt_rx *p = calloc(1, sizeof(*p));
	int v = TPACKET_V3;

	if (!p)
		return -ENOMEM;
	rx->priv = p;
	/* Protocol 0: nothing arrives before the filter is in place. */
	p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (p->fd < 0) {
		set_why(rx, "socket(AF_PACKET): %s", strerror(errno));
		return -errno;
	}
	if (setsockopt(p->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) ||
	    setsockopt(p->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog))) {
		set_why(rx, "setsockopt: %s", strerror(errno));
		return -errno;
	}
	p->map_len = (size_t)PKT_BLOCK_SIZE * PKT_BLOCKS;
	p->map = mmap(NULL, p->map_len, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_POPULATE, p->fd, 0);
	if (p->map == MAP_FAILED) {
		p->map = NULL;
		set_why(rx, "mmap: %s", strerror(errno));
		return -errno;
	}
	if (bind(p->fd, (struct sockaddr *)&sll, sizeof(sll))) {
		set_why(rx, "bind: %s", strerror(errno));
		return -errno;
	}
	rx->lat_clock = CLOCK_REALTIME;
	return 0;
}

/* One block per call: the ring hands over whole blocks. */
static int pkt_poll(struct rx *rx, int timeout_ms)
{
	struct pkt_rx *p = rx->priv;
	struct tpacket_block_desc *b;
	struct tpacket3_hdr *h;
	unsigned int i, n;
	int64_t now = 0;

	b = (void *)(p->map + (size_t)p->cur * PKT_BLOCK_SIZE);
	if (!(__atomic_load_n(&b->hdr.bh1.block_status, __ATOMIC_ACQUIRE) &
	      TP_STATUS_USER)) {
		struct pollfd pfd = { .fd = p->fd, .events = POLLIN | POLLERR };

		if (poll(&pfd, 1, timeout_ms) < 0)
			return errno == EINTR ? 0 : -errno;
		if (!(__atomic_load_n(&b->hdr.bh1.block_status,
				      __ATOMIC_ACQUIRE) & TP_STATUS_USER))
			return 0;
	}
	if (rx->lat)
		now = clock_ns(CLOCK_REALTIME);
	n = b->hdr.bh1.num_pkts;
	h = (void *)((uint8_t *)b + b->hdr.bh1.offset_to_first_pkt);
	for (i = 0; i < n; i++) {
		int64_t lat = -1;

		if (rx->lat)
			lat = now - ((int64_t)h->tp_sec * 1000000000 +
				     h->tp_nsec);
		if (h->tp_snaplen != h->tp_len)
			WR(rx->cnt.bad, rx->cnt.bad + 1);
		else
			deliver_eth(rx, (uint8_t *)h + h->tp_mac, h->tp_snaplen,
				    lat);
		h = (void *)((uint8_t *)h + h->tp_next_offset);
	}
	__atomic_store_n(&b->hdr.bh1.block_status, TP_STATUS_KERNEL,
			 __ATOMIC_RELEASE);
	p->cur = (p->cur + 1) % PKT_BLOCKS;
	return n;
}

static void pkt_drops(struct rx *rx)
{
	struct pkt_rx *p = rx->priv;
	struct tpacket_stats_v3 st;
	socklen_t len = sizeof(st);

	if (!getsockopt(p->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len))
		snprintf(rx->drops, sizeof(rx->drops),
			 "tp_drops=%u tp_freeze_q_cnt=%u", st.tp_drops,
			 st.tp_freeze_q_cnt);
}

static void pkt_close(struct rx *rx)
{
	struct pkt_rx *p = rx->priv;

	if (!p)
		return;
	if (p->map)
		munmap(p->map, p->map_len);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}

/* ---- XDP programs (xdp_bench.bpf.o), for AF_XDP and xdp-drop ------------- */

struct xdp_prog {
	struct bpf_object	*obj;
	int			ifindex;
	int			attached;
};

static int xdp_load(struct rx *rx, struct xdp_prog *x, const char *prog_name,
		    struct bpf_map **map, const char *map_name,
		    const struct xdp_bench_count *init)
{
	struct bpf_program *prog;
	__u32 key = 0;
	int e;

	x->ifindex = rx->ifindex;
	x->obj = bpf_object__open_file(rx->bpf_obj, NULL);
	e = libbpf_get_error(x->obj);
	if (e) {
		x->obj = NULL;
		set_why(rx, "open %s: %s", rx->bpf_obj, strerror(-e));
		return err(e);
	}
	e = bpf_object__load(x->obj);
	if (e) {
		set_why(rx, "load %s: %s", rx->bpf_obj, strerror(-e));
		return err(e);
	}
	prog = bpf_object__find_program_by_name(x->obj, prog_name);
	*map = bpf_object__find_map_by_name(x->obj, map_name);
	if (!prog || !*map) {
		set_why(rx, "%s: no %s or %s", rx->bpf_obj, prog_name, map_name);
		return -ENOENT;
	}
	if (init && bpf_map_update_elem(bpf_map__fd(*map), &key, init, 0)) {
		set_why(rx, "map update: %s", strerror(errno));
		return -errno;
	}
	/* Native (driver) mode: virtio_net runs the program in its NAPI. */
	e = bpf_xdp_attach(rx->ifindex, bpf_program__fd(prog),
			   XDP_FLAGS_DRV_MODE, NULL);
	if (e) {
		set_why(rx, "bpf_xdp_attach(XDP_FLAGS_DRV_MODE): %s", strerror(-e));
		return err(e);
	}
	x->attached = 1;
	return 0;
}

static void xdp_unload(struct xdp_prog *x)
{
	if (x->attached)
		bpf_xdp_detach(x->ifindex, XDP_FLAGS_DRV_MODE, NULL);
	x->attached = 0;
	if (x->obj)
		bpf_object__close(x->obj);
	x->obj = NULL;
}

/* ---- afxdp-copy, afxdp-zc: AF_XDP socket through libxdp ------------------ */

#define XSK_FRAMES	QUEUE_PKTS
#define XSK_FRAME_SIZE	2048

struct xsk_rx {
	struct xdp_prog		prog;
	struct xsk_umem		*umem;
	struct xsk_socket	*xsk;
	struct xsk_ring_prod	fq;
	struct xsk_ring_cons	cq;
	struct xsk_ring_cons	rxq;
	void			*area;
	size_t			area_len;
	int			fd;
	__u64			addrs[BATCH];
};

static const char *errname(int e)
{
	switch (e) {
	case EOPNOTSUPP:	return "EOPNOTSUPP";
	case EINVAL:		return "EINVAL";
	case ENOENT:		return "ENOENT";
	case EBUSY:		return "EBUSY";
	case EPERM:		return "EPERM";
	case ENOMEM:		return "ENOMEM";
	default:		return "errno";
	}
}

static int xsk_open(struct rx *rx)
{
	struct xsk_umem_config ucfg = {
		.fill_size = XSK_FRAMES,
		.comp_size = XSK_RING_CONS__DEFAULT_NUM_DESCS,
		.frame_size = XSK_FRAME_SIZE,
		.frame_headroom = 0,
		.flags = 0,
	};
	struct xsk_socket_config cfg = {
		.rx_size = XSK_FRAMES / 2,
		.tx_size = 0,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.xdp_flags = XDP_FLAGS_DRV_MODE,
		.bind_flags = rx->mode->arg | XDP_USE_NEED_WAKEUP,
	};
	const char *how = rx->mode->arg & XDP_ZEROCOPY ? "XDP_ZEROCOPY" : "XDP_COPY";
	struct xsk_rx *x = calloc(1, sizeof(*x));
	struct bpf_map *map;
	__u32 idx, i;
	int e;

	if (!x)
		return -ENOMEM;
	rx->priv = x;
	x->area_len = (size_t)XSK_FRAMES * XSK_FRAME_SIZE;
	x->area = mmap(NULL, x->area_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (x->area == MAP_FAILED) {
		x->area = NULL;
		set_why(rx, "mmap: %s", strerror(errno));
		return -errno;
	}
	e = xsk_umem__create(&x->umem, x->area, x->area_len, &x->fq, &x->cq,
			     &ucfg);
	if (e) {
		x->umem = NULL;
		set_why(rx, "xsk_umem__create: %s", strerror(-e));
		return err(e);
	}
	e = xdp_load(rx, &x->prog, "xdp_flow_redirect", &map, "xsks_map", NULL);
	if (e)
		return e;
	e = xsk_socket__create(&x->xsk, rx->ifname, 0, x->umem, &x->rxq, NULL,
			       &cfg);
	if (e) {
		x->xsk = NULL;
		set_why(rx, "xsk_socket__create(%s): %s (%s)", how,
			errname(-e), strerror(-e));
		/* virtio_net in 6.12 has no zero-copy AF_XDP. */
		if (e == -EOPNOTSUPP && (rx->mode->arg & XDP_ZEROCOPY))
			rx->unsupported = 1;
		return err(e);
	}
	x->fd = xsk_socket__fd(x->xsk);
	e = xsk_socket__update_xskmap(x->xsk, bpf_map__fd(map));
	if (e) {
		set_why(rx, "xsk_socket__update_xskmap: %s", strerror(-e));
		return err(e);
	}
	if (xsk_ring_prod__reserve(&x->fq, XSK_FRAMES, &idx) != XSK_FRAMES) {
		set_why(rx, "fill ring: cannot reserve %u", XSK_FRAMES);
		return -ENOSPC;
	}
	for (i = 0; i < XSK_FRAMES; i++)
		*xsk_ring_prod__fill_addr(&x->fq, idx + i) =
			(__u64)i * XSK_FRAME_SIZE;
	xsk_ring_prod__submit(&x->fq, XSK_FRAMES);
	return 0;
}

static int xsk_poll(struct rx *rx, int timeout_ms)
{
	struct xsk_rx *x = rx->priv;
	__u32 idx, fidx, i, n;

	n = xsk_ring_cons__peek(&x->rxq, BATCH, &idx);
	if (!n) {
		struct pollfd pfd = { .fd = x->fd, .events = POLLIN };

		if (xsk_ring_prod__needs_wakeup(&x->fq))
			recvfrom(x->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
		if (poll(&pfd, 1, timeout_ms) < 0)
			return errno == EINTR ? 0 : -errno;
		n = xsk_ring_cons__peek(&x->rxq, BATCH, &idx);
		if (!n)
			return 0;
	}
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&x->rxq, idx + i);
		__u64 addr = xsk_umem__add_offset_to_addr(d->addr);

		/* AF_XDP carries no receive time stamp. */
		deliver_eth(rx, xsk_umem__get_data(x->area, addr), d->len, -1);
		x->addrs[i] = xsk_umem__extract_addr(d->addr);
	}
	xsk_ring_cons__release(&x->rxq, n);
	/* Hand the frames back; the fill ring has room for all of UMEM. */
	while (xsk_ring_prod__reserve(&x->fq, n, &fidx) != n)
		;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&x->fq, fidx + i) = x->addrs[i];
	xsk_ring_prod__submit(&x->fq, n);
	return n;
}

static void xsk_drops(struct rx *rx)
{
	struct xsk_rx *x = rx->priv;
	struct xdp_statistics st;
	socklen_t len = sizeof(st);

	if (x->xsk && !getsockopt(x->fd, SOL_XDP, XDP_STATISTICS, &st, &len))
		snprintf(rx->drops, sizeof(rx->drops),
			 "rx_dropped=%llu rx_ring_full=%llu fill_empty=%llu",
			 (unsigned long long)st.rx_dropped,
			 (unsigned long long)st.rx_ring_full,
			 (unsigned long long)st.rx_fill_ring_empty_descs);
}

static void xsk_close(struct rx *rx)
{
	struct xsk_rx *x = rx->priv;

	if (!x)
		return;
	if (x->xsk)
		xsk_socket__delete(x->xsk);
	if (x->umem)
		xsk_umem__delete(x->umem);
	xdp_unload(&x->prog);
	if (x->area)
		munmap(x->area, x->area_len);
	free(x);
}

/* ---- vjchan-*: a vjchan channel through libvjchan ------------------------ */

/* Which path the packets must have taken, checked against rx_driver. */
enum { VJ_PATH_HOOK, VJ_PATH_DRIVER };

struct vj_rx {
	struct vj_chan	ch;
	int		open;
};

static int vjc_open(struct rx *rx)
{
	struct vj_chan_opts o = { .entries = QUEUE_PKTS, .buf_size = 2048 };
	struct vj_rx *v = calloc(1, sizeof(*v));
	struct vj_flow flow;
	char spec[128];
	int e;

	if (!v)
		return -ENOMEM;
	rx->priv = v;
	snprintf(spec, sizeof(spec), "udp4 dport %d daddr %s dev %s",
		 BENCH_DPORT, BENCH_DST_IP, rx->ifname);
	e = vj_flow_parse(spec, &flow);
	if (e) {
		set_why(rx, "vj_flow_parse(%s): %s", spec, strerror(-e));
		return e;
	}
	e = vj_chan_open(&v->ch, &o);
	if (e) {
		set_why(rx, "vj_chan_open: %s%s", strerror(-e),
			e == -EAFNOSUPPORT ? " (vjchan.ko not loaded)" : "");
		return e;
	}
	v->open = 1;
	/* The pre-routing hook serves bypass channels. */
	e = vj_chan_bind_flags(&v->ch, &flow, VJ_BIND_FW_BYPASS);
	if (!e)
		e = vj_chan_map(&v->ch);
	if (e) {
		set_why(rx, "vj_chan_bind/map: %s", strerror(-e));
		return e;
	}
	rx->lat_clock = CLOCK_MONOTONIC;
	return 0;
}

static int vjc_poll(struct rx *rx, int timeout_ms)
{
	struct vj_rx *v = rx->priv;
	unsigned int i, n;
	int64_t now;
	__u32 idx, len;

	n = vj_peek(&v->ch, BATCH, &idx);
	if (!n) {
		int r = vj_wait(&v->ch, timeout_ms);

		if (r <= 0)
			return r == -EINTR ? 0 : r;
		n = vj_peek(&v->ch, BATCH, &idx);
	}
	now = rx->lat ? clock_ns(CLOCK_MONOTONIC) : 0;
	for (i = 0; i < n; i++) {
		struct vj_desc d;
		const uint8_t *p;

		vj_desc_copy(vj_desc_at(&v->ch, idx + i), &d);
		p = vj_pkt(&v->ch, &d, &len);
		if (!p || d.l3_off > len || d.proto != htons(ETH_P_IP) ||
		    (d.flags & VJ_DESC_F_TRUNC)) {
			WR(rx->cnt.bad, rx->cnt.bad + 1);
			continue;
		}
		deliver_ipv4(rx, p + d.l3_off, len - d.l3_off,
			     rx->lat ? now - (int64_t)d.tstamp : -1);
	}
	vj_release(&v->ch, n);
	return n;
}

static void vjc_drops(struct rx *rx)
{
	struct vj_rx *v = rx->priv;
	struct vj_statistics st;

	if (!v->open || vj_chan_stats(&v->ch, &st))
		return;
	snprintf(rx->drops, sizeof(rx->drops),
		 "rx_ring_full=%llu rx_driver=%llu rx_invalid_cons=%llu",
		 (unsigned long long)st.rx_ring_full,
		 (unsigned long long)st.rx_driver,
		 (unsigned long long)st.rx_invalid_cons);
	/* The mode names the path: make sure the packets took it. */
	if (rx->mode->arg == VJ_PATH_HOOK && st.rx_driver)
		set_why(rx, "%llu packets came through the driver API",
			(unsigned long long)st.rx_driver);
	if (rx->mode->arg == VJ_PATH_DRIVER && st.rx_driver != st.rx_packets)
		set_why(rx, "%llu of %llu packets did not come through the driver API",
			(unsigned long long)(st.rx_packets - st.rx_driver),
			(unsigned long long)st.rx_packets);
}

static void vjc_close(struct rx *rx)
{
	struct vj_rx *v = rx->priv;

	if (!v)
		return;
	if (v->open)
		vj_chan_close(&v->ch);
	free(v);
}

/* ---- vjchan-xdp: the same channel, fed by vjchan's XDP program --------- */

#include "rx_vjxdp.c"

/* ---- xdp-drop: the ceiling, XDP_DROP of the flow in the driver ----------- */

struct drop_rx {
	struct xdp_prog	prog;
	struct bpf_map	*map;
};

static int drop_open(struct rx *rx)
{
	struct xdp_bench_count init = { .tag = rx->tag };
	struct drop_rx *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	rx->priv = d;
	return xdp_load(rx, &d->prog, "xdp_flow_drop", &d->map, "counts", &init);
}

static void drop_counts(struct rx *rx)
{
	struct drop_rx *d = rx->priv;
	struct xdp_bench_count c;
	__u32 key = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(d->map), &key, &c))
		return;
	rx->cnt.pkts = c.pkts;
	rx->cnt.bytes = c.bytes;
	rx->cnt.max_ctr = c.max_ctr;
	rx->cnt.stale = c.stale;
	rx->cnt.bad = c.bad;
}

/* Nothing to receive: wait, and watch for the first frame. */
static int drop_poll(struct rx *rx, int timeout_ms)
{
	struct timespec ts = { 0, (rx->started ? timeout_ms : 10) * 1000000L };

	nanosleep(&ts, NULL);
	if (!rx->started) {
		drop_counts(rx);
		if (rx->cnt.pkts) {
			rx->started = 1;
			sem_post(&rx->first);
		}
	}
	return 0;
}

static void drop_drops(struct rx *rx)
{
	snprintf(rx->drops, sizeof(rx->drops), "xdp_drop=all");
}

static void drop_close(struct rx *rx)
{
	struct drop_rx *d = rx->priv;

	if (!d)
		return;
	xdp_unload(&d->prog);
	free(d);
}

/* ---- the receive methods -------------------------------------------------- */

static const struct rx_mode modes[] = {
	{ "udp-recvmmsg", "SO_TIMESTAMPNS: CLOCK_REALTIME at skb receive",
	  udp_open, udp_poll, NULL, udp_drops, udp_close, 0 },
	{ "packet-v3", "tp_sec/tp_nsec: CLOCK_REALTIME at skb receive; blocks retire after a jiffy",
	  pkt_open, pkt_poll, NULL, pkt_drops, pkt_close, 0 },
	{ "afxdp-copy", NULL,
	  xsk_open, xsk_poll, NULL, xsk_drops, xsk_close, XDP_COPY },
	{ "afxdp-zc", NULL,
	  xsk_open, xsk_poll, NULL, xsk_drops, xsk_close, XDP_ZEROCOPY },
	{ "vjchan-hook", "vj_desc.tstamp: CLOCK_MONOTONIC in the hook",
	  vjc_open, vjc_poll, NULL, vjc_drops, vjc_close, VJ_PATH_HOOK },
	{ "vjchan-xdp", "vj_desc.tstamp: CLOCK_MONOTONIC in the XDP kfunc",
	  vjxdp_open, vjxdp_poll, NULL, vjxdp_drops, vjxdp_close, 0 },
	{ "xdp-drop", NULL,
	  drop_open, drop_poll, drop_counts, drop_drops, drop_close, 0 },
};

#define NMODES	ARRAY_SIZE(modes)

/* ---- measurement ---------------------------------------------------------- */

static int read_cpu(struct cpu *c)
{
	char buf[512];
	ssize_t n;
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);

	memset(c, 0, sizeof(*c));
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		      &c->user, &c->nice, &c->sys, &c->idle, &c->iowait,
		      &c->irq, &c->softirq, &c->steal) == 8 ? 0 : -1;
}

static void snap(struct rx *rx, struct snap *s)
{
	if (rx->mode->counts)
		rx->mode->counts(rx);
	s->cnt.pkts = RD(rx->cnt.pkts);
	s->cnt.bytes = RD(rx->cnt.bytes);
	s->cnt.max_ctr = RD(rx->cnt.max_ctr);
	s->cnt.bad = RD(rx->cnt.bad);
	s->cnt.stale = RD(rx->cnt.stale);
	s->cnt.calls = RD(rx->cnt.calls);
	s->t = mono();
	read_cpu(&s->cpu);
}

static void sleep_for(double secs)
{
	double until = mono() + secs;
	struct timespec ts;

	ts.tv_sec = (time_t)until;
	ts.tv_nsec = (long)((until - ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void put_file(struct rx *rx, const char *what, const char *fmt, ...)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s-%u", rx->outdir, what, rx->cell);
	snprintf(tmp, sizeof(tmp), "%s/.%s-%u.tmp", rx->outdir, what, rx->cell);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "vjrx: %s: %s\n", tmp, strerror(errno));
		return;
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
	rename(tmp, path);
}

/* Wait up to @secs for the host's done-K; keep its contents. */
static int wait_done(struct rx *rx, double secs)
{
	char path[PATH_MAX];
	double until = mono() + secs;
	FILE *f;

	snprintf(path, sizeof(path), "%s/done-%u", rx->outdir, rx->cell);
	while (mono() < until) {
		f = fopen(path, "r");
		if (f) {
			if (!fgets(rx->done, sizeof(rx->done), f))
				rx->done[0] = 0;
			rx->done[strcspn(rx->done, "\n")] = 0;
			fclose(f);
			return 0;
		}
		sleep_for(0.1);
	}
	return -1;
}

/* The clock: warm-up, window, hand-shake; then tell the receiver to stop. */
static void *clock_thread(void *arg)
{
	struct rx *rx = arg;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 30;
	while (sem_timedwait(&rx->first, &ts)) {
		if (errno == EINTR)
			continue;
		set_why(rx, "no frame of this cell within 30 s");
		put_file(rx, "win", "nothing\n");
		wait_done(rx, 60);
		WR(rx->stop, 1);
		return NULL;
	}
	WR(rx->phase, PH_WARMUP);
	sleep_for(rx->warmup);
	snap(rx, &rx->s0);
	WR(rx->phase, PH_WINDOW);
	sleep_for(rx->seconds);
	WR(rx->phase, PH_DRAIN);
	snap(rx, &rx->s1);
	put_file(rx, "win", "over\n");
	if (wait_done(rx, 60))
		set_why(rx, "the host did not answer win-%u", rx->cell);
	/* Frames still queued between host and guest. */
	sleep_for(0.3);
	WR(rx->stop, 1);
	return NULL;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* A number from the host's generator result line, -1 if missing. */
static double done_field(const struct rx *rx, const char *key)
{
	const char *p = rx->done;
	size_t n = strlen(key);

	while ((p = strstr(p, key))) {
		if ((p == rx->done || p[-1] == ' ') && p[n] == '=')
			return strtod(p + n + 1, NULL);
		p += n;
	}
	return -1;
}

/*
 * Guest CPU time.  The Debian kernel samples user/system/softirq time at the
 * tick (no CONFIG_IRQ_TIME_ACCOUNTING), which charges interrupt and softirq
 * work that interrupts the idle task to no column at all; but with NOHZ the
 * idle column is the measured idle sleep time, which excludes that work.  So
 * busy time is taken as online CPUs x wall time minus idle and iowait, and
 * the sampled columns are only a breakdown; "unsampled" is the difference,
 * mostly softirq work done while the CPU was otherwise idle.
 */
static unsigned long long sampled(const struct cpu *c)
{
	return c->user + c->nice + c->sys + c->irq + c->softirq + c->steal;
}

static unsigned long long idle(const struct cpu *c)
{
	return c->idle + c->iowait;
}

#define CSV_HEADER \
	"smp,mode,size,kind,rate,run,status,reason,window_s,rx_pkts," \
	"offered_in_window,seq_span,pps,loss_pct,cpu_busy_s,cpu_us_per_pkt," \
	"user_us_per_pkt,sys_us_per_pkt,softirq_us_per_pkt," \
	"unsampled_us_per_pkt,pkts_per_call,lat_stamp," \
	"lat_samples,lat_p50_us,lat_p99_us,gen_sent,rx_total,bad,stale," \
	"method_drops,host_rcvbuf_drops"

static void write_row(struct rx *rx, const char *status)
{
	char path[PATH_MAX], line[2048], lat[128] = ",,";
	double dt = rx->s1.t - rx->s0.t, hz = sysconf(_SC_CLK_TCK);
	uint64_t pkts = rx->s1.cnt.pkts - rx->s0.cnt.pkts;
	uint64_t span = rx->s1.cnt.max_ctr - rx->s0.cnt.max_ctr;
	double gen_secs = done_field(rx, "secs"), gen_sent = done_field(rx, "sent");
	double offered;
	double ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double cpu = ncpu * dt - (idle(&rx->s1.cpu) - idle(&rx->s0.cpu)) / hz;
	double ticks = (sampled(&rx->s1.cpu) - sampled(&rx->s0.cpu)) / hz;
	double usr = (rx->s1.cpu.user + rx->s1.cpu.nice - rx->s0.cpu.user -
		      rx->s0.cpu.nice) / hz;
	double sys = (rx->s1.cpu.sys + rx->s1.cpu.irq - rx->s0.cpu.sys -
		      rx->s0.cpu.irq) / hz;
	double sirq = (rx->s1.cpu.softirq - rx->s0.cpu.softirq) / hz;
	uint64_t calls = rx->s1.cnt.calls - rx->s0.cnt.calls;
	double per = pkts ? 1e6 / pkts : 0, loss;
	char ppc[32] = "";
	int fd, n;

	if (cpu < 0)
		cpu = 0;

	if (!rx->s1.t) {
		n = snprintf(line, sizeof(line),
			     "%u,%s,%u,%s,%u,%u,%s,%s,,,,,,,,,,,,,,%s,,,,,,,,,\n",
			     rx->smp, rx->mode->name, rx->size, rx->kind,
			     rx->rate, rx->run, status, rx->why,
			     rx->mode->stamp ? "yes" : "none");
		goto out;
	}
	/*
	 * Loss: the gaps among the sequence numbers the window delivered, a
	 * fraction that does not depend on when exactly the window's ends
	 * fell (queues are FIFO).  The span itself is not the count offered
	 * in the window: it runs short while a receive queue fills and long
	 * while one drains.  That count, the generator's measured rate times
	 * the window, is reported beside it.
	 */
	offered = gen_secs > 0 && gen_sent >= 0 ? gen_sent / gen_secs * dt : -1;
	loss = span ? 100.0 * (1.0 - (double)pkts / span) : 0;
	if (loss < 0)
		loss = 0;
	/* Packets per receive call that returned any: the batching achieved. */
	if (calls)
		snprintf(ppc, sizeof(ppc), "%.1f", (double)pkts / calls);
	if (rx->lat && rx->mode->stamp && rx->nlat) {
		qsort(rx->lat_ns, rx->nlat, sizeof(rx->lat_ns[0]), cmp_i64);
		snprintf(lat, sizeof(lat), "%u,%.1f,%.1f", rx->nlat,
			 rx->lat_ns[rx->nlat / 2] / 1e3,
			 rx->lat_ns[(size_t)(rx->nlat * 0.99)] / 1e3);
	} else if (rx->lat && rx->mode->stamp) {
		snprintf(lat, sizeof(lat), "0,,");
	}
	n = snprintf(line, sizeof(line),
		     "%u,%s,%u,%s,%u,%u,%s,%s,%.3f,%llu,%.0f,%llu,%.0f,%.2f,%.3f,"
		     "%.2f,%.2f,%.2f,%.2f,%.2f,%s,%s,%s,%.0f,%llu,%llu,%llu,%s,%.0f\n",
		     rx->smp, rx->mode->name, rx->size, rx->kind, rx->rate,
		     rx->run, status, rx->why, dt, (unsigned long long)pkts,
		     offered, (unsigned long long)span, dt > 0 ? pkts / dt : 0,
		     loss, cpu,
		     cpu * per, usr * per, sys * per, sirq * per,
		     (cpu - ticks) * per, ppc,
		     rx->mode->stamp ? "yes" : "none", lat,
		     gen_sent, (unsigned long long)rx->cnt.pkts,
		     (unsigned long long)rx->cnt.bad,
		     (unsigned long long)rx->cnt.stale, rx->drops,
		     done_field(rx, "host_rcvbuf_drops"));
out:
	snprintf(path, sizeof(path), "%s/rows.csv", rx->outdir);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, line, n) != n)
		fprintf(stderr, "vjrx: %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	fputs(line, stdout);
}

static void usage(FILE *f)
{
	unsigned int i;

	fprintf(f,
"usage: vjrx [options] MODE IFNAME\n"
"Measure one benchmark cell in the guest (see bench/guest.sh).\n"
"\n"
"  -s, --size N       UDP payload bytes (default 64)\n"
"  -r, --rate PPS     offered load, passed to the host (0: flat out)\n"
"  -k, --cell K       cell number, names the hand-shake files (default 1)\n"
"  -w, --warmup S     seconds from the first frame to the window (default 1)\n"
"  -T, --seconds S    length of the window (default 4)\n"
"  -L, --latency      a latency cell: take time stamps\n"
"  -o, --out DIR      hand-shake files and rows.csv (default $VJ_OUT)\n"
"  -B, --bpf FILE     XDP object (default: xdp_bench.bpf.o beside vjrx)\n"
"      --smp N --run N  labels for the row\n"
"      --header       print the CSV header and exit\n"
"      --list         print the modes and exit\n"
"\n"
"MODE:");
	for (i = 0; i < NMODES; i++)
		fprintf(f, " %s", modes[i].name);
	fprintf(f, "\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "size",	required_argument, NULL, 's' },
		{ "rate",	required_argument, NULL, 'r' },
		{ "cell",	required_argument, NULL, 'k' },
		{ "warmup",	required_argument, NULL, 'w' },
		{ "seconds",	required_argument, NULL, 'T' },
		{ "latency",	no_argument,	   NULL, 'L' },
		{ "out",	required_argument, NULL, 'o' },
		{ "bpf",	required_argument, NULL, 'B' },
		{ "smp",	required_argument, NULL, 1 },
		{ "run",	required_argument, NULL, 2 },
		{ "header",	no_argument,	   NULL, 3 },
		{ "list",	no_argument,	   NULL, 4 },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static struct rx rx;
	char bpf[PATH_MAX];
	pthread_t clk;
	unsigned int i;
	double maxsec;
	int c, e;

	rx.size = 64;
	rx.cell = 1;
	rx.warmup = 1;
	rx.seconds = 4;
	rx.kind = "tput";
	rx.smp = sysconf(_SC_NPROCESSORS_ONLN);
	rx.outdir = getenv("VJ_OUT");
	while ((c = getopt_long(argc, argv, "s:r:k:w:T:Lo:B:h", lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			rx.size = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			rx.rate = strtoul(optarg, NULL, 0);
			break;
		case 'k':
			rx.cell = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			rx.warmup = strtod(optarg, NULL);
			break;
		case 'T':
			rx.seconds = strtod(optarg, NULL);
			break;
		case 'L':
			rx.lat = 1;
			rx.kind = "lat";
			break;
		case 'o':
			rx.outdir = optarg;
			break;
		case 'B':
			rx.bpf_obj = optarg;
			break;
		case 1:
			rx.smp = strtoul(optarg, NULL, 0);
			break;
		case 2:
			rx.run = strtoul(optarg, NULL, 0);
			break;
		case 3:
			puts(CSV_HEADER);
			return 0;
		case 4:
			for (i = 0; i < NMODES; i++)
				puts(modes[i].name);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2 || !rx.outdir || rx.size < BENCH_MIN_PAYLOAD ||
	    rx.size > BENCH_MAX_PAYLOAD || rx.seconds <= 0 || rx.warmup < 0) {
		usage(stderr);
		return 2;
	}
	for (i = 0; i < NMODES; i++)
		if (!strcmp(argv[optind], modes[i].name))
			rx.mode = &modes[i];
	if (!rx.mode) {
		fprintf(stderr, "vjrx: unknown mode '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	rx.ifname = argv[optind + 1];
	rx.ifindex = if_nametoindex(rx.ifname);
	rx.tag = rx.cell & ((1U << BENCH_TAG_BITS) - 1);
	if (!rx.bpf_obj) {
		ssize_t n = readlink("/proc/self/exe", bpf, sizeof(bpf) - 32);
		char *slash;

		bpf[n > 0 ? n : 0] = 0;
		slash = strrchr(bpf, '/');
		slash = slash ? slash + 1 : bpf;
		snprintf(slash, sizeof(bpf) - (slash - bpf), "xdp_bench.bpf.o");
		rx.bpf_obj = bpf;
	}
	bench_ramp_init(rx.ramp);
	sem_init(&rx.first, 0, 0);
	rx.lat_ns = rx.lat ? calloc(MAX_LAT, sizeof(*rx.lat_ns)) : NULL;
	if (rx.lat && !rx.lat_ns)
		return 1;
	libbpf_set_print(NULL);

	if (!rx.ifindex) {
		set_why(&rx, "no interface %s", rx.ifname);
		e = -ENODEV;
	} else {
		e = rx.mode->open(&rx);
	}
	if (e) {
		rx.mode->close(&rx);
		put_file(&rx, "skip", "%s\n", rx.why);
		write_row(&rx, rx.unsupported ? "unsupported" : "fail");
		return rx.unsupported ? 0 : 1;
	}

	maxsec = rx.warmup + rx.seconds + 60;
	pthread_create(&clk, NULL, clock_thread, &rx);
	put_file(&rx, "ready", "size=%u rate=%u maxsec=%.0f tag=%u\n", rx.size,
		 rx.rate, maxsec, rx.tag);
	while (!RD(rx.stop)) {
		e = rx.mode->poll(&rx, SLICE_MS);
		if (e > 0)
			WR(rx.cnt.calls, rx.cnt.calls + 1);
		if (e < 0) {
			set_why(&rx, "%s poll: %s", rx.mode->name, strerror(-e));
			break;
		}
	}
	pthread_join(clk, NULL);
	if (rx.mode->counts)
		rx.mode->counts(&rx);
	rx.mode->drops(&rx);
	rx.mode->close(&rx);
	/*
	 * Anything that set a reason (poll error, no frames, no answer from
	 * the host, packets on the wrong path) fails the cell.
	 */
	if (e < 0 || !rx.s1.t || rx.why[0]) {
		write_row(&rx, "fail");
		return 1;
	}
	write_row(&rx, "ok");
	return 0;
}
