// SPDX-License-Identifier: GPL-2.0
/*
 * Driver API cases, driven through vjtest.ko: frames built in pool
 * buffers and handed to vj_netif_rx()/vj_netif_rx_batch() reach a bound
 * channel after poll(), or the stack when no channel claims them, and
 * every pool buffer comes back.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static struct test_pkt pkt;

static void vjt_mac(uint8_t mac[6])
{
	unsigned int m[6];
	FILE *f = fopen("/sys/class/net/vjtest0/address", "re");
	int i;

	if (!f || fscanf(f, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3],
			 &m[4], &m[5]) != 6)
		fail("cannot read the MAC of vjtest0");
	fclose(f);
	for (i = 0; i < 6; i++)
		mac[i] = m[i];
}

static void inject(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void inject(const char *fmt, ...)
{
	char line[400];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	r = vjt_inject("%s", line);
	if (r)
		fail("inject \"%s\": %s", line, errname(-r));
}

/*
 * Receives n driver frames with sequence numbers first.. in order, with
 * descriptor flags @flags.
 */
static void expect_frames_flags(struct test_chan *c, int vjt, int family,
				uint16_t dport, uint32_t first, int n,
				uint32_t len, uint64_t t0, uint32_t flags)
{
	uint16_t proto = family == AF_INET ? 0x0800 : 0x86dd;
	struct pkt_info pi;
	uint8_t mac[6];
	const char *why;
	uint32_t seq;
	int i;

	vjt_mac(mac);
	for (i = 0; i < n; i++) {
		step("driver frame %d of %d", i, n);
		CHECK(chan_recv(c, &pkt, 3000),
		      "driver frame %d of %d did not arrive after poll()", i, n);
		CHECK(pkt.d.flags == flags, "flags %#x, want %#x", pkt.d.flags,
		      flags);
		CHECK(pkt.d.ifindex == (uint32_t)vjt, "ifindex %u, want %d",
		      pkt.d.ifindex, vjt);
		CHECK(pkt.d.l3_off == 14, "l3_off %u", pkt.d.l3_off);
		CHECK(ntohs(pkt.d.proto) == proto, "proto %#x",
		      ntohs(pkt.d.proto));
		CHECK(pkt.d.len >= 14 && (pkt.data[12] << 8 | pkt.data[13]) ==
		      proto, "ethertype %#x", pkt.data[12] << 8 | pkt.data[13]);
		CHECK(!memcmp(pkt.data, mac, 6),
		      "destination MAC is not vjtest0's");
		CHECK(pkt.d.tstamp >= t0 && pkt.d.tstamp <= now_ns(),
		      "tstamp %llu not between inject and receive",
		      (unsigned long long)pkt.d.tstamp);
		pkt_expect_udp(&pkt, &pi, &seq);
		CHECK(seq == first + i, "frame %d has seq %u, want %u", i, seq,
		      first + i);
		CHECK(pi.udp_len == len && pi.dport == dport &&
		      pi.sport == 1000, "udp len %u dport %u sport %u",
		      pi.udp_len, pi.dport, pi.sport);
		why = pkt_check_csums(&pi, true);
		CHECK(!why, "frame %d: %s", i, why);
	}
}

static void expect_driver_frames(struct test_chan *c, int vjt, int family,
				 uint16_t dport, uint32_t first, int n,
				 uint32_t len, uint64_t t0)
{
	expect_frames_flags(c, vjt, family, dport, first, n, len, t0,
			    VJ_DESC_F_L2 | VJ_DESC_F_DRIVER);
}

/*
 * Frames injected through the driver API into a bound channel appear
 * after poll() with VJ_DESC_F_DRIVER, intact, counted in rx_driver and
 * in the pool's driver counters; batches of 8 too; IPv6 too.
 */
static int t_driver_api(void)
{
	int vjt = vjt_ifindex();
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, VJT_LOCAL4, tport(0),
				 0);
	struct vj_flow f6 = flow6(IPPROTO_UDP, NULL, 0, VJT_LOCAL6, tport(1),
				  0);
	long long rx0 = pool_get("driver_rx"), cl0 = pool_get("driver_claimed");
	struct vj_statistics s;
	struct test_chan c, c6;
	uint64_t t0;

	chan_open(&c, &f, 64, 2048);
	t0 = now_ns();
	inject("count=10 saddr=%s daddr=%s sport=1000 dport=%u len=64 "
	       "batch=1 seq=0", VJT_PEER4, VJT_LOCAL4, tport(0));
	expect_driver_frames(&c, vjt, AF_INET, tport(0), 0, 10, 64, t0);
	s = test_get_stats(c.fd);
	CHECK(s.rx_packets == 10 && s.rx_driver == 10 && !s.rx_ring_full,
	      "rx_packets %llu rx_driver %llu rx_ring_full %llu, want 10 10 0",
	      (unsigned long long)s.rx_packets,
	      (unsigned long long)s.rx_driver,
	      (unsigned long long)s.rx_ring_full);
	CHECK(pool_get("driver_rx") - rx0 == 10 &&
	      pool_get("driver_claimed") - cl0 == 10,
	      "pool driver_rx +%lld driver_claimed +%lld, want +10 +10",
	      pool_get("driver_rx") - rx0, pool_get("driver_claimed") - cl0);

	t0 = now_ns();
	inject("count=16 saddr=%s daddr=%s sport=1000 dport=%u len=200 "
	       "batch=8 seq=100", VJT_PEER4, VJT_LOCAL4, tport(0));
	expect_driver_frames(&c, vjt, AF_INET, tport(0), 100, 16, 200, t0);
	s = test_get_stats(c.fd);
	CHECK(s.rx_packets == 26 && s.rx_driver == 26,
	      "after the batch: rx_packets %llu rx_driver %llu, want 26",
	      (unsigned long long)s.rx_packets,
	      (unsigned long long)s.rx_driver);
	chan_expect_empty(&c, "extra frames");

	chan_open(&c6, &f6, 16, 2048);
	t0 = now_ns();
	inject("count=5 saddr=%s daddr=%s sport=1000 dport=%u len=100 "
	       "batch=1 seq=7", VJT_PEER6, VJT_LOCAL6, tport(1));
	expect_driver_frames(&c6, vjt, AF_INET6, tport(1), 7, 5, 100, t0);
	CHECK(test_get_stats(c6.fd).rx_driver == 5, "v6 rx_driver %llu",
	      (unsigned long long)test_get_stats(c6.fd).rx_driver);
	chan_close(&c);
	chan_close(&c6);
	CHECK(pool_settled(3000), "pool_free %lld of %lld after closing",
	      pool_get("pool_free"), pool_get("pool_buffers"));
	return 0;
}

/*
 * Driver frames into a full channel are dropped and counted: 20 into an
 * 8-entry ring nobody consumes give rx_packets 8, rx_ring_full 12 and
 * driver_dropped +12; after consuming, new frames fit again.
 */
static int t_driver_ring_full(void)
{
	int vjt = vjt_ifindex();
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, VJT_LOCAL4, tport(0),
				 0);
	long long dr0 = pool_get("driver_dropped");
	struct pollfd pfd = { .events = POLLIN };
	struct vj_statistics s;
	struct test_chan c;
	int i;

	chan_open(&c, &f, 8, 2048);
	pfd.fd = c.fd;
	inject("count=20 saddr=%s daddr=%s sport=1000 dport=%u len=64 seq=0",
	       VJT_PEER4, VJT_LOCAL4, tport(0));
	CHECK(WAIT_FOR((poll(&pfd, 1, 0), vj_stat_total(c.fd) == 20), 3000),
	      "only %llu of 20 frames accounted while polling",
	      (unsigned long long)vj_stat_total(c.fd));
	s = test_get_stats(c.fd);
	CHECK(s.rx_packets == 8 && s.rx_ring_full == 12 && s.rx_driver == 8,
	      "rx_packets %llu rx_ring_full %llu rx_driver %llu, want 8 12 8",
	      (unsigned long long)s.rx_packets,
	      (unsigned long long)s.rx_ring_full,
	      (unsigned long long)s.rx_driver);
	CHECK(pool_get("driver_dropped") - dr0 == 12,
	      "driver_dropped +%lld, want +12", pool_get("driver_dropped") - dr0);
	for (i = 0; i < 8; i++) {
		struct pkt_info pi;
		uint32_t seq;

		CHECK(chan_try(&c, &pkt), "frame %d vanished", i);
		pkt_expect_udp(&pkt, &pi, &seq);
		CHECK(seq == (uint32_t)i, "slot %d holds seq %u", i, seq);
	}
	inject("count=4 saddr=%s daddr=%s sport=1000 dport=%u len=64 seq=50",
	       VJT_PEER4, VJT_LOCAL4, tport(0));
	expect_driver_frames(&c, vjt, AF_INET, tport(0), 50, 4, 64, 0);
	chan_close(&c);
	CHECK(pool_settled(3000), "pool_free %lld of %lld after closing",
	      pool_get("pool_free"), pool_get("pool_buffers"));
	return 0;
}

static void default_path(const char *local, const char *peer,
			 uint16_t port)
{
	long long ts0 = pool_get("default_to_stack");
	long long dx0 = pool_get("default_rx");
	long long nm0 = pool_get("default_nomem");
	uint8_t seen[128] = { 0 };
	int w = udp_listen(local, port), i;
	uint32_t seq, len;

	inject("count=20 saddr=%s daddr=%s sport=1000 dport=%u len=80 "
	       "batch=1 seq=0", peer, local, port);
	inject("count=16 saddr=%s daddr=%s sport=1000 dport=%u len=80 "
	       "batch=8 seq=100", peer, local, port);
	for (i = 0; i < 36; i++) {
		CHECK(udp_recv_seq(w, 3000, &seq, &len),
		      "%s: %d of 36 frames reached the UDP socket", local, i);
		CHECK(len == 80 && ((seq < 20) || (seq >= 100 && seq < 116)),
		      "%s: got seq %u len %u", local, seq, len);
		CHECK(!seen[seq], "%s: seq %u delivered twice", local, seq);
		seen[seq] = 1;
	}
	CHECK(!udp_recv_seq(w, 200, &seq, &len), "%s: extra datagram %u",
	      local, seq);
	CHECK(pool_get("default_to_stack") - ts0 == 36,
	      "%s: default_to_stack +%lld, want +36", local,
	      pool_get("default_to_stack") - ts0);
	CHECK(pool_get("default_rx") - dx0 == 36,
	      "%s: default_rx +%lld, want +36", local,
	      pool_get("default_rx") - dx0);
	CHECK(pool_get("default_nomem") == nm0, "%s: default_nomem grew",
	      local);
	close(w);
}

/*
 * Injected frames no channel claims reach an ordinary UDP socket on
 * vjtest0's address: all of them, single and batched, counted in
 * default_rx and default_to_stack.
 */
static int t_driver_default_path(void)
{
	vjt_ifindex();
	default_path(VJT_LOCAL4, VJT_PEER4, tport(0));
	return 0;
}

/* The same for IPv6 (vjtest0 carries VJT_LOCAL6, configured nodad). */
static int t_driver_default_path6(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int s;

	vjt_ifindex();
	parse_addr(VJT_LOCAL6, 0, &ss, &len);
	s = socket(AF_INET6, SOCK_DGRAM, 0);
	if (bind(s, (struct sockaddr *)&ss, len))
		skip("%s not configured on vjtest0 (%s)", VJT_LOCAL6,
		     errname(errno));
	close(s);
	default_path(VJT_LOCAL6, VJT_PEER6, tport(0));
	return 0;
}

/*
 * Exhausting the pool is survivable: injecting more frames than the pool
 * has into a channel nobody polls either succeeds or fails with ENOBUFS;
 * polling and consuming accounts for every injected frame; closing the
 * channel returns every buffer; the default path works afterwards.
 */
static int t_driver_pool_exhaust(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, VJT_LOCAL4, tport(0),
				 0);
	struct pollfd pfd = { .events = POLLIN };
	long long nbuf, inj0, inj, empty0;
	uint64_t end;
	struct test_chan c;
	uint32_t seq;
	int r, w;

	vjt_ifindex();
	nbuf = pool_get("pool_buffers");
	CHECK(nbuf > 0, "pool_buffers %lld", nbuf);
	empty0 = pool_get("pool_empty");
	inj0 = vjt_stat("injected");
	chan_open(&c, &f, 8, 2048);
	pfd.fd = c.fd;
	step("injecting %lld frames", nbuf + 64);
	r = vjt_inject("count=%lld saddr=%s daddr=%s sport=1000 dport=%u "
		       "len=64 batch=8 seq=0", nbuf + 64, VJT_PEER4, VJT_LOCAL4,
		       tport(0));
	CHECK(!r || r == -ENOBUFS, "inject past the pool: %s", errname(-r));
	inj = vjt_stat("injected") - inj0;
	if (r == -ENOBUFS)
		CHECK(pool_get("pool_empty") > empty0,
		      "ENOBUFS but pool_empty did not grow");
	else
		CHECK(inj == nbuf + 64, "inject succeeded but injected +%lld",
		      inj);
	diag("POOL_EXHAUST: %lld buffers, injected %lld, inject %s", nbuf,
	     inj, r ? "ENOBUFS" : "ok");
	end = now_ns() + 10000000000ull;
	while (vj_stat_total(c.fd) < (uint64_t)inj && now_ns() < end) {
		poll(&pfd, 1, 50);
		while (chan_try(&c, &pkt))
			;
	}
	CHECK(vj_stat_total(c.fd) == (uint64_t)inj,
	      "injected %lld, channel accounted %llu", inj,
	      (unsigned long long)vj_stat_total(c.fd));
	chan_close(&c);
	CHECK(pool_settled(3000), "pool_free %lld of %lld after closing",
	      pool_get("pool_free"), pool_get("pool_buffers"));
	w = udp_listen(VJT_LOCAL4, tport(1));
	inject("count=1 saddr=%s daddr=%s sport=1000 dport=%u len=64 seq=9",
	       VJT_PEER4, VJT_LOCAL4, tport(1));
	CHECK(udp_recv_seq(w, 3000, &seq, NULL) && seq == 9,
	      "default path broken after exhausting the pool");
	close(w);
	return 0;
}

/*
 * Driver frames and hook packets share one FIFO: a lo datagram, a driver
 * frame, a lo datagram arrive in that order whatever is visible before
 * poll(), and all three after it; the consumer never sees a stale slot.
 */
static int t_driver_mixed_order(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	struct pollfd pfd = { .events = POLLIN };
	struct test_chan c;
	uint32_t i, prod;

	vjt_ifindex();
	chan_open(&c, &f, 16, 2048);
	pfd.fd = c.fd;
	udp_send(NULL, 0, "127.0.0.1", tport(0), 1, 64);
	CHECK(WAIT_FOR(chan_producer(&c) == 1, 3000), "lo datagram 1 missing");
	inject("count=1 saddr=%s daddr=%s sport=1000 dport=%u len=64 seq=2",
	       VJT_PEER4, VJT_LOCAL4, tport(0));
	udp_send(NULL, 0, "127.0.0.1", tport(0), 3, 64);
	CHECK(vj_wait_total(c.fd, 3, 3000), "only %llu of 3 accounted",
	      (unsigned long long)vj_stat_total(c.fd));
	msleep(50);
	prod = chan_producer(&c);
	CHECK(prod >= 1 && prod <= 3, "producer %u before poll", prod);
	for (i = 0; i < prod; i++) {
		struct pkt_info pi;
		uint32_t seq;

		chan_peek_at(&c, i, &pkt);
		pkt_expect_udp(&pkt, &pi, &seq);
		CHECK(seq == i + 1, "before poll: slot %u holds seq %u", i, seq);
	}
	poll(&pfd, 1, 1000);
	CHECK(chan_producer(&c) == 3, "producer %u after poll, want 3",
	      chan_producer(&c));
	for (i = 0; i < 3; i++) {
		struct pkt_info pi;
		uint32_t seq;

		CHECK(chan_try(&c, &pkt), "slot %u empty", i);
		pkt_expect_udp(&pkt, &pi, &seq);
		CHECK(seq == i + 1, "slot %u holds seq %u", i, seq);
		CHECK(!!(pkt.d.flags & VJ_DESC_F_DRIVER) == (i == 1),
		      "slot %u flags %#x", i, pkt.d.flags);
	}
	chan_close(&c);
	return 0;
}

/*
 * The smallest and largest frames vjtest can build, v4 and v6, arrive
 * whole in 64 KiB channel buffers and in 2 KiB ones.
 */
static int t_driver_edge_lengths(void)
{
	static const uint32_t lens[] = { 4, 1986 };
	int vjt = vjt_ifindex(), b, i;

	for (b = 0; b < 2; b++) {
		uint32_t bs = b ? VJ_BUF_MAX_SIZE : VJ_BUF_MIN_SIZE;
		struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, VJT_LOCAL4,
					 tport(0), 0);
		struct vj_flow f6 = flow6(IPPROTO_UDP, NULL, 0, VJT_LOCAL6,
					  tport(0), 0);
		struct test_chan c, c6;

		chan_open(&c, &f, 16, bs);
		chan_open(&c6, &f6, 16, bs);
		for (i = 0; i < 2; i++) {
			inject("count=1 saddr=%s daddr=%s sport=1000 dport=%u "
			       "len=%u seq=%d", VJT_PEER4, VJT_LOCAL4, tport(0),
			       lens[i], i);
			expect_driver_frames(&c, vjt, AF_INET, tport(0), i, 1,
					     lens[i], 0);
			inject("count=1 saddr=%s daddr=%s sport=1000 dport=%u "
			       "len=%u seq=%d", VJT_PEER6, VJT_LOCAL6, tport(0),
			       lens[i], i);
			expect_driver_frames(&c6, vjt, AF_INET6, tport(0), i, 1,
					     lens[i], 0);
		}
		chan_close(&c);
		chan_close(&c6);
	}
	return 0;
}

/* The most global buffers one channel may hold: pool_buffers / 8. */
static long long gbuf_cap(long long nbuf, uint32_t entries)
{
	long long cap = nbuf / 8;

	if (cap < 1)
		cap = 1;
	return cap < entries ? cap : entries;
}

/* Injects @n frames of sequence @seq0... for port @port. */
static int inject_n(long long n, uint16_t port, uint32_t seq0)
{
	return vjt_inject("count=%lld saddr=%s daddr=%s sport=1000 dport=%u "
			  "len=64 batch=1 seq=%u", n, VJT_PEER4, VJT_LOCAL4,
			  port, seq0);
}

/* Reads @n frames with sequence numbers @seq0... from @c. */
static int drain_seq(struct test_chan *c, long long n, uint32_t seq0)
{
	long long i;

	for (i = 0; i < n; i++) {
		struct pkt_info pi;
		uint32_t seq;

		CHECK(chan_recv(c, &pkt, 3000), "frame %lld of %lld missing",
		      i, n);
		pkt_expect_udp(&pkt, &pi, &seq);
		CHECK(seq == seq0 + i, "frame %lld has seq %u, not %llu", i,
		      seq, seq0 + i);
	}
	return 0;
}

#define CAP_CHANNELS	2

/*
 * The pool really has pool_buffers buffers, and gets every one back: two
 * channels, not polled, each absorb their share (a channel may hold at most
 * pool_buffers / 8), which takes exactly the quarter of the pool that one
 * namespace's channels may hold, so the next frame for a channel is
 * refused (rx_ring_full, driver_capped) while the pool keeps the rest;
 * poll() copies them out and returns the buffers; a second round absorbs
 * exactly as many.
 */
static int t_driver_pool_capacity(void)
{
	long long nbuf = pool_get("pool_buffers"), cap, capped0;
	uint32_t entries = VJ_RING_MIN_ENTRIES;
	struct test_chan c[CAP_CHANNELS];
	int round, j, r;

	vjt_ifindex();
	if (nbuf % 8 || nbuf / 8 > VJ_RING_MAX_ENTRIES)
		skip("pool_buffers %lld is not 8 rings' worth", nbuf);
	while (entries <= nbuf / 8)	/* room beyond the share */
		entries *= 2;
	cap = gbuf_cap(nbuf, entries);
	CHECK(pool_settled(3000), "pool_free %lld of %lld at the start",
	      pool_get("pool_free"), nbuf);
	for (j = 0; j < CAP_CHANNELS; j++) {
		struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, VJT_LOCAL4,
					 tport(j), 0);

		chan_open(&c[j], &f, entries, 2048);
	}
	for (round = 0; round < 2; round++) {
		step("round %d: absorbing", round);
		for (j = 0; j < CAP_CHANNELS; j++) {
			r = inject_n(cap, tport(j), round * 100000 + j * 10000);
			CHECK(!r, "round %d: channel %d: injecting %lld: %s",
			      round, j, cap, errname(-r));
		}
		CHECK(pool_get("pool_free") == nbuf - CAP_CHANNELS * cap,
		      "round %d: %lld frames held but pool_free %lld", round,
		      CAP_CHANNELS * cap, pool_get("pool_free"));
		capped0 = pool_get("driver_capped");
		r = inject_n(1, tport(0), 999999);
		CHECK(!r, "round %d: frame beyond the share: %s", round,
		      errname(-r));
		CHECK(pool_get("driver_capped") == capped0 + 1,
		      "round %d: frame beyond the share: driver_capped +%lld",
		      round, pool_get("driver_capped") - capped0);
		step("round %d: draining", round);
		for (j = 0; j < CAP_CHANNELS; j++)
			if (drain_seq(&c[j], cap, round * 100000 + j * 10000))
				return 1;
		CHECK(pool_settled(3000), "round %d: pool_free %lld of %lld "
		      "after draining", round, pool_get("pool_free"), nbuf);
	}
	for (j = 0; j < CAP_CHANNELS; j++)
		chan_close(&c[j]);
	return 0;
}

/*
 * A channel that does not poll cannot sit on the whole pool: with a ring
 * big enough for every buffer, it holds pool_buffers / 8 and the rest of
 * its frames are dropped and counted as rx_ring_full; the pool keeps the
 * other buffers for everyone else.
 */
static int t_driver_gbuf_cap(void)
{
	long long nbuf = pool_get("pool_buffers"), cap;
	uint32_t entries = VJ_RING_MIN_ENTRIES;
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, VJT_LOCAL4, tport(0),
				 0);
	struct vj_statistics st0, st;
	struct test_chan c;
	int r;

	vjt_ifindex();
	while (entries < nbuf && entries < VJ_RING_MAX_ENTRIES)
		entries *= 2;
	cap = gbuf_cap(nbuf, entries);
	CHECK(pool_settled(3000), "pool_free %lld of %lld at the start",
	      pool_get("pool_free"), nbuf);
	chan_open(&c, &f, entries, 2048);
	st0 = test_get_stats(c.fd);
	r = inject_n(nbuf, tport(0), 0);
	CHECK(!r, "injecting %lld frames: %s", nbuf, errname(-r));
	st = test_get_stats(c.fd);
	CHECK(st.rx_packets - st0.rx_packets == (uint64_t)cap &&
	      st.rx_ring_full - st0.rx_ring_full == (uint64_t)(nbuf - cap),
	      "rx_packets +%llu, rx_ring_full +%llu; want +%lld, +%lld",
	      (unsigned long long)(st.rx_packets - st0.rx_packets),
	      (unsigned long long)(st.rx_ring_full - st0.rx_ring_full),
	      cap, nbuf - cap);
	CHECK(pool_get("pool_free") == nbuf - cap, "pool_free %lld, want %lld",
	      pool_get("pool_free"), nbuf - cap);
	if (drain_seq(&c, cap, 0))
		return 1;
	CHECK(pool_settled(3000), "pool_free %lld of %lld after draining",
	      pool_get("pool_free"), nbuf);
	chan_close(&c);
	return 0;
}

/*
 * Checksum offload from the driver (struct vj_rx_csum): a frame whose
 * checksum the device left partial reaches a channel with the checksum
 * completed and VJ_DESC_F_CSUM_OK, IPv4 and IPv6, single and batched; one
 * the device verified carries VJ_DESC_F_CSUM_OK; one without a verdict
 * does not.  Unclaimed, both kinds reach an ordinary UDP socket.
 */
static int t_driver_csum_offload(void)
{
	const uint32_t ok = VJ_DESC_F_L2 | VJ_DESC_F_DRIVER | VJ_DESC_F_CSUM_OK;
	int vjt = vjt_ifindex();
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, VJT_LOCAL4, tport(0),
				 0);
	struct vj_flow f6 = flow6(IPPROTO_UDP, NULL, 0, VJT_LOCAL6, tport(1),
				  0);
	struct test_chan c, c6;
	uint32_t seq, len;
	int w, i;

	chan_open(&c, &f, 64, 2048);
	inject("count=8 saddr=%s daddr=%s sport=1000 dport=%u len=333 "
	       "batch=4 seq=0 offload=2", VJT_PEER4, VJT_LOCAL4, tport(0));
	expect_frames_flags(&c, vjt, AF_INET, tport(0), 0, 8, 333, 0, ok);
	inject("count=2 saddr=%s daddr=%s sport=1000 dport=%u len=64 "
	       "seq=10 offload=2", VJT_PEER4, VJT_LOCAL4, tport(0));
	expect_frames_flags(&c, vjt, AF_INET, tport(0), 10, 2, 64, 0, ok);
	inject("count=3 saddr=%s daddr=%s sport=1000 dport=%u len=64 "
	       "seq=20 offload=1", VJT_PEER4, VJT_LOCAL4, tport(0));
	expect_frames_flags(&c, vjt, AF_INET, tport(0), 20, 3, 64, 0, ok);
	inject("count=3 saddr=%s daddr=%s sport=1000 dport=%u len=64 "
	       "seq=30 offload=0", VJT_PEER4, VJT_LOCAL4, tport(0));
	expect_driver_frames(&c, vjt, AF_INET, tport(0), 30, 3, 64, 0);
	chan_expect_empty(&c, "extra frames");
	chan_close(&c);

	chan_open(&c6, &f6, 16, 2048);
	inject("count=5 saddr=%s daddr=%s sport=1000 dport=%u len=1200 "
	       "batch=5 seq=40 offload=2", VJT_PEER6, VJT_LOCAL6, tport(1));
	expect_frames_flags(&c6, vjt, AF_INET6, tport(1), 40, 5, 1200, 0, ok);
	chan_close(&c6);

	w = udp_listen(VJT_LOCAL4, tport(2));
	inject("count=4 saddr=%s daddr=%s sport=1000 dport=%u len=80 "
	       "batch=4 seq=0 offload=2", VJT_PEER4, VJT_LOCAL4, tport(2));
	inject("count=4 saddr=%s daddr=%s sport=1000 dport=%u len=80 "
	       "seq=4 offload=1", VJT_PEER4, VJT_LOCAL4, tport(2));
	for (i = 0; i < 8; i++) {
		CHECK(udp_recv_seq(w, 3000, &seq, &len),
		      "%d of 8 offloaded frames reached the UDP socket", i);
		CHECK(len == 80 && seq < 8, "got seq %u len %u", seq, len);
	}
	close(w);
	return 0;
}

/*
 * Crafted checksum offload values that reach outside the frame (start
 * past its end, in the Ethernet header, a field across its last byte, an
 * offset of 65535) make the driver API drop the frame, counted in
 * driver_bad: no channel and no socket sees it, nothing is read or
 * written outside the buffer (KASAN on the debug kernel), and a good
 * frame after them arrives.
 */
static int t_driver_csum_crafted(void)
{
	static const char *const bad[] = {
		"cstart=2000", "cstart=0", "cstart=13", "cstart=141 coff=0",
		"cstart=34 coff=65535", "cstart=65535 coff=65535",
		"cstart=140 coff=1",
	};
	int vjt = vjt_ifindex();
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, VJT_LOCAL4, tport(0),
				 0);
	long long bad0 = pool_get("driver_bad");
	struct test_chan c;
	uint32_t seq, len;
	unsigned int i;
	int w;

	chan_open(&c, &f, 64, 2048);
	w = udp_listen(VJT_LOCAL4, tport(2));
	/* len=100: a 142-byte frame, its UDP header at 34. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		step("%s", bad[i]);
		inject("count=1 saddr=%s daddr=%s sport=1000 dport=%u len=100 "
		       "offload=2 %s", VJT_PEER4, VJT_LOCAL4, tport(0), bad[i]);
		inject("count=1 saddr=%s daddr=%s sport=1000 dport=%u len=100 "
		       "offload=2 %s", VJT_PEER4, VJT_LOCAL4, tport(2), bad[i]);
	}
	CHECK(pool_get("driver_bad") - bad0 == 2 * (long long)i,
	      "driver_bad +%lld, want +%u", pool_get("driver_bad") - bad0,
	      2 * i);
	chan_expect_empty(&c, "a crafted frame reached the channel");
	CHECK(!udp_recv_seq(w, 300, &seq, &len),
	      "a crafted frame reached the UDP socket: seq %u", seq);
	/* The last byte's field is inside: this one is good. */
	inject("count=1 saddr=%s daddr=%s sport=1000 dport=%u len=100 seq=7 "
	       "offload=2", VJT_PEER4, VJT_LOCAL4, tport(0));
	expect_frames_flags(&c, vjt, AF_INET, tport(0), 7, 1, 100, 0,
			    VJ_DESC_F_L2 | VJ_DESC_F_DRIVER |
			    VJ_DESC_F_CSUM_OK);
	close(w);
	chan_close(&c);
	CHECK(pool_settled(3000), "pool_free %lld of %lld after closing",
	      pool_get("pool_free"), pool_get("pool_buffers"));
	return 0;
}

/* After all of the above, every pool buffer is free again. */
static int t_driver_pool_returned(void)
{
	vjt_ifindex();
	CHECK(pool_settled(3000), "pool_free %lld, pool_buffers %lld",
	      pool_get("pool_free"), pool_get("pool_buffers"));
	return 0;
}

const struct vj_case driver_cases[] = {
	VJ_CASE("DRIVER_API", t_driver_api),
	VJ_CASE("DRIVER_RING_FULL", t_driver_ring_full),
	VJ_CASE("DRIVER_MIXED_ORDER", t_driver_mixed_order),
	VJ_CASE("DRIVER_EDGE_LENGTHS", t_driver_edge_lengths),
	VJ_CASE("DRIVER_DEFAULT_PATH", t_driver_default_path),
	VJ_CASE("DRIVER_DEFAULT_PATH6", t_driver_default_path6),
	VJ_CASE("DRIVER_CSUM_OFFLOAD", t_driver_csum_offload),
	VJ_CASE("DRIVER_CSUM_CRAFTED", t_driver_csum_crafted),
	VJ_CASE_T("DRIVER_POOL_EXHAUST", t_driver_pool_exhaust, 120),
	VJ_CASE_T("DRIVER_POOL_CAPACITY", t_driver_pool_capacity, 120),
	VJ_CASE_T("DRIVER_GBUF_CAP", t_driver_gbuf_cap, 120),
	VJ_CASE("DRIVER_POOL_RETURNED", t_driver_pool_returned),
	{ NULL }
};
