// SPDX-License-Identifier: GPL-2.0
/*
 * UDP channel sockets sharing a port: connect() narrows the channel's flow
 * id to its peer, so a second channel bound with SO_REUSEADDR or
 * SO_REUSEPORT takes the other datagrams of the port; the bind rules
 * against channels and ordinary UDP sockets; disconnect; close of either
 * channel.  Ordinary UDP sockets in the same arrangement on another port
 * are the reference wherever UDP's behaviour is the contract.  Last, the
 * receiving calls of channels whose device goes away against poll().
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "t_udp.h"

enum reuse { R_NONE, R_ADDR, R_PORT };

static const char *const reuse_name[] = {
	[R_NONE] = "no option", [R_ADDR] = "SO_REUSEADDR",
	[R_PORT] = "SO_REUSEPORT",
};

static const char *any_of(int family)
{
	return family == AF_INET ? "0.0.0.0" : "::";
}

static const char *lo_of(int family)
{
	return family == AF_INET ? "127.0.0.1" : "::1";
}

static void set_reuse(int fd, enum reuse r)
{
	int one = 1;

	if (r == R_ADDR)
		EXPECT_OK(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				     sizeof(one)), "SO_REUSEADDR");
	else if (r == R_PORT)
		EXPECT_OK(setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one,
				     sizeof(one)), "SO_REUSEPORT");
}

/* A socket (channel or ordinary) with option r, bound to any:port. */
static int bound(int family, bool chan, enum reuse r, uint16_t port)
{
	int fd = chan ? udp_chan(family) : udp_plain(family);

	set_reuse(fd, r);
	EXPECT_OK(udp_bind_to(fd, any_of(family), port), "bind %s %s to %u",
		  chan ? "channel" : "UDP socket", reuse_name[r], port);
	return fd;
}

static void connect_to(int fd, const char *addr, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len;

	parse_addr(addr, port, &ss, &len);
	EXPECT_OK(connect(fd, (struct sockaddr *)&ss, len), "connect %s:%u",
		  addr, port);
}

static void disconnect(int fd)
{
	struct sockaddr sa = { .sa_family = AF_UNSPEC };

	EXPECT_OK(connect(fd, &sa, sizeof(sa)), "connect AF_UNSPEC");
}

/* The channel's source address and port in /proc/net/vjchan ("*": any). */
static void proc_src(int fd, char *saddr, char *sport)
{
	char f[24][64];

	CHECK(proc_chan_find(sock_ino(fd), f, 24) > 7,
	      "channel (inode %lu) not in /proc/net/vjchan", sock_ino(fd));
	strcpy(saddr, f[3]);
	strcpy(sport, f[4]);
}

static void expect_src(int fd, const char *saddr, uint16_t sport,
		       const char *what)
{
	char a[64], p[64], want[16] = "*";

	if (sport)
		snprintf(want, sizeof(want), "%u", sport);
	proc_src(fd, a, p);
	CHECK(!strcmp(a, saddr) && !strcmp(p, want),
	      "%s: flow id source %s port %s, want %s port %s", what, a, p,
	      saddr, want);
}

/* The next datagram on fd within ms: its sequence number, or -1. */
static long next_seq(int fd, int ms)
{
	uint32_t seq, len;

	if (!udp_recv_seq(fd, ms, &seq, &len))
		return -1;
	return seq;
}

static void expect_seq(int fd, long want, const char *what)
{
	long got = next_seq(fd, want < 0 ? 100 : 2000);

	CHECK(got == want, "%s: got datagram %ld, want %ld", what, got, want);
}

static void expect_stats(int fd, uint64_t rx, uint64_t not_peer,
			 const char *what)
{
	struct vj_statistics st = test_get_stats(fd);

	CHECK(st.rx_packets == rx && st.rx_udp_not_peer == not_peer &&
	      !st.rx_udp_malformed && !st.rx_udp_bad_csum && !st.rx_ring_full,
	      "%s: rx_packets %llu (want %llu), not_peer %llu (want %llu), "
	      "malformed %llu, bad_csum %llu, ring_full %llu", what,
	      (unsigned long long)st.rx_packets, (unsigned long long)rx,
	      (unsigned long long)st.rx_udp_not_peer,
	      (unsigned long long)not_peer,
	      (unsigned long long)st.rx_udp_malformed,
	      (unsigned long long)st.rx_udp_bad_csum,
	      (unsigned long long)st.rx_ring_full);
}

/*
 * The peer and a stranger, each an ordinary socket bound on loopback.
 */
struct senders {
	int peer, other;
	uint16_t pp, po;
};

static void senders_open(struct senders *s, int family, uint16_t pp,
			 uint16_t po)
{
	s->pp = pp;
	s->po = po;
	s->peer = udp_plain(family);
	s->other = udp_plain(family);
	EXPECT_OK(udp_bind_to(s->peer, lo_of(family), pp), "bind peer");
	EXPECT_OK(udp_bind_to(s->other, lo_of(family), po), "bind stranger");
}

static void senders_close(struct senders *s)
{
	close(s->peer);
	close(s->other);
}

/*
 * A connected socket and a wildcard one beside it on the same port, both
 * with SO_REUSEADDR (or both SO_REUSEPORT): the connected one gets its
 * peer's datagrams, the other one the rest.  Channels on port P, ordinary
 * sockets on port Q, the same datagrams to both.
 */
static int narrow(int family, enum reuse r)
{
	const char *lo = lo_of(family);
	uint16_t p = tport(0), q = tport(1);
	struct senders s;
	int ca, cb, ua, ub, i;
	char sa[64], sp[64];

	senders_open(&s, family, tport(2), tport(3));
	ca = bound(family, true, r, p);
	ua = bound(family, false, r, q);
	expect_src(ca, "*", 0, "bound");
	connect_to(ca, lo, s.pp);
	connect_to(ua, lo, s.pp);
	expect_src(ca, lo, s.pp, "connected");
	/* connect() chose the local address: the flow id has it too. */
	{
		char f[24][64];

		proc_chan_find(sock_ino(ca), f, 24);
		CHECK(!strcmp(f[5], lo), "connected: flow id daddr %s, want %s",
		      f[5], lo);
	}
	cb = bound(family, true, r, p);
	ub = bound(family, false, r, q);
	proc_src(cb, sa, sp);
	CHECK(!strcmp(sa, "*") && !strcmp(sp, "*"),
	      "wildcard channel: flow id source %s port %s", sa, sp);

	for (i = 0; i < 3; i++) {
		udp_send_to(s.peer, lo, p, 100 + i, 32);
		udp_send_to(s.other, lo, p, 200 + i, 32);
		udp_send_to(s.peer, lo, q, 100 + i, 32);
		udp_send_to(s.other, lo, q, 200 + i, 32);
	}
	for (i = 0; i < 3; i++) {
		expect_seq(ua, 100 + i, "UDP, connected");
		expect_seq(ub, 200 + i, "UDP, wildcard");
		expect_seq(ca, 100 + i, "channel, connected");
		expect_seq(cb, 200 + i, "channel, wildcard");
	}
	expect_seq(ua, -1, "UDP, connected, drained");
	expect_seq(ub, -1, "UDP, wildcard, drained");
	expect_seq(ca, -1, "channel, connected, drained");
	expect_seq(cb, -1, "channel, wildcard, drained");
	expect_stats(ca, 3, 0, "connected channel");
	expect_stats(cb, 3, 0, "wildcard channel");

	/* Replies leave from the shared port. */
	CHECK(send(ca, "r", 1, 0) == 1, "send: %s", errname(errno));
	{
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		char b[8];

		CHECK(recvfrom(s.peer, b, sizeof(b), 0, (struct sockaddr *)&from,
			       &fl) == 1 &&
		      ntohs(((struct sockaddr_in *)&from)->sin_port) == p,
		      "peer did not get the reply from port %u", p);
	}
	close(ca);
	close(cb);
	close(ua);
	close(ub);
	senders_close(&s);
	return 0;
}

static int t_narrow4(void)
{
	return narrow(AF_INET, R_ADDR);
}

static int t_narrow6(void)
{
	return narrow(AF_INET6, R_ADDR);
}

static int t_narrow_reuseport4(void)
{
	return narrow(AF_INET, R_PORT);
}

/*
 * The second bind of a port, for each pair of options on the first and
 * the second socket: a channel after a channel, an ordinary socket after a
 * channel and a channel after an ordinary socket all get UDP's answer for
 * two ordinary sockets.  Two channels that UDP delivers to share their
 * flow id where UDP lets them share the port (UDP chooses between them:
 * t_udp_group.c, t_udp_deliver.c).
 */
static int reuse_rules(int family)
{
	static const char *const kind[] = { "UDP", "channel" };
	unsigned int shared = 0;
	enum reuse r1, r2;
	int first, second;

	for (first = 0; first < 2; first++)
	for (second = 0; second < 2; second++)
	for (r1 = R_NONE; r1 <= R_PORT; r1++)
	for (r2 = R_NONE; r2 <= R_PORT; r2++) {
		uint16_t p = tport(4), q = tport(5);
		int a, b, ua, ub, rc, ec, ru, eu;

		step("%s %s, then %s %s", kind[first], reuse_name[r1],
		     kind[second], reuse_name[r2]);
		/* The reference: two ordinary sockets. */
		ua = bound(family, false, r1, q);
		ub = udp_plain(family);
		set_reuse(ub, r2);
		ru = udp_bind_to(ub, any_of(family), q);
		eu = errno;
		a = bound(family, first, r1, p);
		b = second ? udp_chan(family) : udp_plain(family);
		set_reuse(b, r2);
		rc = udp_bind_to(b, any_of(family), p);
		ec = errno;
		CHECK(rc == ru && (!rc || ec == eu),
		      "%s %s, then %s %s: UDP %d (%s), here %d (%s)",
		      kind[first], reuse_name[r1], kind[second],
		      reuse_name[r2], ru, ru ? errname(eu) : "-", rc,
		      rc ? errname(ec) : "-");
		if (first && second && !rc)
			shared++;
		close(a);
		close(b);
		close(ua);
		close(ub);
		/* Everything is released: the port binds without options. */
		a = udp_plain(family);
		EXPECT_OK(udp_bind_to(a, any_of(family), p),
			  "port free after closing both");
		close(a);
	}
	/* Both options on both channels: the two with the same option. */
	CHECK(shared == 2, "%u pairs of channels share a port, want 2", shared);
	return 0;
}

static int t_reuse_rules4(void)
{
	return reuse_rules(AF_INET);
}

static int t_reuse_rules6(void)
{
	return reuse_rules(AF_INET6);
}

static void other_uid(void *arg)
{
	uint16_t port = *(uint16_t *)arg;
	int fd;

	EXPECT_OK(setresuid(65534, 65534, 65534), "setresuid");
	fd = udp_plain(AF_INET);
	set_reuse(fd, R_PORT);
	EXPECT_ERR(udp_bind_to(fd, "0.0.0.0", port), EADDRINUSE,
		   "SO_REUSEPORT bind by another user");
	close(fd);
}

/* SO_REUSEPORT shares a port with the same user only, as on UDP. */
static int t_reuseport_uid(void)
{
	uint16_t p = tport(0), q = tport(1);
	int c, u, v;

	u = bound(AF_INET, false, R_PORT, q);
	in_child(other_uid, &q);
	c = bound(AF_INET, true, R_PORT, p);
	in_child(other_uid, &p);
	v = bound(AF_INET, false, R_PORT, p);
	close(v);
	close(c);
	close(u);
	return 0;
}

/*
 * Which of two sockets got datagram @seq, sent by @from: 0 or 1, -1 for
 * neither.
 */
static int who_got(int x, int y, int from, const char *lo, uint16_t port,
		   uint32_t seq)
{
	long gx, gy;

	udp_send_to(from, lo, port, seq, 20);
	gx = next_seq(x, 300);
	gy = next_seq(y, gx < 0 ? 300 : 50);
	CHECK(gx < 0 || gy < 0, "datagram %u reached both sockets", seq);
	CHECK(gx < 0 || gx == seq, "got datagram %ld, want %u", gx, seq);
	CHECK(gy < 0 || gy == seq, "got datagram %ld, want %u", gy, seq);
	return gx >= 0 ? 0 : gy >= 0 ? 1 : -1;
}

/*
 * Disconnect and reconnect beside a wildcard socket, both with
 * SO_REUSEADDR: channels a and b on port P, ordinary sockets in the same
 * arrangement on port Q, the same datagrams to both; UDP picks the
 * receiver, and the channels must get what the ordinary sockets get.  A
 * disconnected channel takes a stranger's datagram again.
 */
static int t_disconnect(void)
{
	const char *lo = "127.0.0.1";
	uint16_t p = tport(0), q = tport(1);
	struct senders s;
	int a, b, ua, ub, i, na = 1;
	uint32_t seq = 10;
	static const struct {
		bool from_peer;
		const char *what;
	} after[] = {
		{ true, "the former peer's" }, { false, "a stranger's" },
	};

	senders_open(&s, AF_INET, tport(2), tport(3));
	a = bound(AF_INET, true, R_ADDR, p);
	connect_to(a, lo, s.pp);
	expect_src(a, lo, s.pp, "connected");
	disconnect(a);
	expect_src(a, "*", 0, "disconnected");
	udp_send_to(s.other, lo, p, 1, 20);
	expect_seq(a, 1, "disconnected, from the stranger");

	ua = bound(AF_INET, false, R_ADDR, q);
	connect_to(a, lo, s.pp);
	connect_to(ua, lo, s.pp);
	b = bound(AF_INET, true, R_ADDR, p);
	ub = bound(AF_INET, false, R_ADDR, q);
	disconnect(a);
	disconnect(ua);
	for (i = 0; i < 2; i++) {
		int from = after[i].from_peer ? s.peer : s.other;
		int wu = who_got(ua, ub, from, lo, q, seq);
		int wc = who_got(a, b, from, lo, p, seq + 1);

		CHECK(wu >= 0, "%s: neither UDP socket got it", after[i].what);
		CHECK(wc == wu, "%s, after a disconnect beside a wildcard "
		      "socket: channel %c got it, UDP socket %c", after[i].what,
		      wc < 0 ? '-' : "ab"[wc], "ab"[wu]);
		na += wc == 0;
		seq += 2;
	}

	/* b connects to a's former peer: it gets the peer's datagrams. */
	connect_to(b, lo, s.pp);
	connect_to(ub, lo, s.pp);
	CHECK(who_got(a, b, s.peer, lo, p, seq) == 1 &&
	      who_got(ua, ub, s.peer, lo, q, seq + 1) == 1,
	      "the peer's datagram did not reach the socket connected to it");
	seq += 2;

	/* Reconnecting a to another peer: it gets that peer's. */
	connect_to(a, lo, s.po);
	connect_to(ua, lo, s.po);
	CHECK(who_got(a, b, s.other, lo, p, seq) == 0 &&
	      who_got(ua, ub, s.other, lo, q, seq + 1) == 0,
	      "the new peer's datagram did not reach the reconnected socket");
	expect_stats(a, na + 1, 0, "the first channel");
	close(a);
	close(b);
	close(ua);
	close(ub);
	senders_close(&s);
	return 0;
}

/*
 * Datagrams queued before connect() stay in the ring; the receiving call
 * drops and counts the ones not from the peer.  Those sent after it never
 * reach the channel: the stranger gets port unreachable, as from UDP.
 */
static int t_queued_not_peer(void)
{
	const char *lo = "127.0.0.1";
	uint16_t p = tport(0);
	struct senders s;
	uint8_t buf[64];
	int c;

	senders_open(&s, AF_INET, tport(2), tport(3));
	c = bound(AF_INET, true, R_NONE, p);
	udp_send_to(s.other, lo, p, 1, 20);
	udp_send_to(s.peer, lo, p, 2, 20);
	udp_send_to(s.other, lo, p, 3, 20);
	CHECK(WAIT_FOR(test_get_stats(c).rx_packets == 3, 2000),
	      "rx_packets %llu, want 3",
	      (unsigned long long)test_get_stats(c).rx_packets);
	connect_to(c, lo, s.pp);
	connect_to(s.other, lo, p);
	CHECK(send(s.other, "x", 1, 0) == 1, "stranger send: %s",
	      errname(errno));
	expect_seq(c, 2, "the peer's queued datagram");
	expect_seq(c, -1, "nothing after it");
	expect_stats(c, 3, 2, "after connect");
	msleep(50);
	EXPECT_ERR(recv(s.other, buf, sizeof(buf), MSG_DONTWAIT), ECONNREFUSED,
		   "stranger after sending to the connected channel");
	close(c);
	senders_close(&s);
	return 0;
}

/*
 * Closing either of a connected channel and a wildcard one on the same
 * port leaves the other working, and the port held by the holder that
 * remains (with its reuse option); closing both frees it.
 */
static int close_one(bool close_connected)
{
	const char *lo = "127.0.0.1";
	uint16_t p = tport(0);
	struct senders s;
	int a, b, keep, u;

	senders_open(&s, AF_INET, tport(2), tport(3));
	a = bound(AF_INET, true, R_ADDR, p);
	connect_to(a, lo, s.pp);
	b = bound(AF_INET, true, R_ADDR, p);
	udp_send_to(s.peer, lo, p, 1, 20);
	udp_send_to(s.other, lo, p, 2, 20);
	expect_seq(a, 1, "connected, before");
	expect_seq(b, 2, "wildcard, before");
	if (close_connected) {
		close(a);
		keep = b;
		udp_send_to(s.peer, lo, p, 3, 20);
		udp_send_to(s.other, lo, p, 4, 20);
		expect_seq(b, 3, "wildcard, the former peer's");
		expect_seq(b, 4, "wildcard, the stranger's");
		expect_stats(b, 3, 0, "wildcard channel");
	} else {
		close(b);
		keep = a;
		udp_send_to(s.other, lo, p, 3, 20);
		udp_send_to(s.peer, lo, p, 4, 20);
		expect_seq(a, 4, "connected, the peer's");
		expect_seq(a, -1, "connected, nothing else");
		expect_stats(a, 2, 0, "connected channel");
	}
	u = udp_plain(AF_INET);
	EXPECT_ERR(udp_bind_to(u, "0.0.0.0", p), EADDRINUSE,
		   "ordinary bind without SO_REUSEADDR, one channel left");
	close(u);
	u = bound(AF_INET, false, R_ADDR, p);
	close(u);
	close(keep);
	u = bound(AF_INET, false, R_NONE, p);
	close(u);
	senders_close(&s);
	return 0;
}

static int t_close_connected(void)
{
	return close_one(true);
}

static int t_close_wildcard(void)
{
	return close_one(false);
}

#define DEAD_DEV	"vjudead0"
#define DEAD_ROUNDS	100

/* A UDP channel socket bound to any:port on DEAD_DEV (SO_BINDTODEVICE). */
static int dev_bound(int family, uint16_t port)
{
	int fd = udp_chan(family);

	EXPECT_OK(setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, DEAD_DEV,
			     sizeof(DEAD_DEV)), "SO_BINDTODEVICE " DEAD_DEV);
	EXPECT_OK(udp_bind_to(fd, any_of(family), port),
		  "bind %s to %u on " DEAD_DEV, family == AF_INET ? "UDP4" :
		  "UDP6", port);
	return fd;
}

static int so_err(int fd)
{
	socklen_t len = sizeof(int);
	int v = -1;

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &len))
		fail("SO_ERROR: %s", errname(errno));
	return v;
}

/* One receiving call without waiting: recvmsg(), or recvmmsg() of one. */
static long recv_now(int fd, bool mmsg)
{
	char buf[64];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct mmsghdr mm = { .msg_hdr = { .msg_iov = &iov,
					   .msg_iovlen = 1 } };

	if (mmsg)
		return recvmmsg(fd, &mm, 1, MSG_DONTWAIT, NULL);
	return recvmsg(fd, &mm.msg_hdr, MSG_DONTWAIT);
}

/*
 * The level-triggered loop of an event-driven receiver on fd, for at most
 * DEAD_ROUNDS rounds: epoll_wait() (100 ms), then a receiving call without
 * waiting whenever fd is reported, until a wait finds nothing.  The first
 * round must report POLLERR and the call return want, once (want 0: no
 * round reports fd); then epoll and the calls agree that nothing is left.
 * A call that returns EAGAIN while epoll reports fd makes the loop spin.
 */
static void dead_loop(int fd, bool mmsg, int want, const char *what)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
	int ep, round, n, err, errs = 0;
	long r;

	ep = epoll_create1(EPOLL_CLOEXEC);
	EXPECT_OK(ep, "epoll_create1");
	EXPECT_OK(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), "epoll_ctl");
	for (round = 1; round <= DEAD_ROUNDS; round++) {
		n = epoll_wait(ep, &ev, 1, 100);
		EXPECT_OK(n, "%s: epoll_wait", what);
		if (!n)
			break;
		r = recv_now(fd, mmsg);
		err = errno;
		CHECK(r < 0, "%s: round %d: a datagram of %ld bytes", what,
		      round, r);
		CHECK(err != EAGAIN,
		      "%s: round %d: epoll_wait reported %#x, %s EAGAIN: the loop spins",
		      what, round, ev.events, mmsg ? "recvmmsg" : "recvmsg");
		CHECK(round == 1 && want && ev.events & EPOLLERR && err == want,
		      "%s: round %d: epoll_wait reported %#x, %s %s; want %s",
		      what, round, ev.events, mmsg ? "recvmmsg" : "recvmsg",
		      errname(err), want ? "POLLERR and the error once" :
		      "no event");
		errs++;
	}
	CHECK(round <= DEAD_ROUNDS, "%s: still reported after %d rounds",
	      what, DEAD_ROUNDS);
	CHECK(errs == !!want, "%s: no event, want POLLERR", what);
	EXPECT_ERR(recv_now(fd, mmsg), EAGAIN, "%s: after the loop", what);
	err = so_err(fd);
	CHECK(!err, "%s: SO_ERROR %s after the loop", what, errname(err));
	close(ep);
}

/*
 * Unregistering the device UDP channel sockets are bound to
 * (SO_BINDTODEVICE) sets ENODEV on them.  poll() reports POLLERR until it
 * is taken, and the receiving calls must report what poll() does: an
 * event loop gets ENODEV from recvmsg() or recvmmsg() once and then no
 * more events (instead of POLLERR forever and EAGAIN: a busy loop); a
 * receiver asleep in recv() wakes with ENODEV; SO_ERROR takes the error
 * as well, and then neither poll() nor recv() has anything to report.
 */
static int t_dead_epoll(void)
{
	struct timeval tv = { .tv_sec = 3 };
	int e4, e6, s, r, st;
	uint64_t t0;
	pid_t pid;
	long n;

	sh("ip link del " DEAD_DEV " >/dev/null 2>&1");
	if (sh("ip link add " DEAD_DEV " type dummy 2>/dev/null") &&
	    sh("ip link add " DEAD_DEV " type veth peer name vjudead1"))
		fail("cannot create a dummy or veth device");
	sh("ip link set " DEAD_DEV " up");
	e4 = dev_bound(AF_INET, tport(0));
	e6 = dev_bound(AF_INET6, tport(1));
	s = dev_bound(AF_INET, tport(2));
	r = dev_bound(AF_INET6, tport(3));
	dead_loop(e4, false, 0, "UDP4 before the delete");
	EXPECT_OK(setsockopt(r, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)),
		  "SO_RCVTIMEO");

	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", errname(errno));
	if (!pid) {
		char buf[64];

		n = recv(r, buf, sizeof(buf), 0);
		_exit(n < 0 ? errno : 255);
	}
	msleep(300);
	step("deleting " DEAD_DEV);
	t0 = now_ns();
	if (sh("ip link del " DEAD_DEV))
		fail("ip link del " DEAD_DEV " failed");

	dead_loop(e4, false, ENODEV, "UDP4, recvmsg");
	dead_loop(e6, true, ENODEV, "UDP6, recvmmsg");
	st = so_err(s);
	CHECK(st == ENODEV, "UDP4: SO_ERROR %s, want ENODEV", errname(st));
	dead_loop(s, false, 0, "UDP4 after SO_ERROR");

	CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", errname(errno));
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == ENODEV,
	      "UDP6: recv asleep returned %s, want ENODEV",
	      !WIFEXITED(st) ? "no status" : WEXITSTATUS(st) == 255 ?
	      "a datagram" : errname(WEXITSTATUS(st)));
	CHECK(now_ns() - t0 < 2000 * MSEC,
	      "UDP6: recv asleep woke %llu ms after the delete",
	      (unsigned long long)((now_ns() - t0) / MSEC));
	dead_loop(r, false, 0, "UDP6 after recv asleep");

	close(e4);
	close(e6);
	close(s);
	close(r);
	return 0;
}

const struct vj_case udp3_cases[] = {
	VJ_CASE("UDP_CONNECT_NARROWS4", t_narrow4),
	VJ_CASE("UDP_CONNECT_NARROWS6", t_narrow6),
	VJ_CASE("UDP_CONNECT_NARROWS_REUSEPORT", t_narrow_reuseport4),
	VJ_CASE("UDP_REUSE_RULES4", t_reuse_rules4),
	VJ_CASE("UDP_REUSE_RULES6", t_reuse_rules6),
	VJ_CASE("UDP_REUSEPORT_OTHER_USER", t_reuseport_uid),
	VJ_CASE("UDP_DISCONNECT", t_disconnect),
	VJ_CASE("UDP_QUEUED_NOT_PEER", t_queued_not_peer),
	VJ_CASE("UDP_CLOSE_CONNECTED", t_close_connected),
	VJ_CASE("UDP_CLOSE_WILDCARD", t_close_wildcard),
	VJ_CASE("UDP_DEAD_EPOLL", t_dead_epoll),
	{ NULL }
};
