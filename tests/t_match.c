// SPDX-License-Identifier: GPL-2.0
/*
 * Flow match cases.  Traffic is ordinary UDP (and TCP, ICMP, raw IP
 * fragments) over lo, plus vjtest injection for the ifindex case.
 *
 * Most cases send one datagram at a time and ask where it went: into
 * which channel, or to a "witness" UDP socket bound to the destination
 * port, which receives it exactly when no channel claimed it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"

static struct test_pkt pkt;
static struct vj_desc where_desc;	/* descriptor of the last match */

/*
 * Waits up to ms for datagram seq to show up in one of the channels or on
 * the witness socket, and returns where.  Other UDP datagrams carrying the
 * pattern in a channel are a failure (they went to the wrong channel);
 * non-UDP packets in a channel are ignored.
 */
int where_is(struct test_chan *ch, int n, int witness, uint32_t want,
		    int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000ull;
	struct pollfd pfd[65];
	int i, got = NOWHERE;

	if (n > 64)
		fail("where_is: too many channels");
	for (;;) {
		for (i = 0; i < n; i++) {
			struct pkt_info pi;
			uint32_t seq;

			while (chan_try(&ch[i], &pkt)) {
				if (pkt_parse(&pkt, &pi) ||
				    pi.proto != IPPROTO_UDP || !pi.payload)
					continue;
				if (payload_check(pi.payload, pi.plen, &seq))
					continue;
				if (seq != want)
					fail("channel %d holds stray datagram "
					     "seq %#x (waiting for %#x)", i,
					     seq, want);
				if (got != NOWHERE)
					fail("datagram %#x delivered twice", want);
				got = i;
				where_desc = pkt.d;
			}
		}
		if (witness >= 0) {
			uint32_t seq;

			while (udp_recv_seq(witness, 0, &seq, NULL)) {
				if (seq != want)
					fail("witness socket got stray seq %#x",
					     seq);
				if (got != NOWHERE)
					fail("datagram %#x delivered twice", want);
				got = WITNESS;
			}
		}
		if (got != NOWHERE || now_ns() > end)
			return got;
		for (i = 0; i < n; i++)
			pfd[i] = (struct pollfd){ .fd = ch[i].fd, .events = POLLIN };
		pfd[n] = (struct pollfd){ .fd = witness, .events = POLLIN };
		poll(pfd, n + 1, 20);
	}
}

static const char *where_name(int w, char *buf)
{
	if (w == WITNESS)
		return "the stack (witness socket)";
	if (w == NOWHERE)
		return "nowhere";
	sprintf(buf, "channel %d", w);
	return buf;
}

/* Sends one datagram and checks it arrives where expected. */
void expect_route(struct test_chan *ch, int n, int witness,
			 const char *saddr, uint16_t sport, const char *daddr,
			 uint16_t dport, int want, const char *what)
{
	static uint32_t seq = SEQ_BASE;
	char b1[32], b2[32];
	int got;

	step("%s", what);
	seq++;
	udp_send(saddr, sport, daddr, dport, seq, 32);
	got = where_is(ch, n, witness, seq, 2000);
	if (got != want)
		fail("%s: %s:%u -> %s:%u went to %s, want %s", what,
		     saddr ? saddr : "*", sport, daddr, dport,
		     where_name(got, b1), where_name(want, b2));
}

/* Every field of an exact flow must match; any difference goes to the stack. */
static int t_match_exact(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, "127.0.0.2", tport(1),
				 "127.0.0.1", tport(0), 1);
	int w = udp_listen(NULL, tport(0));
	struct test_chan c;

	chan_open(&c, &f, 16, 2048);
	expect_route(&c, 1, w, "127.0.0.2", tport(1), "127.0.0.1", tport(0),
		     0, "exact");
	expect_route(&c, 1, w, "127.0.0.3", tport(1), "127.0.0.1", tport(0),
		     WITNESS, "other saddr");
	expect_route(&c, 1, w, "127.0.0.2", tport(2), "127.0.0.1", tport(0),
		     WITNESS, "other sport");
	expect_route(&c, 1, w, "127.0.0.2", tport(1), "127.0.0.4", tport(0),
		     WITNESS, "other daddr");
	expect_route(&c, 1, w, "127.0.0.2", tport(1), "127.0.0.1", tport(0),
		     0, "exact again");
	chan_close(&c);
	close(w);
	return 0;
}

/* A {dport} flow takes every source and destination address and port. */
static int t_match_wildcard_dport(void)
{
	struct vj_flow f = flow4(0, NULL, 0, NULL, tport(0), 0);
	int w = udp_listen(NULL, tport(0)), w1 = udp_listen(NULL, tport(5));
	int w6 = udp_listen("::", tport(0));
	struct test_chan c;

	chan_open(&c, &f, 16, 2048);
	expect_route(&c, 1, w, "127.0.0.2", tport(1), "127.0.0.1", tport(0),
		     0, "from .2");
	expect_route(&c, 1, w, "127.0.0.3", tport(2), "127.0.0.5", tport(0),
		     0, "from .3 to .5");
	expect_route(&c, 1, w, NULL, 0, "127.0.0.1", tport(0), 0,
		     "ephemeral sport");
	expect_route(&c, 1, w1, NULL, 0, "127.0.0.1", tport(5), WITNESS,
		     "other dport");
	expect_route(&c, 1, w6, NULL, 0, "::1", tport(0), WITNESS,
		     "IPv6 to the same dport (family is never a wildcard)");
	chan_close(&c);
	close(w);
	close(w1);
	close(w6);
	return 0;
}

/*
 * The most specific match wins: {dport,saddr,sport,proto} over
 * {dport,saddr} over {dport}; closing a channel hands its packets to the
 * next most specific one, and the last close hands them to the stack.
 */
static int t_match_most_specific(void)
{
	struct vj_flow f0 = flow4(0, NULL, 0, NULL, tport(0), 0);
	struct vj_flow f1 = flow4(0, "127.0.0.2", 0, NULL, tport(0), 0);
	struct vj_flow f2 = flow4(IPPROTO_UDP, "127.0.0.2", tport(1), NULL,
				  tport(0), 0);
	int w = udp_listen(NULL, tport(0));
	struct test_chan c[3];

	chan_open(&c[0], &f0, 16, 2048);
	chan_open(&c[1], &f1, 16, 2048);
	chan_open(&c[2], &f2, 16, 2048);
	expect_route(c, 3, w, "127.0.0.2", tport(1), "127.0.0.1", tport(0), 2,
		     "4-field match");
	expect_route(c, 3, w, "127.0.0.2", tport(2), "127.0.0.1", tport(0), 1,
		     "{dport,saddr} match");
	expect_route(c, 3, w, "127.0.0.3", tport(1), "127.0.0.1", tport(0), 0,
		     "{dport} match");
	chan_close(&c[2]);
	expect_route(c, 2, w, "127.0.0.2", tport(1), "127.0.0.1", tport(0), 1,
		     "after closing the 4-field channel");
	chan_close(&c[1]);
	expect_route(c, 1, w, "127.0.0.2", tport(1), "127.0.0.1", tport(0), 0,
		     "after closing {dport,saddr}");
	chan_close(&c[0]);
	expect_route(c, 0, w, "127.0.0.2", tport(1), "127.0.0.1", tport(0),
		     WITNESS, "after closing all");
	close(w);
	return 0;
}

struct tie {
	const char *what;
	struct vj_flow win, lose;
	const char *saddr, *daddr;
	uint16_t sport, dport;
};

/*
 * Between equally many fields the rank dport > daddr > sport > saddr >
 * proto > ifindex decides (as a bitmask, most significant first), and
 * more fields always beat fewer.
 */
static int t_match_tie_rule(void)
{
	uint16_t X = tport(0), Y = tport(1), Z = tport(2);
	struct tie t[] = {
		{ "{dport} over {sport}",
		  flow4(0, NULL, 0, NULL, X, 0), flow4(0, NULL, Y, NULL, 0, 0),
		  "127.0.0.2", "127.0.0.1", Y, X },
		{ "{daddr} over {sport}",
		  flow4(0, NULL, 0, "127.0.0.5", 0, 0),
		  flow4(0, NULL, Y, NULL, 0, 0),
		  "127.0.0.2", "127.0.0.5", Y, Z },
		{ "{sport} over {saddr}",
		  flow4(0, NULL, Y, NULL, 0, 0),
		  flow4(0, "127.0.0.6", 0, NULL, 0, 0),
		  "127.0.0.6", "127.0.0.1", Y, Z },
		{ "{saddr} over {proto}",
		  flow4(0, "127.0.0.6", 0, NULL, 0, 0),
		  flow4(IPPROTO_UDP, NULL, 0, NULL, 0, 0),
		  "127.0.0.6", "127.0.0.1", Z, X },
		{ "{proto} over {ifindex}",
		  flow4(IPPROTO_UDP, NULL, 0, NULL, 0, 0),
		  flow4(0, NULL, 0, NULL, 0, 1),
		  "127.0.0.7", "127.0.0.1", Z, X },
		{ "{dport,ifindex} over {daddr,sport}",
		  flow4(0, NULL, 0, NULL, X, 1),
		  flow4(0, NULL, Y, "127.0.0.1", 0, 0),
		  "127.0.0.2", "127.0.0.1", Y, X },
		{ "{daddr,saddr,sport} over {dport,proto}",
		  flow4(0, "127.0.0.2", Y, "127.0.0.1", 0, 0),
		  flow4(IPPROTO_UDP, NULL, 0, NULL, X, 0),
		  "127.0.0.2", "127.0.0.1", Y, X },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct test_chan c[2];
		int w = udp_listen(NULL, t[i].dport);

		/* Bind in both orders: the result must not depend on it. */
		chan_open(&c[0], &t[i].win, 16, 2048);
		chan_open(&c[1], &t[i].lose, 16, 2048);
		expect_route(c, 2, w, t[i].saddr, t[i].sport, t[i].daddr,
			     t[i].dport, 0, t[i].what);
		chan_close(&c[0]);
		chan_close(&c[1]);
		chan_open(&c[1], &t[i].lose, 16, 2048);
		chan_open(&c[0], &t[i].win, 16, 2048);
		expect_route(c, 2, w, t[i].saddr, t[i].sport, t[i].daddr,
			     t[i].dport, 0, t[i].what);
		chan_close(&c[0]);
		chan_close(&c[1]);
		close(w);
	}
	return 0;
}

/* IPv6 flows match IPv6 traffic only, exact and wildcard. */
static int t_match_ipv6(void)
{
	struct vj_flow e = flow6(IPPROTO_UDP, "::1", tport(1), "::1",
				 tport(0), 0);
	struct vj_flow d = flow6(0, NULL, 0, NULL, tport(3), 0);
	struct vj_flow d4 = flow4(0, NULL, 0, NULL, tport(3), 0);
	int w6 = udp_listen("::", tport(0)), w6b = udp_listen("::", tport(3));
	int w4 = udp_listen(NULL, tport(3));
	struct test_chan c[2], c4;

	chan_open(&c[0], &e, 16, 2048);
	chan_open(&c[1], &d, 16, 2048);
	chan_open(&c4, &d4, 16, 2048);
	expect_route(c, 2, w6, "::1", tport(1), "::1", tport(0), 0,
		     "v6 exact");
	expect_route(c, 2, w6, "::1", tport(2), "::1", tport(0), WITNESS,
		     "v6 other sport");
	expect_route(c, 2, w6b, "::1", tport(2), "::1", tport(3), 1,
		     "v6 {dport}");
	/* The v4 {dport} channel takes v4 only; c4 is checked by count. */
	expect_route(c, 2, w4, "127.0.0.1", 0, "127.0.0.1", tport(3), NOWHERE,
		     "v4 to the port of a v6 and a v4 channel");
	CHECK(chan_recv(&c4, &pkt, 1000), "v4 {dport} channel got nothing");
	CHECK(ntohs(pkt.d.proto) == 0x0800, "v4 channel got proto %#x",
	      ntohs(pkt.d.proto));
	chan_close(&c[0]);
	chan_close(&c[1]);
	chan_close(&c4);
	close(w6);
	close(w6b);
	close(w4);
	return 0;
}

/*
 * ifindex selects the receiving device: {dport, lo} gets lo traffic,
 * {dport, vjtest0} gets vjtest0 traffic, each not the other's.
 */
static int t_match_ifindex(void)
{
	int vjt = vjt_ifindex(), r;
	struct vj_flow fl = flow4(0, NULL, 0, NULL, tport(0), 1);
	struct vj_flow fv = flow4(0, NULL, 0, NULL, tport(0), vjt);
	struct vj_flow fv1 = flow4(0, NULL, 0, NULL, tport(1), vjt);
	int w = udp_listen(NULL, tport(0)), w1 = udp_listen(NULL, tport(1));
	struct test_chan c[3];

	chan_open(&c[0], &fl, 16, 2048);
	chan_open(&c[1], &fv, 16, 2048);
	chan_open(&c[2], &fv1, 16, 2048);
	expect_route(c, 3, w, NULL, 0, "127.0.0.1", tport(0), 0,
		     "lo traffic to {dport, lo}");
	expect_route(c, 3, w1, NULL, 0, "127.0.0.1", tport(1), WITNESS,
		     "lo traffic to {dport, vjtest0}");
	r = vjt_inject("count=1 saddr=%s daddr=%s sport=1000 dport=%u len=32 "
		       "seq=%u", VJT_PEER4, VJT_LOCAL4, tport(0), SEQ_BASE + 77);
	CHECK(!r, "inject: %s", errname(-r));
	r = where_is(c, 3, w, SEQ_BASE + 77, 2000);
	CHECK(r == 1, "vjtest0 frame to {dport} went to %d, want channel 1", r);
	CHECK(where_desc.ifindex == (uint32_t)vjt, "desc ifindex %u, want %d",
	      where_desc.ifindex, vjt);
	chan_close(&c[0]);
	chan_close(&c[1]);
	chan_close(&c[2]);
	close(w);
	close(w1);
	return 0;
}

struct netns_arg {
	uint16_t port;
	int init_ns;
};

static void netns_body(void *arg)
{
	struct netns_arg *a = arg;
	struct vj_flow f = flow4(0, NULL, 0, NULL, a->port, 0);
	struct test_chan outer, inner;
	int w = udp_listen(NULL, a->port);

	/* outer is created in the initial ns, inner in a fresh one. */
	chan_open(&outer, &f, 16, 2048);
	netns_new();
	chan_open(&inner, &f, 16, 2048);
	int wi = udp_listen(NULL, a->port);

	expect_route(&inner, 1, wi, NULL, 0, "127.0.0.1", a->port, 0,
		     "traffic inside the new ns reaches its channel");
	CHECK(chan_pending(&outer) == 0 &&
	      test_get_stats(outer.fd).rx_packets == 0,
	      "a channel of the initial ns saw traffic of another ns");
	if (setns(a->init_ns, CLONE_NEWNET))
		fail("setns back: %s", errname(errno));
	expect_route(&outer, 1, w, NULL, 0, "127.0.0.1", a->port, 0,
		     "traffic of the initial ns reaches its channel");
	CHECK(test_get_stats(inner.fd).rx_packets == 1,
	      "the channel of the new ns saw traffic of the initial ns");
	chan_close(&inner);
	chan_close(&outer);
	close(w);
	close(wi);
}

/*
 * Channels see only their own net ns: the same flow can exist in two
 * namespaces and each gets only its own namespace's packets.
 */
static int t_match_netns(void)
{
	struct netns_arg a = { tport(0), netns_fd_self() };

	in_child(netns_body, &a);
	close(a.init_ns);
	return 0;
}

/* A UDP socket on a port no channel claims keeps receiving, v4 and v6. */
static int t_unmatched_untouched(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	struct vj_flow f6 = flow6(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	int w = udp_listen(NULL, tport(1)), w6 = udp_listen("::", tport(1));
	struct test_chan c[2];
	int i;

	chan_open(&c[0], &f, 16, 2048);
	chan_open(&c[1], &f6, 16, 2048);
	for (i = 0; i < 10; i++) {
		expect_route(c, 2, w, NULL, 0, "127.0.0.1", tport(1), WITNESS,
			     "v4 other port");
		expect_route(c, 2, w6, NULL, 0, "::1", tport(1), WITNESS,
			     "v6 other port");
	}
	CHECK(!test_get_stats(c[0].fd).rx_packets &&
	      !test_get_stats(c[1].fd).rx_packets,
	      "channels counted packets of another port");
	chan_close(&c[0]);
	chan_close(&c[1]);
	close(w);
	close(w6);
	return 0;
}

/*
 * A claimed packet is consumed: a UDP socket bound to the channel's port
 * gets nothing while the channel exists, and everything once it closed.
 */
static int t_claimed_not_delivered_to_stack(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1", tport(0),
				 0);
	int w = udp_listen("127.0.0.1", tport(0)), i;
	struct test_chan c;

	chan_open(&c, &f, 16, 2048);
	for (i = 0; i < 5; i++)
		expect_route(&c, 1, w, NULL, 0, "127.0.0.1", tport(0), 0,
			     "while the channel exists");
	chan_close(&c);
	for (i = 0; i < 5; i++)
		expect_route(&c, 0, w, NULL, 0, "127.0.0.1", tport(0), WITNESS,
			     "after the channel closed");
	close(w);
	return 0;
}

/*
 * The protocol field separates UDP from TCP: a {UDP,dport} channel leaves
 * a TCP SYN to the stack (connect is refused), a {TCP,dport} or {dport}
 * channel takes it (connect does not complete).
 */
static int t_match_proto(void)
{
	struct vj_flow fu = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	struct vj_flow ft = flow4(IPPROTO_TCP, NULL, 0, NULL, tport(1), 0);
	struct vj_flow fa = flow4(0, NULL, 0, NULL, tport(2), 0);
	struct test_chan cu, ct, ca;
	struct test_chan *chans[2] = { &ct, &ca };
	uint16_t ports[2] = { tport(1), tport(2) };
	struct sockaddr_storage ss;
	socklen_t len;
	int s, i;

	chan_open(&cu, &fu, 16, 2048);
	chan_open(&ct, &ft, 16, 2048);
	chan_open(&ca, &fa, 16, 2048);

	parse_addr("127.0.0.1", tport(0), &ss, &len);
	s = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(s >= 0, "socket(TCP)");
	EXPECT_ERR(connect(s, (struct sockaddr *)&ss, len), ECONNREFUSED,
		   "TCP connect to the port of a UDP-only channel");
	close(s);
	CHECK(!test_get_stats(cu.fd).rx_packets,
	      "a UDP channel took a TCP segment");

	for (i = 0; i < 2; i++) {
		struct pkt_info pi;
		struct pollfd pfd;
		const char *why;

		parse_addr("127.0.0.1", ports[i], &ss, &len);
		s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		CHECK(s >= 0, "socket(TCP)");
		CHECK(connect(s, (struct sockaddr *)&ss, len) && errno ==
		      EINPROGRESS, "nonblocking connect did not start");
		CHECK(chan_recv(chans[i], &pkt, 3000),
		      "%s channel did not get the SYN", i ? "{dport}" : "{TCP}");
		why = pkt_parse(&pkt, &pi);
		CHECK(!why, "SYN: %s", why);
		CHECK(pi.proto == IPPROTO_TCP && pi.dport == ports[i] &&
		      (pi.tcp_flags & 0x02), "not a SYN to %u (proto %u dport "
		      "%u flags %#x)", ports[i], pi.proto, pi.dport,
		      pi.tcp_flags);
		pfd = (struct pollfd){ .fd = s, .events = POLLOUT };
		CHECK(poll(&pfd, 1, 300) == 0,
		      "connect completed although the channel took the SYN");
		close(s);
	}
	chan_close(&cu);
	chan_close(&ct);
	chan_close(&ca);
	return 0;
}

static int icmp_echo(const char *daddr, uint16_t id)
{
	struct sockaddr_storage ss;
	socklen_t len;
	uint8_t msg[16] = { 8, 0, 0, 0, id >> 8, id & 0xff, 0, 1 };
	uint16_t c;
	int s;

	s = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
	if (s < 0)
		fail("raw ICMP socket: %s", errname(errno));
	c = csum_fold32(csum_add(0, msg, sizeof(msg)));
	msg[2] = c >> 8;
	msg[3] = c & 0xff;
	parse_addr(daddr, 0, &ss, &len);
	if (sendto(s, msg, sizeof(msg), 0, (struct sockaddr *)&ss, len) < 0)
		fail("send ICMP echo: %s", errname(errno));
	return s;
}

/* true if an echo reply with this id came back on the raw socket. */
static bool icmp_reply(int s, uint16_t id, int ms)
{
	uint8_t buf[256];
	struct pollfd pfd = { .fd = s, .events = POLLIN };
	uint64_t end = now_ns() + (uint64_t)ms * 1000000ull;

	while (now_ns() < end) {
		ssize_t n;

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		n = recv(s, buf, sizeof(buf), MSG_DONTWAIT);
		if (n >= 28 && buf[20] == 0 && (buf[24] << 8 | buf[25]) == id)
			return true;
	}
	return false;
}

/*
 * Protocols without ports have ports 0: ICMP matches a flow whose ports
 * are wildcards, never one with a port.
 */
static int t_match_portless(void)
{
	struct vj_flow fa = flow4(0, NULL, 0, "127.0.0.8", 0, 0);
	struct vj_flow fp = flow4(0, NULL, 0, "127.0.0.9", 7, 0);
	struct test_chan ca, cp;
	struct pkt_info pi;
	int s;

	chan_open(&ca, &fa, 16, 2048);
	chan_open(&cp, &fp, 16, 2048);
	s = icmp_echo("127.0.0.8", 0x1234);
	CHECK(chan_recv(&ca, &pkt, 3000),
	      "{daddr} channel did not get the ICMP echo");
	CHECK(!pkt_parse(&pkt, &pi) && pi.proto == IPPROTO_ICMP,
	      "{daddr} channel got proto %u", pi.proto);
	CHECK(!icmp_reply(s, 0x1234, 300),
	      "the stack answered an echo the channel took");
	close(s);
	s = icmp_echo("127.0.0.9", 0x4321);
	CHECK(icmp_reply(s, 0x4321, 3000),
	      "echo to a {daddr,dport} channel's address got no reply");
	chan_expect_empty(&cp, "ICMP matched a flow with a port");
	close(s);
	chan_close(&ca);
	chan_close(&cp);
	return 0;
}

/* Sends a UDP datagram to 127.0.0.1:dport as two IPv4 fragments. */
static void send_frags4(uint16_t dport, uint32_t seq, uint32_t plen)
{
	uint8_t dgram[1500], pkt1[1600];
	uint32_t ulen = plen + 8, first = 504, part;
	struct sockaddr_storage ss;
	socklen_t len;
	int s, one = 1, f;

	dgram[0] = 0x30; dgram[1] = 0x39;	/* sport 12345 */
	dgram[2] = dport >> 8; dgram[3] = dport & 0xff;
	dgram[4] = ulen >> 8; dgram[5] = ulen & 0xff;
	dgram[6] = dgram[7] = 0;		/* no checksum */
	payload_fill(dgram + 8, plen, seq);

	s = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (s < 0)
		fail("raw socket: %s", errname(errno));
	setsockopt(s, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one));
	parse_addr("127.0.0.1", 0, &ss, &len);
	for (f = 0; f < 2; f++) {
		uint32_t off = f ? first : 0, tot;
		uint16_t fo = (off / 8) | (f ? 0 : 0x2000);
		uint16_t c;

		part = f ? ulen - first : first;
		tot = 20 + part;
		memset(pkt1, 0, 20);
		pkt1[0] = 0x45;
		pkt1[2] = tot >> 8; pkt1[3] = tot & 0xff;
		pkt1[4] = seq >> 8; pkt1[5] = (seq & 0xff) | 1;	/* id */
		pkt1[6] = fo >> 8; pkt1[7] = fo & 0xff;
		pkt1[8] = 64;
		pkt1[9] = IPPROTO_UDP;
		pkt1[12] = 127; pkt1[15] = 1;
		pkt1[16] = 127; pkt1[19] = 1;
		c = csum_fold32(csum_add(0, pkt1, 20));
		pkt1[10] = c >> 8; pkt1[11] = c & 0xff;
		memcpy(pkt1 + 20, dgram + off, part);
		if (sendto(s, pkt1, tot, 0, (struct sockaddr *)&ss, len) < 0)
			fail("send fragment: %s", errname(errno));
	}
	close(s);
}

/* Sends a UDP datagram to [::1]:dport as two IPv6 fragments. */
static void send_frags6(uint16_t dport, uint32_t seq, uint32_t plen)
{
	uint8_t dgram[1500], p[1600], src[16] = { [15] = 1 };
	uint32_t ulen = plen + 8, first = 504, sum = 0, f;
	struct sockaddr_storage ss;
	socklen_t len;
	uint16_t c;
	int s;

	dgram[0] = 0x30; dgram[1] = 0x39;
	dgram[2] = dport >> 8; dgram[3] = dport & 0xff;
	dgram[4] = ulen >> 8; dgram[5] = ulen & 0xff;
	dgram[6] = dgram[7] = 0;
	payload_fill(dgram + 8, plen, seq);
	sum = csum_add(sum, src, 16);
	sum = csum_add(sum, src, 16);
	sum += IPPROTO_UDP + ulen;
	sum = csum_add(sum, dgram, ulen);
	c = csum_fold32(sum);
	dgram[6] = c >> 8; dgram[7] = c & 0xff;

	s = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (s < 0)
		fail("raw IPv6 socket: %s", errname(errno));
	parse_addr("::1", 0, &ss, &len);
	for (f = 0; f < 2; f++) {
		uint32_t off = f ? first : 0, part = f ? ulen - first : first;
		uint16_t fo = (off & ~7u) | (f ? 0 : 1);
		uint32_t pl = 8 + part;

		memset(p, 0, 48);
		p[0] = 0x60;
		p[4] = pl >> 8; p[5] = pl & 0xff;
		p[6] = 44;		/* fragment header */
		p[7] = 64;
		memcpy(p + 8, src, 16);
		memcpy(p + 24, src, 16);
		p[40] = IPPROTO_UDP;
		p[42] = fo >> 8; p[43] = fo & 0xff;
		p[44] = seq >> 24; p[45] = seq >> 16; p[46] = seq >> 8;
		p[47] = seq | 1;
		memcpy(p + 48, dgram + off, part);
		if (sendto(s, p, 48 + part, 0, (struct sockaddr *)&ss, len) < 0)
			fail("send IPv6 fragment: %s", errname(errno));
	}
	close(s);
}

/*
 * IP fragments never match a channel: a fragmented datagram to a claimed
 * port is reassembled by the stack and reaches the UDP socket there,
 * IPv4 and IPv6; an unfragmented one is still claimed.
 */
static int t_match_fragments(void)
{
	struct vj_flow f4 = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	struct vj_flow f6 = flow6(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	struct vj_flow fd = flow4(0, NULL, 0, "127.0.0.1", 0, 0);
	int w4 = udp_listen(NULL, tport(0)), w6 = udp_listen("::", tport(0));
	struct test_chan c[2], cd;
	struct pkt_info pi;
	struct test_pkt pkt;
	uint32_t seq, len;

	chan_open(&c[0], &f4, 16, 2048);
	chan_open(&c[1], &f6, 16, 2048);
	/*
	 * IPv4 is reassembled before LOCAL_IN: the whole datagram reaches
	 * the channel through the filtered path, nothing to the stack.
	 */
	send_frags4(tport(0), SEQ_BASE + 1000, 1000);
	CHECK(chan_recv(&c[0], &pkt, 3000),
	      "reassembled IPv4 datagram did not reach the channel");
	CHECK((pkt.d.flags & VJ_DESC_F_FILTERED),
	      "flags %#x", pkt.d.flags);
	pkt_expect_udp(&pkt, &pi, &seq);
	CHECK(seq == SEQ_BASE + 1000 && pi.udp_len == 1000 && !pi.frag,
	      "got seq %#x len %u%s", seq, pi.udp_len,
	      pi.frag ? " (a fragment)" : "");
	CHECK(!udp_recv_seq(w4, 200, &seq, &len),
	      "the reassembled datagram reached the stack too");
	CHECK(test_get_stats(c[0].fd).rx_filtered == 1, "rx_filtered %llu",
	      (unsigned long long)test_get_stats(c[0].fd).rx_filtered);
	/*
	 * IPv6 is reassembled after LOCAL_IN when conntrack is not loaded:
	 * the fragments go to the stack.
	 */
	send_frags6(tport(0), SEQ_BASE + 2000, 1000);
	CHECK(udp_recv_seq(w6, 3000, &seq, &len),
	      "reassembled IPv6 datagram did not reach the stack");
	CHECK(seq == SEQ_BASE + 2000 && len == 1000, "got seq %#x len %u",
	      seq, len);
	chan_expect_empty(&c[0], "IPv4 fragments matched a channel");
	chan_expect_empty(&c[1], "IPv6 fragments matched a channel");
	CHECK(!test_get_stats(c[1].fd).rx_packets &&
	      !test_get_stats(c[1].fd).rx_ring_full, "v6 channel counted fragments");
	expect_route(c, 2, w4, NULL, 0, "127.0.0.1", tport(0), 0,
		     "unfragmented datagram");
	chan_close(&c[0]);
	chan_close(&c[1]);

	/* A portless {daddr} flow gets the reassembled datagram, once. */
	chan_open(&cd, &fd, 16, 2048);
	send_frags4(tport(0), SEQ_BASE + 3000, 1000);
	CHECK(chan_recv(&cd, &pkt, 3000),
	      "{daddr} channel did not get the reassembled datagram");
	pkt_expect_udp(&pkt, &pi, &seq);
	CHECK(seq == SEQ_BASE + 3000 && !pi.frag, "got seq %#x%s", seq,
	      pi.frag ? " (a fragment)" : "");
	chan_expect_empty(&cd, "after the reassembled datagram");
	CHECK(!udp_recv_seq(w4, 200, &seq, &len),
	      "the reassembled datagram reached the stack too");
	chan_close(&cd);
	close(w4);
	close(w6);
	return 0;
}

const struct vj_case match_cases[] = {
	VJ_CASE("MATCH_EXACT", t_match_exact),
	VJ_CASE("MATCH_WILDCARD_DPORT", t_match_wildcard_dport),
	VJ_CASE("MATCH_MOST_SPECIFIC", t_match_most_specific),
	VJ_CASE("MATCH_TIE_RULE", t_match_tie_rule),
	VJ_CASE("MATCH_IPV6", t_match_ipv6),
	VJ_CASE("MATCH_IFINDEX", t_match_ifindex),
	VJ_CASE("MATCH_NETNS", t_match_netns),
	VJ_CASE("MATCH_PROTO", t_match_proto),
	VJ_CASE("MATCH_PORTLESS", t_match_portless),
	VJ_CASE("MATCH_FRAGMENTS", t_match_fragments),
	VJ_CASE("UNMATCHED_UNTOUCHED", t_unmatched_untouched),
	VJ_CASE("CLAIMED_NOT_DELIVERED_TO_STACK",
		t_claimed_not_delivered_to_stack),
	{ NULL }
};
