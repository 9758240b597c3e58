// SPDX-License-Identifier: GPL-2.0
/*
 * stress: many channels under load from both CPUs and the driver API, with
 * consumers that come and go, and exact accounting of every datagram.
 *
 *   stress [-t SECONDS] [-c CHANNELS] [-r PPS] [-s SEED] [-v]
 *
 * CHANNELS (default 64) UDP ports each get, at times, a channel bound to
 * {udp4, dport P}.  Traffic:
 *
 *   - two sender threads, pinned to CPU 0 and CPU 1, send UDP datagrams to
 *     127.0.0.1:P through ordinary sockets, so the receive hook runs on
 *     both CPUs at once (lo processes a datagram on the sending CPU);
 *   - an injector thread writes to /sys/kernel/debug/vjtest/inject, which
 *     hands frames for 198.51.100.1:P to vj_netif_rx()/vj_netif_rx_batch()
 *     on vjtest0, and for 8 more ports that no channel ever claims: those
 *     take the default channel to the stack.
 *
 * Every port also has a plain UDP socket bound to it, drained by one
 * thread: it receives exactly what arrives while no channel is bound (a
 * bound channel takes the port's datagrams before the stack sees them).
 *
 * Consumer threads own a share of the ports each, live one to four seconds
 * and are replaced; while alive they drain their rings (sometimes lazily,
 * so rings fill up; sometimes not polling a big ring for a while, so that
 * driver frames waiting in it for their copy hold pool buffers until the
 * pool runs dry), and close and rebind channels under load, sometimes with
 * packets still in the ring, sometimes without a last poll() (the frames
 * not yet copied go back to the pool with the ring), and sometimes leaving
 * the port unbound for a while.
 *
 * A datagram sent over lo during a close or a bind could land on either
 * side, so every port has a gate: a sender holds it around each send and
 * counts the datagram for the channel or for the stack according to the
 * port's state, and a consumer changing that state holds it and first
 * waits until everything already sent is accounted for where it was sent
 * to.  So each datagram is attributable, and for every incarnation of every
 * channel, at its close:
 *
 *   sent to it == rx_packets + rx_ring_full          (its counters)
 *   rx_packets == consumed + left in the ring (producer - consumer)
 *   rx_driver  == driver frames among consumed + left
 *
 * (after a close without a last poll(), rx_packets - consumed - left is
 * what still waited for its copy: at most the free part of the ring, and
 * only behind a driver frame), and per port, sent == what the
 * incarnations counted + what the stack got while unbound.  Every received
 * packet is checked (bounds, headers, port, source, payload, per-sender
 * order).  Globally, from /proc/net/vjchan_pool:
 * driver_rx == driver_claimed + driver_dropped + driver_bad + default_rx,
 * default_rx == default_to_stack + default_nomem, and each term against what
 * the channels and the stack saw; the pool must be whole, no channel live
 * and no byte pinned at the end.
 *
 * Prints totals and "ok STRESS" or "FAIL STRESS: reason"; exit 0 or 1.
 * Bounded by an alarm even if the kernel misbehaves.  Runs only in the test
 * guest, as root, with vjchan.ko and vjtest.ko loaded and vjtest0 up with
 * 198.51.100.1/24 (tests/run-guest.sh sets that up).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/vjchan.h>

#define SBASE		47000	/* channel ports: SBASE .. SBASE + nch - 1 */
#define UBASE		47900	/* unclaimed ports */
#define NUNCL		8
#define MAX_CH		256
#define NGROUPS		4	/* consumer threads alive at once */
#define NSENDERS	2
#define MAGIC		0x564a5354u	/* "VJST" */
#define QUIESCE_MS	3000
#define NSEC		1000000000ull
#define MSEC		1000000ull
#define INJECT_PATH	"/sys/kernel/debug/vjtest/inject"
#define VJT_STATS	"/sys/kernel/debug/vjtest/stats"
#define BACKLOG		"/proc/sys/net/core/netdev_max_backlog"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct rng {
	uint64_t s;
};

static uint64_t rnd64(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t below(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(rnd64(r) % n) : 0;
}

static bool chance(struct rng *r, unsigned int pct)
{
	return below(r, 100) < pct;
}

/* The payload of our own datagrams; the pattern byte i is seq + i. */
struct lo_hdr {
	uint32_t magic;
	uint16_t port;
	uint8_t sender;
	uint8_t pad;
	uint32_t seq;
};

struct chan {
	int fd;
	uint8_t *map;
	struct vj_mmap_offsets off;
	uint32_t head;			/* our consumer index */
	uint64_t consumed, consumed_drv;
};

struct port {
	pthread_mutex_t gate;
	uint16_t num;
	int udp;
	/* Under gate. */
	bool bound;
	uint64_t cur_lo, cur_inj;	/* sent to the current incarnation */
	uint64_t sent_lo, inj;		/* whole run */
	uint64_t unb_lo, unb_inj;	/* sent while no channel was bound */
	uint64_t inc_lo, inc_inj;	/* sum of cur_* at each close */
	uint32_t inj_seq;
	/* The drainer: what the stack delivered to the UDP socket. */
	atomic_ullong stk_lo, stk_inj;
	/* The owning consumer thread (ownership passes at thread exit). */
	struct chan ch;
	uint64_t rebind_at;
	uint32_t last_lo[NSENDERS], last_inj;
	bool have_lo[NSENDERS], have_inj;
	bool broken;			/* a quiesce timed out once */
	bool stalled;			/* its consumer does not poll it now */
	uint64_t stall_end;
	int pkt_fails;
	uint64_t incs, incs_left, rx, full, drv, left, consumed;
	uint64_t incs_abrupt, pending;
};

struct group {
	int id;
	pthread_t th;
	bool started;
	atomic_int running;
	uint64_t respawn_at;
};

static struct port ports[MAX_CH], uports[NUNCL];
static struct group groups[NGROUPS];
static int nch = 64;
static unsigned int pps = 3000;		/* per sender */
static uint64_t seed;
static bool verbose;
static int if_lo, if_vjt;
static uint32_t lo_addr, vjt_local, vjt_peer;
static atomic_int stop_tx, stop_cons, stop_drain;
static uint64_t deadline;
static long pg;
static atomic_ullong tx_ok[NSENDERS], tx_err[NSENDERS], inj_writes,
		     inj_enobufs, ring_bad;
static atomic_int sender_cpu[NSENDERS];
static const char *volatile phase = "setup";
static atomic_int quiesce_timed_out;

static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static int nfails;
static char fails[3][600];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + ts.tv_nsec;
}

static void msleep(unsigned int ms)
{
	usleep(ms * 1000);
}

static const char *errname(int err)
{
	static __thread char buf[16];
	const char *n = strerrorname_np(err);

	if (n)
		return n;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

static void record_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void record_fail(const char *fmt, ...)
{
	char buf[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&fail_lock);
	if (nfails < (int)ARRAY_SIZE(fails))
		memcpy(fails[nfails], buf, sizeof(buf));
	nfails++;
	if (nfails <= 20)
		fprintf(stderr, "stress: %s\n", buf);
	pthread_mutex_unlock(&fail_lock);
}

/* --- /proc, sysfs and debugfs --------------------------------------- */

static long long kv_get(const char *path, const char *key)
{
	char line[256], k[128];
	long long v, ret = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %lld", k, &v) == 2 && !strcmp(k, key))
			ret = v;
	fclose(f);
	return ret;
}

static const char *const pool_keys[] = {
	"pool_buffers", "pool_free", "pool_empty", "driver_rx",
	"driver_claimed", "driver_dropped", "driver_bad", "default_rx",
	"default_to_stack", "default_nomem", "hook_claimed", "hook_dropped",
	"channels_created", "channels_destroyed", "bytes_pinned",
	"channels_live",
};
enum {
	P_BUFFERS, P_FREE, P_EMPTY, P_DRX, P_DCLAIMED, P_DDROPPED, P_DBAD,
	P_DEFRX, P_DEFSTACK, P_DEFNOMEM, P_HCLAIMED, P_HDROPPED, P_CREATED,
	P_DESTROYED, P_PINNED, P_LIVE, P_NR
};

static bool pool_read(long long *v)
{
	unsigned int i;

	for (i = 0; i < P_NR; i++) {
		v[i] = kv_get("/proc/net/vjchan_pool", pool_keys[i]);
		if (v[i] < 0)
			return false;
	}
	return true;
}

/* Sum over CPUs of the backlog drops column of /proc/net/softnet_stat. */
static long long softnet_drops(void)
{
	unsigned int processed, dropped;
	long long sum = 0;
	char line[512];
	FILE *f = fopen("/proc/net/softnet_stat", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%x %x", &processed, &dropped) == 2)
			sum += dropped;
	fclose(f);
	return sum;
}

/* A field of the "Udp:" lines of /proc/net/snmp. */
static long long udp_snmp(const char *field)
{
	char hdr[1024], val[1024], *hs, *vs, *h, *v;
	long long ret = -1;
	FILE *f = fopen("/proc/net/snmp", "re");

	if (!f)
		return -1;
	while (fgets(hdr, sizeof(hdr), f)) {
		if (strncmp(hdr, "Udp: ", 5) || !fgets(val, sizeof(val), f))
			continue;
		h = strtok_r(hdr + 5, " \n", &hs);
		v = strtok_r(val + 5, " \n", &vs);
		while (h && v) {
			if (!strcmp(h, field))
				ret = atoll(v);
			h = strtok_r(NULL, " \n", &hs);
			v = strtok_r(NULL, " \n", &vs);
		}
		break;
	}
	fclose(f);
	return ret;
}

static long backlog_get(void)
{
	long v = -1;
	FILE *f = fopen(BACKLOG, "re");

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void backlog_set(long v)
{
	FILE *f = fopen(BACKLOG, "we");

	if (f) {
		fprintf(f, "%ld\n", v);
		fclose(f);
	}
}

/* vjtest0 must be up with 198.51.100.1 (run-guest.sh configures it). */
static bool vjtest_ready(char *why, size_t n)
{
	struct ifaddrs *ifa, *i;
	bool up = false, addr = false;

	if_vjt = if_nametoindex("vjtest0");
	if (!if_vjt) {
		snprintf(why, n, "no vjtest0 (vjtest.ko not loaded)");
		return false;
	}
	if (access(INJECT_PATH, W_OK)) {
		snprintf(why, n, "no %s", INJECT_PATH);
		return false;
	}
	if (getifaddrs(&ifa)) {
		snprintf(why, n, "getifaddrs: %s", errname(errno));
		return false;
	}
	for (i = ifa; i; i = i->ifa_next) {
		if (strcmp(i->ifa_name, "vjtest0"))
			continue;
		up |= i->ifa_flags & IFF_UP;
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr ==
		    vjt_local)
			addr = true;
	}
	freeifaddrs(ifa);
	if (!up || !addr) {
		snprintf(why, n, "vjtest0 is not up with 198.51.100.1/24");
		return false;
	}
	return true;
}

/* --- packets -------------------------------------------------------- */

static void pattern_fill(uint8_t *p, uint32_t from, uint32_t len, uint32_t seq)
{
	uint32_t i;

	for (i = from; i < len; i++)
		p[i] = (uint8_t)(seq + i);
}

static bool pattern_ok(const uint8_t *p, uint32_t from, uint32_t len,
		       uint32_t seq)
{
	uint32_t i;

	for (i = from; i < len; i++)
		if (p[i] != (uint8_t)(seq + i))
			return false;
	return true;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static void pkt_fail(struct port *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void pkt_fail(struct port *p, const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	atomic_fetch_add(&ring_bad, 1);
	if (p->pkt_fails++ >= 2)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	record_fail("port %u: %s", p->num, buf);
}

/*
 * Checks one descriptor of p's ring; returns 1 for a driver frame, 0 for a
 * hook packet, -1 for a bad one.  With track, the per-sender order is
 * checked and advanced (consumed packets); left ones are only checked.
 */
static int check_pkt(struct port *p, uint32_t idx, bool track)
{
	struct chan *c = &p->ch;
	const struct vj_mmap_offsets *o = &c->off;
	const volatile struct vj_desc *vd = (const struct vj_desc *)
		(c->map + o->desc) + (idx & (o->entries - 1));
	struct vj_desc d = {
		.buf = vd->buf, .off = vd->off, .len = vd->len,
		.ifindex = vd->ifindex, .l3_off = vd->l3_off,
		.proto = vd->proto, .flags = vd->flags,
	};
	const uint8_t *pkt, *ip, *uh, *pl;
	uint32_t plen, seq, tot;
	bool drv;

	if (d.buf >= o->entries || d.off > o->buf_size ||
	    d.len > o->buf_size - d.off) {
		pkt_fail(p, "slot %u: buf %u off %u len %u out of bounds", idx,
			 d.buf, d.off, d.len);
		return -1;
	}
	drv = d.flags & VJ_DESC_F_DRIVER;
	if ((d.flags & ~(VJ_DESC_F_L2 | VJ_DESC_F_DRIVER)) ||
	    !(d.flags & VJ_DESC_F_L2) || d.l3_off != 14 ||
	    ntohs(d.proto) != 0x0800 || d.len < 14 + 20 + 8) {
		pkt_fail(p, "slot %u: flags %#x l3_off %u proto %#x len %u",
			 idx, d.flags, d.l3_off, ntohs(d.proto), d.len);
		return -1;
	}
	pkt = c->map + o->bufs + (size_t)d.buf * o->buf_size + d.off;
	ip = pkt + 14;
	uh = ip + 20;
	pl = uh + 8;
	tot = ip[2] << 8 | ip[3];
	plen = d.len - 14 - 28;
	if (ip[0] != 0x45 || ip[9] != IPPROTO_UDP || tot + 14 != d.len ||
	    (uh[2] << 8 | uh[3]) != p->num ||
	    (uint32_t)(uh[4] << 8 | uh[5]) != plen + 8) {
		pkt_fail(p, "slot %u: not a whole UDP datagram for this port (ip %#x proto %u tot %u len %u dport %u)",
			 idx, ip[0], ip[9], tot, d.len, uh[2] << 8 | uh[3]);
		return -1;
	}
	if (drv) {
		if ((int)d.ifindex != if_vjt || memcmp(ip + 12, &vjt_peer, 4) ||
		    memcmp(ip + 16, &vjt_local, 4) || plen < 4) {
			pkt_fail(p, "slot %u: driver frame with ifindex %u or addresses wrong",
				 idx, d.ifindex);
			return -1;
		}
		seq = be32(pl);
		if (!pattern_ok(pl, 4, plen, seq)) {
			pkt_fail(p, "slot %u: driver frame seq %u: payload damaged",
				 idx, seq);
			return -1;
		}
		if (track) {
			if (p->have_inj && (int32_t)(seq - p->last_inj) <= 0)
				pkt_fail(p, "driver frame seq %u after %u", seq,
					 p->last_inj);
			p->last_inj = seq;
			p->have_inj = true;
		}
		return 1;
	} else {
		struct lo_hdr h;

		if ((int)d.ifindex != if_lo || memcmp(ip + 12, &lo_addr, 4) ||
		    memcmp(ip + 16, &lo_addr, 4) || plen < sizeof(h)) {
			pkt_fail(p, "slot %u: hook packet with ifindex %u or addresses wrong",
				 idx, d.ifindex);
			return -1;
		}
		memcpy(&h, pl, sizeof(h));
		if (h.magic != MAGIC || h.port != p->num ||
		    h.sender >= NSENDERS ||
		    !pattern_ok(pl, sizeof(h), plen, h.seq)) {
			pkt_fail(p, "slot %u: payload damaged (magic %#x port %u sender %u)",
				 idx, h.magic, h.port, h.sender);
			return -1;
		}
		if (track) {
			if (p->have_lo[h.sender] &&
			    (int32_t)(h.seq - p->last_lo[h.sender]) <= 0)
				pkt_fail(p, "sender %u seq %u after %u", h.sender,
					 h.seq, p->last_lo[h.sender]);
			p->last_lo[h.sender] = h.seq;
			p->have_lo[h.sender] = true;
		}
		return 0;
	}
}

static uint32_t producer(struct chan *c)
{
	return __atomic_load_n((uint32_t *)(c->map + c->off.producer),
			       __ATOMIC_ACQUIRE);
}

static void drain(struct port *p)
{
	struct chan *c = &p->ch;
	uint32_t prod = producer(c);

	if (prod - c->head > c->off.entries) {
		pkt_fail(p, "producer %u runs %u ahead of consumer %u, ring of %u",
			 prod, prod - c->head, c->head, c->off.entries);
		return;
	}
	for (; c->head != prod; c->head++) {
		c->consumed++;
		if (check_pkt(p, c->head, true) == 1)
			c->consumed_drv++;
	}
	__atomic_store_n((uint32_t *)(c->map + c->off.consumer), c->head,
			 __ATOMIC_RELEASE);
}

static void flush(struct port *p)
{
	struct pollfd pfd = { .fd = p->ch.fd, .events = POLLIN };

	/* Driver frames enter the ring in the consumer's poll(). */
	poll(&pfd, 1, 0);
}

static bool get_stats(struct port *p, struct vj_statistics *st)
{
	socklen_t l = sizeof(*st);

	if (getsockopt(p->ch.fd, SOL_VJCHAN, VJ_STATISTICS, st, &l)) {
		record_fail("port %u: VJ_STATISTICS: %s", p->num, errname(errno));
		return false;
	}
	return true;
}

/* --- channel lifetime, under the port's gate ----------------------- */

/* Everything sent while unbound has reached the UDP socket. */
static uint64_t quiesce_end(const struct port *p)
{
	/* After one timeout, others get little: the run must end in time. */
	if (p->broken)
		return now_ns();
	return now_ns() + (atomic_load(&quiesce_timed_out) ? 100 :
			   QUIESCE_MS) * MSEC;
}

static void quiesce_stack(struct port *p)
{
	uint64_t start = now_ns(), end = quiesce_end(p);

	for (;;) {
		uint64_t lo = atomic_load(&p->stk_lo);
		uint64_t inj = atomic_load(&p->stk_inj);

		if (lo == p->unb_lo && inj == p->unb_inj)
			return;
		if (now_ns() > end) {
			if (!p->broken)
				record_fail("port %u unbound: the stack got %llu of %llu lo datagrams, %llu of %llu driver frames, waited %d ms",
					    p->num, (unsigned long long)lo,
					    (unsigned long long)p->unb_lo,
					    (unsigned long long)inj,
					    (unsigned long long)p->unb_inj,
					    (int)((now_ns() - start) / MSEC));
			p->broken = true;
			atomic_store(&quiesce_timed_out, 1);
			return;
		}
		usleep(500);
	}
}

static void open_channel(struct port *p, int ep, struct rng *r)
{
	static const uint32_t ents[] = { 8, 16, 32, 64, 256, 1024 };
	struct vj_ring_req req = {
		.entries = ents[below(r, ARRAY_SIZE(ents))],
		.buf_size = 2048,
	};
	struct sockaddr_vj sa = { .svj_family = AF_VJCHAN };
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = p };
	struct chan *c = &p->ch;
	socklen_t l = sizeof(c->off);
	int fd;

	/* 4 KiB buffers for the smaller rings: the guest has 1 GiB. */
	if (req.entries <= 256 && chance(r, 20))
		req.buf_size = 4096;
	pthread_mutex_lock(&p->gate);
	quiesce_stack(p);
	sa.svj_flags = VJ_BIND_FW_BYPASS;
	sa.svj_flow.family = AF_INET;
	sa.svj_flow.proto = IPPROTO_UDP;
	sa.svj_flow.dport = htons(p->num);
	fd = socket(AF_VJCHAN, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		record_fail("port %u: socket: %s", p->num, errname(errno));
		goto out;
	}
	if (setsockopt(fd, SOL_VJCHAN, VJ_RING, &req, sizeof(req)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockopt(fd, SOL_VJCHAN, VJ_MMAP_OFFSETS, &c->off, &l)) {
		record_fail("port %u: setting up a %u x %u channel: %s",
			    p->num, req.entries, req.buf_size, errname(errno));
		close(fd);
		goto out;
	}
	c->map = mmap(NULL, c->off.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, 0);
	if (c->map == MAP_FAILED) {
		record_fail("port %u: mmap: %s", p->num, errname(errno));
		close(fd);
		goto out;
	}
	c->fd = fd;
	c->head = 0;
	c->consumed = c->consumed_drv = 0;
	p->stalled = false;
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	p->bound = true;
	p->cur_lo = p->cur_inj = 0;
out:
	pthread_mutex_unlock(&p->gate);
}

/*
 * Close p's channel.  drain_first: consume what is there before the gate.
 * abrupt: no poll() at all, so driver frames still waiting for their copy
 * stay queued (the destructor must return their pool buffers); then only
 * the published part of the ring can be read, and the rest is bounded.
 */
static void close_channel(struct port *p, int ep, bool drain_first,
			  bool abrupt)
{
	struct chan *c = &p->ch;
	struct vj_statistics st = { 0 };
	uint64_t sent, start, end, left = 0, left_drv = 0, pend = 0, pend_drv;
	uint32_t prod, i;
	bool ok = false, bad;

	if (drain_first)
		drain(p);
	pthread_mutex_lock(&p->gate);
	sent = p->cur_lo + p->cur_inj;
	start = now_ns();
	end = quiesce_end(p);
	/*
	 * Wait until every datagram sent to this incarnation is counted:
	 * both receive paths count a packet when they queue it, whether or
	 * not it is published yet.
	 */
	for (;;) {
		if (!abrupt)
			flush(p);
		if (!get_stats(p, &st))
			break;
		if (st.rx_packets + st.rx_ring_full == sent) {
			ok = true;
			break;
		}
		if (now_ns() > end)
			break;
		usleep(500);
	}
	if (!abrupt)
		flush(p);
	if (ok && get_stats(p, &st)) {
		prod = producer(c);
		left = prod - c->head;
		if (left > c->off.entries) {
			pkt_fail(p, "at close: producer %u, consumer %u", prod,
				 c->head);
			left = 0;
		}
		for (i = 0; i < left; i++)
			if (check_pkt(p, c->head + i, false) == 1)
				left_drv++;
		/* Counted but not published: waiting for a poll(). */
		pend = st.rx_packets - c->consumed - left;
		pend_drv = st.rx_driver - c->consumed_drv - left_drv;
		if (abrupt)
			/* In order behind a driver frame, or none at all. */
			bad = st.rx_packets < c->consumed + left ||
			      pend > c->off.entries - left ||
			      st.rx_driver < c->consumed_drv + left_drv ||
			      pend_drv > pend || (pend && !pend_drv);
		else
			bad = prod != (uint32_t)st.rx_packets || pend || pend_drv;
		if (bad || st.rx_driver > p->cur_inj ||
		    st.rx_packets - st.rx_driver > p->cur_lo ||
		    st.rx_invalid_cons || st.rx_truncated)
			record_fail("port %u incarnation %llu%s: sent lo %llu + driver %llu; counters packets %llu (driver %llu) ring_full %llu invalid_cons %llu truncated %llu; producer %u; consumed %llu (driver %llu) + left %llu (driver %llu)",
				    p->num, (unsigned long long)p->incs,
				    abrupt ? " (closed without poll)" : "",
				    (unsigned long long)p->cur_lo,
				    (unsigned long long)p->cur_inj,
				    (unsigned long long)st.rx_packets,
				    (unsigned long long)st.rx_driver,
				    (unsigned long long)st.rx_ring_full,
				    (unsigned long long)st.rx_invalid_cons,
				    (unsigned long long)st.rx_truncated, prod,
				    (unsigned long long)c->consumed,
				    (unsigned long long)c->consumed_drv,
				    (unsigned long long)left,
				    (unsigned long long)left_drv);
	} else if (!p->broken) {
		record_fail("port %u incarnation %llu: counted %llu + %llu ring_full of %llu sent (lo %llu, driver %llu), waited %d ms",
			    p->num, (unsigned long long)p->incs,
			    (unsigned long long)st.rx_packets,
			    (unsigned long long)st.rx_ring_full,
			    (unsigned long long)sent,
			    (unsigned long long)p->cur_lo,
			    (unsigned long long)p->cur_inj,
			    (int)((now_ns() - start) / MSEC));
		p->broken = true;
		atomic_store(&quiesce_timed_out, 1);
	}
	p->incs_abrupt += abrupt;
	p->pending += pend;
	p->incs++;
	p->incs_left += left + pend > 0;
	p->rx += st.rx_packets;
	p->full += st.rx_ring_full;
	p->drv += st.rx_driver;
	p->left += left + pend;
	p->consumed += c->consumed;
	p->inc_lo += p->cur_lo;
	p->inc_inj += p->cur_inj;
	epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
	/* The mapping holds the file: unmap first, so close() unbinds. */
	munmap(c->map, c->off.size);
	close(c->fd);
	c->fd = -1;
	p->bound = false;
	p->stalled = false;
	pthread_mutex_unlock(&p->gate);
}

/* --- threads -------------------------------------------------------- */

static void *sender(void *arg)
{
	int id = (int)(intptr_t)arg;
	struct rng r = { seed ^ (0x5e4d0000ull + id) };
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	uint8_t buf[sizeof(struct lo_hdr) + 400];
	uint32_t seq[MAX_CH] = { 0 };
	uint64_t t = now_ns(), gap = NSEC / pps * 16;
	unsigned long n = 0;
	cpu_set_t set;
	int fd;

	CPU_ZERO(&set);
	CPU_SET(id, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		record_fail("sender %d: sched_setaffinity(CPU %d): %s", id, id,
			    errname(errno));
	atomic_store(&sender_cpu[id], sched_getcpu());
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		record_fail("sender %d: socket: %s", id, errname(errno));
		return NULL;
	}
	while (!atomic_load(&stop_tx)) {
		int i = below(&r, nch);
		struct port *p = &ports[i];
		struct lo_hdr h = { MAGIC, p->num, id, 0, seq[i] };
		uint32_t len = sizeof(h) + below(&r, 400);
		ssize_t s;

		if (pthread_mutex_trylock(&p->gate))
			continue;	/* the port is changing state */
		memcpy(buf, &h, sizeof(h));
		pattern_fill(buf, sizeof(h), len, h.seq);
		dst.sin_port = htons(p->num);
		s = sendto(fd, buf, len, 0, (struct sockaddr *)&dst, sizeof(dst));
		if (s == (ssize_t)len) {
			p->sent_lo++;
			if (p->bound)
				p->cur_lo++;
			else
				p->unb_lo++;
			seq[i]++;
			atomic_fetch_add(&tx_ok[id], 1);
		} else {
			/* Not sent, so not counted; only these are plausible. */
			if (s >= 0 || (errno != EAGAIN && errno != ENOBUFS &&
				       errno != ENOMEM))
				record_fail("sender %d: sendto: %zd %s", id, s,
					    errname(errno));
			atomic_fetch_add(&tx_err[id], 1);
		}
		pthread_mutex_unlock(&p->gate);
		/* Pace in bursts of 16 so consumers get CPU time too. */
		if (++n % 16 == 0) {
			uint64_t now = now_ns();

			t += gap;
			if (t > now)
				usleep((t - now) / 1000);
			else if (now - t > 100 * MSEC)
				t = now;	/* behind: do not burst to catch up */
		}
	}
	close(fd);
	return NULL;
}

static void *injector(void *arg)
{
	struct rng r = { seed ^ 0x1213c7ull };
	long long base, local;
	char line[256];
	int fd;

	(void)arg;
	fd = open(INJECT_PATH, O_WRONLY | O_CLOEXEC);
	base = kv_get(VJT_STATS, "injected");
	if (fd < 0 || base < 0) {
		record_fail("injector: cannot use %s", INJECT_PATH);
		return NULL;
	}
	local = base;
	while (!atomic_load(&stop_tx)) {
		bool uncl = chance(&r, 15);
		struct port *p = uncl ? &uports[below(&r, NUNCL)] :
					&ports[below(&r, nch)];
		uint32_t count = 1 + below(&r, 32), k;
		int n;

		if (pthread_mutex_trylock(&p->gate)) {
			usleep(100);
			continue;
		}
		n = snprintf(line, sizeof(line),
			     "count=%u batch=%u len=%u seq=%u sport=5000 dport=%u saddr=198.51.100.2 daddr=198.51.100.1\n",
			     count, 1 + below(&r, 16), 16 + below(&r, 497),
			     p->inj_seq, p->num);
		atomic_fetch_add(&inj_writes, 1);
		if (write(fd, line, n) == n) {
			k = count;
			local += count;
		} else {
			int e = errno;
			long long now = kv_get(VJT_STATS, "injected");

			/* Out of pool buffers part way: the first k went in. */
			if (e == ENOBUFS)
				atomic_fetch_add(&inj_enobufs, 1);
			else
				record_fail("inject \"%.*s\": %s", n - 1, line,
					    errname(e));
			k = now - local;
			local = now;
		}
		p->inj += k;
		if (p->bound)
			p->cur_inj += k;
		else
			p->unb_inj += k;
		p->inj_seq += count;
		pthread_mutex_unlock(&p->gate);
		usleep(300 + below(&r, 1200));
	}
	close(fd);
	return NULL;
}

/* Counts what the stack delivers to the ports' UDP sockets. */
static void drain_udp(struct port *p)
{
	uint8_t buf[2048];
	ssize_t n;

	while ((n = recv(p->udp, buf, sizeof(buf), MSG_DONTWAIT)) >= 0) {
		struct lo_hdr h;

		memcpy(&h, buf, n >= (ssize_t)sizeof(h) ? sizeof(h) : 0);
		if (n >= (ssize_t)sizeof(h) && h.magic == MAGIC &&
		    h.port == p->num && pattern_ok(buf, sizeof(h), n, h.seq))
			atomic_fetch_add(&p->stk_lo, 1);
		else if (n >= 4 && pattern_ok(buf, 4, n, be32(buf)))
			atomic_fetch_add(&p->stk_inj, 1);
		else
			record_fail("port %u: the UDP socket got a %zd-byte datagram that nobody sent",
				    p->num, n);
	}
}

static void *drainer(void *arg)
{
	struct epoll_event ev[64];
	int ep = epoll_create1(EPOLL_CLOEXEC), i, n;

	(void)arg;
	for (i = 0; i < nch + NUNCL; i++) {
		struct port *p = i < nch ? &ports[i] : &uports[i - nch];
		struct epoll_event e = { .events = EPOLLIN, .data.ptr = p };

		epoll_ctl(ep, EPOLL_CTL_ADD, p->udp, &e);
	}
	while (!atomic_load(&stop_drain)) {
		n = epoll_wait(ep, ev, ARRAY_SIZE(ev), 20);
		for (i = 0; i < n; i++)
			drain_udp(ev[i].data.ptr);
	}
	for (i = 0; i < nch + NUNCL; i++)
		drain_udp(i < nch ? &ports[i] : &uports[i - nch]);
	close(ep);
	return NULL;
}

static void *consumer(void *arg)
{
	struct group *g = arg;
	struct rng r = { seed ^ (0xc0c0ull << 20) ^ (now_ns() + g->id) };
	uint64_t now = now_ns(), life_end = now + (1 + below(&r, 4)) * NSEC,
		 next_sweep = now;
	struct epoll_event ev[64];
	int ep = epoll_create1(EPOLL_CLOEXEC), i, n;
	/* Ports g->id, g->id + NGROUPS, ... */
	uint32_t mine = (nch - g->id + NGROUPS - 1) / NGROUPS;

	for (i = g->id; i < nch; i += NGROUPS) {
		ports[i].rebind_at = now + below(&r, 300) * MSEC;
		if (chance(&r, 80))
			open_channel(&ports[i], ep, &r);
	}
	while (!atomic_load(&stop_cons) && (now = now_ns()) < life_end) {
		bool lazy = chance(&r, 5);

		n = epoll_wait(ep, ev, ARRAY_SIZE(ev), 10);
		for (i = 0; i < n && !lazy; i++)
			drain(ev[i].data.ptr);
		/* Now and then poll every ring: driver frames wait for it. */
		if (now >= next_sweep && !lazy) {
			next_sweep = now + 50 * MSEC;
			for (i = g->id; i < nch; i += NGROUPS)
				if (ports[i].bound && !ports[i].stalled) {
					flush(&ports[i]);
					drain(&ports[i]);
				}
		}
		/*
		 * A stalled consumer does not poll a big ring for a while, so
		 * driver frames pile up in it holding pool buffers until the
		 * pool runs dry.
		 */
		if (chance(&r, 2)) {
			struct port *p = &ports[g->id + NGROUPS * below(&r, mine)];

			if (p->bound && !p->stalled && p->ch.off.entries >= 256) {
				epoll_ctl(ep, EPOLL_CTL_DEL, p->ch.fd, NULL);
				p->stalled = true;
				p->stall_end = now + (300 + below(&r, 1200)) * MSEC;
			}
		}
		for (i = g->id; i < nch; i += NGROUPS) {
			struct port *p = &ports[i];
			struct epoll_event e = { .events = EPOLLIN, .data.ptr = p };

			if (p->bound && p->stalled && now >= p->stall_end) {
				p->stalled = false;
				epoll_ctl(ep, EPOLL_CTL_ADD, p->ch.fd, &e);
			}
		}
		if (chance(&r, 8)) {
			struct port *p = &ports[g->id + NGROUPS * below(&r, mine)];

			if (p->bound) {
				close_channel(p, ep, chance(&r, 50), chance(&r, 25));
				if (chance(&r, 50))
					open_channel(p, ep, &r);
				else
					p->rebind_at = now + (10 + below(&r, 300)) * MSEC;
			}
		}
		for (i = g->id; i < nch; i += NGROUPS)
			if (!ports[i].bound && ports[i].rebind_at <= now)
				open_channel(&ports[i], ep, &r);
		if (lazy)
			usleep((2 + below(&r, 30)) * 1000);
	}
	/* Leave: close every channel, some with packets still queued. */
	for (i = g->id; i < nch; i += NGROUPS)
		if (ports[i].bound)
			close_channel(&ports[i], ep, chance(&r, 50),
				      chance(&r, 25));
	close(ep);
	atomic_store(&g->running, 0);
	return NULL;
}

/* --- main ----------------------------------------------------------- */

static void on_alarm(int sig)
{
	char buf[256];
	int n;

	(void)sig;
	n = snprintf(buf, sizeof(buf),
		     "FAIL STRESS: watchdog: still in phase \"%s\" (seed %llu)\n",
		     phase, (unsigned long long)seed);
	if (write(1, buf, n) < 0)
		_exit(1);
	_exit(1);
}

static int udp_port_socket(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), big = 8 << 20;

	if (fd < 0)
		return -1;
	/* Big enough that the drainer never loses a datagram to rcvbuf. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

static void usage(void)
{
	fprintf(stderr, "usage: stress [-t SECONDS] [-c CHANNELS] [-r PPS] [-s SEED] [-v]\n");
	exit(2);
}

#define D(k)	((unsigned long long)(after[k] - before[k]))

int main(int argc, char **argv)
{
	long long before[P_NR], after[P_NR], sn0, sn1, rcvbuf0, rcvbuf1,
		  injected0, injected1;
	unsigned int secs = 30;
	uint64_t t0, end, sum_lo = 0, sum_inj = 0, sum_unb_lo = 0,
		 sum_unb_inj = 0, sum_inc_lo = 0, sum_inc_inj = 0, sum_rx = 0,
		 sum_full = 0, sum_drv = 0, sum_left = 0, sum_incs = 0,
		 sum_incs_left = 0, sum_stk_lo = 0, sum_stk_inj = 0,
		 uncl_inj = 0, uncl_stk = 0, sum_consumed = 0, sum_abrupt = 0,
		 sum_pending = 0;
	pthread_t snd[NSENDERS], inj, drn;
	long old_backlog;
	char why[256];
	int c, i;

	while ((c = getopt(argc, argv, "t:c:r:s:v")) != -1) {
		switch (c) {
		case 't': secs = strtoul(optarg, NULL, 0); break;
		case 'c': nch = atoi(optarg); break;
		case 'r': pps = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'v': verbose = true; break;
		default: usage();
		}
	}
	if (!secs || nch < NGROUPS || nch > MAX_CH || pps < 16)
		usage();
	if (!seed)
		seed = now_ns() ^ ((uint64_t)getpid() << 32);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("stress: seed %llu, %d channels, %u s, %u datagrams/s per sender\n",
	       (unsigned long long)seed, nch, secs, pps);
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);
	/* Run, final closes (a quiesce each at worst), settling. */
	alarm(secs + 90);
	pg = sysconf(_SC_PAGESIZE);
	inet_pton(AF_INET, "127.0.0.1", &lo_addr);
	inet_pton(AF_INET, "198.51.100.1", &vjt_local);
	inet_pton(AF_INET, "198.51.100.2", &vjt_peer);
	if_lo = if_nametoindex("lo");

	if (!pool_read(before)) {
		printf("FAIL STRESS: /proc/net/vjchan_pool unreadable (vjchan.ko not loaded?)\n");
		return 1;
	}
	if (!vjtest_ready(why, sizeof(why))) {
		printf("FAIL STRESS: %s\n", why);
		return 1;
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < NSENDERS) {
		printf("FAIL STRESS: %ld CPUs online, need %d\n",
		       sysconf(_SC_NPROCESSORS_ONLN), NSENDERS);
		return 1;
	}
	for (i = 0; i < nch + NUNCL; i++) {
		struct port *p = i < nch ? &ports[i] : &uports[i - nch];

		pthread_mutex_init(&p->gate, NULL);
		p->num = i < nch ? SBASE + i : UBASE + i - nch;
		p->ch.fd = -1;
		p->udp = udp_port_socket(p->num);
		if (p->udp < 0) {
			printf("FAIL STRESS: cannot bind UDP port %u: %s\n",
			       p->num, errname(errno));
			return 1;
		}
	}
	/*
	 * lo queues a datagram on the sending CPU's backlog; should softirq
	 * processing fall behind two busy senders, the backlog's limit would
	 * drop datagrams before vjchan or UDP see them.  Raise it for the run.
	 */
	old_backlog = backlog_get();
	if (old_backlog > 0 && old_backlog < 100000)
		backlog_set(100000);

	/* Settle the leftovers of earlier tests before the baseline. */
	for (i = 0; i < 250 && pool_read(before) &&
	     (before[P_LIVE] || before[P_FREE] != before[P_BUFFERS] ||
	      before[P_DEFRX] != before[P_DEFSTACK] + before[P_DEFNOMEM]); i++)
		msleep(20);
	sn0 = softnet_drops();
	rcvbuf0 = udp_snmp("RcvbufErrors");
	injected0 = kv_get(VJT_STATS, "injected");

	t0 = now_ns();
	deadline = t0 + (uint64_t)secs * NSEC;
	phase = "load";
	pthread_create(&drn, NULL, drainer, NULL);
	for (i = 0; i < NSENDERS; i++)
		pthread_create(&snd[i], NULL, sender, (void *)(intptr_t)i);
	pthread_create(&inj, NULL, injector, NULL);

	/* Consumers come and go until the deadline. */
	for (i = 0; i < NGROUPS; i++)
		groups[i].id = i;
	while (now_ns() < deadline) {
		for (i = 0; i < NGROUPS; i++) {
			struct group *g = &groups[i];
			struct rng r = { seed ^ now_ns() ^ i };

			if (atomic_load(&g->running))
				continue;
			if (g->started) {
				pthread_join(g->th, NULL);
				g->started = false;
				/* A gap with the ports unbound, to the stack. */
				g->respawn_at = now_ns() + below(&r, 200) * MSEC;
			}
			if (now_ns() < g->respawn_at)
				continue;
			atomic_store(&g->running, 1);
			g->started = true;
			pthread_create(&g->th, NULL, consumer, g);
		}
		msleep(10);
	}

	phase = "stopping traffic";
	atomic_store(&stop_tx, 1);
	for (i = 0; i < NSENDERS; i++)
		pthread_join(snd[i], NULL);
	pthread_join(inj, NULL);
	phase = "final closes";
	atomic_store(&stop_cons, 1);
	for (i = 0; i < NGROUPS; i++)
		if (groups[i].started)
			pthread_join(groups[i].th, NULL);
	end = now_ns();

	/* Every port is unbound now: wait for the stack to deliver the rest. */
	phase = "stack quiesce";
	for (i = 0; i < nch + NUNCL; i++)
		quiesce_stack(i < nch ? &ports[i] : &uports[i - nch]);
	atomic_store(&stop_drain, 1);
	pthread_join(drn, NULL);

	phase = "settling";
	for (i = 0; i < 250; i++) {
		if (!pool_read(after))
			break;
		if (!after[P_LIVE] && after[P_FREE] == after[P_BUFFERS] &&
		    !after[P_PINNED] &&
		    after[P_DEFRX] == after[P_DEFSTACK] + after[P_DEFNOMEM])
			break;
		msleep(20);
	}
	sn1 = softnet_drops();
	rcvbuf1 = udp_snmp("RcvbufErrors");
	injected1 = kv_get(VJT_STATS, "injected");
	if (old_backlog > 0 && old_backlog < 100000)
		backlog_set(old_backlog);

	/* Per port: everything sent is somewhere. */
	for (i = 0; i < nch; i++) {
		struct port *p = &ports[i];
		uint64_t slo = atomic_load(&p->stk_lo), sinj = atomic_load(&p->stk_inj);

		if (p->sent_lo + p->inj != p->rx + p->full + slo + sinj ||
		    p->inc_lo + p->unb_lo != p->sent_lo ||
		    p->inc_inj + p->unb_inj != p->inj)
			record_fail("port %u: sent lo %llu + driver %llu, channels counted %llu + ring_full %llu over %llu incarnations, stack got lo %llu + driver %llu",
				    p->num, (unsigned long long)p->sent_lo,
				    (unsigned long long)p->inj,
				    (unsigned long long)p->rx,
				    (unsigned long long)p->full,
				    (unsigned long long)p->incs,
				    (unsigned long long)slo,
				    (unsigned long long)sinj);
		sum_lo += p->sent_lo;
		sum_inj += p->inj;
		sum_unb_lo += p->unb_lo;
		sum_unb_inj += p->unb_inj;
		sum_inc_lo += p->inc_lo;
		sum_inc_inj += p->inc_inj;
		sum_rx += p->rx;
		sum_full += p->full;
		sum_drv += p->drv;
		sum_left += p->left;
		sum_consumed += p->consumed;
		sum_incs += p->incs;
		sum_incs_left += p->incs_left;
		sum_abrupt += p->incs_abrupt;
		sum_pending += p->pending;
		sum_stk_lo += slo;
		sum_stk_inj += sinj;
	}
	for (i = 0; i < NUNCL; i++) {
		struct port *p = &uports[i];

		uncl_inj += p->inj;
		uncl_stk += atomic_load(&p->stk_inj);
		if (p->inj != atomic_load(&p->stk_inj) || atomic_load(&p->stk_lo))
			record_fail("unclaimed port %u: injected %llu, the stack got %llu",
				    p->num, (unsigned long long)p->inj,
				    (unsigned long long)atomic_load(&p->stk_inj));
	}

	/* Globally, the module's own counters against all of that. */
	if (!pool_read(after)) {
		record_fail("/proc/net/vjchan_pool unreadable at the end");
	} else {
		if (D(P_DRX) != D(P_DCLAIMED) + D(P_DDROPPED) + D(P_DBAD) + D(P_DEFRX))
			record_fail("driver_rx %llu != driver_claimed %llu + driver_dropped %llu + driver_bad %llu + default_rx %llu",
				    D(P_DRX), D(P_DCLAIMED), D(P_DDROPPED),
				    D(P_DBAD), D(P_DEFRX));
		if (D(P_DEFRX) != D(P_DEFSTACK) + D(P_DEFNOMEM))
			record_fail("default_rx %llu != default_to_stack %llu + default_nomem %llu",
				    D(P_DEFRX), D(P_DEFSTACK), D(P_DEFNOMEM));
		if (D(P_DRX) != (unsigned long long)(injected1 - injected0) ||
		    D(P_DRX) != sum_inj + uncl_inj)
			record_fail("driver_rx %llu, vjtest injected %lld, we counted %llu",
				    D(P_DRX), injected1 - injected0,
				    (unsigned long long)(sum_inj + uncl_inj));
		if (D(P_DCLAIMED) != sum_drv ||
		    D(P_DDROPPED) != sum_inc_inj - sum_drv)
			record_fail("driver_claimed %llu, driver_dropped %llu; channels got %llu of %llu driver frames sent to them",
				    D(P_DCLAIMED), D(P_DDROPPED),
				    (unsigned long long)sum_drv,
				    (unsigned long long)sum_inc_inj);
		if (D(P_DEFRX) != sum_unb_inj + uncl_inj ||
		    D(P_DEFSTACK) != sum_stk_inj + uncl_stk || D(P_DBAD))
			record_fail("default_rx %llu, default_to_stack %llu, driver_bad %llu; %llu frames went to unbound or unclaimed ports, the stack delivered %llu",
				    D(P_DEFRX), D(P_DEFSTACK), D(P_DBAD),
				    (unsigned long long)(sum_unb_inj + uncl_inj),
				    (unsigned long long)(sum_stk_inj + uncl_stk));
		if (D(P_HCLAIMED) != sum_rx - sum_drv ||
		    D(P_HDROPPED) != sum_inc_lo - (sum_rx - sum_drv) ||
		    sum_full != D(P_DDROPPED) + D(P_HDROPPED))
			record_fail("hook_claimed %llu, hook_dropped %llu; channels got %llu of %llu lo datagrams sent to them, ring_full %llu",
				    D(P_HCLAIMED), D(P_HDROPPED),
				    (unsigned long long)(sum_rx - sum_drv),
				    (unsigned long long)sum_inc_lo,
				    (unsigned long long)sum_full);
		if (after[P_LIVE] || after[P_FREE] != after[P_BUFFERS] ||
		    after[P_PINNED] || D(P_CREATED) != D(P_DESTROYED))
			record_fail("at the end: channels_live %lld (created %llu, destroyed %llu), pool_free %lld of %lld, bytes_pinned %lld",
				    after[P_LIVE], D(P_CREATED), D(P_DESTROYED),
				    after[P_FREE], after[P_BUFFERS],
				    after[P_PINNED]);
	}
	if (sn1 != sn0 || rcvbuf1 != rcvbuf0)
		record_fail("the network stack itself dropped datagrams (softnet backlog %lld, UDP RcvbufErrors %lld): imbalances above may be those",
			    sn1 - sn0, rcvbuf1 - rcvbuf0);
	for (i = 0; i < NSENDERS; i++)
		if (atomic_load(&sender_cpu[i]) != i)
			record_fail("sender %d ran on CPU %d", i,
				    atomic_load(&sender_cpu[i]));

	printf("stress: %.1f s of load; lo sent %llu (CPU0 %llu, CPU1 %llu, %llu send errors), driver frames %llu in %llu writes (%llu ENOBUFS; %llu to unclaimed ports)\n",
	       (end - t0) / 1e9, (unsigned long long)sum_lo,
	       (unsigned long long)atomic_load(&tx_ok[0]),
	       (unsigned long long)atomic_load(&tx_ok[1]),
	       (unsigned long long)(atomic_load(&tx_err[0]) + atomic_load(&tx_err[1])),
	       (unsigned long long)(sum_inj + uncl_inj),
	       (unsigned long long)atomic_load(&inj_writes),
	       (unsigned long long)atomic_load(&inj_enobufs),
	       (unsigned long long)uncl_inj);
	printf("stress: %llu incarnations (%llu closed with packets queued, %llu without a last poll, leaving %llu driver-API packets uncopied); channels counted %llu (driver %llu) = consumed %llu + left %llu, ring_full %llu; the stack got %llu lo + %llu driver while unbound, %llu from unclaimed ports\n",
	       (unsigned long long)sum_incs, (unsigned long long)sum_incs_left,
	       (unsigned long long)sum_abrupt, (unsigned long long)sum_pending,
	       (unsigned long long)sum_rx, (unsigned long long)sum_drv,
	       (unsigned long long)sum_consumed, (unsigned long long)sum_left,
	       (unsigned long long)sum_full, (unsigned long long)sum_stk_lo,
	       (unsigned long long)sum_stk_inj, (unsigned long long)uncl_stk);
	printf("stress: pool: driver_rx %llu = claimed %llu + dropped %llu + bad %llu + default %llu (to stack %llu, nomem %llu); hook claimed %llu dropped %llu; pool_empty %llu\n",
	       D(P_DRX), D(P_DCLAIMED), D(P_DDROPPED), D(P_DBAD), D(P_DEFRX),
	       D(P_DEFSTACK), D(P_DEFNOMEM), D(P_HCLAIMED), D(P_HDROPPED),
	       D(P_EMPTY));
	if (atomic_load(&ring_bad))
		record_fail("%llu bad packets in rings",
			    (unsigned long long)atomic_load(&ring_bad));
	if (nfails) {
		printf("FAIL STRESS: %s%s%s%s%s", fails[0],
		       nfails > 1 ? "; " : "", nfails > 1 ? fails[1] : "",
		       nfails > 2 ? "; " : "", nfails > 2 ? fails[2] : "");
		if (nfails > 3)
			printf(" (and %d more)", nfails - 3);
		printf("\n");
		return 1;
	}
	printf("ok STRESS\n");
	return 0;
}
