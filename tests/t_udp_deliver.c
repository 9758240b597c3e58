// SPDX-License-Identifier: GPL-2.0
/*
 * UDP delivers to UDP channel sockets: what the UDP socket lookup and the
 * controls of UDP's receive path decide applies to a channel (in the
 * default, filtered mode) exactly as to an ordinary UDP socket in its place.
 * Datagrams come from the test driver (vjtest0, through the stack).
 *
 * Each case is one way a channel used to receive what an ordinary socket in
 * its place would not: a device narrowed after bind, a more specific
 * SO_REUSEADDR bind, an IPsec input policy, a cgroup-BPF ingress program;
 * and the controls of socket creation (a cgroup-BPF sock_create program
 * that refuses sockets, or binds them to a VRF as ip vrf exec does) that
 * the channel's port holder escaped.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <net/if.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "t_udp.h"

#define CGROUP2_MAGIC	0x63677270
#define CG_ROOT		"/sys/fs/cgroup"
#define CG_DIR		CG_ROOT "/vjchan-test"

/* The datagram with @seq from the test driver's peer to @port. */
static void inject4(uint16_t port, uint32_t seq)
{
	int r = vjt_inject("saddr=%s daddr=%s sport=1000 dport=%u seq=%u",
			   VJT_PEER4, VJT_LOCAL4, port, seq);

	CHECK(!r, "inject to port %u: %s", port, errname(-r));
}

/* fd receives @seq within a second. */
static void expect_gets(int fd, uint32_t want, const char *who)
{
	uint32_t seq = 0, len;

	CHECK(udp_recv_seq(fd, 1000, &seq, &len) && seq == want,
	      "%s: no datagram %u (got %u)", who, want, seq);
}

/* fd has nothing after the others had time to get theirs. */
static void expect_none(int fd, const char *who)
{
	uint32_t seq = 0, len;

	CHECK(!udp_recv_seq(fd, 200, &seq, &len),
	      "%s received datagram %u, which is not its", who, seq);
}

static void bind_dev(int fd, const char *dev)
{
	EXPECT_OK(setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev,
			     strlen(dev) + 1), "SO_BINDTODEVICE %s", dev);
}

static void reuse_addr(int fd)
{
	int one = 1;

	EXPECT_OK(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)),
		  "SO_REUSEADDR");
}

/*
 * A channel bound to any:P, then narrowed to lo with SO_BINDTODEVICE; an
 * ordinary socket bound to any:P on vjtest0 (no conflict for UDP).  A
 * datagram arriving on vjtest0 is the ordinary socket's.
 */
static int t_bindtodevice_after_bind(void)
{
	uint16_t port = tport(0);
	int c, u;

	vjt_ifindex();
	c = udp_chan(AF_INET);
	EXPECT_OK(udp_bind_to(c, "0.0.0.0", port), "bind the channel");
	bind_dev(c, "lo");
	u = udp_plain(AF_INET);
	bind_dev(u, "vjtest0");
	EXPECT_OK(udp_bind_to(u, "0.0.0.0", port), "bind the UDP socket");
	inject4(port, 1);
	expect_gets(u, 1, "the UDP socket on vjtest0");
	expect_none(c, "the channel narrowed to lo");
	close(u);
	close(c);
	return 0;
}

/*
 * Two SO_REUSEADDR sockets on one port: the channel on any address, an
 * ordinary socket on VJT_LOCAL4.  Unicast to VJT_LOCAL4 goes to the more
 * specific bind, the ordinary socket, as between two UDP sockets.
 */
static int t_reuseaddr_more_specific(void)
{
	uint16_t port = tport(0);
	int c, u;

	vjt_ifindex();
	c = udp_chan(AF_INET);
	reuse_addr(c);
	EXPECT_OK(udp_bind_to(c, "0.0.0.0", port), "bind the channel");
	u = udp_plain(AF_INET);
	reuse_addr(u);
	EXPECT_OK(udp_bind_to(u, VJT_LOCAL4, port), "bind the UDP socket");
	inject4(port, 2);
	expect_gets(u, 2, "the UDP socket bound to " VJT_LOCAL4);
	expect_none(c, "the wildcard channel");
	close(u);
	/* With the specific socket gone, the channel gets the port's. */
	inject4(port, 3);
	expect_gets(c, 3, "the channel");
	close(c);
	return 0;
}

/*
 * Two SO_REUSEADDR sockets on one port, a channel and an ordinary socket,
 * both members of a multicast group on vjtest0: a datagram to the group,
 * and one to the subnet's broadcast address, reach both, as UDP gives
 * multicast and broadcast to every socket of the port.
 */
static int t_reuseaddr_multicast(void)
{
	struct ip_mreqn mr = { .imr_ifindex = (int)vjt_ifindex() };
	uint16_t port = tport(0);
	int c, u, r;

	inet_pton(AF_INET, "239.1.2.3", &mr.imr_multiaddr);
	c = udp_chan(AF_INET);
	reuse_addr(c);
	EXPECT_OK(udp_bind_to(c, "0.0.0.0", port), "bind the channel");
	u = udp_plain(AF_INET);
	reuse_addr(u);
	EXPECT_OK(udp_bind_to(u, "0.0.0.0", port), "bind the UDP socket");
	EXPECT_OK(setsockopt(c, SOL_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr)),
		  "IP_ADD_MEMBERSHIP on the channel");
	EXPECT_OK(setsockopt(u, SOL_IP, IP_ADD_MEMBERSHIP, &mr, sizeof(mr)),
		  "IP_ADD_MEMBERSHIP on the UDP socket");
	r = vjt_inject("saddr=%s daddr=239.1.2.3 sport=1000 dport=%u seq=8",
		       VJT_PEER4, port);
	CHECK(!r, "inject to the group: %s", errname(-r));
	expect_gets(u, 8, "the UDP socket, multicast");
	expect_gets(c, 8, "the channel, multicast");
	r = vjt_inject("saddr=%s daddr=198.51.100.255 sport=1000 dport=%u "
		       "seq=9", VJT_PEER4, port);
	CHECK(!r, "inject to the broadcast address: %s", errname(-r));
	expect_gets(u, 9, "the UDP socket, broadcast");
	expect_gets(c, 9, "the channel, broadcast");
	close(u);
	close(c);
	return 0;
}

/*
 * The options a UDP server commonly sets, on a channel and on an ordinary
 * socket: each is accepted or refused alike and reads back alike, and a
 * bind that depends on one (IP_FREEBIND to an address that is not local)
 * succeeds alike.
 */
static int t_server_options(void)
{
	static const struct { int level, name, val; const char *what; }
	opts[] = {
		{ SOL_SOCKET, SO_RCVBUF, 65536, "SO_RCVBUF" },
		{ SOL_SOCKET, SO_SNDBUF, 65536, "SO_SNDBUF" },
		{ SOL_SOCKET, SO_MARK, 7, "SO_MARK" },
		{ SOL_SOCKET, SO_PRIORITY, 3, "SO_PRIORITY" },
		{ SOL_IP, IP_TOS, 0x28, "IP_TOS" },
		{ SOL_IP, IP_TTL, 9, "IP_TTL" },
		{ SOL_IP, IP_RECVTOS, 1, "IP_RECVTOS" },
		{ SOL_IP, IP_RECVTTL, 1, "IP_RECVTTL" },
		{ SOL_IP, IP_FREEBIND, 1, "IP_FREEBIND" },
		{ SOL_IP, IP_TRANSPARENT, 1, "IP_TRANSPARENT" },
		{ SOL_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO, "IP_MTU_DISCOVER" },
	};
	uint16_t port = tport(0), port2 = tport(1);
	unsigned int i;
	int c, u, vu, vc, ru, rc, eu, ec;
	socklen_t lu, lc;

	c = udp_chan(AF_INET);
	u = udp_plain(AF_INET);
	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		ru = setsockopt(u, opts[i].level, opts[i].name, &opts[i].val,
				sizeof(int));
		eu = errno;
		rc = setsockopt(c, opts[i].level, opts[i].name, &opts[i].val,
				sizeof(int));
		ec = errno;
		CHECK(ru == rc && (!ru || eu == ec),
		      "%s: UDP %d (%s), channel %d (%s)", opts[i].what, ru,
		      ru ? errname(eu) : "-", rc, rc ? errname(ec) : "-");
		vu = vc = -1;
		lu = lc = sizeof(int);
		ru = getsockopt(u, opts[i].level, opts[i].name, &vu, &lu);
		rc = getsockopt(c, opts[i].level, opts[i].name, &vc, &lc);
		CHECK(ru == rc && vu == vc && lu == lc,
		      "%s reads back: UDP %d (%d), channel %d (%d)",
		      opts[i].what, ru, vu, rc, vc);
	}
	ru = udp_bind_to(u, "192.0.2.77", port);
	eu = errno;
	rc = udp_bind_to(c, "192.0.2.77", port2);
	ec = errno;
	CHECK(ru == rc && (!ru || eu == ec),
	      "bind to a foreign address with IP_FREEBIND: UDP %d (%s), "
	      "channel %d (%s)", ru, ru ? errname(eu) : "-", rc,
	      rc ? errname(ec) : "-");
	close(u);
	close(c);
	return 0;
}

/*
 * An IPsec input policy that wants ESP for UDP to the port: a plaintext
 * datagram is dropped by UDP's policy check, for a channel as for an
 * ordinary socket; without the policy the channel gets the next one.
 */
static int t_xfrm_policy_in(void)
{
	uint16_t port = tport(0);
	int c;

	vjt_ifindex();
	c = udp_chan(AF_INET);
	EXPECT_OK(udp_bind_to(c, "0.0.0.0", port), "bind the channel");
	if (sh("ip xfrm policy add src %s/32 dst %s/32 proto udp dport %u "
	       "dir in tmpl proto esp mode transport 2>/dev/null",
	       VJT_PEER4, VJT_LOCAL4, port))
		skip("ip xfrm policy add failed (no XFRM in this kernel?)");
	inject4(port, 4);
	expect_none(c, "the channel under an ESP-only input policy");
	CHECK(!sh("ip xfrm policy del src %s/32 dst %s/32 proto udp dport %u "
		  "dir in 2>/dev/null", VJT_PEER4, VJT_LOCAL4, port),
	      "ip xfrm policy del failed");
	inject4(port, 5);
	expect_gets(c, 5, "the channel without the policy");
	close(c);
	return 0;
}

static long bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* A program of @type, @n instructions: its fd, or -1. */
static int bpf_load(enum bpf_prog_type type, enum bpf_attach_type at,
		    const struct bpf_insn *insns, unsigned int n)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.expected_attach_type = at;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = n;
	a.license = (uintptr_t)"GPL";
	return bpf(BPF_PROG_LOAD, &a);
}

/* A cgroup of its own with the program @insns of @type at @at: its fd. */
static int cg_with_prog(enum bpf_prog_type type, enum bpf_attach_type at,
			const struct bpf_insn *insns, unsigned int n)
{
	union bpf_attr a;
	struct statfs sf;
	int cg, prog;

	if (statfs(CG_ROOT, &sf) || sf.f_type != CGROUP2_MAGIC) {
		if (mount("none", CG_ROOT, "cgroup2", 0, NULL))
			skip("no cgroup2 at " CG_ROOT ": %s", errname(errno));
	}
	rmdir(CG_DIR);
	if (mkdir(CG_DIR, 0755))
		skip("mkdir " CG_DIR ": %s", errname(errno));
	cg = open(CG_DIR, O_RDONLY | O_DIRECTORY);
	CHECK(cg >= 0, "open " CG_DIR ": %s", errname(errno));
	prog = bpf_load(type, at, insns, n);
	if (prog < 0) {
		rmdir(CG_DIR);
		skip("BPF_PROG_LOAD: %s", errname(errno));
	}
	memset(&a, 0, sizeof(a));
	a.target_fd = cg;
	a.attach_bpf_fd = prog;
	a.attach_type = at;
	if (bpf(BPF_PROG_ATTACH, &a)) {
		rmdir(CG_DIR);
		skip("BPF_PROG_ATTACH: %s", errname(errno));
	}
	close(prog);
	return cg;
}

/* A cgroup with a program of @type at @at that returns 0 (deny, drop). */
static int cg_with_deny(enum bpf_prog_type type, enum bpf_attach_type at)
{
	static const struct bpf_insn deny[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return cg_with_prog(type, at, deny, 2);
}

/* Detach the program and remove the cgroup (the child has left it). */
static void cg_remove(int cg, enum bpf_attach_type at)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.target_fd = cg;
	a.attach_type = at;
	bpf(BPF_PROG_DETACH, &a);
	close(cg);
	rmdir(CG_DIR);
}

/* Move the calling process into CG_DIR. */
static void cg_enter(void)
{
	char pid[32];
	int fd = open(CG_DIR "/cgroup.procs", O_WRONLY);

	snprintf(pid, sizeof(pid), "%d", getpid());
	if (fd < 0 || write(fd, pid, strlen(pid)) < 0)
		_exit(2);
	close(fd);
}

/*
 * A cgroup whose sock_create program refuses every socket: an ordinary UDP
 * socket and a UDP channel socket alike are refused (EPERM), since the
 * channel's port holder is created in the caller's context.
 */
static int t_cgroup_sock_create(void)
{
	int cg = cg_with_deny(BPF_PROG_TYPE_CGROUP_SOCK,
			      BPF_CGROUP_INET_SOCK_CREATE);
	int st;
	pid_t p = fork();

	CHECK(p >= 0, "fork: %s", errname(errno));
	if (!p) {
		int u, c;

		cg_enter();
		u = socket(AF_INET, SOCK_DGRAM, 0);
		if (u >= 0 || errno != EPERM)
			_exit(3);
		c = socket(AF_VJCHAN, SOCK_DGRAM, VJ_PROTO_UDP4);
		_exit(c < 0 && errno == EPERM ? 0 : 4);
	}
	waitpid(p, &st, 0);
	cg_remove(cg, BPF_CGROUP_INET_SOCK_CREATE);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 2,
	      "the child could not enter the cgroup");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 3,
	      "an ordinary UDP socket was not refused: the program is not run");
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st),
	      "a UDP channel socket was created where UDP sockets are refused");
	return 0;
}

/*
 * A cgroup whose ingress program drops everything (as systemd's
 * IPAddressDeny= does): a channel created in it receives nothing, like an
 * ordinary socket there; one created outside it receives.
 */
static int t_cgroup_ingress(void)
{
	uint16_t port = tport(0), port2 = tport(1);
	int cg, st, pfd[2], c;
	uint32_t seq, len;
	char ok;
	pid_t p;

	vjt_ifindex();
	cg = cg_with_deny(BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_INGRESS);
	CHECK(!pipe(pfd), "pipe: %s", errname(errno));
	p = fork();
	CHECK(p >= 0, "fork: %s", errname(errno));
	if (!p) {
		int cc;

		cg_enter();
		cc = socket(AF_VJCHAN, SOCK_DGRAM, VJ_PROTO_UDP4);
		if (cc < 0 || udp_bind_to(cc, "0.0.0.0", port))
			_exit(2);
		if (write(pfd[1], "r", 1) != 1)
			_exit(2);
		_exit(udp_recv_seq(cc, 1000, &seq, &len) ? 1 : 0);
	}
	close(pfd[1]);
	if (read(pfd[0], &ok, 1) != 1) {
		waitpid(p, &st, 0);
		cg_remove(cg, BPF_CGROUP_INET_INGRESS);
		fail("the child could not bind its channel");
	}
	inject4(port, 6);
	waitpid(p, &st, 0);
	cg_remove(cg, BPF_CGROUP_INET_INGRESS);
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st),
	      "a channel in a cgroup that drops all ingress received a datagram");
	/* Outside the cgroup, the same delivery works. */
	c = udp_chan(AF_INET);
	EXPECT_OK(udp_bind_to(c, "0.0.0.0", port2), "bind the channel");
	inject4(port2, 7);
	expect_gets(c, 7, "a channel outside the cgroup");
	close(c);
	return 0;
}

/* Datagram @seq to the VRF's address; 0 or -1 (in the child: no fail()). */
static int vrf_send(int fd, uint16_t port, uint32_t seq)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	uint8_t buf[64];

	inet_pton(AF_INET, "203.0.113.1", &sin.sin_addr);
	payload_fill(buf, sizeof(buf), seq);
	return sendto(fd, buf, sizeof(buf), 0, (struct sockaddr *)&sin,
		      sizeof(sin)) == sizeof(buf) ? 0 : -1;
}

/* The child of t_vrf_exec(), in the cgroup: 0 or the step that failed. */
static int vrf_child(uint16_t pu, uint16_t pc)
{
	char du[IFNAMSIZ] = "", dc[IFNAMSIZ] = "";
	socklen_t lu = sizeof(du), lc = sizeof(dc);
	uint32_t seq, len;
	int u, c, tx;

	cg_enter();
	u = socket(AF_INET, SOCK_DGRAM, 0);
	c = socket(AF_VJCHAN, SOCK_DGRAM, VJ_PROTO_UDP4);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (u < 0 || c < 0 || tx < 0)
		return 3;
	if (getsockopt(u, SOL_SOCKET, SO_BINDTODEVICE, du, &lu) ||
	    getsockopt(c, SOL_SOCKET, SO_BINDTODEVICE, dc, &lc) ||
	    strcmp(du, "vjt-vrf") || strcmp(dc, du))
		return 4;
	if (udp_bind_to(u, "0.0.0.0", pu) || udp_bind_to(c, "0.0.0.0", pc))
		return 5;
	if (vrf_send(tx, pu, 1) || vrf_send(tx, pc, 2))
		return 8;
	if (!udp_recv_seq(u, 2000, &seq, &len) || seq != 1)
		return 6;
	if (!udp_recv_seq(c, 2000, &seq, &len) || seq != 2)
		return 7;
	return 0;
}

/*
 * ip vrf exec: a cgroup sock_create program (the one ip vrf exec attaches)
 * binds every new inet socket to the VRF.  A UDP channel created there is
 * in the VRF like an ordinary socket: SO_BINDTODEVICE says the VRF, and a
 * datagram to the VRF's address reaches it.
 */
static int t_vrf_exec(void)
{
	static const char *const why[] = { "", "", "cannot enter the cgroup",
		"socket() failed", "SO_BINDTODEVICE differs from the VRF",
		"bind failed", "the UDP socket received nothing",
		"the channel received nothing", "sendto failed" };
	uint16_t pu = tport(0), pc = tport(1);
	struct bpf_insn prog[] = {
		/* *(u32 *)(ctx + bound_dev_if) = VRF ifindex; return 1 */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3 },
		{ .code = BPF_STX | BPF_MEM | BPF_W, .dst_reg = BPF_REG_1,
		  .src_reg = BPF_REG_3,
		  .off = offsetof(struct bpf_sock, bound_dev_if) },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int cg, st;
	pid_t p;

	if (sh("ip link add vjt-vrf type vrf table 1001 2>/dev/null"))
		skip("no VRF devices in this kernel (CONFIG_NET_VRF)");
	CHECK(!sh("ip link set vjt-vrf up && "
		  "ip link add vjt-vd type dummy && "
		  "ip link set vjt-vd master vjt-vrf && ip link set vjt-vd up && "
		  "ip addr add 203.0.113.1/24 dev vjt-vd"), "set up the VRF");
	prog[0].imm = (int)ifindex_of("vjt-vrf");
	cg = cg_with_prog(BPF_PROG_TYPE_CGROUP_SOCK,
			  BPF_CGROUP_INET_SOCK_CREATE, prog, 4);
	p = fork();
	CHECK(p >= 0, "fork: %s", errname(errno));
	if (!p)
		_exit(vrf_child(pu, pc));
	waitpid(p, &st, 0);
	cg_remove(cg, BPF_CGROUP_INET_SOCK_CREATE);
	sh("ip link del vjt-vd; ip link del vjt-vrf");
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "in the VRF: %s",
	      WIFEXITED(st) && WEXITSTATUS(st) < 9 ?
	      why[WEXITSTATUS(st)] : "the child crashed");
	return 0;
}

const struct vj_case udp_deliver_cases[] = {
	VJ_CASE("UDP_BINDTODEVICE_AFTER_BIND", t_bindtodevice_after_bind),
	VJ_CASE("UDP_REUSEADDR_MORE_SPECIFIC", t_reuseaddr_more_specific),
	VJ_CASE("UDP_REUSEADDR_MULTICAST", t_reuseaddr_multicast),
	VJ_CASE("UDP_SERVER_OPTIONS", t_server_options),
	VJ_CASE("UDP_XFRM_POLICY_IN", t_xfrm_policy_in),
	VJ_CASE("UDP_CGROUP_SOCK_CREATE", t_cgroup_sock_create),
	VJ_CASE("UDP_CGROUP_INGRESS", t_cgroup_ingress),
	VJ_CASE("UDP_VRF_EXEC", t_vrf_exec),
	{ NULL }
};
