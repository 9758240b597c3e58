// SPDX-License-Identifier: GPL-2.0
/*
 * In-guest test suite for vjchan: helpers shared by the cases.
 *
 * The socket calls are raw and the ring consumer (tests/lib/ring.c) is
 * written against include/uapi/linux/vjchan.h only, so libvjchan and the
 * kernel are tested independently; the library's key/value parser reads
 * the /proc files (tests/lib/proc.c).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include "harness.h"

int vj_case_index;

struct vj_shared {
	char reason[1024];
	char step[256];
};

static struct vj_shared *vj_shared;
static struct vj_shared vj_local;	/* used when run without the runner */

void vj_reason_setup(void)
{
	vj_shared = mmap(NULL, sizeof(*vj_shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (vj_shared == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
}

static struct vj_shared *sh_area(void)
{
	return vj_shared ? vj_shared : &vj_local;
}

void vj_reason_clear(void)
{
	memset(sh_area(), 0, sizeof(struct vj_shared));
}

const char *vj_reason_text(void)
{
	return sh_area()->reason;
}

const char *vj_step_text(void)
{
	return sh_area()->step;
}

/* First failure wins: a thread failing after another keeps the first. */
static void set_reason(const char *fmt, va_list ap)
{
	struct vj_shared *s = sh_area();
	char buf[sizeof(s->reason)];
	char *p;

	if (s->reason[0])
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	for (p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	memcpy(s->reason, buf, sizeof(buf));
}

void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_reason(fmt, ap);
	va_end(ap);
	fflush(stderr);
	_exit(1);
}

void skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_reason(fmt, ap);
	va_end(ap);
	fflush(stderr);
	_exit(EXIT_SKIP);
}

void fail_inherit(void)
{
	if (!sh_area()->reason[0])
		fail("child process failed");
	_exit(1);
}

void step(const char *fmt, ...)
{
	struct vj_shared *s = sh_area();
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->step, sizeof(s->step), fmt, ap);
	va_end(ap);
}

void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* --- time, processes, capabilities, namespaces ---------------------- */

/* Ports 20000 + 40 * case + n: cases never see each other's traffic. */
uint16_t tport(unsigned int n)
{
	if (n >= 40)
		fail("tport(%u): only 40 ports per case", n);
	return 20000 + 40 * vj_case_index + n;
}

/* Runs fn(arg) in a child process; a failure there fails the case. */
void in_child(void (*fn)(void *), void *arg)
{
	pid_t pid;
	int st;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		fail("fork: %s", errname(errno));
	if (!pid) {
		fn(arg);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			fail("waitpid: %s", errname(errno));
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return;
	if (WIFEXITED(st) && WEXITSTATUS(st) == EXIT_SKIP)
		_exit(EXIT_SKIP);
	if (WIFEXITED(st))
		fail_inherit();
	fail("child killed by signal %d (%s)", WTERMSIG(st), vj_step_text());
}

/* Removes caps from the effective, permitted and inheritable sets. */
void caps_drop(const int *caps, int n)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	int i;

	if (syscall(SYS_capget, &hdr, data))
		fail("capget: %s", errname(errno));
	for (i = 0; i < n; i++) {
		int w = caps[i] / 32;
		uint32_t bit = 1u << (caps[i] % 32);

		data[w].effective &= ~bit;
		data[w].permitted &= ~bit;
		data[w].inheritable &= ~bit;
	}
	if (syscall(SYS_capset, &hdr, data))
		fail("capset: %s", errname(errno));
}

void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

void if_up(const char *name)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		fail("socket(AF_INET): %s", errname(errno));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		fail("SIOCGIFFLAGS %s: %s", name, errname(errno));
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr))
		fail("SIOCSIFFLAGS %s: %s", name, errname(errno));
	close(fd);
}

/* Moves the calling process into a new network namespace with lo up. */
void netns_new(void)
{
	if (unshare(CLONE_NEWNET))
		fail("unshare(CLONE_NEWNET): %s", errname(errno));
	if_up("lo");
}

int netns_fd_self(void)
{
	int fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fail("open /proc/self/ns/net: %s", errname(errno));
	return fd;
}

unsigned int ifindex_of(const char *name)
{
	unsigned int i = if_nametoindex(name);

	if (!i)
		fail("no interface %s", name);
	return i;
}

int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(stdout);
	fflush(stderr);
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* --- channels ------------------------------------------------------- */

static void flow_addr(int family, const char *s, union vj_addr *a)
{
	if (!s)
		return;
	if (inet_pton(family, s, a) != 1)
		fail("bad address %s", s);
}

struct vj_flow flow4(uint8_t proto, const char *saddr, uint16_t sport,
		     const char *daddr, uint16_t dport, uint32_t ifindex)
{
	struct vj_flow f;

	memset(&f, 0, sizeof(f));
	f.family = AF_INET;
	f.proto = proto;
	f.sport = htons(sport);
	f.dport = htons(dport);
	f.ifindex = ifindex;
	flow_addr(AF_INET, saddr, &f.saddr);
	flow_addr(AF_INET, daddr, &f.daddr);
	return f;
}

struct vj_flow flow6(uint8_t proto, const char *saddr, uint16_t sport,
		     const char *daddr, uint16_t dport, uint32_t ifindex)
{
	struct vj_flow f = flow4(proto, NULL, sport, NULL, dport, ifindex);

	f.family = AF_INET6;
	flow_addr(AF_INET6, saddr, &f.saddr);
	flow_addr(AF_INET6, daddr, &f.daddr);
	return f;
}

int test_socket(void)
{
	int fd = socket(AF_VJCHAN, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		fail("socket(AF_VJCHAN): %s", errname(errno));
	return fd;
}

static void get_opt(int fd, int opt, void *buf, socklen_t size,
		    const char *name)
{
	socklen_t len;
	int e = test_getopt(fd, opt, buf, size, &len);

	if (e)
		fail("getsockopt(%s): %s", name, errname(-e));
	if (len != size)
		fail("getsockopt(%s): optlen %u, want %u", name, len, size);
}

struct vj_ring_req test_get_ring(int fd)
{
	struct vj_ring_req r;

	get_opt(fd, VJ_RING, &r, sizeof(r), "VJ_RING");
	return r;
}

struct vj_mmap_offsets test_get_offsets(int fd)
{
	struct vj_mmap_offsets o;

	get_opt(fd, VJ_MMAP_OFFSETS, &o, sizeof(o), "VJ_MMAP_OFFSETS");
	return o;
}

struct vj_statistics test_get_stats(int fd)
{
	struct vj_statistics s;

	get_opt(fd, VJ_STATISTICS, &s, sizeof(s), "VJ_STATISTICS");
	return s;
}

uint64_t vj_stat_total(int fd)
{
	struct vj_statistics s = test_get_stats(fd);

	return s.rx_packets + s.rx_ring_full;
}

/* Waits until n packets have been accounted (placed or dropped). */
bool vj_wait_total(int fd, uint64_t n, int ms)
{
	return WAIT_FOR(vj_stat_total(fd) >= n, ms);
}

void chan_map(struct test_chan *c)
{
	const char *why = ring_map(c);

	if (why)
		fail("%s", why);
}

void chan_unmap(struct test_chan *c)
{
	const char *why = ring_unmap(c);

	if (why)
		fail("%s", why);
}

void chan_open(struct test_chan *c, const struct vj_flow *f,
	       uint32_t entries, uint32_t buf_size)
{
	chan_init(c, test_socket());
	if (entries && test_set_ring(c->fd, entries,
				   buf_size ? buf_size : VJ_BUF_DEF_SIZE))
		fail("VJ_RING %u/%u: %s", entries, buf_size, errname(errno));
	if (test_bind(c->fd, f))
		fail("bind (dport %u): %s", ntohs(f->dport), errname(errno));
	chan_map(c);
}

void chan_close(struct test_chan *c)
{
	chan_unmap(c);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/*
 * Copies out descriptor idx and its bytes, validating as any consumer
 * must.  The kernel guarantees the bounds; a violation is a failure.
 */
int chan_peek_at(struct test_chan *c, uint32_t idx, struct test_pkt *p)
{
	const uint8_t *data;
	const char *why = ring_desc(c, idx, &p->d, &data);

	if (why)
		fail("%s", why);
	p->slot = idx & (c->off.entries - 1);
	memcpy(p->data, data, p->d.len);
	return 1;
}

/* Takes one packet if the ring has one: acquire producer, release consumer. */
int chan_try(struct test_chan *c, struct test_pkt *p)
{
	const char *why;
	uint32_t n;

	why = ring_avail(c, &n);
	if (why)
		fail("%s", why);
	if (!n)
		return 0;
	chan_peek_at(c, c->head, p);
	ring_release(c, 1);
	return 1;
}

/* Takes one packet, sleeping in poll() for up to ms milliseconds. */
int chan_recv(struct test_chan *c, struct test_pkt *p, int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000ull;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

	for (;;) {
		int64_t left;

		if (chan_try(c, p))
			return 1;
		left = (int64_t)(end - now_ns()) / 1000000;
		if (left <= 0)
			left = 0;
		if (poll(&pfd, 1, left) < 0 && errno != EINTR)
			fail("poll: %s", errname(errno));
		if (chan_try(c, p))
			return 1;
		if (!left)
			return 0;
	}
}

void chan_expect_empty(struct test_chan *c, const char *what)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

	poll(&pfd, 1, 0);
	if (chan_producer(c) != c->head)
		fail("%s: %u unexpected packets in the ring", what,
		     chan_producer(c) - c->head);
}

/* --- packets -------------------------------------------------------- */

/* The packet must be an untruncated UDP datagram carrying the pattern. */
void pkt_expect_udp(const struct test_pkt *p, struct pkt_info *pi,
		    uint32_t *seq)
{
	const char *why = pkt_parse(p, pi);

	if (why)
		fail("received packet: %s", why);
	if (pi->proto != IPPROTO_UDP)
		fail("received IP proto %u, want UDP", pi->proto);
	if (pi->plen != pi->udp_len)
		fail("UDP payload cut: %u of %u bytes (desc len %u flags %#x)",
		     pi->plen, pi->udp_len, p->d.len, p->d.flags);
	why = payload_check(pi->payload, pi->plen, seq);
	if (why)
		fail("%s", why);
}

/* --- ordinary UDP traffic ------------------------------------------- */

int parse_addr(const char *s, uint16_t port, struct sockaddr_storage *ss,
	       socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		*len = sizeof(*s4);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, s, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*len = sizeof(*s6);
		return AF_INET6;
	}
	fail("bad address %s", s);
}

static int udp_socket(int family, const char *addr, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1;

	fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fail("socket(UDP): %s", errname(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (!addr)
		addr = family == AF_INET ? "0.0.0.0" : "::";
	if (parse_addr(addr, port, &ss, &len) != family)
		fail("address %s is not of the destination's family", addr);
	if (bind(fd, (struct sockaddr *)&ss, len))
		fail("bind UDP %s:%u: %s", addr, port, errname(errno));
	return fd;
}

void tx_open(struct udp_tx *t, const char *saddr, uint16_t sport,
	     const char *daddr, uint16_t dport)
{
	t->family = parse_addr(daddr, dport, &t->dst, &t->dlen);
	t->fd = udp_socket(t->family, saddr, sport);
}

void tx_send(struct udp_tx *t, uint32_t seq, uint32_t len)
{
	static __thread uint8_t buf[65536];

	payload_fill(buf, len, seq);
	if (sendto(t->fd, buf, len, 0, (struct sockaddr *)&t->dst,
		   t->dlen) != (ssize_t)len)
		fail("sendto: %s", errname(errno));
}

void tx_close(struct udp_tx *t)
{
	close(t->fd);
	t->fd = -1;
}

void udp_send(const char *saddr, uint16_t sport, const char *daddr,
	      uint16_t dport, uint32_t seq, uint32_t len)
{
	struct udp_tx t;

	tx_open(&t, saddr, sport, daddr, dport);
	tx_send(&t, seq, len);
	tx_close(&t);
}

/* A UDP socket bound to addr:port (addr NULL: the wildcard, IPv4). */
int udp_listen(const char *addr, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len;

	return udp_socket(parse_addr(addr ? addr : "0.0.0.0", 0, &ss, &len),
			  addr, port);
}

/* 1 and the sequence number if a datagram came within ms, else 0. */
int udp_recv_seq(int fd, int ms, uint32_t *seq, uint32_t *len)
{
	static __thread uint8_t buf[65536];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	const char *why;
	ssize_t n;

	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0) {
		if (errno == EAGAIN)
			return 0;
		fail("recv UDP: %s", errname(errno));
	}
	why = payload_check(buf, n, seq);
	if (why)
		fail("UDP socket: %s", why);
	if (len)
		*len = n;
	return 1;
}

/* --- /proc and the test driver -------------------------------------- */

long long pool_get(const char *key)
{
	long long v;
	int e = pool_read_key(key, &v);

	if (e == -ENOENT)
		fail("%s has no \"%s\" line", PROC_POOL, key);
	if (e)
		fail("read %s: %s", PROC_POOL, errname(-e));
	return v;
}

/* True once every pool buffer is back (frees may be deferred). */
bool pool_settled(int ms)
{
	return WAIT_FOR(pool_get("pool_free") == pool_get("pool_buffers"), ms);
}

/*
 * channels_live once the channels of earlier cases are gone: sockets are
 * freed after an RCU grace period, so a fresh count may still include
 * them.  Waits up to 3 s for 0; returns whatever it is then.
 */
long long live_baseline(void)
{
	WAIT_FOR(pool_get("channels_live") == 0, 3000);
	return pool_get("channels_live");
}

int proc_chan_lines(void)
{
	int n = proc_chan_each(NULL, NULL);

	if (n == -EBADMSG)
		fail("%s has no header line", PROC_CHANS);
	if (n < 0)
		fail("open %s: %s", PROC_CHANS, errname(-n));
	return n;
}

struct chan_find {
	unsigned long ino;
	char (*fields)[64];
	int max, n;
};

static int chan_find_line(char *line, void *arg)
{
	struct chan_find *cf = arg;
	char *tok, *save;

	tok = strtok_r(line, " \t\n", &save);
	if (!tok || strtoul(tok, NULL, 10) != cf->ino)
		return 0;
	while (tok && cf->n < cf->max) {
		snprintf(cf->fields[cf->n++], 64, "%s", tok);
		tok = strtok_r(NULL, " \t\n", &save);
	}
	return 1;
}

/* Splits the /proc/net/vjchan line of socket inode ino into fields. */
int proc_chan_find(unsigned long ino, char fields[][64], int max)
{
	struct chan_find cf = { ino, fields, max, 0 };
	int n = proc_chan_each(chan_find_line, &cf);

	if (n < 0)
		fail("read %s: %s", PROC_CHANS, errname(-n));
	return cf.n;
}

unsigned long sock_ino(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		fail("fstat: %s", errname(errno));
	return st.st_ino;
}

int vjt_ifindex(void)
{
	const char *why = vjt_present();

	if (why)
		skip("%s", why);
	return if_nametoindex("vjtest0");
}

/* Writes one inject line; 0 on success or -errno. */
int vjt_inject(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	long n;
	int fd, len;

	va_start(ap, fmt);
	len = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	line[len++] = '\n';
	line[len] = 0;
	fd = vjt_open();
	if (fd < 0)
		fail("open vjtest/inject: %s", errname(-fd));
	n = vjt_write(fd, line, len);
	close(fd);
	if (n < 0)
		return n;
	if (n != len)
		fail("vjtest/inject: short write %ld of %d", n, len);
	return 0;
}

long long vjt_stat(const char *key)
{
	long long v;
	int e = vjt_stat_read(key, &v);

	if (e == -ENOENT)
		fail("%s has no \"%s\" line", VJT_STATS, key);
	if (e)
		fail("read %s: %s", VJT_STATS, errname(-e));
	return v;
}
