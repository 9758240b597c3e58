// SPDX-License-Identifier: GPL-2.0
/*
 * Trust-boundary cases: what a hostile or careless local user must not be
 * able to do to others.  Channels that never poll cannot starve the global
 * pool; ring memory is charged to the memory cgroup; a mask list kept after
 * a failed allocation stays usable and is freed safely; IPv6 extension
 * headers are classified alike on the driver path and the hook.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip6.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static struct test_pkt pkt;

/* --- the global pool ------------------------------------------------- */

#define POOL_CHANS	4
#define POOL_FRAMES	300

/*
 * Four channels whose consumers never poll take driver frames: together
 * they hold at most a quarter of the pool (one namespace), each at most an
 * eighth; the refusals show in rx_ring_full and driver_capped; frames for
 * the stack (an unbound port, an ordinary UDP socket) still get through,
 * and every buffer comes back on close.
 */
static int t_pool_starvation(void)
{
	struct test_chan c[POOL_CHANS];
	long long pb, cap0, held = 0, refused = 0;
	uint32_t seq, want;
	int i, r, fd;

	vjt_ifindex();
	CHECK(pool_settled(3000), "pool_free %lld of %lld before the case",
	      pool_get("pool_free"), pool_get("pool_buffers"));
	pb = pool_get("pool_buffers");
	cap0 = pool_get("driver_capped");
	for (i = 0; i < POOL_CHANS; i++) {
		struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, VJT_LOCAL4,
					 tport(i), 0);

		chan_open(&c[i], &f, 512, 2048);
	}
	for (i = 0; i < POOL_CHANS; i++) {
		step("inject into channel %d", i);
		r = vjt_inject("count=%d saddr=%s daddr=%s sport=1000 dport=%u "
			       "len=64 batch=8", POOL_FRAMES, VJT_PEER4,
			       VJT_LOCAL4, tport(i));
		CHECK(!r, "inject into channel %d: %s (pool_free %lld)", i,
		      errname(-r), pool_get("pool_free"));
	}
	for (i = 0; i < POOL_CHANS; i++) {
		struct vj_statistics s = test_get_stats(c[i].fd);

		CHECK(s.rx_packets <= (uint64_t)pb / 8,
		      "channel %d holds %llu driver frames, over an eighth "
		      "of %lld", i, (unsigned long long)s.rx_packets, pb);
		CHECK(s.rx_packets + s.rx_ring_full == POOL_FRAMES,
		      "channel %d: rx_packets %llu + rx_ring_full %llu != %d",
		      i, (unsigned long long)s.rx_packets,
		      (unsigned long long)s.rx_ring_full, POOL_FRAMES);
		held += s.rx_packets;
		refused += s.rx_ring_full;
	}
	CHECK(held <= pb / 4, "the namespace's channels hold %lld buffers, "
	      "over a quarter of %lld", held, pb);
	CHECK(held > 0, "no channel got a driver frame");
	CHECK(pool_get("driver_capped") - cap0 == refused,
	      "driver_capped +%lld, want +%lld (the refusals)",
	      pool_get("driver_capped") - cap0, refused);
	CHECK(pool_get("pool_free") >= pb - pb / 4,
	      "pool_free %lld of %lld while the channels hold %lld",
	      pool_get("pool_free"), pb, held);

	/* The stack still gets its frames. */
	fd = udp_listen(VJT_LOCAL4, tport(10));
	step("inject to the stack");
	r = vjt_inject("count=64 saddr=%s daddr=%s sport=1000 dport=%u len=64 "
		       "batch=8 seq=0", VJT_PEER4, VJT_LOCAL4, tport(10));
	CHECK(!r, "inject for the stack: %s (pool_free %lld)", errname(-r),
	      pool_get("pool_free"));
	for (want = 0; want < 64; want++) {
		CHECK(udp_recv_seq(fd, 3000, &seq, NULL),
		      "frame %u for the stack did not reach the UDP socket",
		      want);
		CHECK(seq == want, "UDP socket got seq %u, want %u", seq,
		      want);
	}
	close(fd);

	/* A consumer that polls gets what its channel held. */
	for (i = 0; i < POOL_CHANS; i++) {
		uint64_t n = test_get_stats(c[i].fd).rx_packets, k;

		for (k = 0; k < n; k++)
			CHECK(chan_recv(&c[i], &pkt, 3000),
			      "channel %d: frame %llu of %llu lost", i,
			      (unsigned long long)k, (unsigned long long)n);
		chan_close(&c[i]);
	}
	CHECK(pool_settled(3000), "pool_free %lld of %lld after closing",
	      pool_get("pool_free"), pool_get("pool_buffers"));
	return 0;
}

/* --- the memory cgroup ----------------------------------------------- */

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_MAX		(6ull << 20)
#define CG_ENTRIES	2048
#define CG_BUF		2048

static long long cg_read(const char *dir, const char *file)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "re");
	if (!f)
		fail("open %s: %s", path, errname(errno));
	if (fscanf(f, "%lld", &v) != 1)
		fail("%s: no number", path);
	fclose(f);
	return v;
}

static void cg_write(const char *dir, const char *file, const char *val)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fail("open %s: %s", path, errname(errno));
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		fail("write \"%s\" to %s: %s", val, path, errname(errno));
	close(fd);
}

static void memcg_child(void *arg)
{
	const char *dir = arg;
	struct vj_flow f1 = flow4(IPPROTO_UDP, NULL, 0, VJT_LOCAL4, tport(0),
				  0);
	struct vj_flow f2 = flow4(IPPROTO_UDP, NULL, 0, VJT_LOCAL4, tport(1),
				  0);
	unsigned long long ring = (unsigned long long)CG_ENTRIES * CG_BUF;
	long long c0, c1;
	char pid[32];
	int fd1, fd2;

	snprintf(pid, sizeof(pid), "%d", getpid());
	cg_write(dir, "cgroup.procs", pid);
	fd1 = test_socket();
	fd2 = test_socket();
	EXPECT_OK(test_set_ring(fd1, CG_ENTRIES, CG_BUF), "VJ_RING");
	EXPECT_OK(test_set_ring(fd2, CG_ENTRIES, CG_BUF), "VJ_RING");
	c0 = cg_read(dir, "memory.current");
	EXPECT_OK(test_bind(fd1, &f1), "bind of a %llu KiB ring in a %llu KiB "
		  "cgroup", ring >> 10, CG_MAX >> 10);
	c1 = cg_read(dir, "memory.current");
	CHECK(c1 - c0 >= (long long)ring &&
	      c1 - c0 <= (long long)(ring + (1u << 20)),
	      "memory.current grew by %lld KiB for a %llu KiB ring",
	      (c1 - c0) >> 10, ring >> 10);
	EXPECT_ERR(test_bind(fd2, &f2), ENOMEM,
		   "a second %llu KiB ring past memory.max %llu KiB",
		   ring >> 10, CG_MAX >> 10);
	CHECK(cg_read(dir, "memory.current") <= (long long)CG_MAX,
	      "memory.current %lld over memory.max",
	      cg_read(dir, "memory.current"));
	close(fd2);
	close(fd1);
}

/*
 * Ring memory is charged to the memory cgroup of the task that creates the
 * ring: memory.current grows by about the ring's size, and a ring past
 * memory.max is refused with ENOMEM (bind here; mmap alike).
 */
static int t_memcg_charge(void)
{
	char dir[128], ctl[256];
	FILE *f;
	int i;

	if (access(CG_ROOT "/cgroup.controllers", R_OK)) {
		mkdir(CG_ROOT, 0755);
		if (mount("none", CG_ROOT, "cgroup2", 0, NULL))
			skip("cannot mount cgroup2: %s", errname(errno));
	}
	f = fopen(CG_ROOT "/cgroup.controllers", "re");
	if (!f || !fgets(ctl, sizeof(ctl), f) || !strstr(ctl, "memory"))
		skip("no memory controller in cgroup v2 (CONFIG_MEMCG)");
	fclose(f);
	cg_write(CG_ROOT, "cgroup.subtree_control", "+memory");
	snprintf(dir, sizeof(dir), CG_ROOT "/vjchan-test-%d", getpid());
	if (mkdir(dir, 0755))
		fail("mkdir %s: %s", dir, errname(errno));
	snprintf(ctl, sizeof(ctl), "%llu", CG_MAX);
	cg_write(dir, "memory.max", ctl);
	/* Without swap (CONFIG_SWAP) there is no memory.swap.max to set. */
	snprintf(ctl, sizeof(ctl), "%s/memory.swap.max", dir);
	if (!access(ctl, F_OK))
		cg_write(dir, "memory.swap.max", "0");
	in_child(memcg_child, dir);
	for (i = 0; i < 100 && rmdir(dir); i++)
		msleep(20);
	return 0;
}

/* --- a mask list kept for want of memory ----------------------------- */

#define FAILSLAB	"/sys/kernel/debug/failslab"

static void failslab_set(const char *file, const char *val)
{
	cg_write(FAILSLAB, file, val);
}

static void masks_child(void *arg)
{
	struct vj_flow fa = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	struct vj_flow fb = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1", tport(1),
				  0);
	struct vj_flow fc = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(2), 0);
	struct test_chan a, b, cc;
	uint32_t seq;
	int mif, wit;

	(void)arg;
	netns_new();
	chan_open(&a, &fa, 16, 2048);
	chan_open(&b, &fb, 16, 2048);
	mif = open("/proc/self/make-it-fail", O_WRONLY | O_CLOEXEC);
	if (mif < 0)
		fail("open make-it-fail: %s", errname(errno));
	/*
	 * The last channel of its mask: the smaller list cannot be had.  The
	 * ring is unmapped first, outside the window: munmap() allocates
	 * (maple tree nodes) and would take the one injected failure.
	 */
	chan_unmap(&a);
	if (write(mif, "1", 1) != 1)
		fail("make-it-fail: %s", errname(errno));
	chan_close(&a);
	if (write(mif, "0", 1) != 1)
		fail("make-it-fail: %s", errname(errno));
	close(mif);

	/* The kept list still classifies correctly. */
	wit = udp_listen("127.0.0.1", tport(0));
	udp_send("127.0.0.1", 0, "127.0.0.1", tport(0), 7, 64);
	CHECK(udp_recv_seq(wit, 2000, &seq, NULL) && seq == 7,
	      "a closed channel's flow did not reach the stack");
	close(wit);
	udp_send("127.0.0.1", 0, "127.0.0.1", tport(1), 8, 64);
	CHECK(chan_recv(&b, &pkt, 2000), "the other channel got nothing");
	chan_open(&cc, &fc, 16, 2048);
	udp_send("127.0.0.1", 0, "127.0.0.1", tport(2), 9, 64);
	CHECK(chan_recv(&cc, &pkt, 2000),
	      "a new channel of the dropped mask got nothing");
	chan_close(&cc);
	chan_close(&b);
	/* Exiting frees the namespace and whatever list it still has. */
}

/*
 * Closing the last channel of a mask while no memory can be had for the
 * smaller mask list (failslab, one failure, this task only): the close
 * succeeds, masks_nomem counts it, the kept list still classifies right,
 * and the namespace is freed with it (KASAN watches on the debug kernel).
 */
static int t_masks_nomem(void)
{
	long long n0;

	if (access(FAILSLAB "/probability", W_OK))
		skip("no " FAILSLAB " (CONFIG_FAILSLAB, "
		     "CONFIG_FAULT_INJECTION_DEBUG_FS)");
	n0 = pool_get("masks_nomem");
	failslab_set("task-filter", "Y");
	failslab_set("ignore-gfp-wait", "N");
	failslab_set("verbose", "0");
	failslab_set("interval", "1");
	failslab_set("space", "0");
	failslab_set("times", "1");
	failslab_set("probability", "100");
	in_child(masks_child, NULL);
	failslab_set("probability", "0");
	CHECK(pool_get("masks_nomem") - n0 == 1,
	      "masks_nomem +%lld, want +1: the injected failure missed",
	      pool_get("masks_nomem") - n0);
	WAIT_FOR(pool_get("channels_live") == 0, 3000);
	return 0;
}

/* --- IPv6 extension headers ------------------------------------------ */

static const uint8_t exthdrs[] = { 0, 51, 60 };	/* hop-by-hop, AH, dst */

static unsigned int exthdr_len(uint8_t type)
{
	return type == 51 ? 24 : 8;
}

/* p is a packet of the channel: IPv6 + one extension header + UDP. */
static void expect_ext(const struct test_pkt *p, uint8_t type, uint16_t dport,
		       const char *what)
{
	const uint8_t *l3 = p->data + p->d.l3_off;
	const uint8_t *uh = l3 + 40 + exthdr_len(type);

	CHECK(p->d.len >= p->d.l3_off + 40u + exthdr_len(type) + 8,
	      "%s: %u bytes", what, p->d.len);
	CHECK((l3[0] >> 4) == 6 && l3[6] == type,
	      "%s: next header %u, want %u", what, l3[6], type);
	CHECK(l3[40] == IPPROTO_UDP,
	      "%s: extension header's next header %u", what, l3[40]);
	CHECK((uh[2] << 8 | uh[3]) == dport, "%s: dport %u", what,
	      uh[2] << 8 | uh[3]);
}

/*
 * IPv6 frames with a hop-by-hop, AH or destination options header, from
 * the driver API, reach the bypass channel of their inner UDP flow, as the
 * hook path delivers them (IPV6_EXTHDR_HOOK).
 */
static int t_ipv6_exthdr_driver(void)
{
	struct vj_flow f = flow6(IPPROTO_UDP, NULL, 0, VJT_LOCAL6, tport(0),
				 0);
	struct test_chan c;
	unsigned int i;
	char what[64];
	int r;

	vjt_ifindex();
	chan_open(&c, &f, 16, 2048);
	for (i = 0; i < sizeof(exthdrs); i++) {
		snprintf(what, sizeof(what), "driver frame, header %u",
			 exthdrs[i]);
		r = vjt_inject("count=1 saddr=%s daddr=%s sport=1000 dport=%u "
			       "len=64 exthdr=%u", VJT_PEER6, VJT_LOCAL6,
			       tport(0), exthdrs[i]);
		CHECK(!r, "inject %s: %s", what, errname(-r));
		CHECK(chan_recv(&c, &pkt, 2000),
		      "%s did not reach the channel", what);
		CHECK(pkt.d.flags & VJ_DESC_F_DRIVER, "%s: flags %#x", what,
		      pkt.d.flags);
		expect_ext(&pkt, exthdrs[i], tport(0), what);
	}
	chan_expect_empty(&c, "extra frames");
	chan_close(&c);
	CHECK(pool_settled(3000), "pool_free %lld of %lld after closing",
	      pool_get("pool_free"), pool_get("pool_buffers"));
	return 0;
}

/*
 * A UDP datagram to ::1 behind one extension header, whole IPv6 header
 * included, from an IPPROTO_RAW socket.
 */
static void send_ext_lo_left(uint8_t type, uint16_t dport, int rt_left);

static void send_ext_lo(uint8_t type, uint16_t dport)
{
	send_ext_lo_left(type, dport, -1);
}

/* As send_ext_lo(); a routing header (43) gets @rt_left segments left. */
static void send_ext_lo_left(uint8_t type, uint16_t dport, int rt_left)
{
	struct sockaddr_in6 dst = { .sin6_family = AF_INET6 };
	unsigned int el = exthdr_len(type);
	uint8_t buf[40 + 24 + 8 + 16], *x = buf + 40, *u;
	int fd;

	fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (fd < 0)
		fail("socket(SOCK_RAW, IPPROTO_RAW): %s", errname(errno));
	memset(buf, 0, sizeof(buf));
	inet_pton(AF_INET6, "::1", &dst.sin6_addr);
	buf[0] = 0x60;			/* version 6 */
	buf[5] = el + 8 + 16;		/* payload length */
	buf[6] = type;
	buf[7] = 64;			/* hop limit */
	memcpy(buf + 8, &dst.sin6_addr, 16);
	memcpy(buf + 24, &dst.sin6_addr, 16);
	x[0] = IPPROTO_UDP;
	if (type == 51) {
		x[1] = el / 4 - 2;
		x[7] = 1;		/* SPI */
		x[11] = 1;		/* sequence number */
	} else {
		x[1] = el / 8 - 1;
		x[2] = 1;		/* PadN */
		x[3] = el - 4;
	}
	if (type == 43) {
		x[2] = 4;		/* routing type: segment routing */
		x[3] = rt_left;		/* segments left */
	}
	u = x + el;
	u[0] = 0x03;			/* sport 1000 */
	u[1] = 0xe8;
	u[2] = dport >> 8;
	u[3] = dport & 0xff;
	u[5] = 8 + 16;			/* UDP length */
	{
		/* A correct checksum: IPv6 UDP without one is dropped. */
		uint8_t ph[40] = { 0 };
		uint16_t c;

		memcpy(ph, buf + 8, 32);	/* source and destination */
		ph[35] = 8 + 16;		/* upper-layer length */
		ph[39] = IPPROTO_UDP;
		c = csum_fold32(csum_add(csum_add(0, ph, sizeof(ph)), u, 8 + 16));
		if (!c)
			c = 0xffff;
		u[6] = c >> 8;
		u[7] = c & 0xff;
	}
	if (sendto(fd, buf, 40 + el + 8 + 16, 0, (struct sockaddr *)&dst,
		   sizeof(dst)) < 0)
		fail("sendto ::1 behind header %u: %s", type, errname(errno));
	close(fd);
}

/*
 * The same extension headers through lo and the pre-routing hook reach the
 * bypass channel of the inner UDP flow.
 */
static int t_ipv6_exthdr_hook(void)
{
	struct vj_flow f = flow6(IPPROTO_UDP, NULL, 0, "::1", tport(0), 0);
	struct test_chan c;
	unsigned int i;
	char what[64];

	chan_open(&c, &f, 16, 2048);
	for (i = 0; i < sizeof(exthdrs); i++) {
		snprintf(what, sizeof(what), "lo packet, header %u",
			 exthdrs[i]);
		send_ext_lo(exthdrs[i], tport(0));
		CHECK(chan_recv(&c, &pkt, 2000),
		      "%s did not reach the channel", what);
		expect_ext(&pkt, exthdrs[i], tport(0), what);
	}
	chan_expect_empty(&c, "extra packets");
	chan_close(&c);
	return 0;
}

/*
 * A routing header with segments left: this host is not the destination
 * yet, so the pre-routing hook must leave the packet to the stack (which
 * routes it on, or drops it) rather than feed the bypass channel of the
 * inner flow; with no segment left, the channel gets it.
 */
static int t_ipv6_rthdr_hook(void)
{
	struct vj_flow f = flow6(IPPROTO_UDP, NULL, 0, "::1", tport(0), 0);
	struct test_chan c;

	chan_open(&c, &f, 16, 2048);
	send_ext_lo_left(43, tport(0), 1);
	usleep(300 * 1000);
	chan_expect_empty(&c, "a packet with a segment left");
	send_ext_lo_left(43, tport(0), 0);
	CHECK(chan_recv(&c, &pkt, 2000),
	      "the packet with no segment left did not reach the channel");
	chan_close(&c);
	return 0;
}

const struct vj_case trust_cases[] = {
	VJ_CASE_T("POOL_STARVATION", t_pool_starvation, 60),
	VJ_CASE("MEMCG_CHARGE", t_memcg_charge),
	VJ_CASE("MASKS_NOMEM", t_masks_nomem),
	VJ_CASE("IPV6_EXTHDR_DRIVER", t_ipv6_exthdr_driver),
	VJ_CASE("IPV6_EXTHDR_HOOK", t_ipv6_exthdr_hook),
	VJ_CASE("IPV6_RTHDR_HOOK", t_ipv6_rthdr_hook),
	{ 0 }
};
