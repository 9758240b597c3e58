// SPDX-License-Identifier: GPL-2.0
/*
 * ABI cases, part 2: bind(), getsockname() and the operations the family
 * does not support.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <grp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/capability.h>

#include "harness.h"

static int bind_sa(int fd, const struct sockaddr_vj *sa, socklen_t len)
{
	return bind(fd, (const struct sockaddr *)sa, len);
}

static struct sockaddr_vj sa_of(const struct vj_flow *f)
{
	struct sockaddr_vj sa;

	memset(&sa, 0, sizeof(sa));
	sa.svj_family = AF_VJCHAN;
	sa.svj_flow = *f;
	return sa;
}

/* A failed bind() must leave the socket unbound and bindable. */
static void expect_unbound_and_bindable(int fd, uint16_t dport)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1", dport, 0);
	struct sockaddr_vj sa;
	socklen_t len = sizeof(sa);
	struct vj_flow zero;

	memset(&zero, 0, sizeof(zero));
	EXPECT_OK(getsockname(fd, (struct sockaddr *)&sa, &len),
		  "getsockname");
	CHECK(!memcmp(&sa.svj_flow, &zero, sizeof(zero)),
	      "failed bind left a flow behind");
	EXPECT_OK(test_bind(fd, &f), "bind after a failed bind");
}

/* addr_len below sizeof(struct sockaddr_vj) is refused with EINVAL. */
static int t_bind_short(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	struct sockaddr_vj sa = sa_of(&f);
	static const socklen_t lens[] = { 0, 2, 4, 8, sizeof(sa) - 1 };
	int fd = test_socket();
	size_t i;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		EXPECT_ERR(bind_sa(fd, &sa, lens[i]), EINVAL, "addr_len %u",
			   lens[i]);
	expect_unbound_and_bindable(fd, tport(1));
	close(fd);
	return 0;
}

/* A longer address with a zero tail binds (the struct may grow). */
static int t_bind_long_zero_tail(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	struct {
		struct sockaddr_vj sa;
		uint8_t tail[64];
	} big;
	struct sockaddr_vj got;
	socklen_t len = sizeof(got);
	int fd = test_socket();

	memset(&big, 0, sizeof(big));
	big.sa = sa_of(&f);
	EXPECT_OK(bind_sa(fd, &big.sa, sizeof(big)), "addr_len %zu",
		  sizeof(big));
	EXPECT_OK(getsockname(fd, (struct sockaddr *)&got, &len),
		  "getsockname");
	CHECK(!memcmp(&got.svj_flow, &f, sizeof(f)),
	      "getsockname does not return the bound flow");
	close(fd);
	return 0;
}

/* A longer address with a non-zero tail is refused with E2BIG. */
static int t_bind_long_nonzero_tail(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	struct {
		struct sockaddr_vj sa;
		uint8_t tail[64];
	} big;
	int fd = test_socket();

	memset(&big, 0, sizeof(big));
	big.sa = sa_of(&f);
	big.tail[0] = 1;
	EXPECT_ERR(bind_sa(fd, &big.sa, sizeof(big.sa) + 1), E2BIG,
		   "addr_len +1, tail 1");
	big.tail[0] = 0;
	big.tail[63] = 0xff;
	EXPECT_ERR(bind_sa(fd, &big.sa, sizeof(big)), E2BIG,
		   "addr_len +64, last byte set");
	expect_unbound_and_bindable(fd, tport(1));
	close(fd);
	return 0;
}

/* svj_family other than AF_VJCHAN is refused with EAFNOSUPPORT. */
static int t_bind_bad_family(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	struct sockaddr_vj sa = sa_of(&f);
	static const uint16_t fams[] = { 0, AF_INET, AF_INET6, AF_PACKET };
	int fd = test_socket();
	size_t i;

	for (i = 0; i < sizeof(fams) / sizeof(fams[0]); i++) {
		sa.svj_family = fams[i];
		EXPECT_ERR(bind_sa(fd, &sa, sizeof(sa)), EAFNOSUPPORT,
			   "svj_family %u", fams[i]);
	}
	expect_unbound_and_bindable(fd, tport(1));
	close(fd);
	return 0;
}

/*
 * svj_flags: a firewall mode and VJ_BIND_F_TRANSIT; unknown bits and the
 * undefined mode are EINVAL, and transit is only for bypass channels.
 */
static int t_bind_flags(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	struct sockaddr_vj sa = sa_of(&f);
	int fd = test_socket();

	sa.svj_flags = VJ_BIND_FW_SANCTIONED | VJ_BIND_F_TRANSIT;
	EXPECT_ERR(bind_sa(fd, &sa, sizeof(sa)), EINVAL, "sanctioned transit");
	sa.svj_flags = VJ_BIND_FW_MASK;
	EXPECT_ERR(bind_sa(fd, &sa, sizeof(sa)), EINVAL, "mode 3");
	sa.svj_flags = VJ_BIND_F_TRANSIT;
	EXPECT_ERR(bind_sa(fd, &sa, sizeof(sa)), EINVAL, "filtered transit");
	sa.svj_flags = 1u << 4;
	EXPECT_ERR(bind_sa(fd, &sa, sizeof(sa)), EINVAL, "svj_flags 0x10");
	sa.svj_flags = 0x8000;
	EXPECT_ERR(bind_sa(fd, &sa, sizeof(sa)), EINVAL, "svj_flags 0x8000");
	expect_unbound_and_bindable(fd, tport(1));
	close(fd);
	return 0;
}

/*
 * VJ_BIND_F_DIRECT: bypass only and with a device (EINVAL), a device that
 * exists (ENODEV) and whose driver offers direct receive (EOPNOTSUPP: lo
 * does not).  The socket stays unbound and bindable after each.
 */
static int t_bind_direct_errors(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	struct sockaddr_vj sa;
	int fd = test_socket();

	f.ifindex = 1;
	sa = sa_of(&f);
	sa.svj_flags = VJ_BIND_F_DIRECT;
	EXPECT_ERR(bind_sa(fd, &sa, sizeof(sa)), EINVAL, "filtered direct");
	sa.svj_flags = VJ_BIND_FW_SANCTIONED | VJ_BIND_F_DIRECT;
	EXPECT_ERR(bind_sa(fd, &sa, sizeof(sa)), EINVAL, "sanctioned direct");
	sa.svj_flags = VJ_BIND_FW_BYPASS | VJ_BIND_F_DIRECT;
	EXPECT_ERR(bind_sa(fd, &sa, sizeof(sa)), EOPNOTSUPP, "direct on lo");
	sa.svj_flow.ifindex = 0;
	EXPECT_ERR(bind_sa(fd, &sa, sizeof(sa)), EINVAL, "direct, no device");
	sa.svj_flow.ifindex = 0x7ffffff0;
	EXPECT_ERR(bind_sa(fd, &sa, sizeof(sa)), ENODEV, "direct, no such device");
	expect_unbound_and_bindable(fd, tport(1));
	close(fd);
	return 0;
}

/* flow.family must be AF_INET or AF_INET6 (never a wildcard). */
static int t_bind_flow_family(void)
{
	static const uint16_t fams[] = { 0, AF_UNIX, AF_VJCHAN, AF_PACKET,
					 0xffff };
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	int fd = test_socket();
	size_t i;

	for (i = 0; i < sizeof(fams) / sizeof(fams[0]); i++) {
		f.family = fams[i];
		EXPECT_ERR(test_bind(fd, &f), EAFNOSUPPORT, "flow.family %u",
			   fams[i]);
	}
	expect_unbound_and_bindable(fd, tport(1));
	close(fd);
	return 0;
}

/* flow.pad must be zero: EINVAL otherwise. */
static int t_bind_flow_pad(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	int fd = test_socket();

	f.pad = 1;
	EXPECT_ERR(test_bind(fd, &f), EINVAL, "flow.pad 1");
	f.pad = 0xff;
	EXPECT_ERR(test_bind(fd, &f), EINVAL, "flow.pad 0xff");
	expect_unbound_and_bindable(fd, tport(1));
	close(fd);
	return 0;
}

/* AF_INET flows must have bytes 4..15 of both addresses zero. */
static int t_bind_v4_high_bytes(void)
{
	int fd = test_socket(), i;

	for (i = 4; i < 16; i++) {
		struct vj_flow f = flow4(IPPROTO_UDP, "127.0.0.1", 0,
					 "127.0.0.1", tport(0), 0);

		f.saddr.bytes[i] = 1;
		EXPECT_ERR(test_bind(fd, &f), EINVAL, "saddr byte %d set", i);
		f.saddr.bytes[i] = 0;
		f.daddr.bytes[i] = 0x80;
		EXPECT_ERR(test_bind(fd, &f), EINVAL, "daddr byte %d set", i);
	}
	expect_unbound_and_bindable(fd, tport(1));
	close(fd);
	return 0;
}

struct no_dev_arg {
	uint16_t	port;
	unsigned int	n;
	unsigned int	ifindex[64];	/* the test's net ns's devices */
};

static void no_dev_netns(void *arg)
{
	struct no_dev_arg *a = arg;
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, a->port, 0);
	char name[IF_NAMESIZE];
	unsigned int i;
	int fd;

	netns_new();
	fd = test_socket();
	/*
	 * A device of the net ns we came from that the new one has no
	 * device at: a new net ns has lo and, when they are built in, the
	 * tunnel drivers' fallback devices (tunl0, ...), so which indices
	 * are free depends on the kernel.
	 */
	f.ifindex = 0;
	for (i = 0; i < a->n && !f.ifindex; i++)
		if (!if_indextoname(a->ifindex[i], name))
			f.ifindex = a->ifindex[i];
	CHECK(f.ifindex, "every device index of the test's net ns exists in a new one");
	EXPECT_ERR(test_bind(fd, &f), ENODEV,
		   "ifindex %u: a device in the first net ns, none in the new one",
		   f.ifindex);
	f.ifindex = 1;
	EXPECT_OK(test_bind(fd, &f), "ifindex 1 (lo) in a new net ns");
	close(fd);
}

/* A non-zero ifindex with no such device in the socket's net ns: ENODEV. */
static int t_bind_no_dev(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	struct if_nameindex *ifs = if_nameindex(), *p;
	struct no_dev_arg arg = { .port = tport(2) };
	int fd = test_socket();

	CHECK(ifs, "if_nameindex: %s", strerror(errno));
	for (p = ifs; p->if_index && arg.n < 64; p++)
		arg.ifindex[arg.n++] = p->if_index;
	if_freenameindex(ifs);
	f.ifindex = 0x7ffffff0;
	EXPECT_ERR(test_bind(fd, &f), ENODEV, "ifindex 0x7ffffff0");
	f.ifindex = 0xffffffff;
	EXPECT_ERR(test_bind(fd, &f), ENODEV, "ifindex 0xffffffff");
	expect_unbound_and_bindable(fd, tport(1));
	close(fd);
	in_child(no_dev_netns, &arg);
	return 0;
}

/* A bound socket cannot be bound again (EINVAL), and keeps its flow. */
static int t_bind_twice(void)
{
	struct vj_flow a = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	struct vj_flow b = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(1), 0);
	struct sockaddr_vj got;
	socklen_t len = sizeof(got);
	int fd = test_socket();

	EXPECT_OK(test_bind(fd, &a), "first bind");
	EXPECT_ERR(test_bind(fd, &b), EINVAL, "second bind, other flow");
	EXPECT_ERR(test_bind(fd, &a), EINVAL, "second bind, same flow");
	EXPECT_OK(getsockname(fd, (struct sockaddr *)&got, &len),
		  "getsockname");
	CHECK(!memcmp(&got.svj_flow, &a, sizeof(a)),
	      "flow changed by a refused bind");
	close(fd);
	return 0;
}

static void same_flow_netns(void *arg)
{
	struct vj_flow *f = arg;
	int fd;

	netns_new();
	fd = test_socket();
	EXPECT_OK(test_bind(fd, f), "same flow in another net ns");
	close(fd);
}

/*
 * Two channels of one net ns cannot have the same flow id (EADDRINUSE);
 * a flow differing in one field, or of the other family, is distinct;
 * another net ns may use the same flow; closing the first frees it.
 */
static int t_bind_same_flow(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, "127.0.0.2", tport(1),
				 "127.0.0.1", tport(0), 0);
	struct vj_flow g = f, h6 = flow6(0, NULL, 0, NULL, tport(0), 0);
	struct vj_flow h4 = flow4(0, NULL, 0, NULL, tport(0), 0);
	int a = test_socket(), b = test_socket(), c = test_socket();
	int d = test_socket(), e = test_socket();

	EXPECT_OK(test_bind(a, &f), "first bind");
	EXPECT_ERR(test_bind(b, &f), EADDRINUSE, "same flow, second socket");
	g.ifindex = 1;
	EXPECT_OK(test_bind(b, &g), "flow differing in ifindex");
	EXPECT_OK(test_bind(d, &h4), "v4 {dport}");
	EXPECT_OK(test_bind(e, &h6), "v6 {dport} beside v4 {dport}");
	in_child(same_flow_netns, &f);
	close(a);
	EXPECT_OK(test_bind(c, &f), "same flow after the first closed");
	close(b);
	close(c);
	close(d);
	close(e);
	return 0;
}

/* An unbound socket names AF_VJCHAN with an all-zero flow. */
static int t_getsockname_unbound(void)
{
	struct sockaddr_vj sa;
	struct vj_flow zero;
	socklen_t len = sizeof(sa) + 16;
	uint8_t buf[sizeof(sa) + 16];
	int fd = test_socket();

	memset(buf, 0xa5, sizeof(buf));
	memset(&zero, 0, sizeof(zero));
	EXPECT_OK(getsockname(fd, (struct sockaddr *)buf, &len),
		  "getsockname");
	memcpy(&sa, buf, sizeof(sa));
	CHECK(len == sizeof(sa), "addr_len %u, want %zu", len, sizeof(sa));
	CHECK(sa.svj_family == AF_VJCHAN, "svj_family %u", sa.svj_family);
	CHECK(sa.svj_flags == 0, "svj_flags %u", sa.svj_flags);
	CHECK(!memcmp(&sa.svj_flow, &zero, sizeof(zero)),
	      "unbound socket reports a flow");
	close(fd);
	return 0;
}

static void name_roundtrip(const struct vj_flow *f, const char *what)
{
	struct sockaddr_vj sa;
	socklen_t len = sizeof(sa);
	int fd = test_socket();

	EXPECT_OK(test_bind(fd, f), "bind %s", what);
	EXPECT_OK(getsockname(fd, (struct sockaddr *)&sa, &len),
		  "getsockname %s", what);
	CHECK(len == sizeof(sa), "%s: addr_len %u", what, len);
	CHECK(sa.svj_family == AF_VJCHAN && sa.svj_flags == test_bind_flags,
	      "%s: family %u flags %u, want %u", what, sa.svj_family,
	      sa.svj_flags, test_bind_flags);
	CHECK(!memcmp(&sa.svj_flow, f, sizeof(*f)),
	      "%s: getsockname does not return the bound flow", what);
	close(fd);
}

/* getsockname returns the bound flow byte for byte, v4 and v6. */
static int t_getsockname_bound(void)
{
	struct vj_flow f4 = flow4(IPPROTO_UDP, "127.0.0.2", tport(1),
				  "127.0.0.3", tport(0), 1);
	struct vj_flow f6 = flow6(IPPROTO_UDP, "2001:db8::7", tport(2),
				  "::1", tport(3), 1);
	struct vj_flow w6 = flow6(0, NULL, 0, "2001:db8:ffff::1", 0, 0);

	name_roundtrip(&f4, "v4 full");
	name_roundtrip(&f6, "v6 full");
	name_roundtrip(&w6, "v6 daddr only");
	return 0;
}

/* recv/recvmsg/read carry no data on this family: EOPNOTSUPP. */
static int t_recvmsg_eopnotsupp(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	char buf[64];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fd = test_socket(), pass;

	for (pass = 0; pass < 2; pass++) {
		const char *st = pass ? "bound" : "unbound";

		EXPECT_ERR(recv(fd, buf, sizeof(buf), MSG_DONTWAIT),
			   EOPNOTSUPP, "recv (%s)", st);
		EXPECT_ERR(recvmsg(fd, &mh, MSG_DONTWAIT), EOPNOTSUPP,
			   "recvmsg (%s)", st);
		EXPECT_ERR(read(fd, buf, sizeof(buf)), EOPNOTSUPP,
			   "read (%s)", st);
		if (!pass)
			EXPECT_OK(test_bind(fd, &f), "bind");
	}
	close(fd);
	return 0;
}

/* send/sendto/sendmsg/write: EOPNOTSUPP, bound or not. */
static int t_sendmsg_eopnotsupp(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	struct sockaddr_vj sa = sa_of(&f);
	char buf[64] = { 0 };
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	int fd = test_socket(), pass;

	for (pass = 0; pass < 2; pass++) {
		const char *st = pass ? "bound" : "unbound";

		EXPECT_ERR(send(fd, buf, sizeof(buf), MSG_DONTWAIT),
			   EOPNOTSUPP, "send (%s)", st);
		EXPECT_ERR(sendto(fd, buf, sizeof(buf), MSG_DONTWAIT,
				  (struct sockaddr *)&sa, sizeof(sa)),
			   EOPNOTSUPP, "sendto (%s)", st);
		EXPECT_ERR(sendmsg(fd, &mh, MSG_DONTWAIT), EOPNOTSUPP,
			   "sendmsg (%s)", st);
		EXPECT_ERR(write(fd, buf, sizeof(buf)), EOPNOTSUPP,
			   "write (%s)", st);
		if (!pass)
			EXPECT_OK(test_bind(fd, &f), "bind");
	}
	close(fd);
	return 0;
}

/* getpeername, connect, listen, accept and shutdown: EOPNOTSUPP. */
static int t_other_ops_eopnotsupp(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	struct sockaddr_vj sa = sa_of(&f);
	socklen_t len = sizeof(sa);
	int fd = test_socket();

	EXPECT_ERR(getpeername(fd, (struct sockaddr *)&sa, &len), EOPNOTSUPP,
		   "getpeername");
	EXPECT_ERR(connect(fd, (struct sockaddr *)&sa, sizeof(sa)),
		   EOPNOTSUPP, "connect");
	EXPECT_ERR(listen(fd, 1), EOPNOTSUPP, "listen");
	EXPECT_ERR(accept(fd, NULL, NULL), EOPNOTSUPP, "accept");
	EXPECT_ERR(shutdown(fd, SHUT_RDWR), EOPNOTSUPP, "shutdown");
	EXPECT_OK(test_bind(fd, &f), "bind after the refused operations");
	len = sizeof(sa);
	EXPECT_ERR(getpeername(fd, (struct sockaddr *)&sa, &len), EOPNOTSUPP,
		   "getpeername (bound)");
	close(fd);
	return 0;
}

const struct vj_case bind_cases[] = {
	VJ_CASE("BIND_SHORT", t_bind_short),
	VJ_CASE("BIND_LONG_ZERO_TAIL", t_bind_long_zero_tail),
	VJ_CASE("BIND_LONG_NONZERO_TAIL", t_bind_long_nonzero_tail),
	VJ_CASE("BIND_BAD_FAMILY", t_bind_bad_family),
	VJ_CASE("BIND_FLAGS", t_bind_flags),
	VJ_CASE("BIND_DIRECT_ERRORS", t_bind_direct_errors),
	VJ_CASE("BIND_FLOW_FAMILY", t_bind_flow_family),
	VJ_CASE("BIND_FLOW_PAD", t_bind_flow_pad),
	VJ_CASE("BIND_V4_HIGH_BYTES", t_bind_v4_high_bytes),
	VJ_CASE("BIND_NO_DEV", t_bind_no_dev),
	VJ_CASE("BIND_TWICE", t_bind_twice),
	VJ_CASE("BIND_SAME_FLOW", t_bind_same_flow),
	VJ_CASE("GETSOCKNAME_UNBOUND", t_getsockname_unbound),
	VJ_CASE("GETSOCKNAME_BOUND", t_getsockname_bound),
	VJ_CASE("RECVMSG_EOPNOTSUPP", t_recvmsg_eopnotsupp),
	VJ_CASE("SENDMSG_EOPNOTSUPP", t_sendmsg_eopnotsupp),
	VJ_CASE("OTHER_OPS_EOPNOTSUPP", t_other_ops_eopnotsupp),
	{ NULL }
};
