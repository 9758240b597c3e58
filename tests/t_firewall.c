// SPDX-License-Identifier: GPL-2.0
/*
 * Firewall modes and privilege: which path feeds a channel of each mode,
 * who may bind one, and that the fast paths take only traffic addressed to
 * this host.  The nftables/iptables rulesets are tested end to end by
 * tests/firewall.sh.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/capability.h>

#include "harness.h"

#define PATH_BITS	(VJ_DESC_F_DRIVER | VJ_DESC_F_XDP | VJ_DESC_F_FILTERED)

static int bind_flags(int fd, const struct vj_flow *f, uint16_t flags)
{
	struct sockaddr_vj sa;

	memset(&sa, 0, sizeof(sa));
	sa.svj_family = AF_VJCHAN;
	sa.svj_flags = flags;
	sa.svj_flow = *f;
	return bind(fd, (struct sockaddr *)&sa, sizeof(sa));
}

/* One datagram over lo into a channel of @mode; returns its descriptor. */
static struct vj_desc lo_one(uint16_t mode, uint16_t port,
			     struct vj_statistics *st)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1", port, 0);
	struct sockaddr_vj sa;
	socklen_t len = sizeof(sa);
	struct test_pkt pkt;
	struct test_chan c;

	test_bind_flags = mode;
	chan_open(&c, &f, 8, 2048);
	EXPECT_OK(getsockname(c.fd, (struct sockaddr *)&sa, &len),
		  "getsockname");
	CHECK(sa.svj_flags == mode, "svj_flags %#x, want %#x", sa.svj_flags,
	      mode);
	udp_send("127.0.0.1", 1000, "127.0.0.1", port, 7, 32);
	CHECK(chan_recv(&c, &pkt, 3000), "the datagram did not arrive");
	chan_expect_empty(&c, "after one datagram");
	*st = test_get_stats(c.fd);
	chan_close(&c);
	return pkt.d;
}

/*
 * A channel bound with svj_flags 0 is filtered: its packets come through
 * the LOCAL_IN path (VJ_DESC_F_FILTERED, rx_filtered), not the pre-routing
 * hook.
 */
static int t_fw_default_filtered(void)
{
	long long fw0 = pool_get("fw_claimed"), def0 = pool_get("fw_deferred");
	struct vj_statistics st;
	struct vj_desc d = lo_one(VJ_BIND_FW_FILTERED, tport(0), &st);

	CHECK((d.flags & PATH_BITS) == VJ_DESC_F_FILTERED,
	      "desc flags %#x, want VJ_DESC_F_FILTERED", d.flags);
	CHECK(st.rx_packets == 1 && st.rx_filtered == 1 && !st.rx_hook &&
	      !st.rx_driver && !st.rx_xdp,
	      "rx_packets %llu filtered %llu hook %llu driver %llu xdp %llu",
	      (unsigned long long)st.rx_packets,
	      (unsigned long long)st.rx_filtered,
	      (unsigned long long)st.rx_hook,
	      (unsigned long long)st.rx_driver, (unsigned long long)st.rx_xdp);
	CHECK(pool_get("fw_claimed") - fw0 == 1, "fw_claimed +%lld",
	      pool_get("fw_claimed") - fw0);
	CHECK(pool_get("fw_deferred") - def0 == 1,
	      "fw_deferred +%lld: the pre-routing hook should have left it",
	      pool_get("fw_deferred") - def0);
	return 0;
}

/* A bypass channel is fed by the pre-routing hook: no path bit, rx_hook. */
static int t_fw_bypass_hook(void)
{
	struct vj_statistics st;
	struct vj_desc d = lo_one(VJ_BIND_FW_BYPASS, tport(0), &st);

	CHECK(!(d.flags & PATH_BITS), "desc flags %#x, want no path bit",
	      d.flags);
	CHECK(st.rx_packets == 1 && st.rx_hook == 1 && !st.rx_filtered,
	      "rx_packets %llu hook %llu filtered %llu",
	      (unsigned long long)st.rx_packets,
	      (unsigned long long)st.rx_hook,
	      (unsigned long long)st.rx_filtered);
	return 0;
}

/*
 * The driver API does not feed a filtered channel: the frame goes to the
 * stack queue, through the stack and the firewall, and arrives with
 * VJ_DESC_F_FILTERED.
 */
static int t_fw_driver_defers(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, VJT_LOCAL4, tport(0), 0);
	long long cl0 = pool_get("driver_claimed");
	long long st0 = pool_get("default_to_stack");
	struct vj_statistics st;
	struct test_pkt pkt;
	struct test_chan c;
	int r;

	vjt_ifindex();
	test_bind_flags = VJ_BIND_FW_FILTERED;
	chan_open(&c, &f, 8, 2048);
	r = vjt_inject("count=1 saddr=%s daddr=%s sport=1000 dport=%u len=64 "
		       "seq=3", VJT_PEER4, VJT_LOCAL4, tport(0));
	CHECK(!r, "inject: %s", errname(-r));
	CHECK(chan_recv(&c, &pkt, 3000), "the frame did not arrive");
	CHECK((pkt.d.flags & PATH_BITS) == VJ_DESC_F_FILTERED,
	      "desc flags %#x, want VJ_DESC_F_FILTERED", pkt.d.flags);
	st = test_get_stats(c.fd);
	CHECK(st.rx_filtered == 1 && !st.rx_driver, "filtered %llu driver %llu",
	      (unsigned long long)st.rx_filtered,
	      (unsigned long long)st.rx_driver);
	CHECK(pool_get("driver_claimed") == cl0, "driver_claimed moved");
	CHECK(pool_get("default_to_stack") - st0 >= 1,
	      "default_to_stack +%lld", pool_get("default_to_stack") - st0);
	chan_close(&c);
	return 0;
}

/*
 * Fast paths take only what is addressed to this host: a bypass channel
 * with a wildcard address does not get a frame for another host, unless
 * bound with VJ_BIND_F_TRANSIT.
 */
static int t_fw_not_local(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	long long nl0 = pool_get("not_local");
	struct test_pkt pkt;
	struct test_chan c;
	int r;

	vjt_ifindex();
	test_bind_flags = VJ_BIND_FW_BYPASS;
	chan_open(&c, &f, 8, 2048);
	r = vjt_inject("count=1 saddr=%s daddr=198.51.100.77 sport=1000 "
		       "dport=%u len=64 seq=1", VJT_PEER4, tport(0));
	CHECK(!r, "inject: %s", errname(-r));
	CHECK(WAIT_FOR(pool_get("not_local") > nl0, 3000),
	      "not_local did not count the transit frame");
	CHECK(!chan_recv(&c, &pkt, 300), "a transit frame reached the channel");
	chan_close(&c);

	test_bind_flags = VJ_BIND_FW_BYPASS | VJ_BIND_F_TRANSIT;
	chan_open(&c, &f, 8, 2048);
	r = vjt_inject("count=1 saddr=%s daddr=198.51.100.77 sport=1000 "
		       "dport=%u len=64 seq=2", VJT_PEER4, tport(0));
	CHECK(!r, "inject: %s", errname(-r));
	CHECK(chan_recv(&c, &pkt, 3000),
	      "VJ_BIND_F_TRANSIT: the transit frame did not arrive");
	CHECK(pkt.d.flags & VJ_DESC_F_DRIVER, "flags %#x", pkt.d.flags);
	chan_close(&c);
	return 0;
}

static void no_net_admin(void *arg)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	int cap = CAP_NET_ADMIN, fd;

	(void)arg;
	caps_drop(&cap, 1);
	fd = test_socket();	/* CAP_NET_RAW is enough to open one */
	EXPECT_ERR(bind_flags(fd, &f, VJ_BIND_FW_FILTERED), EPERM,
		   "filtered bind without CAP_NET_ADMIN");
	EXPECT_ERR(bind_flags(fd, &f, VJ_BIND_FW_BYPASS), EPERM,
		   "bypass bind without CAP_NET_ADMIN");
	EXPECT_ERR(bind_flags(fd, &f, VJ_BIND_FW_BYPASS | VJ_BIND_F_TRANSIT),
		   EPERM, "transit bind without CAP_NET_ADMIN");
	close(fd);
}

/* CAP_NET_RAW opens a channel; claiming traffic needs CAP_NET_ADMIN. */
static int t_fw_priv_net_admin(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	int fd;

	in_child(no_net_admin, NULL);
	fd = test_socket();
	EXPECT_OK(bind_flags(fd, &f, VJ_BIND_FW_FILTERED),
		  "the same bind with CAP_NET_ADMIN");
	close(fd);
	return 0;
}

static void bind_dropped(void *arg)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	int cap = CAP_NET_ADMIN, fd = *(int *)arg;

	caps_drop(&cap, 1);
	EXPECT_ERR(bind_flags(fd, &f, VJ_BIND_FW_FILTERED), EPERM,
		   "bind of an inherited socket without CAP_NET_ADMIN");
}

static void open_dropped(void *arg)
{
	int cap = CAP_NET_ADMIN, *sv = arg, fd;
	char byte = 0;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;

	caps_drop(&cap, 1);
	fd = test_socket();
	memset(&u, 0, sizeof(u));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	EXPECT_OK(sendmsg(sv[1], &mh, 0), "sendmsg(SCM_RIGHTS)");
}

static int recv_fd(int s)
{
	char byte;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;
	int fd;

	EXPECT_OK(recvmsg(s, &mh, 0), "recvmsg(SCM_RIGHTS)");
	cm = CMSG_FIRSTHDR(&mh);
	CHECK(cm && cm->cmsg_type == SCM_RIGHTS, "no descriptor passed");
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/*
 * Both the opener of the socket and the caller of bind() need
 * CAP_NET_ADMIN: a privileged process cannot lend an unprivileged one a
 * socket to claim traffic with, nor be tricked into binding one.
 */
static int t_fw_priv_both(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(1), 0);
	int fd = test_socket(), sv[2], got;

	in_child(bind_dropped, &fd);
	close(fd);
	EXPECT_OK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), "socketpair");
	in_child(open_dropped, sv);
	got = recv_fd(sv[0]);
	EXPECT_ERR(bind_flags(got, &f, VJ_BIND_FW_FILTERED), EPERM,
		   "privileged bind of a socket opened without CAP_NET_ADMIN");
	close(got);
	close(sv[0]);
	close(sv[1]);
	return 0;
}

static void userns_own_netns(void *arg)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, 53, 0);
	int fd;

	(void)arg;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET))
		skip("unshare(CLONE_NEWUSER | CLONE_NEWNET): %s",
		     errname(errno));
	if_up("lo");
	fd = test_socket();
	EXPECT_OK(bind_flags(fd, &f, VJ_BIND_FW_BYPASS),
		  "bypass bind in a netns owned by our user namespace");
	close(fd);
}

static void userns_init_netns(void *arg)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, 53, 0);
	int fd = *(int *)arg;

	if (unshare(CLONE_NEWUSER))
		skip("unshare(CLONE_NEWUSER): %s", errname(errno));
	EXPECT_ERR(bind_flags(fd, &f, VJ_BIND_FW_FILTERED), EPERM,
		   "bind into the initial netns from a child user namespace");
	EXPECT_ERR(socket(AF_VJCHAN, SOCK_DGRAM, 0), EPERM,
		   "socket in the initial netns from a child user namespace");
}

/*
 * A user namespace may claim traffic in a network namespace it owns (the
 * traffic is its own), but not in the initial one, even with a socket
 * opened there by a privileged process.
 */
static int t_fw_priv_userns(void)
{
	int fd = test_socket();

	in_child(userns_own_netns, NULL);
	in_child(userns_init_netns, &fd);
	close(fd);
	return 0;
}

enum csum_kind { CSUM_GOOD, CSUM_WRONG, CSUM_NONE };

/* A UDP datagram to 127.0.0.1:dport from a raw socket, checksum as asked. */
static void raw_udp4(uint16_t dport, uint32_t seq, enum csum_kind kind)
{
	uint8_t pkt[20 + 8 + 64];
	uint32_t plen = 64, ulen = 8 + plen, sum;
	struct sockaddr_storage ss;
	uint8_t pseudo[12] = { 127, 0, 0, 1, 127, 0, 0, 1, 0, IPPROTO_UDP,
			       0, 0 };
	uint16_t c;
	socklen_t len;
	int s, one = 1;

	memset(pkt, 0, sizeof(pkt));
	pkt[0] = 0x45;
	pkt[3] = sizeof(pkt);
	pkt[8] = 64;
	pkt[9] = IPPROTO_UDP;
	pkt[12] = 127; pkt[15] = 1;
	pkt[16] = 127; pkt[19] = 1;
	pkt[20] = 0x30; pkt[21] = 0x39;		/* sport 12345 */
	pkt[22] = dport >> 8; pkt[23] = dport & 0xff;
	pkt[24] = ulen >> 8; pkt[25] = ulen & 0xff;
	payload_fill(pkt + 28, plen, seq);
	pseudo[10] = ulen >> 8;
	pseudo[11] = ulen & 0xff;
	sum = csum_add(csum_add(0, pseudo, sizeof(pseudo)), pkt + 20, ulen);
	c = csum_fold32(sum);
	if (!c)
		c = 0xffff;
	if (kind == CSUM_WRONG)
		c ^= 0x0101;
	if (kind != CSUM_NONE) {
		pkt[26] = c >> 8;
		pkt[27] = c & 0xff;
	}
	s = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (s < 0)
		fail("raw socket: %s", errname(errno));
	setsockopt(s, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one));
	parse_addr("127.0.0.1", 0, &ss, &len);
	if (sendto(s, pkt, sizeof(pkt), 0, (struct sockaddr *)&ss, len) < 0)
		fail("sendto(raw): %s", errname(errno));
	close(s);
}

static void csum_mode(uint16_t mode, uint16_t port)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1", port, 0);
	struct vj_statistics st;
	struct pkt_info pi;
	struct test_pkt pkt;
	struct test_chan c;
	uint32_t seq;

	test_bind_flags = mode;
	chan_open(&c, &f, 8, 2048);

	raw_udp4(port, 1, CSUM_WRONG);
	CHECK(WAIT_FOR(test_get_stats(c.fd).rx_csum_bad == 1, 3000),
	      "mode %u: a wrong checksum was not counted", mode);
	chan_expect_empty(&c, "a datagram with a wrong checksum was delivered");

	raw_udp4(port, 2, CSUM_GOOD);
	CHECK(chan_recv(&c, &pkt, 3000), "mode %u: good datagram lost", mode);
	pkt_expect_udp(&pkt, &pi, &seq);
	CHECK(seq == 2 && (pkt.d.flags & VJ_DESC_F_CSUM_OK),
	      "mode %u: seq %u flags %#x, want VJ_DESC_F_CSUM_OK", mode, seq,
	      pkt.d.flags);

	raw_udp4(port, 3, CSUM_NONE);
	CHECK(chan_recv(&c, &pkt, 3000), "mode %u: checksum-less datagram "
	      "lost", mode);
	CHECK(!(pkt.d.flags & VJ_DESC_F_CSUM_OK),
	      "mode %u: no checksum, but flags %#x say it was verified", mode,
	      pkt.d.flags);

	/* An ordinary sender on lo leaves the sum to "hardware": valid. */
	udp_send("127.0.0.1", 1000, "127.0.0.1", port, 4, 32);
	CHECK(chan_recv(&c, &pkt, 3000), "mode %u: socket datagram lost", mode);
	CHECK(pkt.d.flags & VJ_DESC_F_CSUM_OK, "mode %u: flags %#x", mode,
	      pkt.d.flags);

	st = test_get_stats(c.fd);
	CHECK(st.rx_packets == 3 && st.rx_csum_bad == 1 && !st.rx_ring_full,
	      "mode %u: rx_packets %llu csum_bad %llu ring_full %llu", mode,
	      (unsigned long long)st.rx_packets,
	      (unsigned long long)st.rx_csum_bad,
	      (unsigned long long)st.rx_ring_full);
	chan_close(&c);
}

/*
 * The checksum verdict: a wrong UDP checksum is dropped and counted in
 * rx_csum_bad, on the pre-routing hook and on the filtered path; good
 * ones carry VJ_DESC_F_CSUM_OK; an IPv4 datagram without a checksum
 * carries no verdict.
 */
static int t_fw_csum(void)
{
	long long bad0 = pool_get("csum_bad");

	csum_mode(VJ_BIND_FW_BYPASS, tport(0));
	csum_mode(VJ_BIND_FW_FILTERED, tport(1));
	CHECK(pool_get("csum_bad") - bad0 == 2, "csum_bad +%lld, want 2",
	      pool_get("csum_bad") - bad0);
	return 0;
}

const struct vj_case firewall_cases[] = {
	VJ_CASE("FW_DEFAULT_FILTERED", t_fw_default_filtered),
	VJ_CASE("FW_BYPASS_HOOK", t_fw_bypass_hook),
	VJ_CASE("FW_DRIVER_DEFERS", t_fw_driver_defers),
	VJ_CASE("FW_NOT_LOCAL", t_fw_not_local),
	VJ_CASE("FW_PRIV_NET_ADMIN", t_fw_priv_net_admin),
	VJ_CASE("FW_PRIV_BOTH", t_fw_priv_both),
	VJ_CASE("FW_PRIV_USERNS", t_fw_priv_userns),
	VJ_CASE("FW_CSUM", t_fw_csum),
	{ NULL, NULL, 0 },
};
