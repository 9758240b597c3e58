// SPDX-License-Identifier: GPL-2.0
/*
 * Large and fragmented datagrams on UDP channel sockets: with the default
 * ring, a channel receives every datagram an ordinary UDP socket receives,
 * up to the largest UDP allows, fragmented on the way (lo's MTU lowered to
 * 1500) and reassembled by IP, in the filtered mode and in bypass mode.
 * Side by side: the same datagrams to a channel and to an ordinary socket,
 * and what each program gets must be equal.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "t_udp.h"

#define BIG	65535

/* lo's MTU while the case runs, restored after. */
static void lo_mtu(unsigned int mtu)
{
	CHECK(!sh("ip link set dev lo mtu %u", mtu), "set lo's MTU to %u", mtu);
}

static void send_big(int fd, const char *addr, uint16_t port, uint8_t *buf,
		     size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl;

	parse_addr(addr, port, &ss, &sl);
	CHECK(sendto(fd, buf, len, 0, (struct sockaddr *)&ss, sl) ==
	      (ssize_t)len, "sendto %s:%u (%zu bytes): %s", addr, port, len,
	      errname(errno));
}

/* Wait up to @ms for a datagram; its length, or -1. */
static long recv_big(int fd, uint8_t *buf, struct sockaddr_storage *from,
		     int ms)
{
	socklen_t fl = sizeof(*from);
	long n = -1;

	if (!WAIT_FOR((n = recvfrom(fd, buf, BIG, MSG_DONTWAIT,
				    (struct sockaddr *)from, &fl)) >= 0 ||
		      errno != EAGAIN, ms))
		return -1;
	return n;
}

static void fragments(int family, uint32_t mode)
{
	static const size_t sizes4[] = { 1, 1472, 1473, 2100, 9000, 30000,
					 65507 };
	static const size_t sizes6[] = { 1, 1452, 1453, 2100, 9000, 30000,
					 65527 };
	const size_t *sizes = family == AF_INET ? sizes4 : sizes6;
	const char *lo = family == AF_INET ? "127.0.0.1" : "::1";
	const char *any = family == AF_INET ? "0.0.0.0" : "::";
	static uint8_t out[BIG], bu[BIG], bc[BIG];
	struct sockaddr_storage fu, fc;
	uint16_t pu = tport(0), pc = tport(1);
	struct vj_statistics st;
	int u, c, tx;
	unsigned int i;
	long nu, nc;

	u = udp_plain(family);
	c = udp_chan(family);
	EXPECT_OK(setsockopt(c, SOL_VJCHAN, VJ_BIND_FLAGS, &mode, sizeof(mode)),
		  "VJ_BIND_FLAGS %u", mode);
	EXPECT_OK(udp_bind_to(u, any, pu), "bind UDP");
	EXPECT_OK(udp_bind_to(c, any, pc), "bind the channel");
	tx = udp_plain(family);
	EXPECT_OK(udp_bind_to(tx, lo, 0), "bind the sender");
	for (i = 0; i < 7; i++) {
		payload_fill(out, sizes[i], 100 + i);
		send_big(tx, lo, pu, out, sizes[i]);
		send_big(tx, lo, pc, out, sizes[i]);
		nu = recv_big(u, bu, &fu, 2000);
		nc = recv_big(c, bc, &fc, 2000);
		CHECK(nu == (long)sizes[i],
		      "mode %u: the UDP socket got %ld of %zu bytes", mode, nu,
		      sizes[i]);
		CHECK(nc == nu && !memcmp(bu, bc, nu),
		      "mode %u, %zu bytes: the channel got %ld (%s)%s", mode,
		      sizes[i], nc, nc < 0 ? errname(errno) : "ok",
		      nc == nu ? ", not the same bytes" : "");
		((struct sockaddr_in *)&fu)->sin_port = 0;
		((struct sockaddr_in *)&fc)->sin_port = 0;
		CHECK(!memcmp(&fu, &fc, family == AF_INET ?
			      sizeof(struct sockaddr_in) :
			      sizeof(struct sockaddr_in6)),
		      "mode %u, %zu bytes: the sender's addresses differ", mode,
		      sizes[i]);
	}
	st = test_get_stats(c);
	CHECK(st.rx_packets == 7 && !st.rx_truncated && !st.rx_udp_malformed &&
	      !st.rx_ring_full,
	      "mode %u: rx_packets %llu (want 7), truncated %llu, malformed "
	      "%llu, ring_full %llu", mode, (unsigned long long)st.rx_packets,
	      (unsigned long long)st.rx_truncated,
	      (unsigned long long)st.rx_udp_malformed,
	      (unsigned long long)st.rx_ring_full);
	close(tx);
	close(c);
	close(u);
}

static int t_fragments(int family)
{
	lo_mtu(1500);
	fragments(family, VJ_BIND_FW_FILTERED);
	fragments(family, VJ_BIND_FW_BYPASS);
	lo_mtu(65536);
	return 0;
}

static int t_fragments4(void)
{
	return t_fragments(AF_INET);
}

static int t_fragments6(void)
{
	return t_fragments(AF_INET6);
}

/*
 * Held datagrams are charged against the channel socket's SO_RCVBUF, as a
 * UDP socket's queue: past it, the next one is dropped and counted
 * (rx_ring_full) while the queued ones stay; after they are read, the
 * next is taken again.
 */
static int t_held_rcvbuf(void)
{
	static uint8_t out[BIG], in[BIG];
	uint16_t port = tport(0);
	struct sockaddr_storage from;
	struct vj_statistics st;
	int rcvbuf = 4096, c, tx;
	unsigned int i, got = 0;

	c = udp_chan(AF_INET);
	EXPECT_OK(setsockopt(c, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)),
		  "SO_RCVBUF");
	EXPECT_OK(udp_bind_to(c, "127.0.0.1", port), "bind the channel");
	tx = udp_plain(AF_INET);
	for (i = 0; i < 8; i++) {
		payload_fill(out, 30000, i);
		send_big(tx, "127.0.0.1", port, out, 30000);
	}
	CHECK(WAIT_FOR(vj_stat_total(c) == 8, 2000),
	      "rx_packets + rx_ring_full %llu, want 8",
	      (unsigned long long)vj_stat_total(c));
	st = test_get_stats(c);
	CHECK(st.rx_packets >= 1 && st.rx_ring_full >= 1,
	      "rx_packets %llu, rx_ring_full %llu: want both (SO_RCVBUF %d)",
	      (unsigned long long)st.rx_packets,
	      (unsigned long long)st.rx_ring_full, rcvbuf);
	while (recv_big(c, in, &from, 200) == 30000)
		got++;
	CHECK(got == st.rx_packets, "read %u of %llu held", got,
	      (unsigned long long)st.rx_packets);
	send_big(tx, "127.0.0.1", port, out, 30000);
	CHECK(recv_big(c, in, &from, 2000) == 30000,
	      "nothing taken after the held ones were read");
	close(tx);
	close(c);
	return 0;
}

/*
 * IPv6 destination options longer than the headers a receiving call
 * checks in a copy (VJ_UDP_HDR_MAX, 256 bytes): the sender sets a 512-byte
 * IPV6_DSTOPTS header; a channel gets the datagrams an ordinary socket
 * gets, in both modes.
 */
static int t_long_exthdrs(void)
{
	static uint8_t opt[512], out[256], bu[BIG], bc[BIG];
	uint16_t pu = tport(0), pc = tport(1);
	struct sockaddr_storage fu, fc;
	uint32_t modes[] = { VJ_BIND_FW_FILTERED, VJ_BIND_FW_BYPASS };
	unsigned int m;
	int u, c, tx;
	long nu, nc;

	/*
	 * Next header (filled in by the kernel), length, two options of 253
	 * bytes of the experimental type 0x1e (RFC 4727), which a receiver
	 * skips (the stack drops PadN longer than 7 bytes).
	 */
	opt[1] = sizeof(opt) / 8 - 1;
	opt[2] = 0x1e;
	opt[3] = 253;
	opt[257] = 0x1e;
	opt[258] = 253;
	for (m = 0; m < 2; m++) {
		u = udp_plain(AF_INET6);
		c = udp_chan(AF_INET6);
		EXPECT_OK(setsockopt(c, SOL_VJCHAN, VJ_BIND_FLAGS, &modes[m],
				     sizeof(modes[m])), "VJ_BIND_FLAGS");
		EXPECT_OK(udp_bind_to(u, "::", pu), "bind UDP");
		EXPECT_OK(udp_bind_to(c, "::", pc), "bind the channel");
		tx = udp_plain(AF_INET6);
		EXPECT_OK(setsockopt(tx, SOL_IPV6, IPV6_DSTOPTS, opt,
				     sizeof(opt)), "IPV6_DSTOPTS, 512 bytes");
		payload_fill(out, sizeof(out), 40 + m);
		send_big(tx, "::1", pu, out, sizeof(out));
		send_big(tx, "::1", pc, out, sizeof(out));
		nu = recv_big(u, bu, &fu, 2000);
		nc = recv_big(c, bc, &fc, 2000);
		CHECK(nu == (long)sizeof(out), "mode %u: the UDP socket got %ld",
		      modes[m], nu);
		CHECK(nc == nu && !memcmp(bu, bc, nu),
		      "mode %u: the channel got %ld bytes (%s), malformed %llu",
		      modes[m], nc, nc < 0 ? errname(errno) : "ok",
		      (unsigned long long)test_get_stats(c).rx_udp_malformed);
		close(tx);
		close(c);
		close(u);
	}
	return 0;
}

const struct vj_case udp_large_cases[] = {
	VJ_CASE("UDP_FRAGMENTS4", t_fragments4),
	VJ_CASE("UDP_FRAGMENTS6", t_fragments6),
	VJ_CASE("UDP_HELD_RCVBUF", t_held_rcvbuf),
	VJ_CASE("UDP_LONG_EXTHDRS", t_long_exthdrs),
	{ NULL }
};
