// SPDX-License-Identifier: GPL-2.0
/*
 * Ring cases: exact statistics, payload integrity, descriptor fields,
 * truncation, wrap-around and the poll/epoll/select wake-up protocol.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <unistd.h>

#include "harness.h"

static struct test_pkt pkt;

static void expect_stats(int fd, uint64_t pkts, uint64_t full,
			 const char *what)
{
	struct vj_statistics s = test_get_stats(fd);

	CHECK(s.rx_packets == pkts && s.rx_ring_full == full,
	      "%s: rx_packets %llu rx_ring_full %llu, want %llu %llu", what,
	      (unsigned long long)s.rx_packets,
	      (unsigned long long)s.rx_ring_full,
	      (unsigned long long)pkts, (unsigned long long)full);
}

/* Sends n datagrams and waits until all n are accounted for. */
static void send_n(struct udp_tx *tx, int fd, uint32_t *seq, int n,
		   uint32_t len)
{
	uint64_t want = vj_stat_total(fd) + n;
	int i;

	for (i = 0; i < n; i++)
		tx_send(tx, (*seq)++, len);
	if (!vj_wait_total(fd, want, 5000))
		fail("sent %d, only %llu of %llu accounted", n,
		     (unsigned long long)vj_stat_total(fd),
		     (unsigned long long)want);
}

/*
 * Every matched packet counts in exactly one of rx_packets and
 * rx_ring_full: an 8-entry ring that nobody consumes takes 8 of 20 and
 * drops 12; after consuming, the next ones fit, exactly up to full.
 * rx_bytes is the sum of the stored lengths; /proc agrees.
 */
static int t_stats_exact(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				 tport(0), 0);
	struct vj_statistics s;
	struct test_chan c;
	struct udp_tx tx;
	uint64_t bytes = 0;
	uint32_t seq = 0, i;
	char fl[28][64];
	int n;

	chan_open(&c, &f, 8, 2048);
	tx_open(&tx, NULL, 0, "127.0.0.1", tport(0));
	send_n(&tx, c.fd, &seq, 20, 100);
	expect_stats(c.fd, 8, 12, "20 into 8 entries");
	CHECK(chan_pending(&c) == 8, "producer - consumer = %u, want 8",
	      chan_pending(&c));
	for (i = 0; i < 8; i++) {
		chan_peek_at(&c, i, &pkt);
		CHECK(pkt.d.len == pkt.d.l3_off + 20 + 8 + 100u,
		      "stored length %u (l3_off %u) for a 100-byte datagram",
		      pkt.d.len, pkt.d.l3_off);
		bytes += pkt.d.len;
	}
	s = test_get_stats(c.fd);
	CHECK(s.rx_bytes == bytes, "rx_bytes %llu, sum of lengths %llu",
	      (unsigned long long)s.rx_bytes, (unsigned long long)bytes);
	CHECK(!s.rx_invalid_cons && !s.rx_truncated && !s.rx_driver,
	      "invalid_cons %llu truncated %llu driver %llu, want 0",
	      (unsigned long long)s.rx_invalid_cons,
	      (unsigned long long)s.rx_truncated,
	      (unsigned long long)s.rx_driver);
	n = proc_chan_find(sock_ino(c.fd), fl, 28);
	CHECK(n == 25, "/proc/net/vjchan line has %d fields", n);
	CHECK(strtoull(fl[10], NULL, 10) == s.rx_packets &&
	      strtoull(fl[11], NULL, 10) == s.rx_bytes &&
	      strtoull(fl[12], NULL, 10) == s.rx_ring_full &&
	      strtoull(fl[13], NULL, 10) == s.rx_invalid_cons &&
	      strtoull(fl[14], NULL, 10) == s.rx_truncated &&
	      strtoull(fl[15], NULL, 10) == s.rx_driver &&
	      !strcmp(fl[16], "bypass") &&
	      strtoull(fl[17], NULL, 10) == s.rx_hook &&
	      strtoull(fl[18], NULL, 10) == s.rx_xdp &&
	      strtoull(fl[19], NULL, 10) == s.rx_filtered &&
	      strtoull(fl[20], NULL, 10) == s.rx_csum_bad &&
	      strtoull(fl[21], NULL, 10) == s.rx_udp_bad_csum &&
	      strtoull(fl[22], NULL, 10) == s.rx_udp_malformed &&
	      strtoull(fl[23], NULL, 10) == s.rx_udp_not_peer &&
	      strtoull(fl[24], NULL, 10) == s.rx_direct,
	      "/proc columns %s %s %s %s %s %s %s %s %s %s disagree with "
	      "VJ_STATISTICS", fl[10], fl[11], fl[12], fl[13], fl[14], fl[15],
	      fl[16], fl[17], fl[18], fl[19]);
	CHECK(s.rx_packets == s.rx_hook + s.rx_driver + s.rx_xdp +
	      s.rx_filtered, "rx_packets %llu is not the sum of the paths",
	      (unsigned long long)s.rx_packets);
	CHECK(!s.rx_direct, "rx_direct %llu without a direct channel",
	      (unsigned long long)s.rx_direct);

	/* The 8 stored are the first 8 sent. */
	for (i = 0; i < 8; i++) {
		struct pkt_info pi;
		uint32_t got;

		CHECK(chan_try(&c, &pkt), "descriptor %u vanished", i);
		pkt_expect_udp(&pkt, &pi, &got);
		CHECK(got == i, "slot %u holds seq %u", i, got);
	}
	send_n(&tx, c.fd, &seq, 5, 100);
	expect_stats(c.fd, 13, 12, "5 more after consuming");
	for (i = 0; i < 5; i++)
		CHECK(chan_try(&c, &pkt), "descriptor vanished");
	send_n(&tx, c.fd, &seq, 8, 100);
	expect_stats(c.fd, 21, 12, "exactly 8 into an empty 8-entry ring");
	send_n(&tx, c.fd, &seq, 1, 100);
	expect_stats(c.fd, 21, 13, "one more into the full ring");
	tx_close(&tx);
	chan_close(&c);
	return 0;
}

static const uint32_t isizes[] = { 4, 5, 17, 63, 64, 100, 255, 511, 1000,
				   1400, 1472, 2000, 3000 };
#define NSIZES	(sizeof(isizes) / sizeof(isizes[0]))

struct sender {
	pthread_t th;
	struct udp_tx tx;
	uint32_t count;
	unsigned int seed;
	int bursts;
	_Atomic uint32_t sent;
	_Atomic int done;
};

static void *integrity_sender(void *arg)
{
	struct sender *s = arg;
	uint32_t i;

	pin_cpu(0);
	for (i = 0; i < s->count; i++) {
		tx_send(&s->tx, i, isizes[i % NSIZES]);
		atomic_store(&s->sent, i + 1);
		if (i % 16 == 15)
			usleep(500);
	}
	atomic_store(&s->done, 1);
	return NULL;
}

/*
 * 2000 datagrams of 13 sizes, consumed while they arrive: every stored
 * payload is intact and has its size, sequence numbers only grow (the
 * sender is pinned, so lo keeps order), and received + rx_ring_full
 * equals sent.
 */
static int t_payload_integrity(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				 tport(0), 0);
	struct sender s = { .count = 2000 };
	uint32_t received = 0, last = 0, seq;
	struct vj_statistics st;
	struct test_chan c;
	uint64_t done_at = 0;

	chan_open(&c, &f, 64, 4096);
	tx_open(&s.tx, NULL, 0, "127.0.0.1", tport(0));
	pin_cpu(1);
	pthread_create(&s.th, NULL, integrity_sender, &s);
	for (;;) {
		struct pkt_info pi;

		if (chan_recv(&c, &pkt, 200)) {
			pkt_expect_udp(&pkt, &pi, &seq);
			CHECK(!(pkt.d.flags & VJ_DESC_F_TRUNC),
			      "seq %u truncated", seq);
			CHECK(seq < s.count && (!received || seq > last),
			      "seq %u after %u", seq, last);
			CHECK(pi.udp_len == isizes[seq % NSIZES],
			      "seq %u has %u bytes, sent %u", seq, pi.udp_len,
			      isizes[seq % NSIZES]);
			last = seq;
			received++;
			continue;
		}
		if (!atomic_load(&s.done))
			continue;
		if (!done_at)
			done_at = now_ns();
		st = test_get_stats(c.fd);
		if (st.rx_packets + st.rx_ring_full == s.count &&
		    received == st.rx_packets && !chan_pending(&c))
			break;
		if (now_ns() - done_at > 5000000000ull)
			fail("received %u, rx_packets %llu, rx_ring_full %llu, "
			     "sent %u", received,
			     (unsigned long long)st.rx_packets,
			     (unsigned long long)st.rx_ring_full, s.count);
	}
	pthread_join(s.th, NULL);
	CHECK(received > 0, "nothing received");
	diag("PAYLOAD_INTEGRITY: %u of %u received, %llu dropped (ring full)",
	     received, s.count, (unsigned long long)st.rx_ring_full);
	tx_close(&s.tx);
	chan_close(&c);
	return 0;
}

/*
 * A packet larger than its buffer is cut to the buffer: VJ_DESC_F_TRUNC,
 * off + len == buf_size, rx_truncated counts it, rx_bytes counts what was
 * stored; the stored prefix is intact.  Fitting packets are not marked.
 */
static int t_truncation(void)
{
	struct vj_flow f4 = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				  tport(0), 0);
	struct vj_flow f6 = flow6(IPPROTO_UDP, NULL, 0, "::1", tport(0), 0);
	struct test_chan c4, c6, cb;
	struct vj_flow fb = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				  tport(1), 0);
	struct test_chan *cs[2] = { &c4, &c6 };
	const char *dst[2] = { "127.0.0.1", "::1" };
	struct vj_statistics s;
	struct pkt_info pi;
	const char *why;
	int i;

	chan_open(&c4, &f4, 8, 2048);
	chan_open(&c6, &f6, 8, 2048);
	for (i = 0; i < 2; i++) {
		udp_send(NULL, 0, dst[i], tport(0), 1, 3000);
		CHECK(chan_recv(cs[i], &pkt, 3000), "no packet (%s)", dst[i]);
		CHECK(pkt.d.flags & VJ_DESC_F_TRUNC,
		      "3000-byte datagram in a 2048-byte buffer not marked "
		      "VJ_DESC_F_TRUNC (%s)", dst[i]);
		CHECK(pkt.d.off + pkt.d.len == 2048,
		      "truncated packet: off %u + len %u != buf_size 2048",
		      pkt.d.off, pkt.d.len);
		why = pkt_parse(&pkt, &pi);
		CHECK(!why, "truncated packet: %s", why);
		CHECK(pi.udp_len == 3000 && pi.plen < 3000,
		      "UDP length %u, present %u", pi.udp_len, pi.plen);
		why = payload_check(pi.payload, pi.plen, NULL);
		CHECK(!why, "truncated prefix: %s", why);
		s = test_get_stats(cs[i]->fd);
		CHECK(s.rx_truncated == 1 && s.rx_packets == 1 &&
		      s.rx_bytes == pkt.d.len,
		      "truncated %llu packets %llu bytes %llu (len %u)",
		      (unsigned long long)s.rx_truncated,
		      (unsigned long long)s.rx_packets,
		      (unsigned long long)s.rx_bytes, pkt.d.len);
		udp_send(NULL, 0, dst[i], tport(0), 2, 1000);
		CHECK(chan_recv(cs[i], &pkt, 3000), "no second packet");
		CHECK(!(pkt.d.flags & VJ_DESC_F_TRUNC),
		      "1000-byte datagram marked truncated");
		pkt_expect_udp(&pkt, &pi, NULL);
		CHECK(test_get_stats(cs[i]->fd).rx_truncated == 1,
		      "rx_truncated counted a fitting packet");
	}
	/* With 4 KiB buffers the same datagram fits. */
	chan_open(&cb, &fb, 8, 4096);
	udp_send(NULL, 0, "127.0.0.1", tport(1), 3, 3000);
	CHECK(chan_recv(&cb, &pkt, 3000), "no packet in the 4 KiB ring");
	CHECK(!(pkt.d.flags & VJ_DESC_F_TRUNC),
	      "3000 bytes in a 4096-byte buffer marked truncated");
	pkt_expect_udp(&pkt, &pi, NULL);
	chan_close(&c4);
	chan_close(&c6);
	chan_close(&cb);
	return 0;
}

static void check_desc(const struct vj_desc *d, uint16_t proto,
		       uint64_t t0, uint64_t t1, uint64_t *last_ts)
{
	unsigned int lo = if_nametoindex("lo");

	CHECK(d->ifindex == lo, "ifindex %u, want lo (%u)", d->ifindex, lo);
	CHECK(d->l3_off == 14, "l3_off %u, want 14", d->l3_off);
	CHECK(ntohs(d->proto) == proto, "proto %#x, want %#x",
	      ntohs(d->proto), proto);
	/* The pre-routing hook; a socket's sum on lo is left to "hardware". */
	CHECK(d->flags == (VJ_DESC_F_L2 | VJ_DESC_F_CSUM_OK),
	      "flags %#x, want VJ_DESC_F_L2 | VJ_DESC_F_CSUM_OK only",
	      d->flags);
	CHECK(d->tstamp >= t0 && d->tstamp <= t1,
	      "tstamp %llu outside [%llu, %llu] (CLOCK_MONOTONIC)",
	      (unsigned long long)d->tstamp, (unsigned long long)t0,
	      (unsigned long long)t1);
	CHECK(d->tstamp >= *last_ts, "tstamp went back: %llu after %llu",
	      (unsigned long long)d->tstamp, (unsigned long long)*last_ts);
	*last_ts = d->tstamp;
}

/*
 * Descriptor fields of lo traffic: buf below entries and distinct for
 * outstanding packets, off + len within the buffer, ifindex of lo,
 * l3_off 14 behind the link header (VJ_DESC_F_L2), proto ETH_P_IP or
 * ETH_P_IPV6, a CLOCK_MONOTONIC tstamp taken between send and receive.
 */
static int t_desc_fields(void)
{
	struct vj_flow f4 = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				  tport(0), 0);
	struct vj_flow f6 = flow6(IPPROTO_UDP, NULL, 0, "::1", tport(0), 0);
	struct test_chan c4, c6;
	struct test_chan *cs[2] = { &c4, &c6 };
	const char *dst[2] = { "127.0.0.1", "::1" };
	const uint16_t proto[2] = { 0x0800, 0x86dd };
	int i, k;

	chan_open(&c4, &f4, 16, 2048);
	chan_open(&c6, &f6, 16, 2048);
	for (i = 0; i < 2; i++) {
		uint64_t t0 = now_ns(), t1, last = 0;
		uint32_t seen = 0;
		struct udp_tx tx;

		tx_open(&tx, NULL, 0, dst[i], tport(0));
		for (k = 0; k < 10; k++)
			tx_send(&tx, k, 50 + k);
		tx_close(&tx);
		CHECK(WAIT_FOR(chan_pending(cs[i]) == 10, 3000),
		      "%u of 10 packets arrived", chan_pending(cs[i]));
		t1 = now_ns();
		for (k = 0; k < 10; k++) {
			struct pkt_info pi;
			uint32_t seq;

			chan_peek_at(cs[i], k, &pkt);
			CHECK(!(seen & (1u << pkt.d.buf)),
			      "buffer %u used by two outstanding descriptors",
			      pkt.d.buf);
			seen |= 1u << pkt.d.buf;
			check_desc(&pkt.d, proto[i], t0, t1, &last);
			pkt_expect_udp(&pkt, &pi, &seq);
			CHECK(seq == (uint32_t)k && pi.udp_len == 50u + k,
			      "slot %d: seq %u len %u", k, seq, pi.udp_len);
			CHECK(pi.dport == tport(0), "dport %u", pi.dport);
		}
		for (k = 0; k < 10; k++)
			chan_try(cs[i], &pkt);
	}
	chan_close(&c4);
	chan_close(&c6);
	return 0;
}

/*
 * Indices are free-running and slots wrap: 12 laps of single packets and
 * 12 of exactly-full bursts through an 8-entry ring lose nothing.
 */
static int t_ring_wrap(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				 tport(0), 0);
	struct test_chan c;
	struct udp_tx tx;
	uint32_t seq = 0, want = 0, got;
	struct pkt_info pi;
	int lap, k;

	chan_open(&c, &f, 8, 2048);
	tx_open(&tx, NULL, 0, "127.0.0.1", tport(0));
	for (k = 0; k < 96; k++) {
		tx_send(&tx, seq++, 64);
		CHECK(chan_recv(&c, &pkt, 3000), "packet %u missing", want);
		pkt_expect_udp(&pkt, &pi, &got);
		CHECK(got == want++, "got seq %u, want %u", got, want - 1);
	}
	for (lap = 0; lap < 12; lap++) {
		send_n(&tx, c.fd, &seq, 8, 64);
		for (k = 0; k < 8; k++) {
			CHECK(chan_try(&c, &pkt), "lap %d: packet %d missing",
			      lap, k);
			pkt_expect_udp(&pkt, &pi, &got);
			CHECK(got == want++, "got seq %u, want %u", got,
			      want - 1);
		}
	}
	CHECK(c.head == 192 && chan_producer(&c) == 192,
	      "producer %u consumer %u after 192 packets", chan_producer(&c),
	      c.head);
	expect_stats(c.fd, 192, 0, "after wrapping");
	tx_close(&tx);
	chan_close(&c);
	return 0;
}

/*
 * The extreme geometries work end to end: 8 x 64 KiB buffers carry a
 * 65000-byte datagram whole; a 32768-entry ring receives.
 */
static int t_ring_geometry_extremes(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1", tport(0),
				 0);
	struct vj_flow g = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1", tport(1),
				 0);
	struct pkt_info pi;
	struct test_chan c;
	uint32_t seq;
	int i;

	chan_open(&c, &f, VJ_RING_MIN_ENTRIES, VJ_BUF_MAX_SIZE);
	udp_send(NULL, 0, "127.0.0.1", tport(0), 9, 65000);
	CHECK(chan_recv(&c, &pkt, 3000), "65000-byte datagram missing");
	CHECK(!(pkt.d.flags & VJ_DESC_F_TRUNC), "65000 bytes in 64 KiB "
	      "buffers marked truncated (len %u off %u)", pkt.d.len, pkt.d.off);
	pkt_expect_udp(&pkt, &pi, &seq);
	CHECK(pi.udp_len == 65000 && seq == 9, "len %u seq %u", pi.udp_len,
	      seq);
	chan_close(&c);

	chan_open(&c, &g, VJ_RING_MAX_ENTRIES, VJ_BUF_MIN_SIZE);
	for (i = 0; i < 3; i++)
		udp_send(NULL, 0, "127.0.0.1", tport(1), i, 64);
	for (i = 0; i < 3; i++) {
		CHECK(chan_recv(&c, &pkt, 3000), "packet %d missing", i);
		pkt_expect_udp(&pkt, &pi, &seq);
		CHECK(seq == (uint32_t)i, "seq %u", seq);
	}
	chan_close(&c);
	return 0;
}

/* lo traffic is placed in the ring directly: a spinning consumer sees it. */
static int t_visible_without_poll(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				 tport(0), 0);
	struct test_chan c;

	chan_open(&c, &f, 8, 2048);
	udp_send(NULL, 0, "127.0.0.1", tport(0), 1, 64);
	CHECK(WAIT_FOR(chan_producer(&c) == 1, 3000),
	      "producer did not move without poll()");
	chan_close(&c);
	return 0;
}

struct delayed {
	pthread_t th;
	const char *daddr;
	uint16_t port;
	unsigned int delay_ms;
	int count;
};

static void *delayed_send(void *arg)
{
	struct delayed *d = arg;
	int i;

	msleep(d->delay_ms);
	for (i = 0; i < d->count; i++)
		udp_send(NULL, 0, d->daddr, d->port, i, 64);
	return NULL;
}

static void send_later(struct delayed *d, uint16_t port, unsigned int ms)
{
	d->daddr = "127.0.0.1";
	d->port = port;
	d->delay_ms = ms;
	d->count = 1;
	pthread_create(&d->th, NULL, delayed_send, d);
}

/*
 * poll(): nothing pending is 0 (also unbound); a consumer sleeping in
 * poll() is woken by a packet with POLLIN | POLLRDNORM, also without a
 * mapping; after consuming, 0 again.
 */
static int t_poll_wakeup(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				 tport(0), 0);
	struct vj_flow g = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				 tport(1), 0);
	struct pollfd pfd = { .events = POLLIN | POLLRDNORM };
	struct delayed d;
	struct test_chan c;
	uint64_t t0, el;
	int r, u;

	u = test_socket();
	pfd.fd = u;
	r = poll(&pfd, 1, 0);
	CHECK(r == 0, "poll on an unbound socket: %d revents %#x", r,
	      pfd.revents);
	close(u);

	chan_open(&c, &f, 8, 2048);
	pfd.fd = c.fd;
	r = poll(&pfd, 1, 0);
	CHECK(r == 0, "poll(0) on an empty ring: %d revents %#x", r,
	      pfd.revents);
	send_later(&d, tport(0), 300);
	t0 = now_ns();
	r = poll(&pfd, 1, 5000);
	el = (now_ns() - t0) / 1000000;
	pthread_join(d.th, NULL);
	CHECK(r == 1, "poll returned %d after %llu ms", r,
	      (unsigned long long)el);
	CHECK((pfd.revents & (POLLIN | POLLRDNORM)) == (POLLIN | POLLRDNORM) &&
	      !(pfd.revents & POLLERR), "revents %#x", pfd.revents);
	CHECK(el >= 200, "poll returned after %llu ms, before the packet",
	      (unsigned long long)el);
	CHECK(chan_try(&c, &pkt), "POLLIN but the ring is empty");
	r = poll(&pfd, 1, 0);
	CHECK(r == 0, "poll after consuming: %d revents %#x", r, pfd.revents);
	chan_close(&c);

	/* Bound but not mapped. */
	u = test_socket();
	EXPECT_OK(test_bind(u, &g), "bind");
	pfd.fd = u;
	send_later(&d, tport(1), 200);
	r = poll(&pfd, 1, 5000);
	pthread_join(d.th, NULL);
	CHECK(r == 1 && (pfd.revents & POLLIN),
	      "unmapped channel: poll %d revents %#x", r, pfd.revents);
	close(u);
	return 0;
}

/*
 * epoll, level-triggered: reported while pending, also repeatedly;
 * edge-triggered: one report per arrival, none while nothing new came.
 */
static int t_epoll_wakeup(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				 tport(0), 0);
	struct vj_flow g = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				 tport(1), 0);
	struct epoll_event ev = { .events = EPOLLIN }, out;
	struct test_chan lt, et;
	struct delayed d;
	int ep, r, i;

	chan_open(&lt, &f, 8, 2048);
	chan_open(&et, &g, 8, 2048);

	ep = epoll_create1(EPOLL_CLOEXEC);
	EXPECT_OK(epoll_ctl(ep, EPOLL_CTL_ADD, lt.fd, &ev), "EPOLL_CTL_ADD");
	CHECK(epoll_wait(ep, &out, 1, 0) == 0, "level: empty ring reported");
	send_later(&d, tport(0), 300);
	r = epoll_wait(ep, &out, 1, 5000);
	pthread_join(d.th, NULL);
	CHECK(r == 1 && (out.events & EPOLLIN), "level: epoll_wait %d "
	      "events %#x", r, out.events);
	for (i = 0; i < 3; i++)
		CHECK(epoll_wait(ep, &out, 1, 0) == 1,
		      "level: pending packet not reported again");
	CHECK(chan_try(&lt, &pkt), "level: ring empty after EPOLLIN");
	CHECK(epoll_wait(ep, &out, 1, 0) == 0,
	      "level: reported after consuming");
	close(ep);

	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.events = EPOLLIN | EPOLLET;
	EXPECT_OK(epoll_ctl(ep, EPOLL_CTL_ADD, et.fd, &ev), "EPOLL_CTL_ADD ET");
	CHECK(epoll_wait(ep, &out, 1, 0) == 0, "edge: empty ring reported");
	for (i = 0; i < 2; i++) {
		send_later(&d, tport(1), 300);
		r = epoll_wait(ep, &out, 1, 5000);
		pthread_join(d.th, NULL);
		CHECK(r == 1 && (out.events & EPOLLIN),
		      "edge: arrival %d: epoll_wait %d", i, r);
		CHECK(epoll_wait(ep, &out, 1, 0) == 0,
		      "edge: reported twice for one arrival");
		CHECK(chan_try(&et, &pkt), "edge: ring empty after EPOLLIN");
	}
	close(ep);
	chan_close(&lt);
	chan_close(&et);
	return 0;
}

/* select(): readable exactly while packets are pending; wakes a sleeper. */
static int t_select_wakeup(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				 tport(0), 0);
	struct timeval tv = { 0, 0 };
	struct delayed d;
	struct test_chan c;
	fd_set rf;
	int r;

	chan_open(&c, &f, 8, 2048);
	FD_ZERO(&rf);
	FD_SET(c.fd, &rf);
	CHECK(select(c.fd + 1, &rf, NULL, NULL, &tv) == 0,
	      "empty ring readable");
	send_later(&d, tport(0), 300);
	FD_ZERO(&rf);
	FD_SET(c.fd, &rf);
	tv = (struct timeval){ 5, 0 };
	r = select(c.fd + 1, &rf, NULL, NULL, &tv);
	pthread_join(d.th, NULL);
	CHECK(r == 1 && FD_ISSET(c.fd, &rf), "select returned %d", r);
	CHECK(chan_try(&c, &pkt), "readable but empty");
	FD_ZERO(&rf);
	FD_SET(c.fd, &rf);
	tv = (struct timeval){ 0, 0 };
	CHECK(select(c.fd + 1, &rf, NULL, NULL, &tv) == 0,
	      "readable after consuming");
	chan_close(&c);
	return 0;
}

static void *burst_sender(void *arg)
{
	struct sender *s = arg;
	uint32_t seq = 0;
	int b, i, n;

	pin_cpu(0);
	for (b = 0; b < s->bursts; b++) {
		n = 1 + rand_r(&s->seed) % 150;
		for (i = 0; i < n; i++) {
			tx_send(&s->tx, seq, 64 + seq % 200);
			atomic_store(&s->sent, ++seq);
		}
		msleep(rand_r(&s->seed) % 30);
	}
	atomic_store(&s->done, 1);
	return NULL;
}

/*
 * No lost wake-ups: a consumer that drains and then sleeps in poll()
 * against a sender of random bursts is never left asleep with packets
 * pending (poll times out after 3 s only if it was), and every packet is
 * either received or counted in rx_ring_full.  Three rounds: fast
 * consumer, slow consumer (ring overflows), fast again.
 */
static int t_burst_no_lost_wakeup(void)
{
	int round;

	pin_cpu(1);
	for (round = 0; round < 3; round++) {
		struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
					 tport(round), 0);
		struct sender s = { .bursts = 20, .seed = 1234 + round };
		struct pollfd pfd = { .events = POLLIN };
		uint32_t received = 0, last = 0, seq;
		struct vj_statistics st;
		uint64_t done_at = 0;
		struct test_chan c;

		chan_open(&c, &f, 64, 2048);
		pfd.fd = c.fd;
		tx_open(&s.tx, NULL, 0, "127.0.0.1", tport(round));
		pthread_create(&s.th, NULL, burst_sender, &s);
		for (;;) {
			struct pkt_info pi;
			int r;

			while (chan_try(&c, &pkt)) {
				pkt_expect_udp(&pkt, &pi, &seq);
				CHECK(!received || seq > last,
				      "round %d: seq %u after %u", round, seq,
				      last);
				last = seq;
				received++;
				if (round == 1)
					usleep(300);
			}
			if (atomic_load(&s.done)) {
				st = test_get_stats(c.fd);
				if (!done_at)
					done_at = now_ns();
				if (st.rx_packets + st.rx_ring_full ==
				    atomic_load(&s.sent) &&
				    received == st.rx_packets)
					break;
				if (now_ns() - done_at > 5000000000ull)
					fail("round %d: sent %u, received %u, "
					     "rx_packets %llu, rx_ring_full %llu",
					     round, atomic_load(&s.sent),
					     received,
					     (unsigned long long)st.rx_packets,
					     (unsigned long long)st.rx_ring_full);
			}
			step("round %d: poll after %u packets", round,
			     received);
			r = poll(&pfd, 1, 3000);
			if (r < 0 && errno != EINTR)
				fail("poll: %s", errname(errno));
			if (r == 0 && chan_pending(&c))
				fail("round %d: slept 3 s in poll with %u "
				     "packets pending (lost wake-up)", round,
				     chan_pending(&c));
			if (r == 0 && !atomic_load(&s.done))
				fail("round %d: no packet for 3 s while the "
				     "sender runs (sent %u)", round,
				     atomic_load(&s.sent));
		}
		pthread_join(s.th, NULL);
		diag("BURST round %d: sent %u received %u dropped %llu", round,
		     atomic_load(&s.sent), received,
		     (unsigned long long)st.rx_ring_full);
		tx_close(&s.tx);
		chan_close(&c);
	}
	return 0;
}

const struct vj_case ring_cases[] = {
	VJ_CASE("STATS_EXACT", t_stats_exact),
	VJ_CASE_T("PAYLOAD_INTEGRITY", t_payload_integrity, 120),
	VJ_CASE("TRUNCATION", t_truncation),
	VJ_CASE("DESC_FIELDS", t_desc_fields),
	VJ_CASE("RING_WRAP", t_ring_wrap),
	VJ_CASE("RING_GEOMETRY_EXTREMES", t_ring_geometry_extremes),
	VJ_CASE("VISIBLE_WITHOUT_POLL", t_visible_without_poll),
	VJ_CASE("POLL_WAKEUP", t_poll_wakeup),
	VJ_CASE("EPOLL_WAKEUP", t_epoll_wakeup),
	VJ_CASE("SELECT_WAKEUP", t_select_wakeup),
	VJ_CASE_T("BURST_NO_LOST_WAKEUP", t_burst_no_lost_wakeup, 120),
	{ NULL }
};
