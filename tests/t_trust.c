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

static struct vj_pkt pkt;

/* --- IPv6 extension headers ------------------------------------------ */

static const uint8_t exthdrs[] = { 0, 51, 60 };	/* hop-by-hop, AH, dst */

static unsigned int exthdr_len(uint8_t type)
{
	return type == 51 ? 24 : 8;
}

/* p is a packet of the channel: IPv6 + one extension header + UDP. */
static void expect_ext(const struct vj_pkt *p, uint8_t type, uint16_t dport,
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
	struct vj_chan c;
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
static void send_ext_lo(uint8_t type, uint16_t dport)
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
	u = x + el;
	u[0] = 0x03;			/* sport 1000 */
	u[1] = 0xe8;
	u[2] = dport >> 8;
	u[3] = dport & 0xff;
	u[5] = 8 + 16;			/* UDP length; checksum left 0 */
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
	struct vj_chan c;
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

const struct vj_case trust_cases[] = {
	VJ_CASE("IPV6_EXTHDR_DRIVER", t_ipv6_exthdr_driver),
	VJ_CASE("IPV6_EXTHDR_HOOK", t_ipv6_exthdr_hook),
	{ 0 }
};
