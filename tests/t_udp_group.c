// SPDX-License-Identifier: GPL-2.0
/*
 * Reuseport groups of UDP channel sockets, and the programs UDP runs on a
 * socket's datagrams (socket filters, a reuseport group's program).
 *
 * In the filtered mode UDP's own lookup chooses the member, so a group of
 * channels must spread flows exactly as a group of ordinary sockets bound
 * in the same order on the same port: each case runs the same steps with
 * ordinary sockets and with channels and compares which member got each
 * flow.  In bypass mode the fast paths choose: every flow goes to one
 * member, and the members share the flows.  Datagrams come from the test
 * driver's peer (vjtest0) with one source port per flow.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "t_udp.h"

#define NFLOWS		32
#define NMEMB		3
#define SPORT0		3000

enum kind { PLAIN, CHAN };

static const char *const kind_name[] = { "ordinary sockets", "channels" };

static int member_new(enum kind k, uint32_t mode, uint16_t port)
{
	int one = 1, fd = k == CHAN ? udp_chan(AF_INET) : udp_plain(AF_INET);

	EXPECT_OK(setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)),
		  "SO_REUSEPORT");
	if (k == CHAN)
		EXPECT_OK(setsockopt(fd, SOL_VJCHAN, VJ_BIND_FLAGS, &mode,
				     sizeof(mode)), "VJ_BIND_FLAGS %u", mode);
	EXPECT_OK(udp_bind_to(fd, "0.0.0.0", port), "bind member");
	return fd;
}

/*
 * Send @per datagrams of each flow to @port, then note in @got[flow] the
 * member (index into @fds, -1 closed) that received them; every datagram
 * must arrive once, and a flow's datagrams at one member.
 */
static void flows_map(const int *fds, int n, uint16_t port, int per,
		      int *got, const char *what)
{
	unsigned int total = 0, want = NFLOWS * per, flow, i;
	uint32_t seq, len;
	uint64_t end;
	bool last;
	int m, r;

	for (flow = 0; flow < NFLOWS; flow++) {
		got[flow] = -1;
		for (i = 0; i < (unsigned int)per; i++) {
			r = vjt_inject("saddr=%s daddr=%s sport=%u dport=%u "
				       "seq=%u", VJT_PEER4, VJT_LOCAL4,
				       SPORT0 + flow, port, flow * 16 + i);
			CHECK(!r, "inject: %s", errname(-r));
		}
	}
	/* Until all are in (or 5 s), then once more for any extra. */
	end = now_ns() + 5000000000ull;
	do {
		last = total >= want || now_ns() > end;
		for (m = 0; m < n; m++) {
			if (fds[m] < 0)
				continue;
			while (udp_recv_seq(fds[m], last ? 100 : 20, &seq,
					    &len)) {
				flow = seq / 16;
				CHECK(flow < NFLOWS,
				      "%s: datagram %u is not ours", what, seq);
				CHECK(got[flow] < 0 || got[flow] == m,
				      "%s: flow %u at members %d and %d", what,
				      flow, got[flow], m);
				got[flow] = m;
				total++;
			}
		}
	} while (!last);
	CHECK(total == want, "%s: %u datagrams received, %u sent", what, total,
	      want);
}

static void attach_ret(int fd, int opt, uint32_t k)
{
	struct sock_filter code[] = { BPF_STMT(BPF_RET | BPF_K, k) };
	struct sock_fprog prog = { .len = 1, .filter = code };

	EXPECT_OK(setsockopt(fd, SOL_SOCKET, opt, &prog, sizeof(prog)),
		  "%s (ret %u)", opt == SO_ATTACH_FILTER ? "SO_ATTACH_FILTER" :
		  "SO_ATTACH_REUSEPORT_CBPF", k);
}

/*
 * One group's life, @map[phase][flow] the member of each flow: two
 * members; the first leaves; a third joins; a reuseport program sends
 * everything to member 1, then to member 0.
 */
static void group_life(enum kind k, uint16_t port, int map[5][NFLOWS])
{
	int fds[NMEMB] = { -1, -1, -1 };
	char what[64];

	snprintf(what, sizeof(what), "%s, two members", kind_name[k]);
	fds[0] = member_new(k, VJ_BIND_FW_FILTERED, port);
	fds[1] = member_new(k, VJ_BIND_FW_FILTERED, port);
	flows_map(fds, NMEMB, port, 2, map[0], what);
	snprintf(what, sizeof(what), "%s, after a leave", kind_name[k]);
	close(fds[0]);
	fds[0] = -1;
	flows_map(fds, NMEMB, port, 1, map[1], what);
	snprintf(what, sizeof(what), "%s, after a join", kind_name[k]);
	fds[2] = member_new(k, VJ_BIND_FW_FILTERED, port);
	flows_map(fds, NMEMB, port, 1, map[2], what);
	snprintf(what, sizeof(what), "%s, program: 1", kind_name[k]);
	attach_ret(fds[1], SO_ATTACH_REUSEPORT_CBPF, 1);
	flows_map(fds, NMEMB, port, 1, map[3], what);
	snprintf(what, sizeof(what), "%s, program: 0", kind_name[k]);
	attach_ret(fds[2], SO_ATTACH_REUSEPORT_CBPF, 0);
	flows_map(fds, NMEMB, port, 1, map[4], what);
	close(fds[1]);
	close(fds[2]);
}

/*
 * A group of channels that UDP delivers to gets each flow at the member an
 * ordinary group in its place gets it: UDP's hash, a leave, a join and the
 * group's program.
 */
static int t_group_filtered(void)
{
	static const char *const phase[] = { "two members", "a leave",
		"a join", "program 1", "program 0" };
	int mp[5][NFLOWS], mc[5][NFLOWS];
	uint16_t port = tport(0);
	unsigned int p, f, used;

	vjt_ifindex();
	group_life(PLAIN, port, mp);
	group_life(CHAN, port, mc);
	for (p = 0; p < 5; p++)
		for (f = 0; f < NFLOWS; f++)
			CHECK(mp[p][f] == mc[p][f],
			      "%s: flow %u went to member %d of the ordinary "
			      "group, %d of the channels", phase[p], f,
			      mp[p][f], mc[p][f]);
	/* The hash spread two members' flows over both. */
	for (used = 0, f = 0; f < NFLOWS; f++)
		used |= 1u << mc[0][f];
	CHECK(used == 3, "two members: the flows went to %#x only", used);
	return 0;
}

/*
 * A group of bypass channels is fed by the fast path: each flow goes to
 * one member, the members share the flows, and when one leaves the other
 * gets them all.  Programs UDP would run are refused in bypass mode.
 */
static int t_group_bypass(void)
{
	int fds[2], got[NFLOWS], one = 1, lone;
	uint16_t port = tport(0);
	struct vj_statistics st;
	unsigned int f, used = 0, m;

	vjt_ifindex();
	fds[0] = member_new(CHAN, VJ_BIND_FW_BYPASS, port);
	fds[1] = member_new(CHAN, VJ_BIND_FW_BYPASS, port);
	flows_map(fds, 2, port, 3, got, "two bypass members");
	for (f = 0; f < NFLOWS; f++)
		used |= 1u << got[f];
	CHECK(used == 3, "two bypass members: the flows went to %#x only",
	      used);
	for (m = 0; m < 2; m++) {
		st = test_get_stats(fds[m]);
		CHECK(!st.rx_filtered && st.rx_driver == st.rx_packets,
		      "member %u: rx_packets %llu, rx_driver %llu, rx_filtered "
		      "%llu: not the fast path", m,
		      (unsigned long long)st.rx_packets,
		      (unsigned long long)st.rx_driver,
		      (unsigned long long)st.rx_filtered);
	}
	close(fds[0]);
	fds[0] = -1;
	flows_map(fds, 2, port, 1, got, "after a leave");
	for (f = 0; f < NFLOWS; f++)
		CHECK(got[f] == 1, "after a leave: flow %u went to %d", f,
		      got[f]);

	/* Not a group: no SO_REUSEPORT, as UDP refuses it. */
	lone = udp_chan(AF_INET);
	{
		uint32_t mode = VJ_BIND_FW_BYPASS;

		EXPECT_OK(setsockopt(lone, SOL_VJCHAN, VJ_BIND_FLAGS, &mode,
				     sizeof(mode)), "VJ_BIND_FLAGS");
	}
	EXPECT_ERR(udp_bind_to(lone, "0.0.0.0", port), EADDRINUSE,
		   "a bypass channel without SO_REUSEPORT on the group's port");
	close(lone);
	/* A socket filter would be passed by. */
	{
		struct sock_filter code[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
		struct sock_fprog prog = { .len = 1, .filter = code };

		EXPECT_ERR(setsockopt(fds[1], SOL_SOCKET, SO_ATTACH_FILTER,
				      &prog, sizeof(prog)), EOPNOTSUPP,
			   "SO_ATTACH_FILTER on a bypass channel");
		lone = udp_chan(AF_INET);
		attach_ret(lone, SO_ATTACH_FILTER, 0);
		one = VJ_BIND_FW_BYPASS;
		EXPECT_ERR(setsockopt(lone, SOL_VJCHAN, VJ_BIND_FLAGS, &one,
				      sizeof(one)), EOPNOTSUPP,
			   "bypass mode after SO_ATTACH_FILTER");
		close(lone);
	}
	close(fds[1]);
	return 0;
}

/*
 * A socket filter runs on a channel's datagrams as on an ordinary
 * socket's: one that drops all, then one that keeps the UDP header and 10
 * bytes, then none.
 */
static int t_socket_filter(void)
{
	uint16_t pu = tport(0), pc = tport(1);
	uint8_t bu[2048], bc[2048];
	int u, c, zero = 0, i;
	long nu, nc;

	vjt_ifindex();
	u = udp_plain(AF_INET);
	c = udp_chan(AF_INET);
	EXPECT_OK(udp_bind_to(u, "0.0.0.0", pu), "bind UDP");
	EXPECT_OK(udp_bind_to(c, "0.0.0.0", pc), "bind the channel");
	for (i = 0; i < 3; i++) {
		if (i == 0) {
			attach_ret(u, SO_ATTACH_FILTER, 0);
			attach_ret(c, SO_ATTACH_FILTER, 0);
		} else if (i == 1) {
			attach_ret(u, SO_ATTACH_FILTER, 18);
			attach_ret(c, SO_ATTACH_FILTER, 18);
		} else {
			EXPECT_OK(setsockopt(u, SOL_SOCKET, SO_DETACH_FILTER,
					     &zero, sizeof(zero)), "detach");
			EXPECT_OK(setsockopt(c, SOL_SOCKET, SO_DETACH_FILTER,
					     &zero, sizeof(zero)), "detach");
		}
		CHECK(!vjt_inject("saddr=%s daddr=%s sport=1000 dport=%u "
				  "seq=%d len=100", VJT_PEER4, VJT_LOCAL4, pu,
				  i), "inject");
		CHECK(!vjt_inject("saddr=%s daddr=%s sport=1000 dport=%u "
				  "seq=%d len=100", VJT_PEER4, VJT_LOCAL4, pc,
				  i), "inject");
		nu = -1;
		nc = -1;
		if (WAIT_FOR((nu = recv(u, bu, sizeof(bu), MSG_DONTWAIT)) >= 0,
			     i ? 1000 : 200))
			WAIT_FOR((nc = recv(c, bc, sizeof(bc),
					    MSG_DONTWAIT)) >= 0, 1000);
		else
			nc = recv(c, bc, sizeof(bc), MSG_DONTWAIT);
		CHECK(nu == nc && (nu < 0 || !memcmp(bu, bc, nu)),
		      "filter %d: the UDP socket got %ld bytes, the channel %ld "
		      "(rx_packets %llu, malformed %llu, bad_csum %llu)", i, nu,
		      nc, (unsigned long long)test_get_stats(c).rx_packets,
		      (unsigned long long)test_get_stats(c).rx_udp_malformed,
		      (unsigned long long)test_get_stats(c).rx_udp_bad_csum);
		CHECK(nu == (i == 0 ? -1 : i == 1 ? 10 : 100),
		      "filter %d: the UDP socket got %ld bytes", i, nu);
	}
	close(u);
	close(c);
	return 0;
}

const struct vj_case udp_group_cases[] = {
	VJ_CASE("UDP_GROUP_FILTERED", t_group_filtered),
	VJ_CASE("UDP_GROUP_BYPASS", t_group_bypass),
	VJ_CASE("UDP_SOCKET_FILTER", t_socket_filter),
	{ NULL }
};
