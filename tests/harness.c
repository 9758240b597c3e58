// SPDX-License-Identifier: GPL-2.0
/*
 * In-guest test suite for vjchan: helpers shared by the cases.
 *
 * Nothing here uses libvjchan: the socket calls are raw and the ring
 * consumer is written against include/uapi/linux/vjchan.h only, so the
 * library and the kernel are tested independently.
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

const char *errname(int err)
{
	static __thread char buf[16];
	const char *n = strerrorname_np(err);

	if (n)
		return n;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

/* --- time, processes, capabilities, namespaces ---------------------- */

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

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

int vj_socket(void)
{
	int fd = socket(AF_VJCHAN, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		fail("socket(AF_VJCHAN): %s", errname(errno));
	return fd;
}

int vj_set_ring(int fd, uint32_t entries, uint32_t buf_size)
{
	struct vj_ring_req req = {
		.entries = entries,
		.buf_size = buf_size,
	};

	return setsockopt(fd, SOL_VJCHAN, VJ_RING, &req, sizeof(req));
}

uint16_t vj_bind_flags = VJ_BIND_FW_BYPASS;

int vj_bind(int fd, const struct vj_flow *f)
{
	struct sockaddr_vj sa;

	memset(&sa, 0, sizeof(sa));
	sa.svj_family = AF_VJCHAN;
	sa.svj_flags = vj_bind_flags;
	sa.svj_flow = *f;
	return bind(fd, (struct sockaddr *)&sa, sizeof(sa));
}

static void get_opt(int fd, int opt, void *buf, socklen_t size,
		    const char *name)
{
	socklen_t len = size;

	if (getsockopt(fd, SOL_VJCHAN, opt, buf, &len))
		fail("getsockopt(%s): %s", name, errname(errno));
	if (len != size)
		fail("getsockopt(%s): optlen %u, want %u", name, len, size);
}

struct vj_ring_req vj_get_ring(int fd)
{
	struct vj_ring_req r;

	get_opt(fd, VJ_RING, &r, sizeof(r), "VJ_RING");
	return r;
}

struct vj_mmap_offsets vj_get_offsets(int fd)
{
	struct vj_mmap_offsets o;

	get_opt(fd, VJ_MMAP_OFFSETS, &o, sizeof(o), "VJ_MMAP_OFFSETS");
	return o;
}

struct vj_statistics vj_get_stats(int fd)
{
	struct vj_statistics s;

	get_opt(fd, VJ_STATISTICS, &s, sizeof(s), "VJ_STATISTICS");
	return s;
}

uint64_t vj_stat_total(int fd)
{
	struct vj_statistics s = vj_get_stats(fd);

	return s.rx_packets + s.rx_ring_full;
}

/* Waits until n packets have been accounted (placed or dropped). */
bool vj_wait_total(int fd, uint64_t n, int ms)
{
	return WAIT_FOR(vj_stat_total(fd) >= n, ms);
}

void chan_init(struct vj_chan *c, int fd)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->map = MAP_FAILED;
}

void chan_map(struct vj_chan *c)
{
	struct vj_mmap_offsets *o = &c->off;

	*o = vj_get_offsets(c->fd);
	if (!o->entries || (o->entries & (o->entries - 1)))
		fail("VJ_MMAP_OFFSETS: entries %u not a power of two",
		     o->entries);
	if (o->producer + 4 > o->size || o->consumer + 4 > o->size ||
	    o->flags + 4 > o->size ||
	    o->desc + (uint64_t)o->entries * sizeof(struct vj_desc) > o->size ||
	    o->bufs + (uint64_t)o->entries * o->buf_size > o->size)
		fail("VJ_MMAP_OFFSETS: layout outside size %llu",
		     (unsigned long long)o->size);
	c->map = mmap(NULL, o->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      c->fd, 0);
	if (c->map == MAP_FAILED)
		fail("mmap(%llu): %s", (unsigned long long)o->size,
		     errname(errno));
	c->prod = (_Atomic uint32_t *)(c->map + o->producer);
	c->cons = (_Atomic uint32_t *)(c->map + o->consumer);
	c->flags = (_Atomic uint32_t *)(c->map + o->flags);
	c->desc = (struct vj_desc *)(c->map + o->desc);
	c->bufs = c->map + o->bufs;
	c->head = atomic_load_explicit(c->cons, memory_order_relaxed);
}

void chan_unmap(struct vj_chan *c)
{
	if (c->map != MAP_FAILED && munmap(c->map, c->off.size))
		fail("munmap: %s", errname(errno));
	c->map = MAP_FAILED;
}

void chan_open(struct vj_chan *c, const struct vj_flow *f,
	       uint32_t entries, uint32_t buf_size)
{
	chan_init(c, vj_socket());
	if (entries && vj_set_ring(c->fd, entries,
				   buf_size ? buf_size : VJ_BUF_DEF_SIZE))
		fail("VJ_RING %u/%u: %s", entries, buf_size, errname(errno));
	if (vj_bind(c->fd, f))
		fail("bind (dport %u): %s", ntohs(f->dport), errname(errno));
	chan_map(c);
}

void chan_close(struct vj_chan *c)
{
	chan_unmap(c);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

uint32_t chan_producer(struct vj_chan *c)
{
	return atomic_load_explicit(c->prod, memory_order_acquire);
}

void chan_set_consumer(struct vj_chan *c, uint32_t v)
{
	atomic_store_explicit(c->cons, v, memory_order_release);
}

uint32_t chan_pending(struct vj_chan *c)
{
	return chan_producer(c) - c->head;
}

/*
 * Copies out descriptor idx and its bytes, validating as any consumer
 * must.  The kernel guarantees the bounds; a violation is a failure.
 */
int chan_peek_at(struct vj_chan *c, uint32_t idx, struct vj_pkt *p)
{
	uint32_t mask = c->off.entries - 1;

	p->slot = idx & mask;
	p->d = c->desc[p->slot];
	if (p->d.buf >= c->off.entries || p->d.off > c->off.buf_size ||
	    p->d.len > c->off.buf_size - p->d.off)
		fail("descriptor %u out of bounds: buf %u off %u len %u "
		     "(entries %u buf_size %u)", idx, p->d.buf, p->d.off,
		     p->d.len, c->off.entries, c->off.buf_size);
	memcpy(p->data, c->bufs + (size_t)p->d.buf * c->off.buf_size +
	       p->d.off, p->d.len);
	return 1;
}

/* Takes one packet if the ring has one: acquire producer, release consumer. */
int chan_try(struct vj_chan *c, struct vj_pkt *p)
{
	uint32_t prod = atomic_load_explicit(c->prod, memory_order_acquire);

	if (prod == c->head)
		return 0;
	if (prod - c->head > c->off.entries)
		fail("producer %u is %u ahead of consumer %u (entries %u)",
		     prod, prod - c->head, c->head, c->off.entries);
	chan_peek_at(c, c->head, p);
	c->head++;
	atomic_store_explicit(c->cons, c->head, memory_order_release);
	return 1;
}

/* Takes one packet, sleeping in poll() for up to ms milliseconds. */
int chan_recv(struct vj_chan *c, struct vj_pkt *p, int ms)
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

void chan_expect_empty(struct vj_chan *c, const char *what)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

	poll(&pfd, 1, 0);
	if (chan_producer(c) != c->head)
		fail("%s: %u unexpected packets in the ring", what,
		     chan_producer(c) - c->head);
}

/* --- packets -------------------------------------------------------- */

void payload_fill(uint8_t *buf, uint32_t len, uint32_t seq)
{
	uint32_t i;

	for (i = 0; i < len && i < 4; i++)
		buf[i] = seq >> (24 - 8 * i);
	for (i = 4; i < len; i++)
		buf[i] = (seq + i) & 0xff;
}

const char *payload_check(const uint8_t *buf, uint32_t len, uint32_t *seq)
{
	static __thread char why[96];
	uint32_t s, i;

	if (len < 4)
		return "payload shorter than 4 bytes";
	s = (uint32_t)buf[0] << 24 | buf[1] << 16 | buf[2] << 8 | buf[3];
	for (i = 4; i < len; i++) {
		if (buf[i] != ((s + i) & 0xff)) {
			snprintf(why, sizeof(why),
				 "payload of seq %u corrupt at byte %u "
				 "(0x%02x, want 0x%02x)", s, i, buf[i],
				 (s + i) & 0xff);
			return why;
		}
	}
	if (seq)
		*seq = s;
	return NULL;
}

uint32_t csum_add(uint32_t sum, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)b[i] << 8 | b[i + 1];
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	return sum;
}

uint16_t csum_fold32(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

static bool has_ports(uint8_t proto)
{
	return proto == IPPROTO_UDP || proto == IPPROTO_TCP ||
	       proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP ||
	       proto == IPPROTO_DCCP;
}

static const char *parse_l4(struct pkt_info *pi, const uint8_t *l4,
			    uint32_t avail)
{
	if (pi->frag || !has_ports(pi->proto))
		return NULL;
	if (avail < 4)
		return "transport header cut";
	pi->sport = l4[0] << 8 | l4[1];
	pi->dport = l4[2] << 8 | l4[3];
	if (pi->proto == IPPROTO_TCP && avail >= 14)
		pi->tcp_flags = l4[13];
	if (pi->proto != IPPROTO_UDP)
		return NULL;
	if (avail < 8)
		return "UDP header cut";
	pi->udp_len = l4[4] << 8 | l4[5];
	if (pi->udp_len < 8)
		return "UDP length below 8";
	pi->udp_len -= 8;
	pi->payload = l4 + 8;
	pi->plen = avail - 8 < pi->udp_len ? avail - 8 : pi->udp_len;
	return NULL;
}

/* Parses the IP and transport headers of a received packet. */
const char *pkt_parse(const struct vj_pkt *p, struct pkt_info *pi)
{
	const uint8_t *d = p->data;
	uint32_t len = p->d.len, l3 = p->d.l3_off, avail;

	memset(pi, 0, sizeof(*pi));
	if (l3 > len)
		return "l3_off beyond the packet";
	pi->l3 = d + l3;
	avail = len - l3;
	switch (ntohs(p->d.proto)) {
	case 0x0800: {
		const uint8_t *ip = pi->l3;
		uint32_t ihl, tot;

		pi->family = AF_INET;
		if (avail < 20 || (ip[0] >> 4) != 4)
			return "not an IPv4 header at l3_off";
		ihl = (ip[0] & 15) * 4;
		tot = ip[2] << 8 | ip[3];
		if (ihl < 20 || ihl > avail || tot < ihl)
			return "bad IPv4 header length";
		if (tot < avail)
			avail = tot;
		pi->frag = (ip[6] & 0x3f) || ip[7];
		pi->proto = ip[9];
		memcpy(&pi->saddr.ip4, ip + 12, 4);
		memcpy(&pi->daddr.ip4, ip + 16, 4);
		return parse_l4(pi, ip + ihl, avail - ihl);
	}
	case 0x86dd: {
		const uint8_t *ip = pi->l3, *h;
		uint32_t off = 40, plen;
		uint8_t nh;

		pi->family = AF_INET6;
		if (avail < 40 || (ip[0] >> 4) != 6)
			return "not an IPv6 header at l3_off";
		plen = ip[4] << 8 | ip[5];
		if (plen + 40 < avail)
			avail = plen + 40;
		nh = ip[6];
		memcpy(&pi->saddr, ip + 8, 16);
		memcpy(&pi->daddr, ip + 24, 16);
		for (;;) {
			h = ip + off;
			if (nh == 0 || nh == 43 || nh == 60) {
				if (off + 8 > avail)
					return "IPv6 extension header cut";
				nh = h[0];
				off += (h[1] + 1) * 8;
			} else if (nh == 44) {
				if (off + 8 > avail)
					return "IPv6 fragment header cut";
				pi->frag = true;
				nh = h[0];
				off += 8;
			} else {
				break;
			}
		}
		if (off > avail)
			return "IPv6 extension headers beyond the packet";
		pi->proto = nh;
		return parse_l4(pi, ip + off, avail - off);
	}
	default:
		return "descriptor proto is neither ETH_P_IP nor ETH_P_IPV6";
	}
}

/* Verifies the IPv4 header checksum and, if asked, the UDP checksum. */
const char *pkt_check_csums(const struct pkt_info *pi, bool udp)
{
	const uint8_t *l4;
	uint32_t sum = 0, ulen;

	if (pi->family == AF_INET &&
	    csum_fold32(csum_add(0, pi->l3, (pi->l3[0] & 15) * 4)))
		return "bad IPv4 header checksum";
	if (!udp)
		return NULL;
	if (pi->proto != IPPROTO_UDP || pi->plen != pi->udp_len)
		return "no complete UDP datagram to checksum";
	l4 = pi->payload - 8;
	ulen = pi->udp_len + 8;
	if (pi->family == AF_INET) {
		if (!l4[6] && !l4[7])
			return NULL;
		sum = csum_add(sum, pi->l3 + 12, 8);
	} else {
		sum = csum_add(sum, pi->l3 + 8, 32);
	}
	sum += IPPROTO_UDP + ulen;
	sum = csum_add(sum, l4, ulen);
	if (csum_fold32(sum))
		return "bad UDP checksum";
	return NULL;
}

/* The packet must be an untruncated UDP datagram carrying the pattern. */
void pkt_expect_udp(const struct vj_pkt *p, struct pkt_info *pi,
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

static long long kv_get(const char *path, const char *key, bool must)
{
	char line[256], k[128];
	long long v, ret = -1;
	FILE *f = fopen(path, "re");

	if (!f) {
		if (must)
			fail("open %s: %s", path, errname(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %lld", k, &v) == 2 && !strcmp(k, key))
			ret = v;
	fclose(f);
	if (ret < 0 && must)
		fail("%s has no \"%s\" line", path, key);
	return ret;
}

long long pool_get(const char *key)
{
	return kv_get("/proc/net/vjchan_pool", key, true);
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
	char line[512];
	int n = -1;
	FILE *f = fopen("/proc/net/vjchan", "re");

	if (!f)
		fail("open /proc/net/vjchan: %s", errname(errno));
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	if (n < 0)
		fail("/proc/net/vjchan has no header line");
	return n;
}

/* Splits the /proc/net/vjchan line of socket inode ino into fields. */
int proc_chan_find(unsigned long ino, char fields[][64], int max)
{
	char line[512], *tok, *save;
	int n = 0, first = 1;
	FILE *f = fopen("/proc/net/vjchan", "re");

	if (!f)
		fail("open /proc/net/vjchan: %s", errname(errno));
	while (fgets(line, sizeof(line), f)) {
		if (first) {
			first = 0;
			continue;
		}
		tok = strtok_r(line, " \t\n", &save);
		if (!tok || strtoul(tok, NULL, 10) != ino)
			continue;
		n = 0;
		while (tok && n < max) {
			snprintf(fields[n++], 64, "%s", tok);
			tok = strtok_r(NULL, " \t\n", &save);
		}
		break;
	}
	fclose(f);
	return n;
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
	unsigned int i = if_nametoindex("vjtest0");

	if (!i)
		skip("vjtest0 not present (vjtest.ko not loaded)");
	if (access("/sys/kernel/debug/vjtest/inject", W_OK))
		skip("no /sys/kernel/debug/vjtest/inject");
	return i;
}

/* Writes one inject line; 0 on success or -errno. */
int vjt_inject(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	ssize_t n;
	int fd, len;

	va_start(ap, fmt);
	len = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	line[len++] = '\n';
	line[len] = 0;
	fd = open("/sys/kernel/debug/vjtest/inject", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fail("open vjtest/inject: %s", errname(errno));
	n = write(fd, line, len);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	if (n != len)
		fail("vjtest/inject: short write %zd of %d", n, len);
	return 0;
}

long long vjt_stat(const char *key)
{
	return kv_get("/sys/kernel/debug/vjtest/stats", key, true);
}
