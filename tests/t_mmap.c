// SPDX-License-Identifier: GPL-2.0
/*
 * ABI cases, part 3: mmap(), the RLIMIT_MEMLOCK charge and the /proc
 * files.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <grp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "harness.h"

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

static int ring_size_fd(uint32_t entries, uint64_t *size)
{
	int fd = test_socket();

	EXPECT_OK(test_set_ring(fd, entries, 2048), "VJ_RING %u", entries);
	*size = test_get_offsets(fd).size;
	return fd;
}

/* The mmap offset must be 0: EINVAL otherwise. */
static int t_mmap_bad_offset(void)
{
	uint64_t size;
	int fd = ring_size_fd(8, &size);

	EXPECT_ERR((long)mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			      fd, page_size()), EINVAL, "offset one page");
	EXPECT_ERR((long)mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			      fd, 16 * page_size()), EINVAL,
		   "offset 16 pages");
	close(fd);
	return 0;
}

/*
 * At offset 0 the mmap length must equal vj_mmap_offsets.size (or bufs,
 * the part before the buffers, MMAP_PART_SHAPES): a page shorter or
 * longer, or a page more than bufs, is refused with EINVAL.  (Lengths that
 * differ by less than a page are indistinguishable after page rounding.)
 */
static int t_mmap_bad_len(void)
{
	uint64_t size;
	int fd = ring_size_fd(8, &size);
	uint64_t bufs = test_get_offsets(fd).bufs;
	long pg = page_size();

	EXPECT_ERR((long)mmap(NULL, size - pg, PROT_READ | PROT_WRITE,
			      MAP_SHARED, fd, 0), EINVAL, "one page short");
	EXPECT_ERR((long)mmap(NULL, size + pg, PROT_READ | PROT_WRITE,
			      MAP_SHARED, fd, 0), EINVAL, "one page long");
	CHECK(bufs + pg < size - pg, "bufs %llu, size %llu: no length between",
	      (unsigned long long)bufs, (unsigned long long)size);
	EXPECT_ERR((long)mmap(NULL, bufs + pg, PROT_READ | PROT_WRITE,
			      MAP_SHARED, fd, 0), EINVAL, "a page past bufs");
	EXPECT_ERR((long)mmap(NULL, size * 2, PROT_READ | PROT_WRITE,
			      MAP_SHARED, fd, 0), EINVAL, "twice the size");
	close(fd);
	return 0;
}

/* MAP_PRIVATE is refused with EINVAL. */
static int t_mmap_private(void)
{
	uint64_t size;
	int fd = ring_size_fd(8, &size);

	EXPECT_ERR((long)mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			      fd, 0), EINVAL, "MAP_PRIVATE");
	EXPECT_ERR((long)mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0),
		   EINVAL, "MAP_PRIVATE read-only");
	close(fd);
	return 0;
}

/*
 * mmap() before bind() creates the ring with the set geometry; the
 * indices start at zero; packets bound later arrive in that mapping.
 */
static int t_mmap_before_bind(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, "127.0.0.1", 0, "127.0.0.1",
				 tport(0), 0);
	struct test_chan c;
	struct test_pkt *p = malloc(sizeof(*p));
	struct pkt_info pi;
	uint32_t seq;

	chan_init(&c, test_socket());
	EXPECT_OK(test_set_ring(c.fd, 8, 2048), "VJ_RING");
	chan_map(&c);
	CHECK(c.off.entries == 8, "mapped %u entries", c.off.entries);
	CHECK(!atomic_load(c.prod) && !atomic_load(c.cons) &&
	      !atomic_load(c.flags), "fresh ring: producer %u consumer %u "
	      "flags %#x", atomic_load(c.prod), atomic_load(c.cons),
	      atomic_load(c.flags));
	EXPECT_OK(test_bind(c.fd, &f), "bind after mmap");
	udp_send("127.0.0.1", 0, "127.0.0.1", tport(0), 7, 100);
	CHECK(chan_recv(&c, p, 3000), "no packet in the early mapping");
	pkt_expect_udp(p, &pi, &seq);
	CHECK(seq == 7, "seq %u", seq);
	chan_close(&c);
	free(p);
	return 0;
}

/* Two mappings of one socket are the same memory. */
static int t_mmap_twice(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				 tport(0), 0);
	struct test_chan a, b;
	struct test_pkt *p = malloc(sizeof(*p));

	chan_open(&a, &f, 8, 2048);
	b = a;
	chan_map(&b);
	CHECK(a.map != b.map, "second mapping at the same address");
	udp_send(NULL, 0, "127.0.0.1", tport(0), 1, 64);
	CHECK(chan_recv(&a, p, 3000), "no packet");
	CHECK(atomic_load(b.prod) == 1 && atomic_load(b.cons) == 1,
	      "second mapping sees producer %u consumer %u, want 1/1",
	      atomic_load(b.prod), atomic_load(b.cons));
	chan_unmap(&a);
	b.head = 1;
	udp_send(NULL, 0, "127.0.0.1", tport(0), 2, 64);
	CHECK(chan_recv(&b, p, 3000), "no packet after unmapping the first");
	chan_close(&b);
	free(p);
	return 0;
}

/*
 * The area may also be mapped in two parts: the pages before the buffers at
 * offset 0 and the buffers alone at offset bufs.  Other offsets and
 * lengths stay EINVAL.
 */
static int t_mmap_part_shapes(void)
{
	uint64_t size, bufs;
	int fd = ring_size_fd(64, &size);
	long pg = page_size();
	void *p;

	bufs = test_get_offsets(fd).bufs;
	CHECK(bufs % pg == 0 && bufs < size, "bufs %llu of size %llu",
	      (unsigned long long)bufs, (unsigned long long)size);
	p = mmap(NULL, bufs, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_OK((long)p, "the part before the buffers");
	munmap(p, bufs);
	p = mmap(NULL, size - bufs, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)bufs);
	EXPECT_OK((long)p, "the buffers");
	munmap(p, size - bufs);
	EXPECT_ERR((long)mmap(NULL, size, PROT_READ, MAP_SHARED, fd,
			      (off_t)bufs), EINVAL, "offset bufs, whole size");
	EXPECT_ERR((long)mmap(NULL, size - bufs - pg, PROT_READ, MAP_SHARED,
			      fd, (off_t)bufs), EINVAL,
		   "offset bufs, a page short");
	EXPECT_ERR((long)mmap(NULL, size - bufs - pg, PROT_READ, MAP_SHARED,
			      fd, (off_t)bufs + pg), EINVAL,
		   "offset bufs + a page");
	EXPECT_ERR((long)mmap(NULL, bufs + pg, PROT_READ, MAP_SHARED, fd, 0),
		   EINVAL, "offset 0, a page past bufs");
	EXPECT_ERR((long)mmap(NULL, size - bufs, PROT_READ, MAP_PRIVATE, fd,
			      (off_t)bufs), EINVAL, "the buffers MAP_PRIVATE");
	close(fd);
	return 0;
}

/*
 * A channel mapped in two parts receives as one mapped whole: the parts are
 * the same memory as a whole mapping of the same socket.
 */
static int t_mmap_parts(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				 tport(0), 0);
	struct test_pkt *p = malloc(sizeof(*p));
	struct test_chan a, b;
	const char *why;
	uint32_t seq;
	struct pkt_info pi;

	chan_init(&a, test_socket());
	EXPECT_OK(test_set_ring(a.fd, 8, 2048), "VJ_RING");
	EXPECT_OK(test_bind(a.fd, &f), "bind");
	why = ring_map_parts(&a, PROT_READ | PROT_WRITE);
	CHECK(!why, "%s", why);
	b = a;
	why = ring_map_whole(&b, PROT_READ | PROT_WRITE);
	CHECK(!why, "%s", why);
	udp_send(NULL, 0, "127.0.0.1", tport(0), 5, 300);
	CHECK(chan_recv(&a, p, 3000), "no packet through the parts");
	pkt_expect_udp(p, &pi, &seq);
	CHECK(seq == 5, "seq %u", seq);
	CHECK(!memcmp(a.bufs + (size_t)p->d.buf * a.off.buf_size,
		      b.bufs + (size_t)p->d.buf * b.off.buf_size, p->d.len),
	      "the buffer part and the whole mapping differ");
	CHECK(atomic_load(b.cons) == 1, "whole mapping sees consumer %u",
	      atomic_load(b.cons));
	chan_unmap(&b);
	chan_close(&a);
	free(p);
	return 0;
}

static void store_into(void *arg)
{
	*(volatile uint8_t *)arg = 1;
}

/*
 * A mapping of the buffers alone made without PROT_WRITE can never be
 * written: a store faults, mprotect(PROT_WRITE) fails with EACCES.  A whole
 * mapping made without PROT_WRITE can still be made writable, as ever.
 */
static int t_mmap_bufs_readonly(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, "127.0.0.1",
				 tport(0), 0);
	struct test_chan c;
	const char *why;
	size_t blen;
	pid_t pid;
	int st;
	void *w;

	chan_init(&c, test_socket());
	EXPECT_OK(test_bind(c.fd, &f), "bind");
	why = ring_map_parts(&c, PROT_READ);
	CHECK(!why, "%s", why);
	blen = c.off.size - c.off.bufs;
	EXPECT_ERR(mprotect(c.bufs, blen, PROT_READ | PROT_WRITE), EACCES,
		   "mprotect(PROT_WRITE) of read-only buffers");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		fail("fork: %s", errname(errno));
	if (!pid) {
		store_into(c.bufs);
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) &&
	      WTERMSIG(st) == SIGSEGV, "a store into read-only buffers: "
	      "status %#x, want SIGSEGV", st);
	chan_unmap(&c);

	w = mmap(NULL, c.off.size, PROT_READ, MAP_SHARED, c.fd, 0);
	EXPECT_OK((long)w, "read-only whole mapping");
	EXPECT_OK(mprotect(w, c.off.size, PROT_READ | PROT_WRITE),
		  "mprotect(PROT_WRITE) of a read-only whole mapping");
	munmap(w, c.off.size);
	close(c.fd);
	return 0;
}

static void memlock_setup(void)
{
	struct rlimit rl = { 64 * 1024, 64 * 1024 };
	int cap = CAP_IPC_LOCK;

	caps_drop(&cap, 1);
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		fail("setrlimit(RLIMIT_MEMLOCK): %s", errname(errno));
}

static void memlock_bind(void *arg)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL,
				 *(uint16_t *)arg, 0);
	struct sockaddr_vj sa;
	socklen_t len = sizeof(sa);
	struct vj_flow zero;
	int fd;

	memlock_setup();
	fd = test_socket();
	EXPECT_OK(test_set_ring(fd, 1024, 2048), "VJ_RING 1024/2048");
	EXPECT_ERR(test_bind(fd, &f), ENOBUFS,
		   "bind of a 2 MiB ring with RLIMIT_MEMLOCK 64 KiB");
	memset(&zero, 0, sizeof(zero));
	EXPECT_OK(getsockname(fd, (struct sockaddr *)&sa, &len),
		  "getsockname");
	CHECK(!memcmp(&sa.svj_flow, &zero, sizeof(zero)),
	      "a bind refused with ENOBUFS left the socket bound");
	close(fd);

	fd = test_socket();
	EXPECT_OK(test_set_ring(fd, 8, 2048), "VJ_RING 8/2048");
	EXPECT_OK(test_bind(fd, &f), "bind of a 20 KiB ring under 64 KiB");
	close(fd);
}

/*
 * Without CAP_IPC_LOCK the ring is charged to RLIMIT_MEMLOCK: a ring over
 * the limit fails with ENOBUFS (and leaves the socket unbound), a small
 * one fits.
 */
static int t_memlock(void)
{
	uint16_t port = tport(0);

	in_child(memlock_bind, &port);
	return 0;
}

static void memlock_mmap(void *arg)
{
	uint64_t size;
	int fd;

	(void)arg;
	memlock_setup();
	fd = test_socket();
	EXPECT_OK(test_set_ring(fd, 1024, 2048), "VJ_RING 1024/2048");
	size = test_get_offsets(fd).size;
	EXPECT_ERR((long)mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			      fd, 0), ENOBUFS,
		   "mmap creating a 2 MiB ring with RLIMIT_MEMLOCK 64 KiB");
	close(fd);
}

/* The same charge applies when mmap() is what creates the ring. */
static int t_memlock_mmap(void)
{
	in_child(memlock_mmap, NULL);
	return 0;
}

static void memlock_cumulative(void *arg)
{
	uint16_t base = *(uint16_t *)arg;
	int fds[8], i, n, refused = -1;

	memlock_setup();
	/* 8 x 2 KiB buffers + one page of header: 20 KiB a ring. */
	for (i = 0; i < 8; i++) {
		struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, base + i,
					 0);

		fds[i] = test_socket();
		EXPECT_OK(test_set_ring(fds[i], 8, 2048), "VJ_RING");
		if (test_bind(fds[i], &f)) {
			if (errno != ENOBUFS)
				fail("bind %d: %s, want ENOBUFS", i,
				     errname(errno));
			refused = i;
			break;
		}
	}
	n = refused < 0 ? 8 : refused + 1;
	CHECK(refused >= 0, "8 rings of 20 KiB all fit a 64 KiB RLIMIT_MEMLOCK");
	CHECK(refused >= 3, "ring %d refused, but 3 x 20 KiB fit 64 KiB",
	      refused);
	for (i = 0; i < n; i++)
		close(fds[i]);
	/*
	 * Closing gives the charge back: the same rings fit again.  The ring
	 * is freed after an RCU grace period, so allow a moment for it.
	 */
	for (i = 0; i < 3; i++) {
		struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, base + i,
					 0);
		int err = 0;

		fds[i] = test_socket();
		EXPECT_OK(test_set_ring(fds[i], 8, 2048), "VJ_RING");
		if (!WAIT_FOR((err = test_bind(fds[i], &f) ? errno : 0) != ENOBUFS,
			      3000) || err)
			fail("bind %d, 3 s after closing the others: %s (charge "
			     "not returned on close)", i, errname(err));
	}
	for (i = 0; i < 3; i++)
		close(fds[i]);
}

/* Rings are charged cumulatively and the charge is returned on close. */
static int t_memlock_cumulative(void)
{
	uint16_t port = tport(0);

	/*
	 * RLIMIT_MEMLOCK is charged per user, and earlier cases' rings are
	 * uncharged one RCU grace period after their close: start from none.
	 */
	CHECK(live_baseline() == 0, "channels of earlier cases still live");

	in_child(memlock_cumulative, &port);
	return 0;
}

static bool field_is(const char *got, const char *want)
{
	return !strcasecmp(got, want);
}

/*
 * /proc/net/vjchan lists each bound channel with the documented columns:
 * family ipv4/ipv6, wildcards as "*", ports decimal host order, text
 * addresses, ring geometry and the counters.
 */
static int t_proc_format(void)
{
	struct vj_flow f4 = flow4(IPPROTO_UDP, "127.0.0.2", tport(1),
				  "127.0.0.1", tport(0), 1);
	struct vj_flow f6 = flow6(0, NULL, 0, "::1", tport(2), 0);
	struct test_chan a, b;
	char fl[28][64];
	char port[16];
	int n;

	chan_open(&a, &f4, 16, 4096);
	chan_open(&b, &f6, 8, 2048);
	n = proc_chan_find(sock_ino(a.fd), fl, 28);
	CHECK(n == 25, "v4 line has %d fields, want 25", n);
	CHECK(field_is(fl[1], "ipv4"), "family \"%s\"", fl[1]);
	CHECK(field_is(fl[2], "17") || field_is(fl[2], "udp"),
	      "proto \"%s\"", fl[2]);
	CHECK(!strcmp(fl[3], "127.0.0.2"), "saddr \"%s\"", fl[3]);
	snprintf(port, sizeof(port), "%u", tport(1));
	CHECK(!strcmp(fl[4], port), "sport \"%s\", want %s", fl[4], port);
	CHECK(!strcmp(fl[5], "127.0.0.1"), "daddr \"%s\"", fl[5]);
	snprintf(port, sizeof(port), "%u", tport(0));
	CHECK(!strcmp(fl[6], port), "dport \"%s\", want %s", fl[6], port);
	CHECK(!strcmp(fl[7], "1"), "ifindex \"%s\"", fl[7]);
	CHECK(!strcmp(fl[8], "16") && !strcmp(fl[9], "4096"),
	      "geometry \"%s\" \"%s\"", fl[8], fl[9]);
	for (n = 10; n < 25; n++)
		CHECK(n == 16 || !strcmp(fl[n], "0"), "counter %d is \"%s\"",
		      n, fl[n]);

	n = proc_chan_find(sock_ino(b.fd), fl, 28);
	CHECK(n == 25, "v6 line has %d fields, want 25", n);
	CHECK(!strcmp(fl[16], "bypass"), "firewall mode \"%s\"", fl[16]);
	CHECK(field_is(fl[1], "ipv6"), "family \"%s\"", fl[1]);
	CHECK(!strcmp(fl[2], "*") && !strcmp(fl[3], "*") &&
	      !strcmp(fl[4], "*") && !strcmp(fl[7], "*"),
	      "wildcards printed as \"%s\" \"%s\" \"%s\" \"%s\"", fl[2],
	      fl[3], fl[4], fl[7]);
	CHECK(!strcmp(fl[5], "::1"), "v6 daddr \"%s\"", fl[5]);
	snprintf(port, sizeof(port), "%u", tport(2));
	CHECK(!strcmp(fl[6], port), "dport \"%s\", want %s", fl[6], port);

	udp_send("127.0.0.2", tport(1), "127.0.0.1", tport(0), 1, 100);
	CHECK(vj_wait_total(a.fd, 1, 3000), "packet not counted");
	n = proc_chan_find(sock_ino(a.fd), fl, 28);
	CHECK(n == 25 && !strcmp(fl[10], "1"),
	      "rx_packets column \"%s\" after one packet", fl[10]);
	CHECK(strtoull(fl[11], NULL, 10) == test_get_stats(a.fd).rx_bytes,
	      "rx_bytes column \"%s\" disagrees with VJ_STATISTICS", fl[11]);
	chan_close(&a);
	chan_close(&b);
	return 0;
}

static void proc_netns(void *arg)
{
	unsigned long ino = *(unsigned long *)arg;
	char fl[28][64];

	netns_new();
	CHECK(proc_chan_lines() == 0,
	      "a new net ns lists %d channels", proc_chan_lines());
	CHECK(!proc_chan_find(ino, fl, 20),
	      "a new net ns lists a channel of the initial one");
	CHECK(access("/proc/net/vjchan_pool", F_OK),
	      "/proc/net/vjchan_pool exists outside the initial net ns");
}

/* /proc/net/vjchan is per net ns; vjchan_pool exists in init_net only. */
static int t_proc_per_netns(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	unsigned long ino;
	int fd = test_socket();

	EXPECT_OK(test_bind(fd, &f), "bind");
	ino = sock_ino(fd);
	in_child(proc_netns, &ino);
	close(fd);
	return 0;
}

const struct vj_case mmap_cases[] = {
	VJ_CASE("MMAP_BAD_OFFSET", t_mmap_bad_offset),
	VJ_CASE("MMAP_BAD_LEN", t_mmap_bad_len),
	VJ_CASE("MMAP_PRIVATE", t_mmap_private),
	VJ_CASE("MMAP_BEFORE_BIND", t_mmap_before_bind),
	VJ_CASE("MMAP_TWICE", t_mmap_twice),
	VJ_CASE("MMAP_PART_SHAPES", t_mmap_part_shapes),
	VJ_CASE("MMAP_PARTS", t_mmap_parts),
	VJ_CASE("MMAP_BUFS_READONLY", t_mmap_bufs_readonly),
	VJ_CASE("MEMLOCK", t_memlock),
	VJ_CASE("MEMLOCK_MMAP", t_memlock_mmap),
	VJ_CASE("MEMLOCK_CUMULATIVE", t_memlock_cumulative),
	VJ_CASE("PROC_FORMAT", t_proc_format),
	VJ_CASE("PROC_PER_NETNS", t_proc_per_netns),
	{ NULL }
};
