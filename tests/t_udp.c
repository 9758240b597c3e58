// SPDX-License-Identifier: GPL-2.0
/*
 * UDP channel sockets, the receive side: a differential test against an
 * ordinary UDP socket.  Both sockets get the same datagrams from the same
 * sender over the loopback interface, then the same calls with the same
 * flags and buffer sizes; return values, errnos, payloads, msg_flags,
 * sender addresses, control messages, FIONREAD and poll() readiness must
 * agree.
 * Then blocking, truncated datagrams, hostile mappings and accounting.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "t_udp.h"

/* Kernel option names glibc's headers may lack (linux/in.h, linux/in6.h). */
#ifndef IP_CHECKSUM
#define IP_CHECKSUM		23
#endif
#ifndef IP_RECVFRAGSIZE
#define IP_RECVFRAGSIZE		25
#endif
#ifndef IPV6_FLOWINFO
#define IPV6_FLOWINFO		11
#endif
#ifndef IPV6_RECVFRAGSIZE
#define IPV6_RECVFRAGSIZE	77
#endif
#ifndef UDP_GRO
#define UDP_GRO			104
#endif

#define MAXD		9000	/* largest datagram the cases send */

int udp_chan(int family)
{
	int fd = socket(AF_VJCHAN, SOCK_DGRAM | SOCK_CLOEXEC,
			family == AF_INET ? VJ_PROTO_UDP4 : VJ_PROTO_UDP6);

	if (fd < 0)
		fail("socket(AF_VJCHAN, VJ_PROTO_UDP%c): %s",
		     family == AF_INET ? '4' : '6', errname(errno));
	return fd;
}

int udp_plain(int family)
{
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		fail("socket(UDP): %s", errname(errno));
	return fd;
}

int udp_bind_to(int fd, const char *addr, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len;

	parse_addr(addr, port, &ss, &len);
	return bind(fd, (struct sockaddr *)&ss, len);
}

void udp_ring(int fd, uint32_t entries, uint32_t buf_size)
{
	struct vj_ring_req r = { .entries = entries, .buf_size = buf_size };

	EXPECT_OK(setsockopt(fd, SOL_VJCHAN, VJ_RING, &r, sizeof(r)),
		  "VJ_RING %u x %u", entries, buf_size);
}

uint16_t udp_local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	EXPECT_OK(getsockname(fd, (struct sockaddr *)&ss, &len), "getsockname");
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* Sends a datagram of len bytes carrying seq from fd to addr:port. */
void udp_send_to(int fd, const char *addr, uint16_t port, uint32_t seq,
		 uint32_t len)
{
	static uint8_t buf[MAXD];
	struct sockaddr_storage ss;
	socklen_t sl;

	parse_addr(addr, port, &ss, &sl);
	payload_fill(buf, len, seq);
	if (sendto(fd, buf, len, 0, (struct sockaddr *)&ss, sl) != (ssize_t)len)
		fail("sendto %s:%u (%u bytes): %s", addr, port, len,
		     errname(errno));
}

/* One receiving call and everything it returned. */
struct rx {
	long ret;
	int err;
	int msg_flags;
	socklen_t namelen;
	struct sockaddr_storage name;
	size_t controllen;
	uint8_t control[512];
	uint8_t data[MAXD];
	uint64_t ns;			/* time the call took */
};

enum call { C_RECVMSG, C_RECVFROM, C_RECV, C_READ };

static const char *const call_name[] = {
	[C_RECVMSG] = "recvmsg", [C_RECVFROM] = "recvfrom",
	[C_RECV] = "recv", [C_READ] = "read",
};

static void do_call(int fd, enum call c, int flags, size_t blen, struct rx *r)
{
	struct iovec iov = { .iov_base = r->data, .iov_len = blen };
	struct msghdr mh = {
		.msg_name = &r->name, .msg_namelen = sizeof(r->name),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = r->control, .msg_controllen = sizeof(r->control),
	};
	uint64_t t0 = now_ns();

	memset(r, 0, sizeof(*r));
	r->namelen = sizeof(r->name);
	errno = 0;
	switch (c) {
	case C_RECVMSG:
		r->ret = recvmsg(fd, &mh, flags);
		r->msg_flags = mh.msg_flags;
		r->namelen = mh.msg_namelen;
		r->controllen = mh.msg_controllen;
		break;
	case C_RECVFROM:
		r->ret = recvfrom(fd, r->data, blen, flags,
				  (struct sockaddr *)&r->name, &r->namelen);
		break;
	case C_RECV:
		r->ret = recv(fd, r->data, blen, flags);
		break;
	case C_READ:
		r->ret = read(fd, r->data, blen);
		break;
	}
	r->err = r->ret < 0 ? errno : 0;
	r->ns = now_ns() - t0;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

/*
 * The control messages must agree one by one: the same level, type and
 * length; packet info byte for byte; timestamps each within the last
 * five seconds of CLOCK_REALTIME.
 */
static void cmp_cmsgs(const struct rx *u, const struct rx *c, const char *w)
{
	struct msghdr mu = { .msg_control = (void *)u->control,
			     .msg_controllen = u->controllen };
	struct msghdr mc = { .msg_control = (void *)c->control,
			     .msg_controllen = c->controllen };
	struct cmsghdr *a = CMSG_FIRSTHDR(&mu), *b = CMSG_FIRSTHDR(&mc);
	uint64_t now = realtime_ns();

	for (; a || b; a = CMSG_NXTHDR(&mu, a), b = CMSG_NXTHDR(&mc, b)) {
		CHECK(a && b, "%s: UDP gave %s control message than the channel",
		      w, a ? "one more" : "one fewer");
		CHECK(a->cmsg_level == b->cmsg_level &&
		      a->cmsg_type == b->cmsg_type && a->cmsg_len == b->cmsg_len,
		      "%s: cmsg UDP %d/%d/%zu, channel %d/%d/%zu", w,
		      a->cmsg_level, a->cmsg_type, (size_t)a->cmsg_len,
		      b->cmsg_level, b->cmsg_type, (size_t)b->cmsg_len);
		if (a->cmsg_level == SOL_SOCKET &&
		    a->cmsg_type == SO_TIMESTAMPNS) {
			struct timespec ta, tb;
			uint64_t na, nb;

			memcpy(&ta, CMSG_DATA(a), sizeof(ta));
			memcpy(&tb, CMSG_DATA(b), sizeof(tb));
			na = ta.tv_sec * NSEC + ta.tv_nsec;
			nb = tb.tv_sec * NSEC + tb.tv_nsec;
			CHECK(na <= now && now - na < 5 * NSEC &&
			      nb <= now && now - nb < 5 * NSEC &&
			      tb.tv_nsec < (long)NSEC,
			      "%s: SCM_TIMESTAMPNS UDP %llu, channel %llu, now %llu",
			      w, (unsigned long long)na,
			      (unsigned long long)nb, (unsigned long long)now);
			continue;
		}
		/* The original destination: the two sockets' ports differ. */
		if ((a->cmsg_level == SOL_IP &&
		     a->cmsg_type == IP_ORIGDSTADDR) ||
		    (a->cmsg_level == SOL_IPV6 &&
		     a->cmsg_type == IPV6_ORIGDSTADDR)) {
			struct sockaddr_in6 sa, sb;

			memset(&sa, 0, sizeof(sa));
			memset(&sb, 0, sizeof(sb));
			memcpy(&sa, CMSG_DATA(a), a->cmsg_len - CMSG_LEN(0));
			memcpy(&sb, CMSG_DATA(b), b->cmsg_len - CMSG_LEN(0));
			CHECK(sa.sin6_port && sb.sin6_port,
			      "%s: ORIGDSTADDR without a port", w);
			sa.sin6_port = sb.sin6_port = 0;
			CHECK(!memcmp(&sa, &sb, sizeof(sa)),
			      "%s: ORIGDSTADDR differs", w);
			continue;
		}
		CHECK(!memcmp(CMSG_DATA(a), CMSG_DATA(b),
			      a->cmsg_len - CMSG_LEN(0)),
		      "%s: cmsg %d/%d data differ", w, a->cmsg_level,
		      a->cmsg_type);
	}
}

static void cmp_rx(const struct rx *u, const struct rx *c, size_t blen,
		   const char *w)
{
	size_t n;

	CHECK(u->ret == c->ret && u->err == c->err,
	      "%s: UDP returned %ld (%s), the channel %ld (%s)", w, u->ret,
	      u->err ? errname(u->err) : "-", c->ret,
	      c->err ? errname(c->err) : "-");
	if (u->ret < 0)
		return;
	n = (size_t)u->ret < blen ? (size_t)u->ret : blen;
	CHECK(!memcmp(u->data, c->data, n), "%s: payloads differ", w);
	CHECK(u->msg_flags == c->msg_flags,
	      "%s: msg_flags UDP %#x, channel %#x", w, u->msg_flags,
	      c->msg_flags);
	CHECK(u->namelen == c->namelen && !memcmp(&u->name, &c->name,
						  u->namelen),
	      "%s: sender address differs (namelen %u vs %u)", w,
	      u->namelen, c->namelen);
	cmp_cmsgs(u, c, w);
}

static short poll_one(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };

	if (poll(&p, 1, ms) < 0)
		fail("poll: %s", errname(errno));
	return p.revents;
}

/* Waits for both to be readable (POLLIN only), then compares poll(). */
static void wait_both(int u, int c, const char *w)
{
	struct pollfd p[2] = { { .fd = u, .events = POLLIN },
			       { .fd = c, .events = POLLIN } };
	uint64_t end = now_ns() + 3 * NSEC;

	while ((!(p[0].revents & POLLIN) || !(p[1].revents & POLLIN)) &&
	       now_ns() < end) {
		p[0].revents = p[1].revents = 0;
		if (poll(p, 2, 50) < 0)
			fail("poll: %s", errname(errno));
	}
	CHECK(poll_one(u, 0) == poll_one(c, 0),
	      "%s: poll UDP %#x, channel %#x", w, poll_one(u, 0),
	      poll_one(c, 0));
	CHECK(p[0].revents & POLLIN, "%s: nothing arrived", w);
}

struct pair {
	int family;
	const char *lo;
	int u, c, tx;
	uint16_t pu, pc;
	uint32_t seq;
};

static void pair_send(struct pair *p, uint32_t len)
{
	p->seq++;
	udp_send_to(p->tx, p->lo, p->pu, p->seq, len);
	udp_send_to(p->tx, p->lo, p->pc, p->seq, len);
}

static void both_call(struct pair *p, enum call c, int flags, size_t blen,
		      bool wait, const char *what)
{
	static struct rx ru, rc;
	char w[128];

	snprintf(w, sizeof(w), "%s: %s(flags %#x, %zu bytes)", what,
		 call_name[c], flags, blen);
	step("%s", w);
	if (wait)
		wait_both(p->u, p->c, w);
	{
		int nu = -1, nc = -1;

		EXPECT_OK(ioctl(p->u, FIONREAD, &nu), "%s: FIONREAD", w);
		EXPECT_OK(ioctl(p->c, FIONREAD, &nc), "%s: FIONREAD", w);
		CHECK(nu == nc, "%s: FIONREAD UDP %d, channel %d", w, nu, nc);
	}
	do_call(p->u, c, flags, blen, &ru);
	do_call(p->c, c, flags, blen, &rc);
	cmp_rx(&ru, &rc, blen, w);
}

static void setopt_both(struct pair *p, int level, int name, const void *v,
			socklen_t len, const char *what)
{
	int ru = setsockopt(p->u, level, name, v, len);
	int eu = errno;
	int rc = setsockopt(p->c, level, name, v, len);
	int ec = errno;

	CHECK(ru == rc && (!ru || eu == ec),
	      "setsockopt %s: UDP %d (%s), channel %d (%s)", what, ru,
	      ru ? errname(eu) : "-", rc, rc ? errname(ec) : "-");
}

static void both_mmsg(struct pair *p, const char *what)
{
	static uint8_t bu[4][2048], bc[4][2048];
	struct iovec iu[4], ic[4];
	struct mmsghdr mu[4], mc[4];
	struct sockaddr_storage nu[4], nc[4];
	int i, ru, rc;

	step("%s: recvmmsg(MSG_WAITFORONE)", what);
	memset(mu, 0, sizeof(mu));
	memset(mc, 0, sizeof(mc));
	for (i = 0; i < 4; i++) {
		iu[i] = (struct iovec){ bu[i], sizeof(bu[i]) };
		ic[i] = (struct iovec){ bc[i], sizeof(bc[i]) };
		mu[i].msg_hdr = (struct msghdr){ .msg_name = &nu[i],
			.msg_namelen = sizeof(nu[i]), .msg_iov = &iu[i],
			.msg_iovlen = 1 };
		mc[i].msg_hdr = (struct msghdr){ .msg_name = &nc[i],
			.msg_namelen = sizeof(nc[i]), .msg_iov = &ic[i],
			.msg_iovlen = 1 };
	}
	wait_both(p->u, p->c, what);
	/* All three are in both: both lo deliveries are done once polled. */
	CHECK(WAIT_FOR(test_get_stats(p->c).rx_packets >= p->seq, 2000),
	      "%s: channel has %llu of %u", what,
	      (unsigned long long)test_get_stats(p->c).rx_packets, p->seq);
	ru = recvmmsg(p->u, mu, 4, MSG_WAITFORONE, NULL);
	rc = recvmmsg(p->c, mc, 4, MSG_WAITFORONE, NULL);
	CHECK(ru == rc && ru == 3, "%s: recvmmsg UDP %d, channel %d (want 3)",
	      what, ru, rc);
	for (i = 0; i < ru; i++)
		CHECK(mu[i].msg_len == mc[i].msg_len &&
		      !memcmp(bu[i], bc[i], mu[i].msg_len) &&
		      mu[i].msg_hdr.msg_namelen == mc[i].msg_hdr.msg_namelen &&
		      !memcmp(&nu[i], &nc[i], mu[i].msg_hdr.msg_namelen),
		      "%s: message %d differs", what, i);
}

static void pair_open(struct pair *p, int family)
{
	memset(p, 0, sizeof(*p));
	p->family = family;
	p->lo = family == AF_INET ? "127.0.0.1" : "::1";
	p->pu = tport(0);
	p->pc = tport(1);
	p->u = udp_plain(family);
	p->c = udp_chan(family);
	udp_ring(p->c, 64, 16384);
	p->tx = udp_plain(family);
	EXPECT_OK(udp_bind_to(p->u, family == AF_INET ? "0.0.0.0" : "::",
			      p->pu), "bind UDP");
	EXPECT_OK(udp_bind_to(p->c, family == AF_INET ? "0.0.0.0" : "::",
			      p->pc), "bind channel");
	EXPECT_OK(udp_bind_to(p->tx, p->lo, 0), "bind sender");
}

static void pair_close(struct pair *p)
{
	close(p->u);
	close(p->c);
	close(p->tx);
}

static int diff(int family)
{
	struct timeval tv = { .tv_usec = 150000 };
	struct vj_statistics st;
	struct pair p;
	int one = 1;

	pair_open(&p, family);
	if (family == AF_INET) {
		int tos = 0x28;

		setopt_both(&p, SOL_IP, IP_PKTINFO, &one, sizeof(one),
			    "IP_PKTINFO");
		setopt_both(&p, SOL_IP, IP_RECVTTL, &one, sizeof(one),
			    "IP_RECVTTL");
		setopt_both(&p, SOL_IP, IP_RECVTOS, &one, sizeof(one),
			    "IP_RECVTOS");
		setopt_both(&p, SOL_IP, IP_RECVORIGDSTADDR, &one, sizeof(one),
			    "IP_RECVORIGDSTADDR");
		EXPECT_OK(setsockopt(p.tx, SOL_IP, IP_TOS, &tos, sizeof(tos)),
			  "IP_TOS on the sender");
	} else {
		int tclass = 0x28;

		setopt_both(&p, SOL_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one),
			    "IPV6_RECVPKTINFO");
		setopt_both(&p, SOL_IPV6, IPV6_RECVHOPLIMIT, &one, sizeof(one),
			    "IPV6_RECVHOPLIMIT");
		setopt_both(&p, SOL_IPV6, IPV6_RECVTCLASS, &one, sizeof(one),
			    "IPV6_RECVTCLASS");
		setopt_both(&p, SOL_IPV6, IPV6_RECVORIGDSTADDR, &one,
			    sizeof(one), "IPV6_RECVORIGDSTADDR");
		EXPECT_OK(setsockopt(p.tx, SOL_IPV6, IPV6_TCLASS, &tclass,
				     sizeof(tclass)), "IPV6_TCLASS on the sender");
	}
	setopt_both(&p, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one),
		    "SO_TIMESTAMPNS");

	pair_send(&p, 100);
	both_call(&p, C_RECVMSG, 0, 2048, true, "plain");
	pair_send(&p, 200);
	both_call(&p, C_RECVMSG, 0, 50, true, "short buffer");
	pair_send(&p, 300);
	both_call(&p, C_RECVMSG, MSG_TRUNC, 50, true, "MSG_TRUNC");
	pair_send(&p, 0);
	both_call(&p, C_RECVMSG, 0, 2048, true, "empty datagram");
	pair_send(&p, 1000);
	both_call(&p, C_RECVMSG, MSG_PEEK, 2048, true, "peek");
	both_call(&p, C_RECVMSG, MSG_PEEK | MSG_TRUNC, 10, true, "peek again");
	both_call(&p, C_RECVFROM, 0, 2048, true, "after peek");
	pair_send(&p, 8000);
	both_call(&p, C_RECV, 0, MAXD, true, "8000 bytes");
	pair_send(&p, 70);
	both_call(&p, C_READ, 0, 2048, true, "read");
	pair_send(&p, 10);
	pair_send(&p, 20);
	pair_send(&p, 30);
	both_mmsg(&p, "three queued");
	both_call(&p, C_RECVMSG, MSG_DONTWAIT, 2048, false, "empty");
	CHECK(poll_one(p.u, 0) == poll_one(p.c, 0),
	      "empty: poll UDP %#x, channel %#x", poll_one(p.u, 0),
	      poll_one(p.c, 0));

	/* O_NONBLOCK */
	EXPECT_OK(fcntl(p.u, F_SETFL, O_NONBLOCK), "O_NONBLOCK");
	EXPECT_OK(fcntl(p.c, F_SETFL, O_NONBLOCK), "O_NONBLOCK");
	both_call(&p, C_RECV, 0, 2048, false, "O_NONBLOCK, empty");
	pair_send(&p, 33);
	both_call(&p, C_RECV, 0, 2048, true, "O_NONBLOCK");
	EXPECT_OK(fcntl(p.u, F_SETFL, 0), "blocking");
	EXPECT_OK(fcntl(p.c, F_SETFL, 0), "blocking");

	/* SO_RCVTIMEO: both wait, then EAGAIN. */
	setopt_both(&p, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv),
		    "SO_RCVTIMEO");
	{
		static struct rx ru, rc;

		step("SO_RCVTIMEO");
		do_call(p.u, C_RECVMSG, 0, 2048, &ru);
		do_call(p.c, C_RECVMSG, 0, 2048, &rc);
		cmp_rx(&ru, &rc, 2048, "SO_RCVTIMEO on an empty socket");
		CHECK(rc.ns >= 120 * MSEC && rc.ns < 2 * NSEC,
		      "SO_RCVTIMEO 150 ms: the channel waited %llu ms",
		      (unsigned long long)(rc.ns / MSEC));
	}

	/* Queued datagrams survive a datagram bigger than the ring's buffers
	 * being dropped in between (UDP has no such limit: the channel only).
	 */
	st = test_get_stats(p.c);
	CHECK(st.rx_packets == p.seq && !st.rx_udp_bad_csum &&
	      !st.rx_udp_malformed && !st.rx_udp_not_peer && !st.rx_ring_full,
	      "accounting: rx_packets %llu (sent %u), bad_csum %llu, "
	      "malformed %llu, not_peer %llu, ring_full %llu",
	      (unsigned long long)st.rx_packets, p.seq,
	      (unsigned long long)st.rx_udp_bad_csum,
	      (unsigned long long)st.rx_udp_malformed,
	      (unsigned long long)st.rx_udp_not_peer,
	      (unsigned long long)st.rx_ring_full);

	/* shutdown(SHUT_RD) on an unconnected socket: ENOTCONN, and then
	 * receives return 0 instead of waiting.
	 */
	{
		int ru = shutdown(p.u, SHUT_RD), eu = errno;
		int rc = shutdown(p.c, SHUT_RD), ec = errno;

		CHECK(ru == rc && eu == ec,
		      "shutdown: UDP %d (%s), channel %d (%s)", ru,
		      errname(eu), rc, errname(ec));
	}
	both_call(&p, C_RECV, 0, 2048, false, "after SHUT_RD");
	CHECK(poll_one(p.u, 0) == poll_one(p.c, 0),
	      "after SHUT_RD: poll UDP %#x, channel %#x", poll_one(p.u, 0),
	      poll_one(p.c, 0));
	pair_close(&p);
	return 0;
}

static int t_diff4(void)
{
	return diff(AF_INET);
}

static int t_diff6(void)
{
	return diff(AF_INET6);
}

struct sender {
	int family;
	uint16_t port;
	unsigned int delay_ms;
};

static void send_later(void *arg)
{
	struct sender *s = arg;
	int fd = udp_plain(s->family);

	msleep(s->delay_ms);
	udp_send_to(fd, s->family == AF_INET ? "127.0.0.1" : "::1", s->port,
		    7, 64);
	close(fd);
}

/*
 * A receiver asleep in recvmsg(), poll() and epoll_wait() wakes when a
 * datagram arrives.
 */
static int t_blocking(void)
{
	struct sender s = { .family = AF_INET, .port = tport(0),
			    .delay_ms = 200 };
	struct epoll_event ev = { .events = EPOLLIN };
	uint8_t buf[128];
	uint64_t t0;
	pid_t pid;
	int c, ep, i;
	long n;

	c = udp_chan(AF_INET);
	EXPECT_OK(udp_bind_to(c, "127.0.0.1", s.port), "bind");
	for (i = 0; i < 3; i++) {
		fflush(stdout);
		pid = fork();
		if (!pid) {
			send_later(&s);
			_exit(0);
		}
		t0 = now_ns();
		if (i == 0) {
			step("recv asleep");
			n = recv(c, buf, sizeof(buf), 0);
			CHECK(n == 64, "recv: %ld (%s)", n, errname(errno));
		} else if (i == 1) {
			struct pollfd pf = { .fd = c, .events = POLLIN };

			step("poll asleep");
			CHECK(poll(&pf, 1, 5000) == 1 && pf.revents & POLLIN,
			      "poll: no POLLIN (revents %#x)", pf.revents);
			CHECK(recv(c, buf, sizeof(buf), MSG_DONTWAIT) == 64,
			      "recv after poll: %s", errname(errno));
		} else {
			step("epoll asleep");
			ep = epoll_create1(0);
			EXPECT_OK(epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev), "epoll_ctl");
			CHECK(epoll_wait(ep, &ev, 1, 5000) == 1 &&
			      ev.events & EPOLLIN, "epoll_wait: no EPOLLIN");
			CHECK(recv(c, buf, sizeof(buf), MSG_DONTWAIT) == 64,
			      "recv after epoll: %s", errname(errno));
			close(ep);
		}
		CHECK(now_ns() - t0 >= 150 * MSEC,
		      "woke after %llu ms, before the datagram was sent",
		      (unsigned long long)((now_ns() - t0) / MSEC));
		waitpid(pid, NULL, 0);
	}
	close(c);
	return 0;
}

/*
 * A datagram larger than the ring's buffers is held by the kernel
 * (VJ_DESC_F_HELD) and delivered whole, in order with the others, in the
 * filtered mode (UDP delivers it) and in bypass mode (the fast path leaves
 * it to UDP); nothing is cut or dropped.
 */
static void large_in_order(uint32_t mode)
{
	uint16_t port = tport(0);
	struct vj_statistics st;
	uint8_t buf[4096];
	uint32_t seq, i;
	int c, tx;
	long n;

	c = udp_chan(AF_INET);
	EXPECT_OK(setsockopt(c, SOL_VJCHAN, VJ_BIND_FLAGS, &mode, sizeof(mode)),
		  "VJ_BIND_FLAGS %u", mode);
	udp_ring(c, 8, 2048);
	EXPECT_OK(udp_bind_to(c, "0.0.0.0", port), "bind");
	tx = udp_plain(AF_INET);
	udp_send_to(tx, "127.0.0.1", port, 1, 100);
	udp_send_to(tx, "127.0.0.1", port, 2, 3000);
	udp_send_to(tx, "127.0.0.1", port, 3, 100);
	CHECK(WAIT_FOR(test_get_stats(c).rx_packets == 3, 2000),
	      "mode %u: rx_packets %llu, want 3", mode,
	      (unsigned long long)test_get_stats(c).rx_packets);
	for (i = 1; i <= 3; i++) {
		n = recv(c, buf, sizeof(buf), MSG_DONTWAIT);
		CHECK(n == (i == 2 ? 3000 : 100),
		      "mode %u: recv %u: %ld (%s)", mode, i, n, errname(errno));
		CHECK(!payload_check(buf, n, &seq) && seq == i,
		      "mode %u: datagram %u is not the one sent", mode, i);
	}
	EXPECT_ERR(recv(c, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
		   "recv on the drained socket");
	st = test_get_stats(c);
	CHECK(!st.rx_truncated && !st.rx_udp_malformed && !st.rx_udp_bad_csum,
	      "mode %u: rx_truncated %llu, rx_udp_malformed %llu, bad_csum %llu",
	      mode, (unsigned long long)st.rx_truncated,
	      (unsigned long long)st.rx_udp_malformed,
	      (unsigned long long)st.rx_udp_bad_csum);
	close(c);
	close(tx);
}

static int t_large_in_order(void)
{
	large_in_order(VJ_BIND_FW_FILTERED);
	large_in_order(VJ_BIND_FW_BYPASS);
	return 0;
}

/*
 * User space can write the mapped buffers: a datagram whose headers were
 * rewritten after the kernel placed it is checked as written, dropped and
 * counted; the one after it is still delivered.  The consumer index the
 * kernel moves is the one user space sees.
 */
static int t_hostile_mapping(void)
{
	uint16_t port = tport(0);
	struct vj_mmap_offsets off;
	socklen_t ol = sizeof(off);
	struct vj_statistics st;
	struct vj_desc *d;
	uint8_t buf[256], *map;
	int c, tx, i;
	bool csum_ok;
	long n;

	c = udp_chan(AF_INET);
	udp_ring(c, 8, 2048);
	EXPECT_OK(udp_bind_to(c, "0.0.0.0", port), "bind");
	EXPECT_OK(getsockopt(c, SOL_VJCHAN, VJ_MMAP_OFFSETS, &off, &ol),
		  "VJ_MMAP_OFFSETS");
	map = mmap(NULL, off.size, PROT_READ | PROT_WRITE, MAP_SHARED, c, 0);
	CHECK(map != MAP_FAILED, "mmap: %s", errname(errno));
	tx = udp_plain(AF_INET);
	for (i = 0; i < 4; i++)
		udp_send_to(tx, "127.0.0.1", port, 10 + i, 64);
	CHECK(WAIT_FOR(test_get_stats(c).rx_packets == 4, 2000),
	      "rx_packets %llu, want 4",
	      (unsigned long long)test_get_stats(c).rx_packets);
	d = (struct vj_desc *)(map + off.desc);
	/* 0: IP version 5; 1: another UDP destination port; 2: a flipped
	 * payload byte (checksum); 3 untouched.  (The UDP length of what UDP
	 * delivered is what the kernel copied, whatever the header says.)
	 */
	map[off.bufs + d[0].buf * off.buf_size + d[0].l3_off] = 0x55;
	map[off.bufs + d[1].buf * off.buf_size + d[1].l3_off + 22] ^= 0xff;
	map[off.bufs + d[2].buf * off.buf_size + d[2].l3_off + 40] ^= 0x5a;
	/* Lo leaves the checksum to the kernel's verdict (VJ_DESC_F_CSUM_OK):
	 * then the flipped byte is delivered, as UDP would; without the
	 * verdict recvmsg must catch it.
	 */
	csum_ok = d[2].flags & VJ_DESC_F_CSUM_OK;
	for (i = csum_ok ? 0 : 1; i < 2; i++) {
		n = recv(c, buf, sizeof(buf), MSG_DONTWAIT);
		CHECK(n == 64, "recv %d: %ld (%s)", i, n, errname(errno));
	}
	CHECK(atomic_load((_Atomic uint32_t *)(map + off.consumer)) == 4,
	      "consumer index %u after the kernel consumed 4",
	      *(uint32_t *)(map + off.consumer));
	EXPECT_ERR(recv(c, buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
		   "recv on the drained socket");
	st = test_get_stats(c);
	CHECK(st.rx_udp_malformed == 2 && st.rx_udp_bad_csum == !csum_ok,
	      "rx_udp_malformed %llu (want 2), bad_csum %llu (want %d)",
	      (unsigned long long)st.rx_udp_malformed,
	      (unsigned long long)st.rx_udp_bad_csum, !csum_ok);
	munmap(map, off.size);
	close(c);
	close(tx);
	return 0;
}

/*
 * Closing a channel with datagrams queued frees its ring and its port.
 */
static int t_close_queued(void)
{
	uint16_t port = tport(0);
	int c, tx, u, i;

	c = udp_chan(AF_INET6);
	EXPECT_OK(udp_bind_to(c, "::", port), "bind");
	tx = udp_plain(AF_INET6);
	for (i = 0; i < 20; i++)
		udp_send_to(tx, "::1", port, i, 500);
	CHECK(WAIT_FOR(test_get_stats(c).rx_packets == 20, 2000),
	      "rx_packets %llu, want 20",
	      (unsigned long long)test_get_stats(c).rx_packets);
	close(c);
	u = udp_plain(AF_INET6);
	CHECK(WAIT_FOR(!udp_bind_to(u, "::", port), 2000),
	      "the port is still held after close: %s", errname(errno));
	close(u);
	close(tx);
	return 0;
}

#define CONC_N		3000	/* datagrams of the concurrency case */
#define CONC_RX		3	/* receiving processes */

/*
 * Several processes receive on one socket while datagrams arrive: every
 * datagram placed in the ring is delivered exactly once, and delivered
 * plus dropped for want of room is what was sent.
 */
static int t_concurrent(void)
{
	uint16_t port = tport(0);
	_Atomic uint32_t *seen;
	struct vj_statistics st;
	uint32_t i, delivered = 0;
	pid_t pids[CONC_RX];
	int c, tx, k;

	seen = mmap(NULL, CONC_N * sizeof(*seen), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(seen != MAP_FAILED, "mmap: %s", errname(errno));
	c = udp_chan(AF_INET);
	udp_ring(c, 64, 2048);
	EXPECT_OK(udp_bind_to(c, "127.0.0.1", port), "bind");
	for (k = 0; k < CONC_RX; k++) {
		fflush(stdout);
		pids[k] = fork();
		if (!pids[k]) {
			struct timeval tv = { .tv_usec = 300000 };
			uint8_t buf[256];
			uint32_t seq;
			long n;

			setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
			while ((n = recv(c, buf, sizeof(buf), 0)) >= 0) {
				if (n != 32 || payload_check(buf, 32, &seq) ||
				    seq >= CONC_N)
					_exit(2);
				atomic_fetch_add(&seen[seq], 1);
			}
			_exit(errno == EAGAIN ? 0 : 3);
		}
	}
	tx = udp_plain(AF_INET);
	for (i = 0; i < CONC_N; i++)
		udp_send_to(tx, "127.0.0.1", port, i, 32);
	for (k = 0; k < CONC_RX; k++) {
		int status;

		waitpid(pids[k], &status, 0);
		CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
		      "receiver %d: status %#x (2: bad datagram)", k, status);
	}
	for (i = 0; i < CONC_N; i++) {
		CHECK(seen[i] <= 1, "datagram %u delivered %u times", i,
		      (unsigned int)seen[i]);
		delivered += seen[i];
	}
	st = test_get_stats(c);
	CHECK(st.rx_packets == delivered && st.rx_packets + st.rx_ring_full ==
	      CONC_N && !st.rx_udp_malformed && !st.rx_udp_bad_csum,
	      "delivered %u, rx_packets %llu, rx_ring_full %llu, sent %u",
	      delivered, (unsigned long long)st.rx_packets,
	      (unsigned long long)st.rx_ring_full, CONC_N);
	diag("%u of %u delivered, %llu dropped for want of room", delivered,
	     CONC_N, (unsigned long long)st.rx_ring_full);
	munmap(seen, CONC_N * sizeof(*seen));
	close(c);
	close(tx);
	return 0;
}

/*
 * Switches for control messages a channel does not write are refused
 * (ENOPROTOOPT) where an ordinary socket accepts them, never silently
 * without effect; turning one off is accepted.
 */
static int t_refused_recv_opts(void)
{
	static const struct { int family, level, name; const char *what; }
	opts[] = {
		{ AF_INET, SOL_IP, IP_RECVOPTS, "IP_RECVOPTS" },
		{ AF_INET, SOL_IP, IP_RETOPTS, "IP_RETOPTS" },
		{ AF_INET, SOL_IP, IP_CHECKSUM, "IP_CHECKSUM" },
		{ AF_INET, SOL_IP, IP_RECVFRAGSIZE, "IP_RECVFRAGSIZE" },
		{ AF_INET, SOL_SOCKET, SO_RXQ_OVFL, "SO_RXQ_OVFL" },
		{ AF_INET, SOL_SOCKET, SO_TIMESTAMPING, "SO_TIMESTAMPING" },
		{ AF_INET, SOL_UDP, UDP_GRO, "UDP_GRO" },
		{ AF_INET6, SOL_IPV6, IPV6_RECVHOPOPTS, "IPV6_RECVHOPOPTS" },
		{ AF_INET6, SOL_IPV6, IPV6_RECVRTHDR, "IPV6_RECVRTHDR" },
		{ AF_INET6, SOL_IPV6, IPV6_RECVDSTOPTS, "IPV6_RECVDSTOPTS" },
		{ AF_INET6, SOL_IPV6, IPV6_RECVPATHMTU, "IPV6_RECVPATHMTU" },
		{ AF_INET6, SOL_IPV6, IPV6_FLOWINFO, "IPV6_FLOWINFO" },
		{ AF_INET6, SOL_IPV6, IPV6_2292PKTINFO, "IPV6_2292PKTINFO" },
	};
	int one = 1, zero = 0, u, c;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		u = udp_plain(opts[i].family);
		c = udp_chan(opts[i].family);
		EXPECT_OK(setsockopt(u, opts[i].level, opts[i].name, &one,
				     sizeof(one)), "%s on UDP", opts[i].what);
		EXPECT_ERR(setsockopt(c, opts[i].level, opts[i].name, &one,
				      sizeof(one)), ENOPROTOOPT,
			   "%s on a channel", opts[i].what);
		EXPECT_OK(setsockopt(c, opts[i].level, opts[i].name, &zero,
				     sizeof(zero)), "%s off on a channel",
			  opts[i].what);
		close(u);
		close(c);
	}
	return 0;
}

const struct vj_case udp_cases[] = {
	VJ_CASE("UDP_DIFF_RECV4", t_diff4),
	VJ_CASE("UDP_DIFF_RECV6", t_diff6),
	VJ_CASE("UDP_BLOCKING_WAKE", t_blocking),
	VJ_CASE("UDP_LARGE_IN_ORDER", t_large_in_order),
	VJ_CASE("UDP_REFUSED_RECV_OPTIONS", t_refused_recv_opts),
	VJ_CASE("UDP_HOSTILE_MAPPING", t_hostile_mapping),
	VJ_CASE("UDP_CLOSE_QUEUED", t_close_queued),
	VJ_CASE("UDP_CONCURRENT_RECV", t_concurrent),
	{ NULL }
};
