// SPDX-License-Identifier: GPL-2.0
/*
 * vjrun_check PORT UNSELECTED: run under vjchan-run --ports PORT-(PORT+9)
 * by tests/vjrun.sh, in the guest, with the peer namespace "peer"
 * (/run/netns/peer, 192.0.2.2 and 2001:db8::2) across the NIC from
 * 192.0.2.1 and 2001:db8::1.  Checks what the launcher promises a program,
 * one line per case ("ok NAME" / "FAIL NAME: why"); exits 1 if any failed.
 * Datagrams come from the peer namespace: a child process enters it with
 * setns() and sends from an unbound (so never replaced) UDP socket.
 *
 * Ports used: PORT .. PORT+9 (selected), UNSELECTED (not selected).
 * vjrun_check --ring ...: see t_ring_spread().
 * Interface eth0 must exist (RUN_IOCTL asks for its name).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/vjchan.h>

#define LOCAL4	"192.0.2.1"
#define LOCAL6	"2001:db8::1"
#define PEER4	"192.0.2.2"
#define PEER_NS	"/run/netns/peer"

static int failed;
static char why[512];
static unsigned int port0, unselected;

static int bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return -1;
}

static void report(const char *name, int r)
{
	if (r) {
		printf("FAIL %s: %s\n", name, why);
		failed = 1;
	} else {
		printf("ok %s\n", name);
	}
	fflush(stdout);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int domain_of(int fd)
{
	int v = -1;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &len) < 0)
		return -errno;
	return v;
}

static int get_int(int fd, int level, int name)
{
	int v = -1;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, level, name, &v, &len) < 0)
		return -1000 - errno;
	return v;
}

static void set_int(int fd, int level, int name, int v)
{
	setsockopt(fd, level, name, &v, sizeof(v));
}

static socklen_t mkaddr(struct sockaddr_storage *ss, const char *ip,
			unsigned int port)
{
	memset(ss, 0, sizeof(*ss));
	if (strchr(ip, ':')) {
		struct sockaddr_in6 *s6 = (void *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		inet_pton(AF_INET6, ip, &s6->sin6_addr);
		return sizeof(*s6);
	}
	struct sockaddr_in *s4 = (void *)ss;

	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	inet_pton(AF_INET, ip, &s4->sin_addr);
	return sizeof(*s4);
}

/* bind() through the launcher (the C library's symbol, interposed). */
static int bind_to(int fd, const char *ip, unsigned int port)
{
	struct sockaddr_storage ss;
	socklen_t len = mkaddr(&ss, ip, port);

	return bind(fd, (struct sockaddr *)&ss, len);
}

static unsigned int port_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* Sends n datagrams "vjrun I" to ip:port from the peer namespace. */
static int peer_send(const char *ip, unsigned int port, int n)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return bad("fork: %s", strerror(errno));
	if (pid == 0) {
		struct sockaddr_storage ss;
		socklen_t len = mkaddr(&ss, ip, port);
		int ns = open(PEER_NS, O_RDONLY), s, i;
		char buf[32];

		if (ns < 0 || setns(ns, CLONE_NEWNET) < 0)
			_exit(2);
		s = socket(ss.ss_family, SOCK_DGRAM, 0);
		if (s < 0)
			_exit(3);
		for (i = 0; i < n; i++) {
			int l = snprintf(buf, sizeof(buf), "vjrun %d", i);

			if (sendto(s, buf, l, 0, (struct sockaddr *)&ss, len) != l)
				_exit(4);
			usleep(2000);
		}
		_exit(0);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return bad("sender in %s failed (status %#x)", PEER_NS, st);
	return 0;
}

/* Receives one datagram "vjrun I" within ms; returns I or -1. */
static int recv_one(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[64];
	ssize_t n;
	int i;

	if (poll(&p, 1, ms) != 1)
		return bad("no datagram within %d ms", ms);
	n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	if (n < 0)
		return bad("recv: %s", strerror(errno));
	buf[n] = '\0';
	if (sscanf(buf, "vjrun %d", &i) != 1)
		return bad("unexpected payload '%s'", buf);
	return i;
}

static int rx_packets(int fd, unsigned long long *n)
{
	struct vj_statistics st;
	socklen_t len = sizeof(st);

	memset(&st, 0, sizeof(st));
	if (getsockopt(fd, SOL_VJCHAN, VJ_STATISTICS, &st, &len) < 0)
		return bad("VJ_STATISTICS: %s", strerror(errno));
	*n = st.rx_packets;
	return 0;
}

/* The replaced socket of the first cases, non-blocking, IP_PKTINFO on. */
static int nb = -1;

static int t_replace_flags(void)
{
	struct timeval tv = { .tv_sec = 2, .tv_usec = 500000 }, got;
	socklen_t len = sizeof(got);
	int v;

	nb = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (nb < 0)
		return bad("socket: %s", strerror(errno));
	setsockopt(nb, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	set_int(nb, SOL_SOCKET, SO_BROADCAST, 1);
	set_int(nb, SOL_SOCKET, SO_PRIORITY, 3);
	set_int(nb, SOL_IP, IP_PKTINFO, 1);
	if (bind_to(nb, "0.0.0.0", port0) < 0)
		return bad("bind 0.0.0.0:%u: %s", port0, strerror(errno));
	v = domain_of(nb);
	if (v != AF_VJCHAN)
		return bad("SO_DOMAIN %d after bind, not AF_VJCHAN: not replaced", v);
	if (!(fcntl(nb, F_GETFL) & O_NONBLOCK))
		return bad("O_NONBLOCK lost");
	if (!(fcntl(nb, F_GETFD) & FD_CLOEXEC))
		return bad("FD_CLOEXEC lost");
	if (getsockopt(nb, SOL_SOCKET, SO_RCVTIMEO, &got, &len) < 0 ||
	    got.tv_sec != 2 || got.tv_usec != 500000)
		return bad("SO_RCVTIMEO not carried over (%ld.%06ld)",
			   (long)got.tv_sec, (long)got.tv_usec);
	v = get_int(nb, SOL_SOCKET, SO_BROADCAST);
	if (v != 1)
		return bad("SO_BROADCAST %d", v);
	v = get_int(nb, SOL_SOCKET, SO_PRIORITY);
	if (v != 3)
		return bad("SO_PRIORITY %d", v);
	v = get_int(nb, SOL_IP, IP_PKTINFO);
	if (v != 1)
		return bad("IP_PKTINFO %d", v);
	v = get_int(nb, SOL_VJCHAN, VJ_BIND_FLAGS);
	if (v != VJ_BIND_FW_FILTERED)
		return bad("VJ_BIND_FLAGS %d, not filtered", v);
	if (port_of(nb) != port0)
		return bad("getsockname port %u, not %u", port_of(nb), port0);
	return 0;
}

static int t_nonblock(void)
{
	char buf[16];
	long long t = now_ms();

	if (nb < 0 || domain_of(nb) != AF_VJCHAN)
		return bad("no replaced socket");
	if (recv(nb, buf, sizeof(buf), 0) >= 0 || errno != EAGAIN)
		return bad("recv on an empty non-blocking channel: %s, not EAGAIN",
			   strerror(errno));
	if (now_ms() - t > 500)
		return bad("recv blocked %lld ms", now_ms() - t);
	return 0;
}

static int t_epoll(void)
{
	struct epoll_event ev = { .events = EPOLLIN }, out;
	unsigned long long rx0, rx1;
	int ep, n, got = 0, i;

	if (nb < 0 || domain_of(nb) != AF_VJCHAN)
		return bad("no replaced socket");
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, nb, &ev) < 0)
		return bad("epoll: %s", strerror(errno));
	n = epoll_wait(ep, &out, 1, 200);
	if (n != 0)
		return bad("epoll_wait on an empty channel: %d", n);
	if (rx_packets(nb, &rx0) < 0 || peer_send(LOCAL4, port0, 8) < 0)
		return -1;
	for (;;) {
		char buf[64], cbuf[256];
		struct sockaddr_in from;
		struct iovec iov = { buf, sizeof(buf) - 1 };
		struct msghdr m = {
			.msg_name = &from, .msg_namelen = sizeof(from),
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		struct cmsghdr *c;
		bool pktinfo = false;
		ssize_t len;

		n = epoll_wait(ep, &out, 1, got < 8 ? 5000 : 0);
		if (n == 0)
			break;
		if (n != 1 || !(out.events & EPOLLIN))
			return bad("epoll_wait %d events %#x", n, out.events);
		len = recvmsg(nb, &m, 0);
		if (len < 0)
			return bad("recvmsg after EPOLLIN: %s", strerror(errno));
		buf[len] = '\0';
		if (sscanf(buf, "vjrun %d", &i) != 1 || i != got)
			return bad("datagram %d: '%s'", got, buf);
		if (from.sin_family != AF_INET ||
		    from.sin_addr.s_addr != inet_addr(PEER4))
			return bad("sender %s, not " PEER4,
				   inet_ntoa(from.sin_addr));
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			struct in_pktinfo pi;

			if (c->cmsg_level != SOL_IP || c->cmsg_type != IP_PKTINFO)
				continue;
			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			if (pi.ipi_addr.s_addr != inet_addr(LOCAL4))
				return bad("IP_PKTINFO address %s",
					   inet_ntoa(pi.ipi_addr));
			pktinfo = true;
		}
		if (!pktinfo)
			return bad("no IP_PKTINFO control message");
		got++;
	}
	close(ep);
	if (got != 8)
		return bad("%d of 8 datagrams", got);
	if (rx_packets(nb, &rx1) < 0)
		return -1;
	if (rx1 - rx0 != 8)
		return bad("the channel counted %llu datagrams, not 8", rx1 - rx0);
	return 0;
}

static int t_rcvtimeo(void)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 300000 };
	char buf[16];
	long long t;
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind_to(s, LOCAL4, port0 + 1) < 0)
		return bad("bind: %s", strerror(errno));
	if (domain_of(s) != AF_VJCHAN)
		return bad("not replaced");
	t = now_ms();
	if (recv(s, buf, sizeof(buf), 0) >= 0 || errno != EAGAIN)
		return bad("recv: %s, not EAGAIN after SO_RCVTIMEO", strerror(errno));
	t = now_ms() - t;
	close(s);
	if (t < 250 || t > 3000)
		return bad("blocked %lld ms with SO_RCVTIMEO 300 ms", t);
	return 0;
}

static int t_fork(void)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0), st;
	pid_t pid;

	if (bind_to(s, "0.0.0.0", port0 + 2) < 0 || domain_of(s) != AF_VJCHAN)
		return bad("bind or replace: %s", strerror(errno));
	pid = fork();
	if (pid == 0)
		_exit(recv_one(s, 5000) == 0 ? 0 : 1);
	if (peer_send(LOCAL4, port0 + 2, 1) < 0)
		return -1;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return bad("the forked child did not receive the datagram (status %#x)", st);
	close(s);
	return 0;
}

/* Exit status bits of the exec'd child. */
#define EX_NOT_CHANNEL	1
#define EX_CLOEXEC_OPEN	2
#define EX_NO_DATAGRAM	4
#define EX_NEW_NOT_CHAN	8

static int exec_child(int keep, int gone, unsigned int port)
{
	int r = 0, s;

	if (domain_of(keep) != AF_VJCHAN || port_of(keep) != port)
		r |= EX_NOT_CHANNEL;
	if (fcntl(gone, F_GETFD) >= 0 || errno != EBADF)
		r |= EX_CLOEXEC_OPEN;
	if (recv_one(keep, 5000) != 0)
		r |= EX_NO_DATAGRAM;
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (bind_to(s, LOCAL4, port + 2) < 0 || domain_of(s) != AF_VJCHAN)
		r |= EX_NEW_NOT_CHAN;
	return r;
}

static int t_exec(const char *self)
{
	int keep = socket(AF_INET, SOCK_DGRAM, 0);
	int gone = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	char a[16], b[16], p[16];
	pid_t pid;
	int st;

	if (bind_to(keep, LOCAL4, port0 + 3) < 0 ||
	    bind_to(gone, LOCAL4, port0 + 4) < 0)
		return bad("bind: %s", strerror(errno));
	if (domain_of(keep) != AF_VJCHAN || domain_of(gone) != AF_VJCHAN)
		return bad("not replaced");
	if (peer_send(LOCAL4, port0 + 3, 1) < 0)
		return -1;
	snprintf(a, sizeof(a), "%d", keep);
	snprintf(b, sizeof(b), "%d", gone);
	snprintf(p, sizeof(p), "%u", port0 + 3);
	pid = fork();
	if (pid == 0) {
		execl(self, self, "--exec-child", a, b, p, (char *)NULL);
		_exit(100);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return bad("exec'd child: status %#x", st);
	st = WEXITSTATUS(st);
	close(keep);
	close(gone);
	if (st == 100)
		return bad("exec: failed");
	if (st)
		return bad("exec'd child:%s%s%s%s",
			   st & EX_NOT_CHANNEL ? " inherited socket not the channel;" : "",
			   st & EX_CLOEXEC_OPEN ? " FD_CLOEXEC channel survived exec;" : "",
			   st & EX_NO_DATAGRAM ? " no datagram on the inherited channel;" : "",
			   st & EX_NEW_NOT_CHAN ? " its own bind not replaced (LD_PRELOAD lost?);" : "");
	return 0;
}

/*
 * Interface queries on a channel are answered (through the launcher's
 * ioctl()); FIONREAD by the channel itself, as on UDP.
 */
static int t_ioctl(void)
{
	struct ifreq ifr;
	int n, idx = if_nametoindex("eth0");

	if (nb < 0 || domain_of(nb) != AF_VJCHAN)
		return bad("no replaced socket");
	if (!idx)
		return bad("no eth0");
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_ifindex = idx;
	if (ioctl(nb, SIOCGIFNAME, &ifr) < 0)
		return bad("SIOCGIFNAME on the channel: %s", strerror(errno));
	if (strcmp(ifr.ifr_name, "eth0"))
		return bad("SIOCGIFNAME gave '%s', not eth0", ifr.ifr_name);
	n = -1;
	if (ioctl(nb, FIONREAD, &n) < 0)
		return bad("FIONREAD on the channel: %s", strerror(errno));
	if (n < 0)
		return bad("FIONREAD on the channel gave %d", n);
	return 0;
}

static int t_left_alone(void)
{
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	int t = socket(AF_INET, SOCK_STREAM, 0);
	int d = -1, v;

	if (bind_to(u, LOCAL4, unselected) < 0)
		return bad("bind unselected: %s", strerror(errno));
	d = domain_of(u);
	if (d != AF_INET)
		return bad("socket on unselected port %u: domain %d", unselected, d);
	d = -1;
	if (bind_to(t, LOCAL4, port0 + 5) == 0)
		d = domain_of(t);
	if (d != AF_INET)
		return bad("TCP socket: bind %s, domain %d", strerror(errno), d);
	close(u);
	close(t);

	/* Dual-stack wildcard: left alone. */
	u = socket(AF_INET6, SOCK_DGRAM, 0);
	set_int(u, SOL_IPV6, IPV6_V6ONLY, 0);
	d = -1;
	if (bind_to(u, "::", port0 + 6) == 0)
		d = domain_of(u);
	if (d != AF_INET6)
		return bad("[::] with IPV6_V6ONLY 0: bind %s, domain %d",
			   strerror(errno), d);
	v = get_int(u, SOL_IPV6, IPV6_V6ONLY);
	if (v != 0)
		return bad("IPV6_V6ONLY %d", v);
	close(u);
	return 0;
}

static int t_ipv6(void)
{
	unsigned long long rx;
	int u = socket(AF_INET6, SOCK_DGRAM, 0), s, d = -1;

	set_int(u, SOL_IPV6, IPV6_V6ONLY, 1);
	d = -1;
	if (bind_to(u, "::", port0 + 6) == 0)
		d = domain_of(u);
	if (d != AF_VJCHAN)
		return bad("[::] with IPV6_V6ONLY 1: bind %s, domain %d",
			   strerror(errno), d);
	s = socket(AF_INET6, SOCK_DGRAM, 0);
	set_int(s, SOL_IPV6, IPV6_V6ONLY, 0);
	d = -1;
	if (bind_to(s, LOCAL6, port0 + 7) == 0)
		d = domain_of(s);
	if (d != AF_VJCHAN)
		return bad("[" LOCAL6 "] with IPV6_V6ONLY 0: bind %s, domain %d",
			   strerror(errno), d);
	if (peer_send(LOCAL6, port0 + 7, 1) < 0)
		return -1;
	if (recv_one(s, 5000) != 0)
		return -1;
	if (rx_packets(s, &rx) < 0)
		return -1;
	if (rx != 1)
		return bad("rx_packets %llu, not 1", rx);
	close(u);
	close(s);
	return 0;
}

static int t_errors(void)
{
	struct sockaddr_storage ss;
	socklen_t len = mkaddr(&ss, "0.0.0.0", port0 + 8);
	int o = socket(AF_INET, SOCK_DGRAM, 0);
	int s = socket(AF_INET, SOCK_DGRAM, 0), d = -1;

	/* An ordinary socket has the port: the program sees EADDRINUSE. */
	if (syscall(SYS_bind, o, (struct sockaddr *)&ss, len) < 0)
		return bad("ordinary bind: %s", strerror(errno));
	if (bind_to(s, "0.0.0.0", port0 + 8) == 0 || errno != EADDRINUSE)
		return bad("bind to a port in use: %s, not EADDRINUSE",
			   strerror(errno));
	d = domain_of(s);
	if (d != AF_INET || port_of(s) != 0)
		return bad("after the failed bind: domain %d port %u", d, port_of(s));
	close(o);
	/* Not a local address. */
	if (bind_to(s, "192.0.2.99", port0 + 8) == 0 || errno != EADDRNOTAVAIL)
		return bad("bind to a foreign address: %s, not EADDRNOTAVAIL",
			   strerror(errno));
	/* Replaced, then bound again: EINVAL as on UDP. */
	if (bind_to(s, "0.0.0.0", port0 + 8) < 0 || domain_of(s) != AF_VJCHAN)
		return bad("bind after the port was freed: %s", strerror(errno));
	if (bind_to(s, "0.0.0.0", port0 + 9) == 0 || errno != EINVAL)
		return bad("second bind: %s, not EINVAL", strerror(errno));
	/* The channel holds the port against ordinary sockets. */
	o = socket(AF_INET, SOCK_DGRAM, 0);
	if (syscall(SYS_bind, o, (struct sockaddr *)&ss, len) == 0 ||
	    errno != EADDRINUSE)
		return bad("ordinary bind to the channel's port: %s, not EADDRINUSE",
			   strerror(errno));
	close(o);
	close(s);
	/* A receive option no channel honours: not replaced, ENOPROTOOPT. */
	s = socket(AF_INET, SOCK_DGRAM, 0);
	set_int(s, SOL_IP, IP_RECVOPTS, 1);
	if (bind_to(s, "0.0.0.0", port0 + 9) == 0 || errno != ENOPROTOOPT)
		return bad("bind with IP_RECVOPTS on: %s, not ENOPROTOOPT",
			   strerror(errno));
	d = domain_of(s);
	if (d != AF_INET || port_of(s) != 0)
		return bad("after the refused option: domain %d port %u", d, port_of(s));
	close(s);
	return 0;
}

/*
 * vjrun_check --ring PORT ENTRIES BUF_SIZE SPREAD, under vjchan-run with
 * --entries, --buf-size and --spread: two sockets of one reuseport group
 * bound to PORT are channels with that ring and spread rule (case
 * RUN_RING_SPREAD).
 */
static int t_ring_spread(unsigned int port, unsigned int entries,
			 unsigned int buf_size, unsigned int spread)
{
	struct vj_ring_req req;
	struct vj_group_req g;
	socklen_t len;
	int fd[2], i;

	for (i = 0; i < 2; i++) {
		fd[i] = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd[i] < 0)
			return bad("socket: %s", strerror(errno));
		set_int(fd[i], SOL_SOCKET, SO_REUSEPORT, 1);
		if (bind_to(fd[i], "0.0.0.0", port) < 0)
			return bad("bind member %d to port %u: %s", i, port,
				   strerror(errno));
		if (domain_of(fd[i]) != AF_VJCHAN)
			return bad("member %d not replaced", i);
		len = sizeof(req);
		if (getsockopt(fd[i], SOL_VJCHAN, VJ_RING, &req, &len) < 0)
			return bad("VJ_RING: %s", strerror(errno));
		if (req.entries != entries || req.buf_size != buf_size)
			return bad("ring {%u, %u}, not {%u, %u}", req.entries,
				   req.buf_size, entries, buf_size);
		len = sizeof(g);
		if (getsockopt(fd[i], SOL_VJCHAN, VJ_GROUP, &g, &len) < 0)
			return bad("VJ_GROUP: %s", strerror(errno));
		if (g.id || g.spread != spread)
			return bad("group {%u, %u}, not {0, %u}", g.id, g.spread,
				   spread);
	}
	close(fd[0]);
	close(fd[1]);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--exec-child"))
		return exec_child(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (argc == 6 && !strcmp(argv[1], "--ring")) {
		report("RUN_RING_SPREAD",
		       t_ring_spread(atoi(argv[2]), atoi(argv[3]),
				     atoi(argv[4]), atoi(argv[5])));
		return failed;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: vjrun_check PORT UNSELECTED_PORT\n");
		return 2;
	}
	port0 = atoi(argv[1]);
	unselected = atoi(argv[2]);
	alarm(120);

	report("RUN_REPLACE_FLAGS", t_replace_flags());
	report("RUN_NONBLOCK", t_nonblock());
	report("RUN_EPOLL", t_epoll());
	report("RUN_IOCTL", t_ioctl());
	report("RUN_RCVTIMEO", t_rcvtimeo());
	report("RUN_FORK", t_fork());
	report("RUN_EXEC", t_exec(argv[0]));
	report("RUN_LEFT_ALONE", t_left_alone());
	report("RUN_IPV6", t_ipv6());
	report("RUN_ERRORS", t_errors());
	return failed;
}
