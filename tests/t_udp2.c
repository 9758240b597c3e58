// SPDX-License-Identifier: GPL-2.0
/*
 * UDP channel sockets: port reservation both ways, privileges and options,
 * malformed datagrams from the test driver (counted, never delivered), and
 * the send side against an ordinary UDP socket.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "harness.h"
#include "t_udp.h"

static const char *any_of(int family)
{
	return family == AF_INET ? "0.0.0.0" : "::";
}

static const char *lo_of(int family)
{
	return family == AF_INET ? "127.0.0.1" : "::1";
}

static void reuse(int fd)
{
	int one = 1;

	EXPECT_OK(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)),
		  "SO_REUSEADDR");
	EXPECT_OK(setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)),
		  "SO_REUSEPORT");
}

static int port_hold(int family)
{
	uint16_t p = tport(0), q = tport(1);
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int c, c2, u, v;
	socklen_t len;

	/* The channel holds P: no ordinary socket gets it unless both have
	 * the reuse options, as between two UDP sockets.
	 */
	c = udp_chan(family);
	reuse(c);
	len = sizeof(v);
	EXPECT_OK(getsockopt(c, SOL_SOCKET, SO_REUSEPORT, &v, &len),
		  "get SO_REUSEPORT");
	CHECK(v == 1, "SO_REUSEPORT reads %d after setting 1", v);
	EXPECT_OK(udp_bind_to(c, any_of(family), p), "bind channel");
	u = udp_plain(family);
	EXPECT_ERR(udp_bind_to(u, any_of(family), p), EADDRINUSE,
		   "ordinary bind of the channel's port");
	EXPECT_ERR(udp_bind_to(u, lo_of(family), p), EADDRINUSE,
		   "ordinary bind of the channel's port, loopback address");
	close(u);
	u = udp_plain(family);
	reuse(u);
	EXPECT_OK(udp_bind_to(u, any_of(family), p),
		  "ordinary bind with SO_REUSEADDR and SO_REUSEPORT");
	close(u);
	EXPECT_ERR(udp_bind_to(c, any_of(family), q), EINVAL, "second bind");

	/* An ordinary socket holds Q: no channel gets it unless both have
	 * the reuse options.
	 */
	u = udp_plain(family);
	reuse(u);
	EXPECT_OK(udp_bind_to(u, any_of(family), q), "ordinary bind");
	c2 = udp_chan(family);
	EXPECT_ERR(udp_bind_to(c2, any_of(family), q), EADDRINUSE,
		   "channel bind of an ordinary socket's port");
	close(c2);
	c2 = udp_chan(family);
	reuse(c2);
	EXPECT_OK(udp_bind_to(c2, any_of(family), q),
		  "channel bind with the reuse options beside an ordinary one");
	close(c2);
	c2 = udp_chan(family);
	EXPECT_ERR(udp_bind_to(c2, lo_of(family), q), EADDRINUSE,
		   "channel bind of an ordinary socket's port, loopback");
	close(c2);

	/* Address checks, as UDP makes them. */
	c2 = udp_chan(family);
	if (family == AF_INET6) {
		EXPECT_ERR(bind(c2, (struct sockaddr *)&sin, sizeof(sin)),
			   EINVAL, "short sockaddr_in6");
	} else {
		struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };

		EXPECT_ERR(bind(c2, (struct sockaddr *)&s6, sizeof(s6)),
			   EAFNOSUPPORT, "sockaddr_in6 on an IPv4 channel");
		EXPECT_ERR(bind(c2, (struct sockaddr *)&sin, 4), EINVAL,
			   "short sockaddr_in");
	}
	EXPECT_ERR(udp_bind_to(c2, family == AF_INET ? "192.0.2.99" :
			       "2001:db8:ffff::99", tport(2)),
		   EADDRNOTAVAIL, "bind to an address not of this host");
	/* Port 0: an ephemeral port, held like any other. */
	EXPECT_OK(udp_bind_to(c2, any_of(family), 0), "bind to port 0");
	p = udp_local_port(c2);
	CHECK(p, "getsockname: port 0 after binding an ephemeral port");
	v = udp_plain(family);
	EXPECT_ERR(udp_bind_to(v, any_of(family), p), EADDRINUSE,
		   "ordinary bind of the channel's ephemeral port");
	close(v);
	close(c2);

	/* Closing the channel frees its port. */
	close(c);
	v = udp_plain(family);
	EXPECT_OK(udp_bind_to(v, any_of(family), tport(0)),
		  "ordinary bind after the channel closed");
	close(v);
	close(u);
	return 0;
}

static int t_port_hold4(void)
{
	return port_hold(AF_INET);
}

static int t_port_hold6(void)
{
	return port_hold(AF_INET6);
}

static void unprivileged(void *arg)
{
	static const int caps[] = { CAP_NET_RAW, CAP_NET_ADMIN,
				    CAP_NET_BIND_SERVICE };
	uint32_t fl = VJ_BIND_FW_BYPASS;
	int c, r;

	(void)arg;
	caps_drop(caps, 3);
	EXPECT_ERR(socket(AF_VJCHAN, SOCK_DGRAM, VJ_PROTO_RAW), EPERM,
		   "raw channel without CAP_NET_RAW");
	c = udp_chan(AF_INET);
	EXPECT_ERR(setsockopt(c, SOL_VJCHAN, VJ_BIND_FLAGS, &fl, sizeof(fl)),
		   EPERM, "VJ_BIND_FLAGS bypass without CAP_NET_ADMIN");
	fl = VJ_BIND_FW_FILTERED;
	EXPECT_OK(setsockopt(c, SOL_VJCHAN, VJ_BIND_FLAGS, &fl, sizeof(fl)),
		  "VJ_BIND_FLAGS filtered");
	EXPECT_ERR(udp_bind_to(c, "0.0.0.0", 1000), EACCES,
		   "port 1000 without CAP_NET_BIND_SERVICE");
	r = udp_bind_to(c, "0.0.0.0", tport(3));
	CHECK(!r, "unprivileged bind of a high port: %s", errname(errno));
	close(c);
}

/* Creating and binding need no capability; bypass and low ports do. */
static int t_privilege(void)
{
	uint32_t fl;
	socklen_t len = sizeof(fl);
	int c, r;

	in_child(unprivileged, NULL);

	c = udp_chan(AF_INET6);
	EXPECT_OK(getsockopt(c, SOL_VJCHAN, VJ_BIND_FLAGS, &fl, &len),
		  "get VJ_BIND_FLAGS");
	CHECK(fl == VJ_BIND_FW_FILTERED && len == sizeof(fl),
	      "default VJ_BIND_FLAGS %u (len %u), want filtered", fl, len);
	fl = VJ_BIND_FW_BYPASS | VJ_BIND_F_TRANSIT;
	EXPECT_ERR(setsockopt(c, SOL_VJCHAN, VJ_BIND_FLAGS, &fl, sizeof(fl)),
		   EINVAL, "VJ_BIND_F_TRANSIT");
	fl = 3;
	EXPECT_ERR(setsockopt(c, SOL_VJCHAN, VJ_BIND_FLAGS, &fl, sizeof(fl)),
		   EINVAL, "mode 3");
	EXPECT_ERR(setsockopt(c, SOL_VJCHAN, VJ_BIND_FLAGS, &fl, 2), EINVAL,
		   "short VJ_BIND_FLAGS");
	fl = VJ_BIND_FW_BYPASS;
	EXPECT_OK(setsockopt(c, SOL_VJCHAN, VJ_BIND_FLAGS, &fl, sizeof(fl)),
		  "VJ_BIND_FLAGS bypass as root");
	EXPECT_OK(udp_bind_to(c, "::", tport(0)), "bind");
	EXPECT_ERR(setsockopt(c, SOL_VJCHAN, VJ_BIND_FLAGS, &fl, sizeof(fl)),
		   EBUSY, "VJ_BIND_FLAGS after bind");
	/* V6ONLY cannot be turned off. */
	r = 0;
	EXPECT_ERR(setsockopt(c, SOL_IPV6, IPV6_V6ONLY, &r, sizeof(r)), EINVAL,
		   "IPV6_V6ONLY 0");
	len = sizeof(r);
	EXPECT_OK(getsockopt(c, SOL_IPV6, IPV6_V6ONLY, &r, &len), "V6ONLY");
	CHECK(r == 1, "IPV6_V6ONLY reads %d", r);
	close(c);

	c = test_socket();
	EXPECT_ERR(setsockopt(c, SOL_VJCHAN, VJ_BIND_FLAGS, &fl, sizeof(fl)),
		   ENOPROTOOPT, "VJ_BIND_FLAGS on a raw channel");
	close(c);
	EXPECT_ERR(socket(AF_VJCHAN, SOCK_STREAM, VJ_PROTO_UDP4),
		   ESOCKTNOSUPPORT, "SOCK_STREAM UDP channel");
	EXPECT_ERR(socket(AF_VJCHAN, SOCK_DGRAM, 3), EPROTONOSUPPORT,
		   "protocol 3");
	return 0;
}

/* The next datagram on fd within ms: its length, or -1. */
static long recv_within(int fd, uint8_t *buf, size_t size, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) <= 0)
		return -1;
	return recv(fd, buf, size, MSG_DONTWAIT);
}

/*
 * The frames of bad_dgrams() to a filtered channel: UDP checks them before
 * it delivers them (bad lengths, bad checksums, IPv6 without one), so the
 * channel gets exactly what an ordinary UDP socket on another port gets,
 * payload for payload, and drops nothing itself.
 */
static int bad_dgrams_udp(int family, const char *const *opts, unsigned int n)
{
	const char *local = family == AF_INET ? VJT_LOCAL4 : VJT_LOCAL6;
	const char *peer = family == AF_INET ? VJT_PEER4 : VJT_PEER6;
	uint16_t port = tport(0), port2 = tport(1);
	uint8_t bu[2048], bc[2048];
	struct vj_statistics st;
	unsigned int i, got = 0;
	long nu, nc;
	int c, u, r;

	vjt_ifindex();
	c = udp_chan(family);
	EXPECT_OK(udp_bind_to(c, local, port), "bind the channel");
	u = udp_plain(family);
	EXPECT_OK(udp_bind_to(u, local, port2), "bind the UDP socket");
	for (i = 0; i < n; i++) {
		r = vjt_inject("saddr=%s daddr=%s sport=1000 dport=%u seq=%u %s",
			       peer, local, port, 100 + i, opts[i]);
		CHECK(!r, "inject %s: %s", opts[i], errname(-r));
		r = vjt_inject("saddr=%s daddr=%s sport=1000 dport=%u seq=%u %s",
			       peer, local, port2, 100 + i, opts[i]);
		CHECK(!r, "inject %s: %s", opts[i], errname(-r));
	}
	while ((nu = recv_within(u, bu, sizeof(bu), 500)) >= 0) {
		nc = recv_within(c, bc, sizeof(bc), 500);
		CHECK(nc == nu && !memcmp(bu, bc, nu),
		      "datagram %u: the UDP socket got %ld bytes, the channel "
		      "%ld (%s)%s", got, nu, nc, nc < 0 ? errname(errno) : "ok",
		      nc == nu ? ", not the same" : "");
		got++;
	}
	EXPECT_ERR(recv(c, bc, sizeof(bc), MSG_DONTWAIT), EAGAIN,
		   "the channel after the UDP socket's %u datagrams", got);
	CHECK(got >= 3, "the UDP socket got %u datagrams, want the 3 good "
	      "ones at least", got);
	st = test_get_stats(c);
	CHECK(st.rx_packets == got && st.rx_filtered == got &&
	      !st.rx_udp_bad_csum && !st.rx_udp_malformed,
	      "rx_packets %llu, rx_filtered %llu (want %u), bad_csum %llu, "
	      "malformed %llu (want 0)", (unsigned long long)st.rx_packets,
	      (unsigned long long)st.rx_filtered, got,
	      (unsigned long long)st.rx_udp_bad_csum,
	      (unsigned long long)st.rx_udp_malformed);
	close(u);
	close(c);
	return 0;
}

/*
 * Frames from the test driver come without a checksum verdict, to a bypass
 * channel straight from the driver API, so recvmsg verifies them: bad
 * checksums and lying UDP lengths are dropped and counted, never
 * delivered, and nothing was summed on the way (rx_csum_bad stays 0).  A
 * filtered channel gets them through UDP: bad_dgrams_udp().
 */
static int bad_dgrams(int family, uint32_t mode)
{
	const char *local = family == AF_INET ? VJT_LOCAL4 : VJT_LOCAL6;
	const char *peer = family == AF_INET ? VJT_PEER4 : VJT_PEER6;
	uint32_t fl = mode, seq, want[8], nwant = 0, i;
	uint16_t port = tport(0);
	struct vj_statistics st;
	uint8_t buf[2048];
	int c, r;
	long n;
	static const struct {
		const char *opts;
		int len;	/* bytes delivered, -1 dropped */
		int len6;
		int bad;	/* 1: a checksum drop, 0: malformed */
	} frames[] = {
		{ "", 64, 64, 0 },
		{ "csum=1", -1, -1, 1 },
		{ "ulen=4", -1, -1, 0 },
		{ "ulen=2000", -1, -1, 0 },
		{ "", 64, 64, 0 },
		{ "csum=2", 64, -1, 1 },	/* zero: none (v4), bad (v6) */
		{ "ulen=62 csum=2", 54, -1, 1 },	/* a shorter datagram */
		{ "proto=17 len=0", 0, 0, 0 },
	};
	unsigned int nbad = 0, nmal = 0;
	const char *opts[ARRAY_SIZE(frames)];

	if (mode != VJ_BIND_FW_BYPASS) {
		for (i = 0; i < ARRAY_SIZE(frames); i++)
			opts[i] = frames[i].opts;
		return bad_dgrams_udp(family, opts, ARRAY_SIZE(frames));
	}
	vjt_ifindex();
	c = udp_chan(family);
	EXPECT_OK(setsockopt(c, SOL_VJCHAN, VJ_BIND_FLAGS, &fl, sizeof(fl)),
		  "VJ_BIND_FLAGS %u", fl);
	EXPECT_OK(udp_bind_to(c, local, port), "bind %s", local);
	for (i = 0; i < ARRAY_SIZE(frames); i++) {
		int len = family == AF_INET ? frames[i].len : frames[i].len6;

		r = vjt_inject("saddr=%s daddr=%s sport=1000 dport=%u seq=%u %s",
			       peer, local, port, 100 + i, frames[i].opts);
		CHECK(!r, "inject %s: %s", frames[i].opts, errname(-r));
		if (len >= 0)
			want[nwant++] = i;
		else if (frames[i].bad)
			nbad++;
		else
			nmal++;
	}
	CHECK(WAIT_FOR(test_get_stats(c).rx_packets == ARRAY_SIZE(frames),
		       2000), "rx_packets %llu, want %zu",
	      (unsigned long long)test_get_stats(c).rx_packets,
	      ARRAY_SIZE(frames));
	for (i = 0; i < nwant; i++) {
		int len = family == AF_INET ? frames[want[i]].len :
					      frames[want[i]].len6;
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		char a[64];

		n = recvfrom(c, buf, sizeof(buf), MSG_DONTWAIT,
			     (struct sockaddr *)&ss, &sl);
		CHECK(n == len, "datagram %u (%s): %ld bytes (%s), want %d",
		      want[i], frames[want[i]].opts, n, errname(errno), len);
		if (len >= 4) {
			seq = (uint32_t)buf[0] << 24 | buf[1] << 16 |
			      buf[2] << 8 | buf[3];
			CHECK(seq == 100 + want[i], "got seq %u, want %u", seq,
			      100 + want[i]);
		}
		inet_ntop(family, family == AF_INET ?
			  (void *)&((struct sockaddr_in *)&ss)->sin_addr :
			  (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr,
			  a, sizeof(a));
		CHECK(ss.ss_family == family && !strcmp(a, peer) &&
		      ntohs(((struct sockaddr_in *)&ss)->sin_port) == 1000,
		      "sender %s, want %s port 1000", a, peer);
	}
	EXPECT_ERR(recv(c, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
		   "recv after the good datagrams");
	st = test_get_stats(c);
	CHECK(st.rx_udp_bad_csum == nbad && st.rx_udp_malformed == nmal &&
	      !st.rx_udp_not_peer && !st.rx_csum_bad &&
	      st.rx_packets == nwant + nbad + nmal &&
	      (mode == VJ_BIND_FW_BYPASS ? st.rx_driver : st.rx_filtered) ==
	      st.rx_packets,
	      "rx_packets %llu, bad_csum %llu (want %u), malformed %llu "
	      "(want %u), delivered %u",
	      (unsigned long long)st.rx_packets,
	      (unsigned long long)st.rx_udp_bad_csum, nbad,
	      (unsigned long long)st.rx_udp_malformed, nmal, nwant);
	close(c);
	return 0;
}

static int t_bad4(void)
{
	return bad_dgrams(AF_INET, VJ_BIND_FW_BYPASS);
}

static int t_bad6(void)
{
	return bad_dgrams(AF_INET6, VJ_BIND_FW_BYPASS);
}

static int t_bad_filtered4(void)
{
	return bad_dgrams(AF_INET, VJ_BIND_FW_FILTERED);
}

static int t_bad_filtered6(void)
{
	return bad_dgrams(AF_INET6, VJ_BIND_FW_FILTERED);
}

/* Both sockets' result of one call must agree. */
#define SAME(ru, eu, rc, ec, what)					\
	CHECK((ru) == (rc) && ((ru) >= 0 || (eu) == (ec)),		\
	      "%s: UDP %ld (%s), channel %ld (%s)", what, (long)(ru),	\
	      (ru) < 0 ? errname(eu) : "-", (long)(rc),			\
	      (rc) < 0 ? errname(ec) : "-")

/*
 * The send side against an ordinary UDP socket: the datagrams leave from
 * the bound port, an unbound socket autobinds on send, connect filters
 * what is received, and the errors are UDP's.
 */
static int send_side(int family)
{
	const char *lo = lo_of(family);
	struct sockaddr_storage su, sc, dst;
	socklen_t lu, lc, dl;
	static uint8_t big[70000];
	uint8_t buf[256];
	int c, u, peer, other, ru, rc, eu, ec;
	uint16_t pc, pp = tport(1);
	long n;

	peer = udp_plain(family);
	EXPECT_OK(udp_bind_to(peer, lo, pp), "bind peer");
	parse_addr(lo, pp, &dst, &dl);

	/* Unbound: sendto autobinds; the reply comes back to the channel. */
	c = udp_chan(family);
	CHECK(udp_local_port(c) == 0, "port before bind");
	udp_send_to(c, lo, pp, 1, 40);
	pc = udp_local_port(c);
	CHECK(pc, "no port after sendto");
	lu = sizeof(su);
	n = recvfrom(peer, buf, sizeof(buf), 0, (struct sockaddr *)&su, &lu);
	CHECK(n == 40 && ntohs(((struct sockaddr_in *)&su)->sin_port) == pc,
	      "peer got %ld bytes from port %u, want 40 from %u", n,
	      ntohs(((struct sockaddr_in *)&su)->sin_port), pc);
	udp_send_to(peer, lo, pc, 2, 41);
	CHECK(poll((struct pollfd[]){ { .fd = c, .events = POLLIN } }, 1,
		   2000) == 1, "no reply on the autobound channel");
	n = recv(c, buf, sizeof(buf), 0);
	CHECK(n == 41, "reply: %ld (%s)", n, errname(errno));

	/* Connected: send, write; getpeername; only the peer gets in.  A
	 * stranger's datagram queued before connect() is dropped and counted
	 * by the receiving call; after it, the flow id is the peer's and the
	 * stranger's datagrams never reach the channel.
	 */
	other = udp_plain(family);
	udp_send_to(other, lo, pc, 3, 42);
	CHECK(WAIT_FOR(test_get_stats(c).rx_packets == 2, 2000),
	      "rx_packets %llu before connect, want 2",
	      (unsigned long long)test_get_stats(c).rx_packets);
	u = udp_plain(family);
	ru = connect(u, (struct sockaddr *)&dst, dl);
	rc = connect(c, (struct sockaddr *)&dst, dl);
	SAME(ru, errno, rc, errno, "connect");
	lu = sizeof(su);
	lc = sizeof(sc);
	EXPECT_OK(getpeername(c, (struct sockaddr *)&sc, &lc), "getpeername");
	EXPECT_OK(getpeername(u, (struct sockaddr *)&su, &lu), "getpeername");
	CHECK(lu == lc && !memcmp(&su, &sc, lu), "getpeername differs");
	CHECK(send(c, "abc", 3, 0) == 3 && write(c, "defg", 4) == 4,
	      "send/write on the connected channel: %s", errname(errno));
	CHECK(recv(peer, buf, sizeof(buf), 0) == 3 &&
	      recv(peer, buf, sizeof(buf), 0) == 4, "peer did not get both");
	udp_send_to(other, lo, pc, 5, 44);
	udp_send_to(peer, lo, pc, 4, 43);
	n = recv(c, buf, sizeof(buf), 0);
	CHECK(n == 43, "connected channel got %ld bytes, want the peer's 43",
	      n);
	CHECK(test_get_stats(c).rx_udp_not_peer == 1 &&
	      test_get_stats(c).rx_packets == 3,
	      "rx_udp_not_peer %llu (want 1), rx_packets %llu (want 3)",
	      (unsigned long long)test_get_stats(c).rx_udp_not_peer,
	      (unsigned long long)test_get_stats(c).rx_packets);

	/* EMSGSIZE as UDP reports it. */
	ru = send(u, big, sizeof(big), 0);
	eu = errno;
	rc = send(c, big, sizeof(big), 0);
	ec = errno;
	SAME(ru, eu, rc, ec, "send 70000 bytes");

	/* sendmmsg through the connected socket. */
	{
		struct iovec iov[2] = { { "one", 3 }, { "three", 5 } };
		struct mmsghdr mm[2] = {
			{ .msg_hdr = { .msg_iov = &iov[0], .msg_iovlen = 1 } },
			{ .msg_hdr = { .msg_iov = &iov[1], .msg_iovlen = 1 } },
		};

		CHECK(sendmmsg(c, mm, 2, 0) == 2 && mm[0].msg_len == 3 &&
		      mm[1].msg_len == 5, "sendmmsg: %s", errname(errno));
		CHECK(recv(peer, buf, sizeof(buf), 0) == 3 &&
		      recv(peer, buf, sizeof(buf), 0) == 5,
		      "peer did not get the sendmmsg datagrams");
	}

	/* ENETUNREACH or whatever UDP says for a destination without a
	 * route, from the unconnected sockets.
	 */
	{
		const char *far = family == AF_INET ? "203.0.113.77" :
						     "2001:db8:ffff::77";
		struct sockaddr_storage fs;
		socklen_t fl;
		int w = udp_plain(family), x = udp_chan(family);

		parse_addr(far, 9, &fs, &fl);
		ru = sendto(w, "y", 1, 0, (struct sockaddr *)&fs, fl);
		eu = errno;
		rc = sendto(x, "y", 1, 0, (struct sockaddr *)&fs, fl);
		ec = errno;
		SAME(ru, eu, rc, ec, "sendto a far address");
		close(w);
		close(x);
	}

	/* ECONNREFUSED: the peer goes away; the ICMP error comes back. */
	close(peer);
	ru = send(u, "x", 1, 0);
	rc = send(c, "x", 1, 0);
	SAME(ru, errno, rc, errno, "send to a closed port");
	msleep(100);
	{
		struct timeval tv = { .tv_usec = 200000 };

		setsockopt(u, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	ru = recv(u, buf, sizeof(buf), 0);
	eu = errno;
	rc = recv(c, buf, sizeof(buf), 0);
	ec = errno;
	SAME(ru, eu, rc, ec, "recv after ICMP port unreachable");
	CHECK(rc < 0 && ec == ECONNREFUSED, "recv: %d (%s), want ECONNREFUSED",
	      rc, errname(ec));

	/* getsockname agrees with an ordinary socket's shape. */
	lc = sizeof(sc);
	EXPECT_OK(getsockname(c, (struct sockaddr *)&sc, &lc), "getsockname");
	CHECK(sc.ss_family == family &&
	      lc == (family == AF_INET ? sizeof(struct sockaddr_in) :
		     sizeof(struct sockaddr_in6)), "getsockname: family %d len %u",
	      sc.ss_family, lc);
	close(c);
	close(u);
	close(other);
	return 0;
}

static int t_send4(void)
{
	return send_side(AF_INET);
}

static int t_send6(void)
{
	return send_side(AF_INET6);
}

const struct vj_case udp2_cases[] = {
	VJ_CASE("UDP_PORT_HOLD4", t_port_hold4),
	VJ_CASE("UDP_PORT_HOLD6", t_port_hold6),
	VJ_CASE("UDP_PRIVILEGE_OPTIONS", t_privilege),
	VJ_CASE("UDP_BAD_DATAGRAMS4", t_bad4),
	VJ_CASE("UDP_BAD_DATAGRAMS6", t_bad6),
	VJ_CASE("UDP_BAD_DATAGRAMS_FILTERED4", t_bad_filtered4),
	VJ_CASE("UDP_BAD_DATAGRAMS_FILTERED6", t_bad_filtered6),
	VJ_CASE("UDP_SEND4", t_send4),
	VJ_CASE("UDP_SEND6", t_send6),
	{ NULL }
};
