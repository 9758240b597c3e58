// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: a seeded, time-bounded fuzzer for the PF_VJCHAN socket family.
 *
 *   fuzz [-s SEED] [-t SECONDS] [-j THREADS] [-n OPS] [-v]
 *
 * The main thread runs a random sequence of operations on a small set of
 * channels: socket() with good and bad arguments, bind() with random and
 * boundary flow ids and address lengths, setsockopt()/getsockopt() of every
 * option (and unknown ones) with boundary lengths and geometries,
 * getsockname(), mmap() with boundary lengths, offsets and flags, munmap()
 * of whole and partial mappings, mremap(), poll() and epoll with a zero
 * timeout, dup(), close(), fork() (the child touches the mappings), the
 * calls a channel refuses, UDP and malformed raw IP packets over lo, frames
 * through the driver API (vjtest's debugfs inject file), and reads of
 * /proc/net/vjchan.
 *
 * The fuzzer keeps a model of every socket (ring created or not, geometry,
 * bound flow, file references) and checks each result against what
 * vjchan(7) allows for that call in that state, plus what the generic
 * socket and mm code in front of the family documents (EBADF, EFAULT,
 * EINVAL for lengths beyond sockaddr_storage, ...).  A call that succeeds
 * where it must fail, or fails with an errno not allowed for it, stops the
 * run with "FAIL FUZZ: seed N op K: ...".  Half of the sockets are "clean":
 * nothing scribbles on their rings, and every descriptor they receive is
 * checked (bounds, flags, lengths, that the packet matches the flow, that
 * no more specific channel was bound when it arrived, the driver payload
 * pattern), as are their counters (no rejected consumer index) and poll().
 *
 * With -j N > 0, N threads scribble random values on the dirty rings
 * (consumer, producer, flags, descriptors, buffers) while a sender thread
 * sends UDP to the fuzzed ports over lo and another injects frames through
 * the driver API.  Those threads make the run timing-dependent; the main
 * thread's operation sequence is still a function of the seed alone, and
 * -j 0 gives a fully reproducible run (replay a failure with -s N, and -n K
 * to stop at op K).
 *
 * At the end everything is closed and the module must settle within 5 s:
 * channels_live 0, every pool buffer free, bytes_pinned 0, no channel in
 * /proc/net/vjchan.  Prints "ok FUZZ" or "FAIL FUZZ: reason"; exit 0 or 1.
 * Runs only in the test guest, as root, with vjchan.ko (and for the driver
 * path vjtest.ko with vjtest0 up) loaded.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/vjchan.h>

#define PBASE		41000	/* fuzzed UDP ports: PBASE .. PBASE + NPORTS - 1 */
#define NPORTS		16
#define MAX_SOCKS	48
#define MAX_FDS		96
#define MAX_MAPS	48
#define MAX_EPKEYS	256
/* Ring memory the fuzzer lets exist at once: the guest has 1 GiB. */
#define RING_MAX_ONE	(8u << 20)
#define RING_BUDGET	(64u << 20)
#define SVJ_LEN		((int)sizeof(struct sockaddr_vj))
#define SS_LEN		((int)sizeof(struct sockaddr_storage))
#define NSEC		1000000000ull
#define INJECT_PATH	"/sys/kernel/debug/vjtest/inject"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* --- random numbers ------------------------------------------------- */

struct rng {
	uint64_t s;
};

/* splitmix64: small, fast, and every seed gives a good sequence. */
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

#define PICK(r, a)	((a)[below((r), ARRAY_SIZE(a))])

/* --- run state ------------------------------------------------------ */

static struct rng R;			/* the main thread's: the op sequence */
static uint64_t seed;
static unsigned long opno;
static bool verbose;
static char opdesc[1024];
static char failmsg[2048];
static bool failed;
static uint64_t t_start;
static long pg;
static int nthreads = 2;
static atomic_int stop_threads;

#define HIST 24
static char hist[HIST][300];

struct opstat {
	const char *name;
	unsigned long n, ok;
};

enum {
	O_SOCKET, O_SOCKET_BAD, O_SETSOCKOPT, O_GETSOCKOPT, O_SOLSOCKET,
	O_BIND, O_GETSOCKNAME, O_MMAP, O_MUNMAP, O_MREMAP, O_POLL, O_EPOLL,
	O_CLOSE, O_DUP, O_FORK, O_SEND, O_RAW, O_INJECT, O_CONSUME,
	O_SCRIBBLE, O_REFUSED, O_PROC, O_NR
};

static struct opstat ops[O_NR] = {
	[O_SOCKET] = { "socket" }, [O_SOCKET_BAD] = { "socket_bad" },
	[O_SETSOCKOPT] = { "setsockopt" }, [O_GETSOCKOPT] = { "getsockopt" },
	[O_SOLSOCKET] = { "sol_socket" }, [O_BIND] = { "bind" },
	[O_GETSOCKNAME] = { "getsockname" }, [O_MMAP] = { "mmap" },
	[O_MUNMAP] = { "munmap" }, [O_MREMAP] = { "mremap" },
	[O_POLL] = { "poll" }, [O_EPOLL] = { "epoll" },
	[O_CLOSE] = { "close" }, [O_DUP] = { "dup" }, [O_FORK] = { "fork" },
	[O_SEND] = { "udp" }, [O_RAW] = { "raw" }, [O_INJECT] = { "inject" },
	[O_CONSUME] = { "consume" }, [O_SCRIBBLE] = { "scribble" },
	[O_REFUSED] = { "refused" }, [O_PROC] = { "proc" },
};
static int cur_op;
static unsigned long descs_checked, descs_classified;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + ts.tv_nsec;
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

/* First failure wins; the op loop stops at it. */
static void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void failf(const char *fmt, ...)
{
	char buf[1536];
	va_list ap;

	if (failed)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	snprintf(failmsg, sizeof(failmsg), "seed %llu op %lu: %s",
		 (unsigned long long)seed, opno, buf);
	failed = true;
}

static void op_begin(int op, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void op_begin(int op, const char *fmt, ...)
{
	va_list ap;

	cur_op = op;
	ops[op].n++;
	va_start(ap, fmt);
	vsnprintf(opdesc, sizeof(opdesc), fmt, ap);
	va_end(ap);
	snprintf(hist[opno % HIST], sizeof(hist[0]), "op %lu: %.250s", opno,
		 opdesc);
	if (verbose)
		fprintf(stderr, "op %lu: %s\n", opno, opdesc);
}

static void op_note(const char *res)
{
	char *h = hist[opno % HIST];
	size_t l = strlen(h);

	snprintf(h + l, sizeof(hist[0]) - l, " -> %s", res);
	if (verbose)
		fprintf(stderr, "   -> %s\n", res);
}

/* --- expected results ----------------------------------------------- */

/*
 * The results a call may have: success if ok, else one of err[].  A
 * condition under which the documentation says the call fails adds its
 * errno and clears ok ("must"); a failure the call may have but need not
 * (no memory, a ring that may or may not exist) only adds its errno.
 * Which of several applicable errors wins is not documented, so any of
 * them is accepted.
 */
struct expect {
	bool ok;
	int n;
	int err[24];
};

static void x_init(struct expect *x)
{
	x->ok = true;
	x->n = 0;
}

static void x_may(struct expect *x, int e)
{
	int i;

	for (i = 0; i < x->n; i++)
		if (x->err[i] == e)
			return;
	if (x->n < (int)ARRAY_SIZE(x->err))
		x->err[x->n++] = e;
}

static void x_must(struct expect *x, int e)
{
	x_may(x, e);
	x->ok = false;
}

static bool x_has(const struct expect *x, int e)
{
	int i;

	for (i = 0; i < x->n; i++)
		if (x->err[i] == e)
			return true;
	return false;
}

static const char *x_str(const struct expect *x)
{
	static char buf[400];
	size_t l = 0;
	int i;

	buf[0] = 0;
	if (x->ok)
		l += snprintf(buf + l, sizeof(buf) - l, "success");
	for (i = 0; i < x->n && l < sizeof(buf); i++)
		l += snprintf(buf + l, sizeof(buf) - l, "%s%s", l ? "|" : "",
			      errname(x->err[i]));
	return buf;
}

/* ret < 0 means the call failed with err.  True if the result was ok. */
static bool check(long ret, int err, const struct expect *x)
{
	if (ret >= 0) {
		op_note("ok");
		if (x->ok) {
			ops[cur_op].ok++;
			return true;
		}
		failf("%s: succeeded (returned %ld), expected %s", opdesc, ret,
		      x_str(x));
		return false;
	}
	op_note(errname(err));
	if (x_has(x, err))
		return true;
	failf("%s: failed with %s, expected %s", opdesc, errname(err),
	      x_str(x));
	return false;
}

/* --- the model ------------------------------------------------------ */

enum { RING_NO, RING_YES, RING_MAYBE };
static const char *const ring_names[] = { "no", "yes", "maybe" };

struct msock {
	bool live;
	bool clean;		/* nothing scribbles on it: check everything */
	unsigned int id;	/* serial number, never reused */
	int nfds;		/* descriptors referring to it */
	int nmaps;		/* live mappings of it */
	int ring;		/* RING_*: does the ring exist? */
	struct vj_ring_req req;	/* geometry the ring has or will have */
	size_t ring_bytes;	/* charged to the budget while ring != NO */
	bool bound;
	uint16_t bind_flags;	/* svj_flags it was bound with */
	struct vj_flow flow;
	uint64_t bound_at;	/* CLOCK_MONOTONIC after bind() returned */
	unsigned long ino;
	uint32_t cons;		/* clean: the consumer index we stored */
	struct vj_statistics last;
};

struct mfd {
	bool live;
	int fd;
	int sock;
};

/* Read by the scribbler threads under map_lock, written under it. */
struct mmapping {
	bool live;
	bool clean;
	bool readable, writable;
	int sock;
	uint8_t *addr;
	size_t len, npages;
	uint8_t *present;	/* per page: still mapped */
	struct vj_mmap_offsets off;
};

struct epkey {
	bool live;
	unsigned int id;
	int fd;
};

static struct msock socks[MAX_SOCKS];
static struct mfd fds[MAX_FDS];
static struct mmapping maps[MAX_MAPS];
static struct epkey epkeys[MAX_EPKEYS];
static pthread_rwlock_t map_lock = PTHREAD_RWLOCK_INITIALIZER;
static unsigned int next_id = 1;
static size_t ring_total;
static int epfd = -1;

static int if_lo, if_vjt, if_eth0, if_eth1;
static const uint32_t bogus_ifindex[] = { 9999, 0x7fffffff, 0xffffffffu };
static uint8_t *gbuf, *guard_end;	/* 2 pages, then a PROT_NONE page */
static uint8_t *zbuf;			/* 2 MiB of zeros, then PROT_NONE */
#define ZBUF_LEN	(2u << 20)
static int udp4 = -1, udp6 = -1, raw4 = -1, raw6 = -1, injfd = -1;
static int thr_udp4 = -1, thr_udp6 = -1, thr_injfd = -1;

static int live_socks(void)
{
	int i, n = 0;

	for (i = 0; i < MAX_SOCKS; i++)
		n += socks[i].live;
	return n;
}

static int live_fds(void)
{
	int i, n = 0;

	for (i = 0; i < MAX_FDS; i++)
		n += fds[i].live;
	return n;
}

static int pick_fd(void)
{
	int idx[MAX_FDS], i, n = 0;

	for (i = 0; i < MAX_FDS; i++)
		if (fds[i].live)
			idx[n++] = i;
	return n ? idx[below(&R, n)] : -1;
}

/* With pct % chance, a descriptor of a socket for which want() holds. */
static int pick_fd_pref(bool (*want)(const struct msock *), unsigned int pct)
{
	int idx[MAX_FDS], i, n = 0;

	if (!chance(&R, pct))
		return pick_fd();
	for (i = 0; i < MAX_FDS; i++)
		if (fds[i].live && want(&socks[fds[i].sock]))
			idx[n++] = i;
	return n ? idx[below(&R, n)] : pick_fd();
}

static bool sock_unbound(const struct msock *s)
{
	return !s->bound;
}

static bool sock_ringless(const struct msock *s)
{
	return s->ring != RING_YES;
}

static int pick_map(bool (*ok)(const struct mmapping *))
{
	int idx[MAX_MAPS], i, n = 0;

	for (i = 0; i < MAX_MAPS; i++)
		if (maps[i].live && (!ok || ok(&maps[i])))
			idx[n++] = i;
	return n ? idx[below(&R, n)] : -1;
}

static size_t ring_est(const struct vj_ring_req *q)
{
	/* vjchan(7): a 256-byte header and the descriptors, rounded up to a
	 * page, plus the buffers.
	 */
	size_t hdr = 256 + (size_t)q->entries * sizeof(struct vj_desc);

	return ((hdr + 4095) & ~(size_t)4095) +
	       (size_t)q->entries * q->buf_size;
}

static bool pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static bool geom_valid(const struct vj_ring_req *q)
{
	return q->entries >= VJ_RING_MIN_ENTRIES &&
	       q->entries <= VJ_RING_MAX_ENTRIES && pow2(q->entries) &&
	       q->buf_size >= VJ_BUF_MIN_SIZE &&
	       q->buf_size <= VJ_BUF_MAX_SIZE && pow2(q->buf_size) &&
	       !q->flags && !q->pad && ring_est(q) <= (1u << 30);
}

static void ring_set(struct msock *s, int state)
{
	if (s->ring == RING_NO && state != RING_NO) {
		s->ring_bytes = ring_est(&s->req);
		ring_total += s->ring_bytes;
	} else if (s->ring != RING_NO && state == RING_NO) {
		ring_total -= s->ring_bytes;
		s->ring_bytes = 0;
	}
	s->ring = state;
}

static void epkeys_drop(unsigned int id)
{
	int i;

	for (i = 0; i < MAX_EPKEYS; i++)
		if (epkeys[i].live && epkeys[i].id == id)
			epkeys[i].live = false;
}

static struct epkey *epkey_find(unsigned int id, int fd)
{
	int i;

	for (i = 0; i < MAX_EPKEYS; i++)
		if (epkeys[i].live && epkeys[i].id == id && epkeys[i].fd == fd)
			return &epkeys[i];
	return NULL;
}

static void epkey_add(unsigned int id, int fd)
{
	int i;

	for (i = 0; i < MAX_EPKEYS; i++)
		if (!epkeys[i].live) {
			epkeys[i] = (struct epkey){ true, id, fd };
			return;
		}
}

/* The last reference went: the socket is released and its flow unbound. */
static void sock_put_ref(int si)
{
	struct msock *s = &socks[si];

	if (s->nfds || s->nmaps)
		return;
	ring_set(s, RING_NO);
	epkeys_drop(s->id);
	s->live = false;
	s->bound = false;
}

static void fd_forget(int fi)
{
	struct mfd *f = &fds[fi];

	f->live = false;
	socks[f->sock].nfds--;
	sock_put_ref(f->sock);
}

static void map_forget(int mi)
{
	struct mmapping *m = &maps[mi];
	int si = m->sock;

	pthread_rwlock_wrlock(&map_lock);
	m->live = false;
	free(m->present);
	m->present = NULL;
	pthread_rwlock_unlock(&map_lock);
	socks[si].nmaps--;
	sock_put_ref(si);
}

static int fd_add(int fd, int si)
{
	int i;

	for (i = 0; i < MAX_FDS; i++)
		if (!fds[i].live) {
			fds[i] = (struct mfd){ true, fd, si };
			socks[si].nfds++;
			return i;
		}
	return -1;
}

/* --- /proc ---------------------------------------------------------- */

static long long pool_get(const char *key)
{
	char line[256], k[128];
	long long v, ret = -1;
	FILE *f = fopen("/proc/net/vjchan_pool", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %lld", k, &v) == 2 && !strcmp(k, key))
			ret = v;
	fclose(f);
	return ret;
}

/* --- flows and packets ---------------------------------------------- */

static bool proto_has_ports(uint8_t p)
{
	return p == IPPROTO_TCP || p == IPPROTO_UDP || p == IPPROTO_UDPLITE ||
	       p == IPPROTO_SCTP || p == IPPROTO_DCCP;
}

struct pkey {
	int family;
	uint8_t proto;
	uint16_t sport, dport;	/* network order */
	uint32_t ifindex;
	union vj_addr saddr, daddr;
};

static bool addr_any(const union vj_addr *a)
{
	return !(a->ip6[0] | a->ip6[1] | a->ip6[2] | a->ip6[3]);
}

/* Mask bits in the rank order of vjchan(7), most significant first. */
static unsigned int flow_mask(const struct vj_flow *f)
{
	return (f->dport ? 32 : 0) | (!addr_any(&f->daddr) ? 16 : 0) |
	       (f->sport ? 8 : 0) | (!addr_any(&f->saddr) ? 4 : 0) |
	       (f->proto ? 2 : 0) | (f->ifindex ? 1 : 0);
}

/* More non-wildcard fields wins; then the greater mask. */
static unsigned int flow_rank(const struct vj_flow *f)
{
	unsigned int m = flow_mask(f);

	return (unsigned int)__builtin_popcount(m) << 8 | m;
}

static bool flow_matches(const struct vj_flow *f, const struct pkey *k)
{
	size_t alen = k->family == AF_INET ? 4 : 16;

	if (f->family != k->family)
		return false;
	if (f->proto && f->proto != k->proto)
		return false;
	if (f->sport && f->sport != k->sport)
		return false;
	if (f->dport && f->dport != k->dport)
		return false;
	if (f->ifindex && f->ifindex != k->ifindex)
		return false;
	if (!addr_any(&f->saddr) && memcmp(&f->saddr, &k->saddr, alen))
		return false;
	if (!addr_any(&f->daddr) && memcmp(&f->daddr, &k->daddr, alen))
		return false;
	return true;
}

static const char *flow_str(const struct vj_flow *f)
{
	static char buf[4][256];
	static int n;
	char *b = buf[n++ % 4], sa[64], da[64];

	if (f->family == AF_INET6) {
		inet_ntop(AF_INET6, &f->saddr, sa, sizeof(sa));
		inet_ntop(AF_INET6, &f->daddr, da, sizeof(da));
	} else {
		snprintf(sa, sizeof(sa), "%08x:%08x%08x%08x",
			 ntohl(f->saddr.ip6[0]), f->saddr.ip6[1],
			 f->saddr.ip6[2], f->saddr.ip6[3]);
		snprintf(da, sizeof(da), "%08x:%08x%08x%08x",
			 ntohl(f->daddr.ip6[0]), f->daddr.ip6[1],
			 f->daddr.ip6[2], f->daddr.ip6[3]);
	}
	snprintf(b, 256, "{fam %u proto %u pad %u sport %u dport %u if %u %s > %s}",
		 f->family, f->proto, f->pad, ntohs(f->sport), ntohs(f->dport),
		 f->ifindex, sa, da);
	return b;
}

static uint32_t ip4(const char *s)
{
	struct in_addr a;

	inet_pton(AF_INET, s, &a);
	return a.s_addr;
}

static void gen_addr(int fam, union vj_addr *a)
{
	static const char *const v4[] = { "127.0.0.1", "127.0.0.2",
		"198.51.100.1", "198.51.100.2", "192.0.2.1", "255.255.255.255" };
	static const char *const v6[] = { "::1", "2001:db8:100::1",
		"2001:db8:100::2", "::ffff:127.0.0.1", "ff02::1" };

	memset(a, 0, sizeof(*a));
	if (chance(&R, 55))
		return;				/* wildcard */
	if (fam == AF_INET6 || (fam != AF_INET && chance(&R, 50))) {
		if (chance(&R, 80))
			inet_pton(AF_INET6, PICK(&R, v6), a);
		else
			for (int i = 0; i < 4; i++)
				a->ip6[i] = (uint32_t)rnd64(&R);
		return;
	}
	a->ip4 = chance(&R, 85) ? ip4(PICK(&R, v4)) : (uint32_t)rnd64(&R);
}

static uint16_t gen_port(void)
{
	uint32_t r = below(&R, 100);

	if (r < 35)
		return 0;
	if (r < 85)
		return htons(PBASE + below(&R, NPORTS));
	if (r < 90)
		return htons(65535);
	if (r < 93)
		return htons(1);
	return htons((uint16_t)rnd64(&R));
}

static void gen_flow(struct vj_flow *f)
{
	static const uint16_t fams[] = { 0, 1, AF_UNIX, AF_VJCHAN, 0xffff,
					 AF_INET + 256, AF_PACKET };
	static const uint8_t protos[] = { 0, 0, IPPROTO_UDP, IPPROTO_UDP,
		IPPROTO_UDP, IPPROTO_TCP, IPPROTO_UDPLITE, IPPROTO_SCTP,
		IPPROTO_DCCP, IPPROTO_ICMP, 255, 253 };
	uint32_t r = below(&R, 100);

	memset(f, 0, sizeof(*f));
	f->family = r < 62 ? AF_INET : r < 92 ? AF_INET6 : PICK(&R, fams);
	f->proto = chance(&R, 5) ? (uint8_t)rnd64(&R) : PICK(&R, protos);
	f->pad = chance(&R, 3) ? 1 + below(&R, 255) : 0;
	f->sport = chance(&R, 70) ? 0 : gen_port();
	f->dport = gen_port();
	r = below(&R, 100);
	if (r < 65)
		f->ifindex = 0;
	else if (r < 80)
		f->ifindex = if_lo;
	else if (r < 88)
		f->ifindex = if_vjt ? if_vjt : if_lo;
	else if (r < 92)
		f->ifindex = if_eth0 ? if_eth0 : if_lo;
	else
		f->ifindex = PICK(&R, bogus_ifindex);
	gen_addr(f->family, &f->saddr);
	gen_addr(f->family, &f->daddr);
	/* IPv4 flows whose other 12 address bytes are not zero. */
	if (f->family == AF_INET && chance(&R, 5))
		f->daddr.bytes[4 + below(&R, 12)] = 1 + below(&R, 255);
}

static bool ifindex_exists(uint32_t i)
{
	char name[IF_NAMESIZE];

	if (i && ((int)i == if_lo || (int)i == if_vjt || (int)i == if_eth0 ||
		  (int)i == if_eth1))
		return true;
	return i && i < 0x80000000u && if_indextoname(i, name);
}

/* The payload pattern vjtest uses, and our own senders too. */
static void payload_fill(uint8_t *p, uint32_t len, uint32_t seq)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = i < 4 ? (uint8_t)(seq >> (24 - 8 * i)) : (uint8_t)(seq + i);
}

static bool payload_ok(const uint8_t *p, uint32_t len)
{
	uint32_t seq, i;

	if (len < 4)
		return true;
	seq = (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
	for (i = 4; i < len; i++)
		if (p[i] != (uint8_t)(seq + i))
			return false;
	return true;
}

/* --- checking descriptors of clean rings ---------------------------- */

static bool page_ok(const struct mmapping *m, size_t off, size_t len)
{
	size_t p;

	if (!len || off + len > m->len)
		return false;
	for (p = off / pg; p <= (off + len - 1) / pg; p++)
		if (!m->present[p])
			return false;
	return true;
}

static uint32_t load_acq(const struct mmapping *m, uint64_t off)
{
	return __atomic_load_n((uint32_t *)(m->addr + off), __ATOMIC_ACQUIRE);
}

/*
 * Parses a received packet into a flow key.  Returns NULL and fills k, or
 * the reason the packet is not one a channel may receive.  *classify is
 * cleared when the packet cannot be classified by ports (truncated
 * transport header), which vjchan(7) leaves open.
 */
static const char *pkt_key(const struct vj_desc *d, const uint8_t *p,
			   struct pkey *k, bool *classify, const uint8_t **l4,
			   uint32_t *l4len)
{
	bool trunc = d->flags & VJ_DESC_F_TRUNC;
	const uint8_t *ip = p + d->l3_off;
	uint32_t avail = d->len - d->l3_off, off, tot;
	uint8_t nh;

	memset(k, 0, sizeof(*k));
	*classify = true;
	k->ifindex = d->ifindex;
	switch (ntohs(d->proto)) {
	case 0x0800:
		if (avail < 20 || ip[0] >> 4 != 4)
			return "not an IPv4 header at l3_off";
		off = (ip[0] & 15) * 4;
		tot = ip[2] << 8 | ip[3];
		if (off < 20 || tot < off || (!trunc && tot != avail) ||
		    (trunc && tot <= avail))
			return "IPv4 total length disagrees with the descriptor";
		if ((ip[6] & 0x3f) || ip[7])
			return "an IPv4 fragment was claimed";
		k->family = AF_INET;
		k->proto = ip[9];
		memcpy(&k->saddr.ip4, ip + 12, 4);
		memcpy(&k->daddr.ip4, ip + 16, 4);
		break;
	case 0x86dd:
		if (avail < 40 || ip[0] >> 4 != 6)
			return "not an IPv6 header at l3_off";
		tot = 40 + (ip[4] << 8 | ip[5]);
		if ((!trunc && tot != avail) || (trunc && tot <= avail))
			return "IPv6 payload length disagrees with the descriptor";
		k->family = AF_INET6;
		memcpy(&k->saddr, ip + 8, 16);
		memcpy(&k->daddr, ip + 24, 16);
		nh = ip[6];
		off = 40;
		for (;;) {
			if (nh == 0 || nh == 43 || nh == 60 || nh == 51) {
				if (off + 8 > avail) {
					*classify = false;
					break;
				}
				uint32_t hl = nh == 51 ? (ip[off + 1] + 2) * 4 :
					      (ip[off + 1] + 1) * 8;

				nh = ip[off];
				off += hl;
			} else if (nh == 44) {
				if (off + 8 > avail) {
					*classify = false;
					break;
				}
				if ((ip[off + 2] << 8 | ip[off + 3]) & 0xfff9)
					return "an IPv6 fragment was claimed";
				nh = ip[off];
				off += 8;
			} else {
				break;
			}
		}
		k->proto = nh;
		break;
	default:
		return "descriptor proto is neither ETH_P_IP nor ETH_P_IPV6";
	}
	*l4 = ip + off;
	*l4len = off < avail ? avail - off : 0;
	if (proto_has_ports(k->proto)) {
		if (*l4len < 4) {
			*classify = false;
		} else {
			memcpy(&k->sport, *l4, 2);
			memcpy(&k->dport, *l4 + 2, 2);
		}
	}
	return NULL;
}

static void check_desc(int si, const struct mmapping *m, uint32_t idx)
{
	const struct msock *s = &socks[si];
	const struct vj_mmap_offsets *o = &m->off;
	uint64_t doff = o->desc + (uint64_t)(idx & (o->entries - 1)) *
			sizeof(struct vj_desc);
	volatile struct vj_desc *vd;
	struct vj_desc d;
	const uint8_t *p, *l4;
	uint32_t l4len;
	struct pkey k;
	bool classify;
	const char *why;
	uint64_t now = now_ns();
	int i;

	if (!page_ok(m, doff, sizeof(d)))
		return;
	vd = (volatile struct vj_desc *)(m->addr + doff);
	d.buf = vd->buf;
	d.off = vd->off;
	d.len = vd->len;
	d.ifindex = vd->ifindex;
	d.l3_off = vd->l3_off;
	d.proto = vd->proto;
	d.flags = vd->flags;
	d.tstamp = vd->tstamp;

#define DFAIL(...) do {							\
	char __w[300];							\
	snprintf(__w, sizeof(__w), __VA_ARGS__);			\
	failf("%s: sock %u flow %s slot %u: desc {buf %u off %u len %u if %u l3 %u proto %#x flags %#x}: %s", \
	      opdesc, s->id, flow_str(&s->flow), idx, d.buf, d.off, d.len, \
	      d.ifindex, d.l3_off, ntohs(d.proto), d.flags, __w);	\
	return;								\
} while (0)

	if (d.buf >= o->entries)
		DFAIL("buf beyond entries %u", o->entries);
	if (d.off > o->buf_size || d.len > o->buf_size - d.off)
		DFAIL("off + len beyond buf_size %u", o->buf_size);
	if (d.flags & ~(VJ_DESC_F_L2 | VJ_DESC_F_TRUNC | VJ_DESC_F_DRIVER))
		DFAIL("unknown flags");
	if (!(d.flags & VJ_DESC_F_L2) || d.l3_off != 14)
		DFAIL("no 14-byte link header");
	if ((d.flags & VJ_DESC_F_TRUNC) && d.off + d.len != o->buf_size)
		DFAIL("TRUNC but the buffer is not full");
	if (!d.ifindex || !ifindex_exists(d.ifindex))
		DFAIL("ifindex of no device");
	if ((d.flags & VJ_DESC_F_DRIVER) && (int)d.ifindex != if_vjt)
		DFAIL("DRIVER frame not from vjtest0 (%d)", if_vjt);
	if (d.tstamp > now || d.tstamp + NSEC < t_start)
		DFAIL("tstamp %llu outside the run [%llu, %llu]",
		      (unsigned long long)d.tstamp,
		      (unsigned long long)t_start, (unsigned long long)now);
	if (d.len < d.l3_off)
		DFAIL("shorter than its link header");
	descs_checked++;
	if (!page_ok(m, o->bufs + (uint64_t)d.buf * o->buf_size + d.off,
		     d.len))
		return;
	p = m->addr + o->bufs + (uint64_t)d.buf * o->buf_size + d.off;
	why = pkt_key(&d, p, &k, &classify, &l4, &l4len);
	if (why)
		DFAIL("%s", why);
	if (!classify)
		return;
	descs_classified++;
	if (!flow_matches(&s->flow, &k))
		DFAIL("packet (proto %u ports %u > %u) does not match the flow",
		      k.proto, ntohs(k.sport), ntohs(k.dport));
	/*
	 * The most specific channel wins: no channel bound well before the
	 * packet was taken (the tstamp follows the lookup by at most the
	 * copy; a second covers a descheduled vCPU) may outrank this one.
	 */
	for (i = 0; i < MAX_SOCKS; i++) {
		const struct msock *o2 = &socks[i];

		if (i == si || !o2->live || !o2->bound ||
		    o2->bound_at + NSEC > d.tstamp)
			continue;
		if (flow_matches(&o2->flow, &k) &&
		    flow_rank(&o2->flow) > flow_rank(&s->flow))
			DFAIL("sock %u with the more specific flow %s was bound",
			      o2->id, flow_str(&o2->flow));
	}
	if (k.proto == IPPROTO_UDP && l4len > 8 &&
	    ntohs(k.dport) >= PBASE && ntohs(k.dport) < PBASE + NPORTS &&
	    !payload_ok(l4 + 8, l4len - 8))
		DFAIL("payload pattern damaged");
#undef DFAIL
}

/* --- operations ----------------------------------------------------- */

static int sock_new(int fd, bool clean)
{
	struct stat st;
	int i;

	for (i = 0; i < MAX_SOCKS; i++)
		if (!socks[i].live)
			break;
	if (i == MAX_SOCKS)
		return -1;
	memset(&socks[i], 0, sizeof(socks[i]));
	socks[i].live = true;
	socks[i].clean = clean;
	socks[i].id = next_id++;
	socks[i].req.entries = VJ_RING_DEF_ENTRIES;
	socks[i].req.buf_size = VJ_BUF_DEF_SIZE;
	if (!fstat(fd, &st))
		socks[i].ino = st.st_ino;
	return i;
}

static void ep_register(int fi)
{
	struct mfd *f = &fds[fi];
	struct msock *s = &socks[f->sock];
	struct epoll_event ev = {
		.events = EPOLLIN | (chance(&R, 30) ? EPOLLET : 0),
		.data.u64 = (uint64_t)s->id << 32 | (uint32_t)f->fd,
	};
	struct expect x;
	int r;

	op_begin(O_EPOLL, "epoll_ctl(ADD, fd %d sock %u)", f->fd, s->id);
	x_init(&x);
	if (epkey_find(s->id, f->fd))
		x_must(&x, EEXIST);
	x_may(&x, ENOMEM);
	x_may(&x, ENOSPC);
	r = epoll_ctl(epfd, EPOLL_CTL_ADD, f->fd, &ev);
	if (check(r, errno, &x) && !r)
		epkey_add(s->id, f->fd);
}

static void op_socket(void)
{
	int flags = (chance(&R, 50) ? SOCK_CLOEXEC : 0) |
		    (chance(&R, 30) ? SOCK_NONBLOCK : 0);
	struct expect x;
	int fd, si, fi;
	bool clean = chance(&R, 50);

	op_begin(O_SOCKET, "socket(AF_VJCHAN, SOCK_DGRAM | %#x, 0) %s", flags,
		 clean ? "clean" : "dirty");
	x_init(&x);
	x_may(&x, EMFILE);
	x_may(&x, ENFILE);
	x_may(&x, ENOMEM);
	x_may(&x, ENOBUFS);
	fd = socket(AF_VJCHAN, SOCK_DGRAM | flags, 0);
	if (!check(fd, errno, &x) || fd < 0)
		return;
	si = sock_new(fd, clean);
	fi = si < 0 ? -1 : fd_add(fd, si);
	if (fi < 0) {
		close(fd);
		if (si >= 0)
			socks[si].live = false;
		return;
	}
	if (chance(&R, 60))
		ep_register(fi);
}

static void op_socket_bad(void)
{
	static const int types[] = { 0, SOCK_STREAM, SOCK_RAW, SOCK_RDM,
		SOCK_SEQPACKET, SOCK_DCCP, SOCK_PACKET, 11, 255, 0x100 | SOCK_DGRAM,
		-1 };
	static const int protos[] = { 1, IPPROTO_UDP, 255, -1, 0x7fffffff,
				      0x10000 };
	int type = SOCK_DGRAM, proto = 0, base, fd;
	struct expect x;

	if (chance(&R, 60))
		type = PICK(&R, types);
	if (type == SOCK_DGRAM || chance(&R, 30))
		proto = PICK(&R, protos);
	op_begin(O_SOCKET_BAD, "socket(AF_VJCHAN, %d, %d)", type, proto);
	x_init(&x);
	base = type & 0xf;
	if (type < 0 || (type & ~(0xf | SOCK_CLOEXEC | SOCK_NONBLOCK)) ||
	    base >= SOCK_PACKET + 1)
		x_must(&x, EINVAL);		/* socket(2): unknown type */
	else if (base != SOCK_DGRAM)
		x_must(&x, ESOCKTNOSUPPORT);
	if (proto)
		x_must(&x, EPROTONOSUPPORT);
	x_may(&x, EMFILE);
	x_may(&x, ENFILE);
	fd = socket(AF_VJCHAN, type, proto);
	check(fd, errno, &x);
	if (fd >= 0)
		close(fd);
}

static void gen_geom(struct vj_ring_req *q)
{
	static const uint32_t ent[] = { 0, 1, 7, 8, 9, 16, 64, 255, 256, 512,
		4096, 32767, 32768, 32769, 65536, 1u << 31, 0xffffffffu };
	static const uint32_t bsz[] = { 0, 1, 2047, 2048, 2049, 4096, 8192,
		32768, 65535, 65536, 65537, 131072, 1u << 31, 0xffffffffu };

	memset(q, 0, sizeof(*q));
	if (chance(&R, 55)) {
		q->entries = 8u << below(&R, 7);
		q->buf_size = 2048u << below(&R, 2);
	} else {
		q->entries = chance(&R, 85) ? PICK(&R, ent) : (uint32_t)rnd64(&R);
		q->buf_size = chance(&R, 85) ? PICK(&R, bsz) : (uint32_t)rnd64(&R);
	}
	if (chance(&R, 4))
		q->flags = 1u << below(&R, 32);
	if (chance(&R, 4))
		q->pad = (uint32_t)rnd64(&R) | 1;
}

/* setsockopt(VJ_RING): the common part of the fuzzed and the budget op. */
static void do_set_ring(struct mfd *f, const struct vj_ring_req *req,
			uint8_t *val, int optlen, int level, int optname,
			bool head_fault, bool tail_fault, bool tail_nonzero)
{
	struct msock *s = &socks[f->sock];
	struct expect x;
	int r;

	x_init(&x);
	if (optlen < 0) {
		x_must(&x, EINVAL);
	} else if (level != SOL_VJCHAN || optname != VJ_RING) {
		x_must(&x, ENOPROTOOPT);
	} else if (optlen < (int)sizeof(*req)) {
		x_must(&x, EINVAL);
	} else if (head_fault) {
		x_must(&x, EFAULT);
	} else {
		if (tail_fault) {
			x_must(&x, EFAULT);
			if (tail_nonzero)
				x_must(&x, E2BIG);
		} else if (tail_nonzero) {
			x_must(&x, E2BIG);
		}
		if (!geom_valid(req))
			x_must(&x, EINVAL);
		if (s->ring == RING_YES)
			x_must(&x, EBUSY);
		else if (s->ring == RING_MAYBE)
			x_may(&x, EBUSY);
	}
	r = setsockopt(f->fd, level, optname, val, (socklen_t)optlen);
	if (!check(r, errno, &x))
		return;
	if (!r) {
		if (s->ring == RING_MAYBE)
			ring_set(s, RING_NO);
		s->req = *req;
	} else if (errno == EBUSY) {
		ring_set(s, RING_YES);
	}
}

static void op_setsockopt(void)
{
	static const int levels[] = { 0, IPPROTO_UDP, IPPROTO_IPV6, 298, 300,
				      -1, 0x7fffffff, SOL_PACKET };
	static const int names[] = { 0, VJ_MMAP_OFFSETS, VJ_STATISTICS, 4,
				     255, -1 };
	int fi = pick_fd_pref(sock_ringless, 60), level, optname, optlen;
	bool head_fault = false, tail_fault = false, tail_nz = false;
	struct vj_ring_req req;
	uint8_t *val;
	struct mfd *f;

	if (fi < 0)
		return;
	f = &fds[fi];
	level = chance(&R, 92) ? SOL_VJCHAN : PICK(&R, levels);
	optname = chance(&R, 85) ? VJ_RING : PICK(&R, names);
	gen_geom(&req);
	switch (below(&R, 16)) {
	case 0: optlen = 0; break;
	case 1: optlen = chance(&R, 50) ? sizeof(req) - 1 : 1 + below(&R, 14); break;
	case 2: optlen = 17; break;
	case 3: optlen = 17; tail_nz = true; break;
	case 4: optlen = 32 + below(&R, 4000); break;
	case 5: optlen = 32 + below(&R, 4000); tail_nz = true; break;
	case 6: optlen = 1 << 20; break;
	case 7: optlen = chance(&R, 50) ? 0x7fffffff : -1; break;
	default: optlen = sizeof(req); break;
	}

	/*
	 * Lay the option out so that it ends at the guard page, or k bytes
	 * into it; the lengths beyond two pages read 2 MiB of zeros and, past
	 * those, the guard.
	 */
	if (optlen > (int)(2 * pg) || optlen < 0) {
		val = zbuf;
		memcpy(val, &req, sizeof(req));
		tail_fault = optlen > (int)ZBUF_LEN;
		tail_nz = false;
	} else {
		int blen = optlen > 0 ? optlen : (int)sizeof(req);
		int k = 0, pos = -1;

		if (optlen >= (int)sizeof(req) && chance(&R, 4))
			k = 1 + below(&R, blen < 32 ? blen : 32);
		val = guard_end - blen + k;
		memset(val, 0, blen - k);
		memcpy(val, &req, blen - k < (int)sizeof(req) ? blen - k :
		       (int)sizeof(req));
		if (tail_nz)
			pos = sizeof(req) + below(&R, optlen - sizeof(req));
		/* A nonzero byte only where it can be read. */
		tail_nz = pos >= 0 && pos < blen - k;
		if (tail_nz)
			val[pos] = 1 + below(&R, 255);
		if (k > blen - (int)sizeof(req))
			head_fault = true;
		else if (k)
			tail_fault = true;
	}
	if (chance(&R, 2)) {
		val = NULL;
		head_fault = true;
	}
	op_begin(O_SETSOCKOPT, "setsockopt(fd %d sock %u ring %s, level %d, opt %d, {%u, %u, %#x, %#x}, len %d%s%s%s)",
		 f->fd, socks[f->sock].id, ring_names[socks[f->sock].ring],
		 level, optname, req.entries, req.buf_size, req.flags, req.pad,
		 optlen, head_fault ? " head-fault" : "",
		 tail_fault ? " tail-fault" : "", tail_nz ? " tail-nonzero" : "");
	do_set_ring(f, &req, val, optlen, level, optname, head_fault,
		    tail_fault, tail_nz && !head_fault);
	if (val == zbuf)
		memset(zbuf, 0, sizeof(req));
}

/* Before an op that may create the ring: keep it within the budget. */
static void budget_guard(struct mfd *f)
{
	struct msock *s = &socks[f->sock];
	struct vj_ring_req req = { 0 };

	if (s->ring != RING_NO)
		return;
	if (ring_est(&s->req) <= RING_MAX_ONE &&
	    ring_total + ring_est(&s->req) <= RING_BUDGET)
		return;
	req.entries = 8u << below(&R, 4);
	req.buf_size = 2048;
	op_begin(O_SETSOCKOPT, "setsockopt(fd %d sock %u, VJ_RING {%u, %u}) to stay in budget",
		 f->fd, s->id, req.entries, req.buf_size);
	memcpy(gbuf, &req, sizeof(req));
	do_set_ring(f, &req, gbuf, sizeof(req), SOL_VJCHAN, VJ_RING, false,
		    false, false);
}

static void check_offsets(const struct msock *s,
			  const struct vj_mmap_offsets *o)
{
	uint64_t words[3] = { o->producer, o->consumer, o->flags };
	int i;

	if (o->entries != s->req.entries || o->buf_size != s->req.buf_size) {
		failf("%s: offsets give %u x %u, the geometry is %u x %u",
		      opdesc, o->entries, o->buf_size, s->req.entries,
		      s->req.buf_size);
		return;
	}
	for (i = 0; i < 3; i++)
		if (words[i] % 4 || words[i] + 4 > o->desc) {
			failf("%s: index word %d at %llu, descriptors at %llu",
			      opdesc, i, (unsigned long long)words[i],
			      (unsigned long long)o->desc);
			return;
		}
	if ((o->producer > o->consumer ? o->producer - o->consumer :
	     o->consumer - o->producer) < 64 ||
	    o->desc + (uint64_t)o->entries * sizeof(struct vj_desc) > o->bufs ||
	    o->bufs + (uint64_t)o->entries * o->buf_size > o->size ||
	    o->size % pg || o->desc % 8) {
		failf("%s: inconsistent offsets prod %llu cons %llu flags %llu desc %llu bufs %llu size %llu",
		      opdesc, (unsigned long long)o->producer,
		      (unsigned long long)o->consumer,
		      (unsigned long long)o->flags,
		      (unsigned long long)o->desc,
		      (unsigned long long)o->bufs,
		      (unsigned long long)o->size);
	}
}

static void check_stats(struct msock *s, const struct vj_statistics *st)
{
	const uint64_t *a = (const uint64_t *)st, *b = (const uint64_t *)&s->last;
	unsigned int i;

	if (s->ring == RING_NO && memcmp(st, &(struct vj_statistics){ 0 },
					 sizeof(*st))) {
		failf("%s: counters nonzero without a ring", opdesc);
		return;
	}
	for (i = 0; i < sizeof(*st) / 8; i++)
		if (a[i] < b[i]) {
			failf("%s: counter %u went back from %llu to %llu",
			      opdesc, i, (unsigned long long)b[i],
			      (unsigned long long)a[i]);
			return;
		}
	if (st->rx_driver > st->rx_packets ||
	    st->rx_truncated > st->rx_packets ||
	    st->rx_bytes > st->rx_packets * (uint64_t)VJ_BUF_MAX_SIZE ||
	    st->rx_bytes < st->rx_packets * 34) {
		failf("%s: inconsistent counters packets %llu bytes %llu trunc %llu driver %llu",
		      opdesc, (unsigned long long)st->rx_packets,
		      (unsigned long long)st->rx_bytes,
		      (unsigned long long)st->rx_truncated,
		      (unsigned long long)st->rx_driver);
		return;
	}
	/* Only valid consumer indices are ever stored into a clean ring. */
	if (s->clean && st->rx_invalid_cons) {
		failf("%s: clean ring counted %llu invalid consumer indices",
		      opdesc, (unsigned long long)st->rx_invalid_cons);
		return;
	}
	s->last = *st;
}

static void op_getsockopt(void)
{
	static const int levels[] = { 0, IPPROTO_UDP, 298, 300, -1 };
	static const int names[] = { 0, 4, 255, -1, 0x10000 };
	int fi = pick_fd(), level, optname, len, mode;
	socklen_t l, *lp = &l;
	uint8_t *val, *buf = guard_end - 256;
	size_t size, least, got;
	struct expect x;
	struct msock *s;
	struct mfd *f;
	int r, i;

	if (fi < 0)
		return;
	f = &fds[fi];
	s = &socks[f->sock];
	level = chance(&R, 93) ? SOL_VJCHAN : PICK(&R, levels);
	i = below(&R, 100);
	optname = i < 30 ? VJ_RING : i < 60 ? VJ_MMAP_OFFSETS :
		  i < 92 ? VJ_STATISTICS : PICK(&R, names);
	size = optname == VJ_RING ? sizeof(struct vj_ring_req) :
	       optname == VJ_MMAP_OFFSETS ? sizeof(struct vj_mmap_offsets) :
	       optname == VJ_STATISTICS ? sizeof(struct vj_statistics) : 16;
	/* The least optlen accepted: the structure's first size. */
	least = optname == VJ_STATISTICS ? VJ_STATISTICS_SIZE_V1 : size;
	switch (below(&R, 13)) {
	case 0: len = 0; break;
	case 1: len = size - 1; break;
	case 12: len = least - below(&R, 2); break;
	case 2: len = size + 1; break;
	case 3: len = size + 64; break;
	case 4: len = chance(&R, 50) ? 1 << 20 : 0x7fffffff; break;
	case 5: len = chance(&R, 50) ? -1 : (int)0x80000000; break;
	default: len = size; break;
	}
	memset(buf, 0xa5, 256);
	val = buf;
	mode = below(&R, 100);
	if (mode < 3)
		val = NULL;
	else if (mode < 6)
		val = guard_end - (size - 1);	/* the last byte faults */
	else if (mode < 8)
		lp = NULL;
	l = len;
	op_begin(O_GETSOCKOPT, "getsockopt(fd %d sock %u ring %s, level %d, opt %d, len %d%s%s)",
		 f->fd, s->id, ring_names[s->ring], level, optname, len,
		 !val ? " optval NULL" : val != buf ? " optval short" : "",
		 lp ? "" : " optlen NULL");
	x_init(&x);
	if (level != SOL_VJCHAN) {
		x_must(&x, ENOPROTOOPT);
		if (!lp)
			x_may(&x, EFAULT);
	} else {
		if (!lp)
			x_must(&x, EFAULT);
		if (optname < VJ_RING || optname > VJ_STATISTICS)
			x_must(&x, ENOPROTOOPT);
		else if (lp && (len < 0 || (size_t)len < least))
			x_must(&x, EINVAL);
		else if (!val)
			x_must(&x, EFAULT);	/* any copy to NULL faults */
		else if (val != buf && (size_t)len >= size)
			x_must(&x, EFAULT);	/* the copy runs into the guard */
	}
	r = getsockopt(f->fd, level, optname, val, lp);
	if (!check(r, errno, &x) || r)
		return;
	got = (size_t)len < size ? (size_t)len : size;
	if (l != got) {
		failf("%s: optlen %u returned, want %zu", opdesc, l, got);
		return;
	}
	for (i = got; i < 256; i++)
		if (buf[i] != 0xa5) {
			failf("%s: byte %d beyond the %zu-byte option written",
			      opdesc, i, got);
			return;
		}
	if (got < size)		/* an older structure: nothing more to check */
		return;
	if (optname == VJ_RING) {
		if (memcmp(buf, &s->req, sizeof(s->req)))
			failf("%s: geometry {%u, %u}, want {%u, %u}", opdesc,
			      ((struct vj_ring_req *)buf)->entries,
			      ((struct vj_ring_req *)buf)->buf_size,
			      s->req.entries, s->req.buf_size);
	} else if (optname == VJ_MMAP_OFFSETS) {
		struct vj_mmap_offsets o;

		memcpy(&o, buf, sizeof(o));
		check_offsets(s, &o);
	} else {
		struct vj_statistics st;

		memcpy(&st, buf, sizeof(st));
		check_stats(s, &st);
	}
}

/* Options at SOL_SOCKET go to the generic socket code. */
static void op_solsocket(void)
{
	static const int gets[] = { SO_TYPE, SO_DOMAIN, SO_PROTOCOL, SO_ERROR,
				    SO_RCVBUF, SO_ACCEPTCONN, SO_PEERCRED };
	static const int sets[] = { SO_RCVBUF, SO_PRIORITY, SO_RCVLOWAT,
				    SO_BINDTODEVICE, SO_ATTACH_FILTER, 9999 };
	int fi = pick_fd(), name, v, r;
	uint8_t buf[64] = { 0 };
	socklen_t l = sizeof(v);
	struct expect x;
	struct mfd *f;

	if (fi < 0)
		return;
	f = &fds[fi];
	x_init(&x);
	if (chance(&R, 60)) {
		name = PICK(&R, gets);
		op_begin(O_SOLSOCKET, "getsockopt(fd %d, SOL_SOCKET, %d)",
			 f->fd, name);
		if (name == SO_PEERCRED) {
			l = sizeof(buf);
			x_may(&x, ENODATA);	/* never connected */
		}
		r = getsockopt(f->fd, SOL_SOCKET, name,
			       name == SO_PEERCRED ? (void *)buf : (void *)&v, &l);
		if (!check(r, errno, &x) || r)
			return;
		if ((name == SO_TYPE && v != SOCK_DGRAM) ||
		    (name == SO_DOMAIN && v != AF_VJCHAN) ||
		    (name == SO_PROTOCOL && v != 0) ||
		    (name == SO_ACCEPTCONN && v != 0) ||
		    (name == SO_ERROR && v != 0))
			failf("%s: value %d", opdesc, v);
		return;
	}
	name = PICK(&R, sets);
	v = (int)below(&R, 1 << 20);
	op_begin(O_SOLSOCKET, "setsockopt(fd %d, SOL_SOCKET, %d, %d)", f->fd,
		 name, v);
	x_may(&x, EINVAL);
	x_may(&x, ENOPROTOOPT);
	x_may(&x, EFAULT);
	x_may(&x, ENODEV);
	x_may(&x, ENOMEM);
	r = setsockopt(f->fd, SOL_SOCKET, name, name == SO_BINDTODEVICE ?
		       (void *)"lo" : (void *)&v, name == SO_BINDTODEVICE ? 3 :
		       sizeof(v));
	check(r, errno, &x);
}

/* The errno a bind() with these svj_flags must fail with, if any. */
static void x_bind_flags(struct expect *x, uint16_t fl)
{
	uint16_t mode = fl & VJ_BIND_FW_MASK;

	if (fl & ~(VJ_BIND_FW_MASK | VJ_BIND_F_TRANSIT) ||
	    mode == VJ_BIND_FW_MASK)
		x_must(x, EINVAL);
	else if (mode == VJ_BIND_FW_SANCTIONED)
		x_must(x, EOPNOTSUPP);
	else if ((fl & VJ_BIND_F_TRANSIT) && mode != VJ_BIND_FW_BYPASS)
		x_must(x, EINVAL);
}

static void op_bind(void)
{
	static const uint16_t bad_fams[] = { 0, AF_INET, AF_INET6, AF_UNIX,
					     18, 20, 0xffff };
	static const int lens[] = { 0, 1, 2, 4, 47, 49, 52, 64, 127, 128,
				    129, 4096, -1 };
	uint8_t *a;
	struct sockaddr_vj sa;
	int fi = pick_fd_pref(sock_unbound, 70), len, tail_at = -1, fault = 0, i, r;
	bool dup = false, null = false;
	struct expect x;
	struct msock *s;
	struct mfd *f;

	if (fi < 0)
		return;
	f = &fds[fi];
	s = &socks[f->sock];
	budget_guard(f);
	if (failed)
		return;

	memset(&sa, 0, sizeof(sa));
	sa.svj_family = chance(&R, 95) ? AF_VJCHAN : PICK(&R, bad_fams);
	sa.svj_flags = chance(&R, 97) ? VJ_BIND_FW_BYPASS :
		       chance(&R, 50) ? 1u << below(&R, 16) : below(&R, 8);
	if (chance(&R, 20)) {
		for (i = 0; i < MAX_SOCKS; i++) {
			int j = (i + below(&R, MAX_SOCKS)) % MAX_SOCKS;

			if (socks[j].live && socks[j].bound) {
				sa.svj_flow = socks[j].flow;
				dup = true;
				break;
			}
		}
	}
	if (!dup)
		gen_flow(&sa.svj_flow);
	len = chance(&R, 80) ? SVJ_LEN : PICK(&R, lens);
	if (len > SVJ_LEN && len <= SS_LEN && chance(&R, 50))
		tail_at = SVJ_LEN + below(&R, len - SVJ_LEN);

	/* The address ends at the guard page, or runs into it. */
	if (len > 0 && len <= SS_LEN) {
		if (chance(&R, 4))
			fault = 1 + below(&R, len);
		a = guard_end - len + fault;
		memset(a, 0, len - fault);
		memcpy(a, &sa, (size_t)(len - fault) < sizeof(sa) ?
		       (size_t)(len - fault) : sizeof(sa));
		if (tail_at >= 0 && tail_at < len - fault)
			a[tail_at] = 1 + below(&R, 255);
		else
			tail_at = -1;
	} else {
		a = gbuf;
		memset(a, 0, 2 * pg);
		memcpy(a, &sa, sizeof(sa));
	}
	if (chance(&R, 2)) {
		a = NULL;
		null = true;
	}
	op_begin(O_BIND, "bind(fd %d sock %u ring %s%s, {fam %u flags %#x flow %s}, len %d%s%s%s%s)",
		 f->fd, s->id, ring_names[s->ring], s->bound ? " bound" : "",
		 sa.svj_family, sa.svj_flags, flow_str(&sa.svj_flow), len,
		 tail_at >= 0 ? " tail-nonzero" : "", fault ? " faults" : "",
		 null ? " NULL" : "", dup ? " dup" : "");

	x_init(&x);
	if (len < 0 || len > SS_LEN) {
		x_must(&x, EINVAL);		/* bind(2): addrlen */
	} else if ((null && len > 0) || fault) {
		x_must(&x, EFAULT);
	} else if (len < SVJ_LEN) {
		x_must(&x, EINVAL);
	} else {
		const struct vj_flow *fl = &sa.svj_flow;

		if (sa.svj_family != AF_VJCHAN)
			x_must(&x, EAFNOSUPPORT);
		if (tail_at >= 0)
			x_must(&x, E2BIG);
		x_bind_flags(&x, sa.svj_flags);
		if (fl->family != AF_INET && fl->family != AF_INET6)
			x_must(&x, EAFNOSUPPORT);
		if (fl->family == AF_INET &&
		    (fl->saddr.ip6[1] | fl->saddr.ip6[2] | fl->saddr.ip6[3] |
		     fl->daddr.ip6[1] | fl->daddr.ip6[2] | fl->daddr.ip6[3]))
			x_must(&x, EINVAL);
		if (fl->pad)
			x_must(&x, EINVAL);
		if (s->bound)
			x_must(&x, EINVAL);
		if (fl->ifindex && !ifindex_exists(fl->ifindex))
			x_must(&x, ENODEV);
		for (i = 0; i < MAX_SOCKS; i++)
			if (&socks[i] != s && socks[i].live && socks[i].bound &&
			    !memcmp(&socks[i].flow, fl, sizeof(*fl)))
				x_must(&x, EADDRINUSE);
		if (s->ring != RING_YES)
			x_may(&x, ENOMEM);
	}
	r = bind(f->fd, (struct sockaddr *)a, (socklen_t)len);
	if (!check(r, errno, &x))
		return;
	if (!r) {
		s->bound = true;
		s->bind_flags = sa.svj_flags;
		s->flow = sa.svj_flow;
		s->bound_at = now_ns();
		ring_set(s, RING_YES);
	} else if ((errno == EADDRINUSE || errno == ENODEV ||
		    errno == ENOMEM) && s->ring == RING_NO) {
		/* Whether a bind that failed this late made the ring is not
		 * documented.
		 */
		ring_set(s, RING_MAYBE);
	}
}

static void op_getsockname(void)
{
	static const int lens[] = { 0, 1, 10, 47, 49, 128, -1 };
	uint8_t *buf = guard_end - 256;
	struct sockaddr_vj want = { .svj_family = AF_VJCHAN };
	int fi = pick_fd(), len, r, i;
	socklen_t l, *lp = &l;
	void *ap = buf;
	struct expect x;
	struct msock *s;

	if (fi < 0)
		return;
	s = &socks[fds[fi].sock];
	len = chance(&R, 60) ? SVJ_LEN : PICK(&R, lens);
	if (chance(&R, 3))
		ap = NULL;
	else if (chance(&R, 3))
		lp = NULL;
	l = len;
	memset(buf, 0xa5, 256);
	op_begin(O_GETSOCKNAME, "getsockname(fd %d sock %u%s, len %d%s%s)",
		 fds[fi].fd, s->id, s->bound ? " bound" : "", len,
		 ap ? "" : " addr NULL", lp ? "" : " len NULL");
	x_init(&x);
	if (!lp)
		x_must(&x, EFAULT);
	else if (len < 0)
		x_must(&x, EINVAL);
	else if (!ap && len > 0)
		x_must(&x, EFAULT);
	r = getsockname(fds[fi].fd, ap, lp);
	if (!check(r, errno, &x) || r)
		return;
	if (l != (socklen_t)SVJ_LEN) {
		failf("%s: length %u returned, want %d", opdesc, l, SVJ_LEN);
		return;
	}
	if (s->bound) {
		want.svj_flags = s->bind_flags;
		want.svj_flow = s->flow;
	}
	len = len < SVJ_LEN ? len : SVJ_LEN;
	if (memcmp(buf, &want, len))
		failf("%s: address differs from the bound flow %s", opdesc,
		      s->bound ? flow_str(&s->flow) : "(none)");
	for (i = len; i < 256; i++)
		if (buf[i] != 0xa5) {
			failf("%s: byte %d beyond the address written", opdesc, i);
			return;
		}
}

static void op_mmap(void)
{
	struct vj_mmap_offsets o;
	socklen_t ol = sizeof(o);
	int fi = pick_fd(), prot, flags, mi, r;
	size_t len, npg;
	off_t off = 0;
	struct expect x;
	struct msock *s;
	struct mfd *f;
	uint8_t *p;

	if (fi < 0)
		return;
	f = &fds[fi];
	s = &socks[f->sock];
	for (mi = 0; mi < MAX_MAPS; mi++)
		if (!maps[mi].live)
			break;
	if (mi == MAX_MAPS)
		return;
	budget_guard(f);
	if (failed)
		return;
	op_begin(O_GETSOCKOPT, "getsockopt(fd %d sock %u, VJ_MMAP_OFFSETS) before mmap",
		 f->fd, s->id);
	x_init(&x);
	r = getsockopt(f->fd, SOL_VJCHAN, VJ_MMAP_OFFSETS, &o, &ol);
	if (!check(r, errno, &x))
		return;
	check_offsets(s, &o);
	if (failed)
		return;

	switch (below(&R, 12)) {
	case 0: len = o.size - pg; break;
	case 1: len = o.size + pg; break;
	case 2: len = o.size - 1; break;	/* rounds up to size */
	case 3: len = chance(&R, 50) ? 0 : pg; break;
	case 4: len = 2 * o.size; break;
	default: len = o.size; break;
	}
	switch (below(&R, 14)) {
	case 0: off = pg; break;
	case 1: off = 1; break;
	case 2: off = (off_t)1 << 40; break;
	case 3: off = (off_t)(((uint64_t)1 << 63) - pg); break;
	default: off = 0; break;
	}
	r = below(&R, 100);
	prot = r < 70 ? PROT_READ | PROT_WRITE : r < 95 ? PROT_READ : PROT_NONE;
	r = below(&R, 100);
	flags = r < 88 ? MAP_SHARED : r < 94 ? MAP_PRIVATE :
		MAP_SHARED | MAP_POPULATE;
	op_begin(O_MMAP, "mmap(fd %d sock %u ring %s size %llu, len %zu, prot %d, flags %#x, off %#llx)",
		 f->fd, s->id, ring_names[s->ring],
		 (unsigned long long)o.size, len, prot, flags,
		 (unsigned long long)off);
	x_init(&x);
	if (!len)
		x_must(&x, EINVAL);
	if (off % pg)
		x_must(&x, EINVAL);
	if (off) {
		x_must(&x, EINVAL);
		if (off > ((off_t)1 << 50))
			x_must(&x, EOVERFLOW);
	}
	if (((len + pg - 1) & ~(size_t)(pg - 1)) != o.size)
		x_must(&x, EINVAL);
	if (!(flags & MAP_SHARED))
		x_must(&x, EINVAL);
	x_may(&x, ENOMEM);
	p = mmap(NULL, len, prot, flags, f->fd, off);
	if (!check(p == MAP_FAILED ? -1 : 0, errno, &x))
		return;
	if (p == MAP_FAILED) {
		if (errno == ENOMEM && s->ring == RING_NO)
			ring_set(s, RING_MAYBE);
		return;
	}
	ring_set(s, RING_YES);
	npg = o.size / pg;
	pthread_rwlock_wrlock(&map_lock);
	maps[mi] = (struct mmapping){
		.live = true, .clean = s->clean, .sock = f->sock,
		.readable = prot & PROT_READ, .writable = prot & PROT_WRITE,
		.addr = p, .len = o.size, .npages = npg, .off = o,
	};
	maps[mi].present = malloc(npg);
	memset(maps[mi].present, 1, npg);
	pthread_rwlock_unlock(&map_lock);
	s->nmaps++;
}

static bool map_any(const struct mmapping *m)
{
	(void)m;
	return true;
}

static void op_munmap(void)
{
	int mi = pick_map(map_any), r;
	size_t a, b, i;
	struct mmapping *m;
	struct expect x;
	bool any = false;

	if (mi < 0)
		return;
	m = &maps[mi];
	if (chance(&R, 50)) {
		a = 0;
		b = m->npages;
	} else {
		a = below(&R, m->npages);
		b = a + 1 + below(&R, m->npages - a);
	}
	op_begin(O_MUNMAP, "munmap(map %d sock %u, pages %zu..%zu of %zu)", mi,
		 socks[m->sock].id, a, b, m->npages);
	x_init(&x);
	/*
	 * Only the pages still mapped: the address space of the others may
	 * belong to a newer mapping by now.
	 */
	pthread_rwlock_wrlock(&map_lock);
	for (r = 0, i = a; i < b && !r; i++) {
		size_t j = i;

		if (!m->present[i])
			continue;
		while (j < b && m->present[j])
			j++;
		r = munmap(m->addr + i * pg, (j - i) * pg);
		if (!r)
			memset(m->present + i, 0, j - i);
		i = j;
	}
	pthread_rwlock_unlock(&map_lock);
	if (!check(r, errno, &x))
		return;
	for (i = 0; i < m->npages; i++)
		any |= m->present[i];
	if (!any)
		map_forget(mi);
}

static bool map_whole(const struct mmapping *m)
{
	return memchr(m->present, 0, m->npages) == NULL;
}

static void op_mremap(void)
{
	int mi = pick_map(map_whole), kind = below(&R, 3);
	struct mmapping *m;
	struct expect x;
	size_t nlen;
	void *p, *target = NULL;

	if (mi < 0)
		return;
	m = &maps[mi];
	x_init(&x);
	pthread_rwlock_wrlock(&map_lock);
	if (kind == 0) {
		int fl = chance(&R, 50) ? MREMAP_MAYMOVE : 0;

		nlen = m->len + pg * (1 + below(&R, 4));
		op_begin(O_MREMAP, "mremap(map %d sock %u, %zu -> %zu, %#x) grow",
			 mi, socks[m->sock].id, m->len, nlen, fl);
		/* A ring mapping never grows past the ring. */
		x_must(&x, EFAULT);
		x_must(&x, ENOMEM);
		x_must(&x, EINVAL);
		p = mremap(m->addr, m->len, nlen, fl);
		check(p == MAP_FAILED ? -1 : 0, errno, &x);
	} else if (kind == 1 && m->npages > 1) {
		nlen = (1 + below(&R, m->npages - 1)) * pg;
		op_begin(O_MREMAP, "mremap(map %d sock %u, %zu -> %zu) shrink",
			 mi, socks[m->sock].id, m->len, nlen);
		x_may(&x, ENOMEM);
		p = mremap(m->addr, m->len, nlen, 0);
		if (check(p == MAP_FAILED ? -1 : 0, errno, &x) &&
		    p != MAP_FAILED) {
			if (p != m->addr)
				failf("%s: moved to %p from %p without MAYMOVE",
				      opdesc, p, m->addr);
			memset(m->present + nlen / pg, 0,
			       m->npages - nlen / pg);
		}
	} else {
		target = mmap(NULL, m->len, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		op_begin(O_MREMAP, "mremap(map %d sock %u, %zu, MAYMOVE|FIXED to %p) move",
			 mi, socks[m->sock].id, m->len, target);
		x_may(&x, ENOMEM);
		x_may(&x, EINVAL);
		x_may(&x, EFAULT);
		p = target == MAP_FAILED ? MAP_FAILED :
		    mremap(m->addr, m->len, m->len,
			   MREMAP_MAYMOVE | MREMAP_FIXED, target);
		if (check(p == MAP_FAILED ? -1 : 0, errno, &x) &&
		    p != MAP_FAILED) {
			if (p != target)
				failf("%s: landed at %p", opdesc, p);
			m->addr = p;
		} else if (target != MAP_FAILED) {
			munmap(target, m->len);
		}
	}
	pthread_rwlock_unlock(&map_lock);
}

/* A writable, whole-enough mapping of a clean socket with a ring. */
static int clean_map_of(int si, bool need_write)
{
	int i;

	for (i = 0; i < MAX_MAPS; i++) {
		const struct mmapping *m = &maps[i];

		if (m->live && m->sock == si && m->readable &&
		    (!need_write || m->writable) &&
		    page_ok(m, m->off.producer, 4) &&
		    page_ok(m, m->off.consumer, 4) &&
		    page_ok(m, m->off.flags, 4))
			return i;
	}
	return -1;
}

static void op_poll(void)
{
	struct pollfd pfd[8];
	int fi[8], n = 1 + below(&R, 6), i, r, mi[8];
	uint32_t before[8];
	struct expect x;

	for (i = 0; i < n; i++) {
		fi[i] = pick_fd();
		mi[i] = -1;
		if (fi[i] < 0 || chance(&R, 5)) {
			fi[i] = -1;
			pfd[i].fd = 900 + below(&R, 50);	/* never open */
		} else {
			pfd[i].fd = fds[fi[i]].fd;
			if (socks[fds[fi[i]].sock].clean)
				mi[i] = clean_map_of(fds[fi[i]].sock, false);
		}
		pfd[i].events = POLLIN | POLLRDNORM | (chance(&R, 30) ? POLLOUT : 0) |
				(chance(&R, 20) ? POLLPRI | POLLRDHUP : 0);
		pfd[i].revents = 0;
	}
	op_begin(O_POLL, "poll(%d fds, 0)", n);
	for (i = 0; i < n; i++)
		if (mi[i] >= 0)
			before[i] = load_acq(&maps[mi[i]], maps[mi[i]].off.producer);
	x_init(&x);
	x_may(&x, ENOMEM);
	r = poll(pfd, n, 0);
	if (!check(r, errno, &x) || r < 0)
		return;
	for (i = 0; i < n; i++) {
		short rv = pfd[i].revents;
		struct msock *s;

		if (fi[i] < 0) {
			if (rv != POLLNVAL)
				failf("%s: fd %d never opened: revents %#x",
				      opdesc, pfd[i].fd, rv);
			continue;
		}
		s = &socks[fds[fi[i]].sock];
		/* No device goes away here: no POLLERR, no POLLHUP. */
		if ((rv & ~(POLLIN | POLLRDNORM)) ||
		    !(rv & POLLIN) != !(rv & POLLRDNORM) ||
		    (s->ring == RING_NO && rv)) {
			failf("%s: fd %d sock %u ring %s: revents %#x", opdesc,
			      pfd[i].fd, s->id, ring_names[s->ring], rv);
			return;
		}
		if (mi[i] < 0)
			continue;
		/*
		 * The producer only grows: readable before poll means POLLIN,
		 * POLLIN means readable after it.
		 */
		if (before[i] != s->cons && !(rv & POLLIN))
			failf("%s: sock %u: producer %u, consumer %u, no POLLIN",
			      opdesc, s->id, before[i], s->cons);
		if ((rv & POLLIN) &&
		    load_acq(&maps[mi[i]], maps[mi[i]].off.producer) == s->cons)
			failf("%s: sock %u: POLLIN on an empty ring (index %u)",
			      opdesc, s->id, s->cons);
	}
}

static void op_epoll(void)
{
	struct epoll_event ev[16];
	struct expect x;
	int fi, r, i;

	if (chance(&R, 40) && (fi = pick_fd()) >= 0) {
		struct mfd *f = &fds[fi];
		struct msock *s = &socks[f->sock];
		struct epkey *k = epkey_find(s->id, f->fd);
		struct epoll_event e = { .events = EPOLLIN,
			.data.u64 = (uint64_t)s->id << 32 | (uint32_t)f->fd };
		int what = below(&R, 3);

		if (what == 0) {
			ep_register(fi);
			return;
		}
		op_begin(O_EPOLL, "epoll_ctl(%s, fd %d sock %u)",
			 what == 1 ? "MOD" : "DEL", f->fd, s->id);
		x_init(&x);
		if (!k)
			x_must(&x, ENOENT);
		r = epoll_ctl(epfd, what == 1 ? EPOLL_CTL_MOD : EPOLL_CTL_DEL,
			      f->fd, &e);
		if (check(r, errno, &x) && !r && what == 2)
			k->live = false;
		return;
	}
	op_begin(O_EPOLL, "epoll_wait(0)");
	x_init(&x);
	r = epoll_wait(epfd, ev, ARRAY_SIZE(ev), 0);
	if (!check(r, errno, &x))
		return;
	for (i = 0; i < r; i++) {
		unsigned int id = ev[i].data.u64 >> 32;
		int fd = (int)(uint32_t)ev[i].data.u64;

		if (ev[i].events & ~(EPOLLIN | EPOLLRDNORM)) {
			failf("%s: events %#x for sock %u", opdesc,
			      ev[i].events, id);
			return;
		}
		if (!epkey_find(id, fd)) {
			failf("%s: event for sock %u fd %d, which is not registered (or released)",
			      opdesc, id, fd);
			return;
		}
	}
}

static void op_close(void)
{
	int fi = pick_fd(), r, fd;
	struct expect x;

	x_init(&x);
	if (fi < 0 || chance(&R, 4)) {
		fd = 900 + below(&R, 50);
		op_begin(O_CLOSE, "close(%d) never opened", fd);
		x_must(&x, EBADF);
		r = close(fd);
		check(r, errno, &x);
		return;
	}
	op_begin(O_CLOSE, "close(fd %d sock %u, %d fds %d maps)", fds[fi].fd,
		 socks[fds[fi].sock].id, socks[fds[fi].sock].nfds,
		 socks[fds[fi].sock].nmaps);
	r = close(fds[fi].fd);
	if (check(r, errno, &x))
		fd_forget(fi);
}

static void op_dup(void)
{
	int fi = pick_fd(), fd, ni;
	struct expect x;

	if (fi < 0 || live_fds() >= MAX_FDS)
		return;
	op_begin(O_DUP, "dup(fd %d sock %u)", fds[fi].fd,
		 socks[fds[fi].sock].id);
	x_init(&x);
	x_may(&x, EMFILE);
	fd = chance(&R, 50) ? dup(fds[fi].fd) :
	     fcntl(fds[fi].fd, F_DUPFD_CLOEXEC, 3 + below(&R, 100));
	if (!check(fd, errno, &x) || fd < 0)
		return;
	ni = fd_add(fd, fds[fi].sock);
	if (ni < 0) {
		close(fd);
		return;
	}
	if (chance(&R, 30))
		ep_register(ni);
}

/*
 * The child shares the mappings: it reads them, stores junk into the
 * dirty ones, polls and closes its copies of the descriptors.  It runs
 * only async-signal-safe code (the parent is multithreaded).
 */
static void child_touch(uint64_t cseed)
{
	struct rng r = { cseed };
	volatile uint8_t sink = 0;
	int i;

	signal(SIGALRM, SIG_DFL);
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	alarm(10);
	for (i = 0; i < MAX_MAPS; i++) {
		struct mmapping *m = &maps[i];
		size_t p;

		if (!m->live || !m->readable)
			continue;
		for (p = 0; p < m->npages; p += 1 + below(&r, 8))
			if (m->present[p])
				sink += m->addr[p * pg + below(&r, pg)];
		if (!m->clean && m->writable && page_ok(m, m->off.consumer, 4))
			__atomic_store_n((uint32_t *)(m->addr + m->off.consumer),
					 (uint32_t)rnd64(&r), __ATOMIC_RELEASE);
	}
	for (i = 0; i < MAX_FDS; i++) {
		struct pollfd pfd = { .fd = fds[i].fd, .events = POLLIN };

		if (!fds[i].live)
			continue;
		if (socks[fds[i].sock].clean)
			continue;	/* its poll would publish for the parent */
		poll(&pfd, 1, 0);
		if (chance(&r, 50))
			close(fds[i].fd);
	}
	(void)sink;
	_exit(0);
}

static void op_fork(void)
{
	uint64_t cseed = rnd64(&R);
	struct expect x;
	pid_t pid;
	int st;

	op_begin(O_FORK, "fork()");
	x_init(&x);
	x_may(&x, EAGAIN);
	x_may(&x, ENOMEM);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid)
		child_touch(cseed);
	if (!check(pid, errno, &x) || pid < 0)
		return;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			failf("%s: waitpid: %s", opdesc, errname(errno));
			return;
		}
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		failf("%s: child %s %d touching the mappings", opdesc,
		      WIFEXITED(st) ? "exited" : "killed by signal",
		      WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

static uint32_t tx_seq;

static void send_udp(struct rng *r, int fd4, int fd6, uint32_t seq)
{
	static __thread uint8_t buf[65536];
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	uint16_t port = PBASE + below(r, NPORTS);
	uint32_t len = below(r, 100) < 90 ? below(r, 1500) :
		       below(r, 100) < 80 ? 2000 + below(r, 7000) :
		       60000 + below(r, 5000);
	bool v6 = fd6 >= 0 && chance(r, 30);

	payload_fill(buf, len, seq);
	if (v6) {
		a6.sin6_port = htons(port);
		a6.sin6_addr = in6addr_loopback;
		sendto(fd6, buf, len, MSG_DONTWAIT, (struct sockaddr *)&a6,
		       sizeof(a6));
	} else {
		a4.sin_port = htons(port);
		a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sendto(fd4, buf, len, MSG_DONTWAIT, (struct sockaddr *)&a4,
		       sizeof(a4));
	}
}

static void op_send(void)
{
	op_begin(O_SEND, "sendto(udp, lo)");
	send_udp(&R, udp4, udp6, tx_seq++);
	op_note("sent");
	ops[O_SEND].ok++;
}

/*
 * Raw IPv4 and IPv6 packets over lo that the receive hook must parse with
 * care: IP options, fragments, truncated transport headers, extension
 * headers, odd protocols.  Their results are the IP stack's business.
 */
static void op_raw(void)
{
	static const uint8_t protos[] = { IPPROTO_UDP, IPPROTO_UDP, IPPROTO_TCP,
		IPPROTO_UDPLITE, IPPROTO_SCTP, IPPROTO_DCCP, IPPROTO_ICMP, 0, 253 };
	uint8_t pkt[1600] = { 0 };
	uint32_t l4len, i;
	uint8_t proto = chance(&R, 90) ? PICK(&R, protos) : (uint8_t)rnd64(&R);
	uint16_t dport = htons(PBASE + below(&R, NPORTS));
	uint16_t sport = htons(1024 + below(&R, 60000));
	ssize_t r;

	l4len = below(&R, 100) < 70 ? 8 + below(&R, 200) : below(&R, 8);
	if (raw6 < 0 || chance(&R, 60)) {
		struct sockaddr_in a = { .sin_family = AF_INET,
			.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		uint32_t ihl = chance(&R, 75) ? 5 : 6 + below(&R, 10);
		uint8_t *ip = pkt, *l4 = pkt + ihl * 4;
		uint16_t frag = 0;

		if (chance(&R, 10))
			frag = 0x2000;			/* MF */
		else if (chance(&R, 10))
			frag = 1 + below(&R, 0x1fff);	/* offset */
		else if (chance(&R, 20))
			frag = 0x4000;			/* DF */
		ip[0] = 0x40 | ihl;
		ip[6] = frag >> 8;
		ip[7] = frag & 0xff;
		ip[8] = 64;
		ip[9] = proto;
		memcpy(ip + 12, &a.sin_addr, 4);
		memcpy(ip + 16, &a.sin_addr, 4);
		for (i = 20; i < ihl * 4; i++)
			ip[i] = chance(&R, 80) ? 1 : (uint8_t)rnd64(&R); /* NOP */
		memcpy(l4, &sport, 2);
		memcpy(l4 + 2, &dport, 2);
		if (l4len >= 8) {
			l4[4] = l4len >> 8;
			l4[5] = l4len & 0xff;
			payload_fill(l4 + 8, l4len - 8, tx_seq++);
		}
		op_begin(O_RAW, "raw4(ihl %u frag %#x proto %u l4 %u)", ihl,
			 frag, proto, l4len);
		r = sendto(raw4, pkt, ihl * 4 + l4len, MSG_DONTWAIT,
			   (struct sockaddr *)&a, sizeof(a));
	} else {
		struct sockaddr_in6 a = { .sin6_family = AF_INET6,
					  .sin6_addr = in6addr_loopback };
		uint8_t *ip = pkt, *h = pkt + 40, *l4;
		uint32_t ext = below(&R, 4), plen;
		uint16_t fo = 0;

		ip[0] = 0x60;
		ip[7] = 64;
		memcpy(ip + 8, &a.sin6_addr, 16);
		memcpy(ip + 24, &a.sin6_addr, 16);
		if (ext == 1) {			/* destination options, PadN */
			ip[6] = 60;
			h[0] = proto;
			h[2] = 1;
			h[3] = 4;
			l4 = h + 8;
		} else if (ext == 2) {		/* fragment header */
			fo = PICK(&R, ((const uint16_t[]){ 0, 1, 8, 9, 0x100 }));
			ip[6] = 44;
			h[0] = proto;
			h[2] = fo >> 8;
			h[3] = fo & 0xff;
			h[7] = 1;
			l4 = h + 8;
		} else {
			ip[6] = proto;
			l4 = h;
		}
		memcpy(l4, &sport, 2);
		memcpy(l4 + 2, &dport, 2);
		if (l4len >= 8) {
			l4[4] = l4len >> 8;
			l4[5] = l4len & 0xff;
			payload_fill(l4 + 8, l4len - 8, tx_seq++);
		}
		plen = (l4 - h) + l4len;
		ip[4] = plen >> 8;
		ip[5] = plen & 0xff;
		op_begin(O_RAW, "raw6(ext %u frag %#x proto %u l4 %u)", ext, fo,
			 proto, l4len);
		r = sendto(raw6, pkt, 40 + plen, MSG_DONTWAIT,
			   (struct sockaddr *)&a, sizeof(a));
	}
	op_note(r < 0 ? errname(errno) : "sent");
	ops[O_RAW].ok++;
}

static int inject_line(struct rng *r, char *line, size_t n, uint32_t seq,
		       bool *bogus)
{
	bool v6 = chance(r, 30);

	*bogus = chance(r, 8);
	if (*bogus) {
		static const char *const bad[] = { "count=1 len=4000",
			"count=1 batch=0", "count=1 batch=65", "frobnicate=1",
			"count=1 dport=70000", "count", "saddr=1.2.3" };

		return snprintf(line, n, "%s\n", PICK(r, bad));
	}
	return snprintf(line, n, "count=%u batch=%u len=%u seq=%u sport=%u dport=%u saddr=%s daddr=%s\n",
			1 + below(r, 12), 1 + below(r, 8), below(r, 1400), seq,
			1000 + below(r, 100), PBASE + below(r, NPORTS),
			v6 ? "2001:db8:100::2" : "198.51.100.2",
			v6 ? "2001:db8:100::1" : "198.51.100.1");
}

static void op_inject(void)
{
	char line[256];
	struct expect x;
	bool bogus;
	int n = inject_line(&R, line, sizeof(line), tx_seq, &bogus);
	ssize_t r;

	tx_seq += 16;
	line[n - 1] = 0;
	op_begin(O_INJECT, "inject \"%s\"", line);
	line[n - 1] = '\n';
	x_init(&x);
	if (bogus)
		x_must(&x, EINVAL);
	x_may(&x, ENOBUFS);	/* the pool ran dry: frames held in rings */
	r = write(injfd, line, n);
	check(r, errno, &x);
}

static bool map_clean_rw(const struct mmapping *m)
{
	return m->clean && m->writable && m->readable &&
	       page_ok(m, m->off.producer, 4) &&
	       page_ok(m, m->off.consumer, 4) && page_ok(m, m->off.flags, 4);
}

/* Read a clean ring as a correct consumer would, and check every packet. */
static void op_consume(void)
{
	int mi = pick_map(map_clean_rw), fd = -1, i;
	struct mmapping *m;
	struct msock *s;
	uint32_t prod, n, k, flags;

	if (mi < 0)
		return;
	m = &maps[mi];
	s = &socks[m->sock];
	/* Driver frames enter the ring at poll(), when there is an fd. */
	for (i = 0; i < MAX_FDS; i++)
		if (fds[i].live && fds[i].sock == m->sock)
			fd = fds[i].fd;
	op_begin(O_CONSUME, "consume(map %d sock %u fd %d flow %s)", mi, s->id,
		 fd, s->bound ? flow_str(&s->flow) : "(unbound)");
	if (fd >= 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		poll(&pfd, 1, 0);
	}
	prod = load_acq(m, m->off.producer);
	flags = load_acq(m, m->off.flags);
	n = prod - s->cons;
	if (n > m->off.entries) {
		failf("%s: producer %u is %u ahead of consumer %u, ring of %u",
		      opdesc, prod, n, s->cons, m->off.entries);
		return;
	}
	if (flags) {
		failf("%s: ring flags %#x, no device went away", opdesc, flags);
		return;
	}
	if (n && !s->bound) {
		failf("%s: %u packets in the ring of an unbound socket",
		      opdesc, n);
		return;
	}
	if (chance(&R, 20))
		n = below(&R, n + 1);
	for (k = 0; k < n && !failed; k++)
		check_desc(m->sock, m, s->cons + k);
	s->cons += n;
	__atomic_store_n((uint32_t *)(m->addr + m->off.consumer), s->cons,
			 __ATOMIC_RELEASE);
	op_note("ok");
	ops[O_CONSUME].ok++;
}

static bool map_dirty_rw(const struct mmapping *m)
{
	return !m->clean && m->writable;
}

/* One junk store into a dirty ring; the caller holds map_lock. */
static void scribble_one(struct rng *r, struct mmapping *m)
{
	const struct vj_mmap_offsets *o = &m->off;
	uint64_t off;
	uint32_t v = (uint32_t)rnd64(r), prod;

	switch (below(r, 6)) {
	case 0:
	case 1:
		off = o->consumer;
		if (page_ok(m, o->producer, 4) && chance(r, 70)) {
			static const int32_t d[] = { 0, 1, -1, 2, 7, 8, 9,
						     255, 256, 257, -256 };

			prod = __atomic_load_n((uint32_t *)(m->addr + o->producer),
					       __ATOMIC_ACQUIRE);
			v = prod + (chance(r, 50) ? PICK(r, d) :
				    (int32_t)o->entries * PICK(r, d));
		}
		break;
	case 2:
		off = chance(r, 50) ? o->producer : o->flags;
		break;
	case 3:
		off = o->desc + 4 * below(r, o->entries * sizeof(struct vj_desc) / 4);
		break;
	default:
		off = o->bufs + 4 * below(r, (o->size - o->bufs) / 4);
		break;
	}
	if (page_ok(m, off, 4))
		__atomic_store_n((uint32_t *)(m->addr + off), v,
				 __ATOMIC_RELEASE);
}

static void op_scribble(void)
{
	int mi = pick_map(map_dirty_rw), n = 1 + below(&R, 8);

	if (mi < 0)
		return;
	op_begin(O_SCRIBBLE, "scribble(map %d sock %u, %d stores)", mi,
		 socks[maps[mi].sock].id, n);
	pthread_rwlock_rdlock(&map_lock);
	while (n--)
		scribble_one(&R, &maps[mi]);
	pthread_rwlock_unlock(&map_lock);
	op_note("ok");
	ops[O_SCRIBBLE].ok++;
}

/* The calls vjchan(7) says a channel refuses with EOPNOTSUPP. */
static void op_refused(void)
{
	int fi = pick_fd(), what = below(&R, 12), fd, r, sv[2];
	struct sockaddr_vj sa = { .svj_family = AF_VJCHAN };
	uint8_t buf[64] = { 0 };
	socklen_t l = sizeof(buf);
	struct msghdr mh = { 0 };
	struct iovec iov = { buf, sizeof(buf) };
	struct expect x;
	static const char *const names[] = { "connect", "listen", "accept",
		"sendto", "recvfrom", "shutdown", "getpeername", "read", "write",
		"sendmsg", "recvmsg", "socketpair" };

	if (fi < 0)
		return;
	fd = fds[fi].fd;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	op_begin(O_REFUSED, "%s(fd %d sock %u)", names[what], fd,
		 socks[fds[fi].sock].id);
	x_init(&x);
	x_must(&x, EOPNOTSUPP);
	switch (what) {
	case 0: r = connect(fd, (struct sockaddr *)&sa, sizeof(sa)); break;
	case 1: r = listen(fd, 4); break;
	case 2: r = accept4(fd, NULL, NULL, SOCK_NONBLOCK); break;
	case 3: r = sendto(fd, buf, 16, MSG_DONTWAIT, NULL, 0); break;
	case 4: r = recvfrom(fd, buf, 16, MSG_DONTWAIT, NULL, NULL); break;
	case 5: r = shutdown(fd, SHUT_RDWR); break;
	case 6: r = getpeername(fd, (struct sockaddr *)buf, &l); break;
	case 7: r = read(fd, buf, 16); break;
	case 8: r = write(fd, buf, 16); break;
	case 9: r = sendmsg(fd, &mh, MSG_DONTWAIT); break;
	case 10: r = recvmsg(fd, &mh, MSG_DONTWAIT); break;
	default:
		x_may(&x, EMFILE);
		r = socketpair(AF_VJCHAN, SOCK_DGRAM, 0, sv);
		if (!r) {
			close(sv[0]);
			close(sv[1]);
		}
		break;
	}
	check(r, errno, &x);
}

/* /proc/net/vjchan lists exactly the bound channels, with their geometry. */
static void op_proc(void)
{
	char line[512], fam[16];
	unsigned long ino;
	unsigned int entries, bsz;
	bool seen[MAX_SOCKS] = { false };
	int n = 0, want = 0, i;
	long long live;
	FILE *f;

	op_begin(O_PROC, "read /proc/net/vjchan");
	f = fopen("/proc/net/vjchan", "re");
	if (!f) {
		failf("%s: %s", opdesc, errname(errno));
		return;
	}
	if (!fgets(line, sizeof(line), f) || strncmp(line, "inode ", 6)) {
		failf("%s: no header line", opdesc);
		fclose(f);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char tok[10][64];

		n++;
		if (sscanf(line, "%lu %15s %63s %63s %63s %63s %63s %63s %u %u",
			   &ino, fam, tok[0], tok[1], tok[2], tok[3], tok[4],
			   tok[5], &entries, &bsz) != 10) {
			failf("%s: bad line \"%s\"", opdesc, line);
			break;
		}
		for (i = 0; i < MAX_SOCKS; i++)
			if (socks[i].live && socks[i].bound &&
			    socks[i].ino == ino)
				break;
		if (i == MAX_SOCKS) {
			failf("%s: inode %lu listed, no such bound socket",
			      opdesc, ino);
			break;
		}
		seen[i] = true;
		if (strcmp(fam, socks[i].flow.family == AF_INET ? "ipv4" : "ipv6") ||
		    entries != socks[i].req.entries ||
		    bsz != socks[i].req.buf_size) {
			failf("%s: sock %u listed as %s %u x %u, is %s %u x %u",
			      opdesc, socks[i].id, fam, entries, bsz,
			      flow_str(&socks[i].flow), socks[i].req.entries,
			      socks[i].req.buf_size);
			break;
		}
	}
	fclose(f);
	if (failed)
		return;
	for (i = 0; i < MAX_SOCKS; i++)
		if (socks[i].live && socks[i].bound) {
			want++;
			if (!seen[i]) {
				failf("%s: bound sock %u (inode %lu) not listed",
				      opdesc, socks[i].id, socks[i].ino);
				return;
			}
		}
	if (n != want) {
		failf("%s: %d lines, %d bound channels", opdesc, n, want);
		return;
	}
	live = pool_get("channels_live");
	if (live < live_socks()) {
		failf("%s: channels_live %lld, %d sockets open", opdesc, live,
		      live_socks());
		return;
	}
	op_note("ok");
	ops[O_PROC].ok++;
}

/* --- background threads --------------------------------------------- */

static void *scribbler(void *arg)
{
	struct rng r = { seed ^ (0x5c0ffee0ull + (uintptr_t)arg) };

	while (!atomic_load(&stop_threads)) {
		int idx[MAX_MAPS], n = 0, i, k;

		pthread_rwlock_rdlock(&map_lock);
		for (i = 0; i < MAX_MAPS; i++)
			if (maps[i].live && map_dirty_rw(&maps[i]))
				idx[n++] = i;
		if (n) {
			struct mmapping *m = &maps[idx[below(&r, n)]];

			for (k = 1 + below(&r, 16); k; k--)
				scribble_one(&r, m);
		}
		pthread_rwlock_unlock(&map_lock);
		usleep(n ? 50 + below(&r, 200) : 2000);
	}
	return NULL;
}

static void *sender(void *arg)
{
	struct rng r = { seed ^ 0x5e4d5e4dull };
	uint32_t seq = 1u << 31;

	(void)arg;
	while (!atomic_load(&stop_threads)) {
		send_udp(&r, thr_udp4, thr_udp6, seq++);
		usleep(100 + below(&r, 400));
	}
	return NULL;
}

static void *injector(void *arg)
{
	struct rng r = { seed ^ 0x1213c7ull };
	uint32_t seq = 3u << 30;
	char line[256];
	bool bogus;

	(void)arg;
	while (!atomic_load(&stop_threads)) {
		int n = inject_line(&r, line, sizeof(line), seq, &bogus);

		seq += 16;
		if (write(thr_injfd, line, n) < 0 && !bogus &&
		    errno != ENOBUFS) {
			fprintf(stderr, "fuzz: injector: \"%.*s\": %s\n", n - 1,
				line, errname(errno));
			break;
		}
		usleep(1000 + below(&r, 3000));
	}
	return NULL;
}

/* --- main ----------------------------------------------------------- */

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	char buf[1400];
	int n;

	(void)uc;
	if (sig == SIGALRM)
		n = snprintf(buf, sizeof(buf),
			     "FAIL FUZZ: seed %llu op %lu: watchdog: still in \"%s\"\n",
			     (unsigned long long)seed, opno, opdesc);
	else
		n = snprintf(buf, sizeof(buf),
			     "FAIL FUZZ: seed %llu op %lu: %s at %p during \"%s\"\n",
			     (unsigned long long)seed, opno, strsignal(sig),
			     si->si_addr, opdesc);
	if (write(1, buf, n) < 0)
		_exit(1);
	_exit(1);
}

static void setup_bufs(void)
{
	gbuf = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	zbuf = mmap(NULL, ZBUF_LEN + pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (gbuf == MAP_FAILED || zbuf == MAP_FAILED) {
		perror("fuzz: mmap");
		exit(2);
	}
	mprotect(gbuf + 2 * pg, pg, PROT_NONE);
	mprotect(zbuf + ZBUF_LEN, pg, PROT_NONE);
	guard_end = gbuf + 2 * pg;
}

static void setup_net(void)
{
	if_lo = if_nametoindex("lo");
	if_vjt = if_nametoindex("vjtest0");
	if_eth0 = if_nametoindex("eth0");
	if_eth1 = if_nametoindex("eth1");
	udp4 = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	udp6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	raw4 = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	raw6 = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	thr_udp4 = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	thr_udp6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (if_vjt) {
		injfd = open(INJECT_PATH, O_WRONLY | O_CLOEXEC);
		thr_injfd = open(INJECT_PATH, O_WRONLY | O_CLOEXEC);
	}
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (udp4 < 0 || raw4 < 0 || epfd < 0) {
		perror("fuzz: sockets");
		exit(2);
	}
}

static bool settled(int ms, char *why, size_t n)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000;
	long long live, fr, bufs, pinned;
	int lines;

	for (;;) {
		char line[512];
		FILE *f = fopen("/proc/net/vjchan", "re");

		lines = -1;
		if (f) {
			while (fgets(line, sizeof(line), f))
				lines++;
			fclose(f);
		}
		live = pool_get("channels_live");
		fr = pool_get("pool_free");
		bufs = pool_get("pool_buffers");
		pinned = pool_get("bytes_pinned");
		if (!live && fr == bufs && !pinned && !lines)
			return true;
		if (now_ns() > end)
			break;
		usleep(20000);
	}
	snprintf(why, n, "channels_live %lld, pool_free %lld of %lld, bytes_pinned %lld, %d channels listed",
		 live, fr, bufs, pinned, lines);
	return false;
}

static int choose_op(void)
{
	static const struct { int op, w; } wt[] = {
		{ O_SOCKET, 55 }, { O_SOCKET_BAD, 12 }, { O_SETSOCKOPT, 90 },
		{ O_GETSOCKOPT, 80 }, { O_SOLSOCKET, 15 }, { O_BIND, 110 },
		{ O_GETSOCKNAME, 25 }, { O_MMAP, 80 }, { O_MUNMAP, 35 },
		{ O_MREMAP, 15 }, { O_POLL, 50 }, { O_EPOLL, 40 },
		{ O_CLOSE, 70 }, { O_DUP, 20 }, { O_FORK, 4 }, { O_SEND, 60 },
		{ O_RAW, 30 }, { O_INJECT, 30 }, { O_CONSUME, 90 },
		{ O_SCRIBBLE, 25 }, { O_REFUSED, 20 }, { O_PROC, 10 },
	};
	int total = 0, r, i;

	for (i = 0; i < (int)ARRAY_SIZE(wt); i++)
		total += wt[i].w;
	r = below(&R, total);
	for (i = 0; i < (int)ARRAY_SIZE(wt); i++) {
		if (r < wt[i].w)
			return wt[i].op;
		r -= wt[i].w;
	}
	return O_SOCKET;
}

static void run_op(int op)
{
	static const bool needs_fd[O_NR] = {
		[O_SETSOCKOPT] = true, [O_GETSOCKOPT] = true,
		[O_SOLSOCKET] = true, [O_BIND] = true, [O_GETSOCKNAME] = true,
		[O_MMAP] = true, [O_DUP] = true, [O_REFUSED] = true,
	};
	bool full = live_socks() >= MAX_SOCKS - 1 || live_fds() >= MAX_FDS - 4;
	bool mapped = pick_map(map_any) >= 0;

	/*
	 * Make progress from the state the model is in: no descriptor means
	 * a new socket, no room means closing or unmapping (a socket held
	 * only by a mapping goes when that does).
	 */
	if (needs_fd[op] && !live_fds())
		op = O_SOCKET;
	if (full && (op == O_SOCKET || op == O_DUP))
		op = mapped && (!live_fds() || chance(&R, 50)) ? O_MUNMAP :
		     O_CLOSE;
	if (op == O_INJECT && injfd < 0)
		op = O_SEND;
	switch (op) {
	case O_SOCKET: op_socket(); break;
	case O_SOCKET_BAD: op_socket_bad(); break;
	case O_SETSOCKOPT: op_setsockopt(); break;
	case O_GETSOCKOPT: op_getsockopt(); break;
	case O_SOLSOCKET: op_solsocket(); break;
	case O_BIND: op_bind(); break;
	case O_GETSOCKNAME: op_getsockname(); break;
	case O_MMAP: op_mmap(); break;
	case O_MUNMAP: op_munmap(); break;
	case O_MREMAP: op_mremap(); break;
	case O_POLL: op_poll(); break;
	case O_EPOLL: op_epoll(); break;
	case O_CLOSE: op_close(); break;
	case O_DUP: op_dup(); break;
	case O_FORK: op_fork(); break;
	case O_SEND: op_send(); break;
	case O_RAW: op_raw(); break;
	case O_INJECT: op_inject(); break;
	case O_CONSUME: op_consume(); break;
	case O_SCRIBBLE: op_scribble(); break;
	case O_REFUSED: op_refused(); break;
	case O_PROC: op_proc(); break;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: fuzz [-s SEED] [-t SECONDS] [-j THREADS] [-n OPS] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = on_fatal,
				.sa_flags = SA_SIGINFO };
	unsigned int secs = 20;
	unsigned long maxops = 0;
	bool have_seed = false;
	pthread_t th[16];
	int nth = 0, c, i;
	char why[256];
	uint64_t end;
	struct timespec ts;

	while ((c = getopt(argc, argv, "s:t:j:n:v")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); have_seed = true; break;
		case 't': secs = strtoul(optarg, NULL, 0); break;
		case 'j': nthreads = atoi(optarg); break;
		case 'n': maxops = strtoul(optarg, NULL, 0); break;
		case 'v': verbose = true; break;
		default: usage();
		}
	}
	if (nthreads < 0 || nthreads > 8 || !secs)
		usage();
	if (!have_seed) {
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = ((uint64_t)ts.tv_sec * NSEC + ts.tv_nsec) ^
		       ((uint64_t)getpid() << 32);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("fuzz: seed %llu\n", (unsigned long long)seed);
	R.s = seed;
	pg = sysconf(_SC_PAGESIZE);

	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* The whole run, cleanup and settling included, or the watchdog. */
	alarm(secs + 30);

	setup_bufs();
	setup_net();
	if (pool_get("channels_live") < 0) {
		printf("FAIL FUZZ: /proc/net/vjchan_pool missing (vjchan.ko not loaded?)\n");
		return 1;
	}
	if (!settled(5000, why, sizeof(why))) {
		printf("FAIL FUZZ: seed %llu: not settled before the start: %s\n",
		       (unsigned long long)seed, why);
		return 1;
	}
	if (injfd < 0)
		printf("fuzz: no %s: driver API not fuzzed\n", INJECT_PATH);
	t_start = now_ns();
	end = t_start + (uint64_t)secs * NSEC;

	for (i = 0; i < nthreads; i++)
		pthread_create(&th[nth++], NULL, scribbler,
			       (void *)(uintptr_t)i);
	if (nthreads) {
		pthread_create(&th[nth++], NULL, sender, NULL);
		if (thr_injfd >= 0)
			pthread_create(&th[nth++], NULL, injector, NULL);
	}

	while (!failed && now_ns() < end && (!maxops || opno < maxops)) {
		opno++;
		run_op(choose_op());
	}

	atomic_store(&stop_threads, 1);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	snprintf(opdesc, sizeof(opdesc), "cleanup");
	for (i = 0; i < MAX_FDS; i++)
		if (fds[i].live) {
			close(fds[i].fd);
			fd_forget(i);
		}
	for (i = 0; i < MAX_MAPS; i++)
		if (maps[i].live) {
			size_t p;

			for (p = 0; p < maps[i].npages; p++)
				if (maps[i].present[p])
					munmap(maps[i].addr + p * pg, pg);
			map_forget(i);
		}
	close(epfd);
	if (!settled(5000, why, sizeof(why)) && !failed) {
		snprintf(failmsg, sizeof(failmsg),
			 "seed %llu: after closing everything: %s",
			 (unsigned long long)seed, why);
		failed = true;
	}

	printf("fuzz: %lu ops in %.1f s with %d scribbler thread(s)%s; successes/calls:",
	       opno, (now_ns() - t_start) / 1e9, nthreads,
	       nthreads ? " plus a UDP sender and a driver injector (timing-dependent; -j 0 is reproducible)" :
	       " (reproducible)");
	for (i = 0; i < O_NR; i++)
		if (ops[i].n)
			printf(" %s %lu/%lu", ops[i].name, ops[i].ok, ops[i].n);
	printf("; %lu descriptors of clean rings checked, %lu packets classified\n",
	       descs_checked, descs_classified);
	if (failed) {
		fprintf(stderr, "fuzz: last operations:\n");
		for (i = 1; i <= HIST; i++) {
			const char *h = hist[(opno + i) % HIST];

			if (*h)
				fprintf(stderr, "  %s\n", h);
		}
		printf("FAIL FUZZ: %s\n", failmsg);
		return 1;
	}
	printf("ok FUZZ\n");
	return 0;
}
