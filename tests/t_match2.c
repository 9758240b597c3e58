// SPDX-License-Identifier: GPL-2.0
/*
 * Flow match cases, part 2: transport protocols with and without ports,
 * IPv4 options, many channels at once, and a differential test of the
 * classifier against a reference implementation of the documented rule.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static struct test_pkt pkt;

/* Sends a raw IPv4 packet of protocol proto whose payload starts with ports. */
static void send_l4(uint8_t proto, uint16_t sport, uint16_t dport, int len)
{
	uint8_t buf[256] = { 0 };
	struct sockaddr_storage ss;
	socklen_t sl;
	int s = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, proto);

	if (s < 0)
		fail("raw socket proto %u: %s", proto, errname(errno));
	buf[0] = sport >> 8; buf[1] = sport & 0xff;
	buf[2] = dport >> 8; buf[3] = dport & 0xff;
	parse_addr("127.0.0.1", 0, &ss, &sl);
	if (sendto(s, buf, len, 0, (struct sockaddr *)&ss, sl) < 0)
		fail("send raw proto %u: %s", proto, errname(errno));
	close(s);
}

/*
 * Ports come from UDP-Lite, SCTP and DCCP headers as from UDP and TCP;
 * any other protocol has ports 0 even if its first bytes look like ports:
 * it matches {proto} but never {proto, dport}.
 */
static int t_match_l4_ports(void)
{
	static const uint8_t protos[] = { IPPROTO_UDPLITE, IPPROTO_SCTP,
					  IPPROTO_DCCP };
	struct vj_flow fg = flow4(IPPROTO_GRE, NULL, 0, NULL, tport(9), 0);
	struct vj_flow fga = flow4(IPPROTO_GRE, NULL, 0, "127.0.0.1", 0, 0);
	struct test_chan cg, cga;
	struct pkt_info pi;
	size_t i;

	for (i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		struct vj_flow f = flow4(protos[i], NULL, tport(1), NULL,
					 tport(0), 0);
		struct vj_flow o = flow4(protos[i], NULL, 0, NULL, tport(2), 0);
		struct test_chan c, co;

		chan_open(&c, &f, 8, 2048);
		chan_open(&co, &o, 8, 2048);
		send_l4(protos[i], tport(1), tport(0), 64);
		CHECK(chan_recv(&c, &pkt, 3000),
		      "proto %u: {proto,sport,dport} channel got nothing",
		      protos[i]);
		CHECK(!pkt_parse(&pkt, &pi) && pi.proto == protos[i] &&
		      pi.sport == tport(1) && pi.dport == tport(0),
		      "proto %u: got proto %u ports %u %u", protos[i], pi.proto,
		      pi.sport, pi.dport);
		chan_expect_empty(&co, "packet in the other-port channel");
		chan_close(&c);
		chan_close(&co);
	}
	chan_open(&cg, &fg, 8, 2048);
	chan_open(&cga, &fga, 8, 2048);
	send_l4(IPPROTO_GRE, tport(8), tport(9), 64);
	CHECK(chan_recv(&cga, &pkt, 3000), "{GRE, daddr} channel got nothing");
	CHECK(!pkt_parse(&pkt, &pi) && pi.proto == IPPROTO_GRE,
	      "{GRE} channel got proto %u", pi.proto);
	chan_expect_empty(&cg, "GRE matched a flow with a port");
	chan_close(&cg);
	chan_close(&cga);
	return 0;
}

/* IPv4 options move the transport header: ports are still found. */
static int t_match_ip_options(void)
{
	static const uint8_t opts[][8] = {
		{ 1, 1, 1, 0 },				/* NOP NOP NOP EOL */
		{ 1, 1, 1, 1, 1, 1, 1, 0 },
	};
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, tport(1), "127.0.0.1",
				 tport(0), 0);
	int w = udp_listen(NULL, tport(0));
	struct test_chan c;
	size_t i;

	chan_open(&c, &f, 8, 2048);
	for (i = 0; i < 2; i++) {
		struct udp_tx tx;
		struct pkt_info pi;
		uint32_t seq;

		tx_open(&tx, NULL, tport(1), "127.0.0.1", tport(0));
		EXPECT_OK(setsockopt(tx.fd, IPPROTO_IP, IP_OPTIONS, opts[i],
				     4 * (i + 1)), "IP_OPTIONS");
		tx_send(&tx, 40 + i, 100);
		tx_close(&tx);
		CHECK(chan_recv(&c, &pkt, 3000),
		      "datagram with %zu bytes of IP options not claimed",
		      4 * (i + 1));
		pkt_expect_udp(&pkt, &pi, &seq);
		CHECK((pi.l3[0] & 15) == 5 + i + 1 && seq == 40 + i,
		      "ihl %u seq %u", pi.l3[0] & 15, seq);
	}
	CHECK(!udp_recv_seq(w, 100, NULL, NULL), "stack got a claimed datagram");
	chan_close(&c);
	close(w);
	return 0;
}

#define NMANY		200
#define MANY_BASE	27000

/*
 * 200 channels on distinct ports each get exactly their own packets, and
 * /proc/net/vjchan lists all 200.
 */
static int t_many_channels(void)
{
	struct test_chan *c = calloc(NMANY, sizeof(*c));
	int before = proc_chan_lines(), i, k, lines;
	struct udp_tx tx;

	for (i = 0; i < NMANY; i++) {
		struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
					 MANY_BASE + i, 0);

		step("opening channel %d", i);
		chan_open(&c[i], &f, 8, 2048);
	}
	lines = proc_chan_lines();
	CHECK(lines == before + NMANY, "/proc/net/vjchan lists %d channels, "
	      "want %d + %d", lines, before, NMANY);
	tx_open(&tx, NULL, 0, "127.0.0.1", 0);
	for (k = 0; k < 2; k++)
		for (i = 0; i < NMANY; i++) {
			struct sockaddr_in *d = (struct sockaddr_in *)&tx.dst;

			d->sin_port = htons(MANY_BASE + i);
			tx_send(&tx, i * 2 + k, 64);
		}
	tx_close(&tx);
	for (i = 0; i < NMANY; i++) {
		for (k = 0; k < 2; k++) {
			struct pkt_info pi;
			uint32_t seq;

			step("channel %d packet %d", i, k);
			CHECK(chan_recv(&c[i], &pkt, 3000),
			      "channel %d: packet %d missing", i, k);
			pkt_expect_udp(&pkt, &pi, &seq);
			CHECK(seq == (uint32_t)(i * 2 + k) &&
			      pi.dport == MANY_BASE + i,
			      "channel %d got seq %u dport %u", i, seq,
			      pi.dport);
		}
		chan_expect_empty(&c[i], "extra packet");
	}
	for (i = 0; i < NMANY; i++)
		chan_close(&c[i]);
	lines = proc_chan_lines();
	CHECK(lines == before, "/proc/net/vjchan lists %d channels after "
	      "closing, want %d", lines, before);
	free(c);
	return 0;
}

/* --- a differential test of the classifier -------------------------- */

struct rflow {
	uint8_t proto;
	int saddr, daddr;	/* index into addrs, -1 any */
	int sport, dport;	/* index into ports, -1 any */
	int lo;			/* ifindex lo, or any */
};

static const char *const r_addrs[] = { "127.0.0.2", "127.0.0.3" };
static const char *const r_daddrs[] = { "127.0.0.1", "127.0.0.4" };

static unsigned int r_mask(const struct rflow *f)
{
	return (f->dport >= 0) << 5 | (f->daddr >= 0) << 4 |
	       (f->sport >= 0) << 3 | (f->saddr >= 0) << 2 |
	       (!!f->proto) << 1 | (!!f->lo);
}

static bool r_matches(const struct rflow *f, int sa, int da, int sp, int dp)
{
	return (f->saddr < 0 || f->saddr == sa) &&
	       (f->daddr < 0 || f->daddr == da) &&
	       (f->sport < 0 || f->sport == sp) &&
	       (f->dport < 0 || f->dport == dp);
}

static bool r_better(unsigned int a, unsigned int b)
{
	int pa = __builtin_popcount(a), pb = __builtin_popcount(b);

	return pa != pb ? pa > pb : a > b;
}

/*
 * Random sets of overlapping flows against random packets, compared with
 * a reference implementation of the documented rule; identical flows must
 * be refused with EADDRINUSE.
 */
static int t_match_random(void)
{
	uint16_t ports[3] = { tport(0), tport(1), tport(2) };
	struct rflow fl[24];
	struct test_chan c[24];
	int w[3], round, n, i;
	unsigned int seed = 0x5eed;

	for (i = 0; i < 3; i++)
		w[i] = udp_listen(NULL, ports[i]);
	for (round = 0; round < 4; round++) {
		n = 0;
		while (n < 24) {
			struct rflow r;
			struct vj_flow f;
			bool dup = false;
			int fd, j;

			r.proto = rand_r(&seed) % 2 ? IPPROTO_UDP : 0;
			r.saddr = rand_r(&seed) % 3 - 1;
			r.daddr = rand_r(&seed) % 3 - 1;
			r.sport = rand_r(&seed) % 4 - 1;
			if (r.sport > 2)
				r.sport = -1;
			r.dport = rand_r(&seed) % 4 - 1;
			if (r.dport > 2)
				r.dport = -1;
			r.lo = rand_r(&seed) % 2;
			if (r.dport < 0 && r.daddr < 0)
				continue;	/* too broad for lo */
			f = flow4(r.proto, r.saddr < 0 ? NULL : r_addrs[r.saddr],
				  r.sport < 0 ? 0 : ports[r.sport],
				  r.daddr < 0 ? NULL : r_daddrs[r.daddr],
				  r.dport < 0 ? 0 : ports[r.dport], r.lo);
			for (j = 0; j < n; j++)
				dup |= !memcmp(&fl[j], &r, sizeof(r));
			fd = test_socket();
			EXPECT_OK(test_set_ring(fd, 8, 2048), "VJ_RING");
			if (dup) {
				EXPECT_ERR(test_bind(fd, &f), EADDRINUSE,
					   "identical random flow");
				close(fd);
				continue;
			}
			EXPECT_OK(test_bind(fd, &f), "random flow %d", n);
			chan_init(&c[n], fd);
			chan_map(&c[n]);
			fl[n++] = r;
		}
		for (i = 0; i < 40; i++) {
			int sa = rand_r(&seed) % 2, da = rand_r(&seed) % 2;
			int sp = rand_r(&seed) % 3, dp = rand_r(&seed) % 3;
			int best = WITNESS, j;
			char what[64];

			for (j = 0; j < n; j++)
				if (r_matches(&fl[j], sa, da, sp, dp) &&
				    (best == WITNESS ||
				     r_better(r_mask(&fl[j]), r_mask(&fl[best]))))
					best = j;
			snprintf(what, sizeof(what), "round %d packet %d",
				 round, i);
			expect_route(c, n, w[dp], r_addrs[sa], ports[sp],
				     r_daddrs[da], ports[dp], best, what);
		}
		for (i = 0; i < n; i++)
			chan_close(&c[i]);
	}
	for (i = 0; i < 3; i++)
		close(w[i]);
	return 0;
}

const struct vj_case match2_cases[] = {
	VJ_CASE("MATCH_L4_PORTS", t_match_l4_ports),
	VJ_CASE("MATCH_IP_OPTIONS", t_match_ip_options),
	VJ_CASE_T("MANY_CHANNELS", t_many_channels, 90),
	VJ_CASE_T("MATCH_RANDOM", t_match_random, 120),
	{ NULL }
};
