// SPDX-License-Identifier: GPL-2.0
/*
 * ABI cases, part 1: socket() and the socket options, each with the exact
 * errno the contract gives.
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

static void expect_geometry(int fd, uint32_t entries, uint32_t buf_size,
			    const char *what)
{
	struct vj_ring_req r = test_get_ring(fd);

	CHECK(r.entries == entries && r.buf_size == buf_size &&
	      !r.flags && !r.pad,
	      "%s: VJ_RING reads %u/%u flags %u pad %u, want %u/%u", what,
	      r.entries, r.buf_size, r.flags, r.pad, entries, buf_size);
}

/* Only SOCK_DGRAM exists: other types are refused with ESOCKTNOSUPPORT. */
static int t_socket_bad_type(void)
{
	static const int types[] = { SOCK_STREAM, SOCK_RAW, SOCK_SEQPACKET,
				     SOCK_RDM };
	size_t i;
	int fd;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		EXPECT_ERR(socket(AF_VJCHAN, types[i], 0), ESOCKTNOSUPPORT,
			   "socket(AF_VJCHAN, type %d)", types[i]);
	fd = socket(AF_VJCHAN, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	EXPECT_OK(fd, "socket(SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC)");
	close(fd);
	return 0;
}

/* Protocols other than VJ_PROTO_RAW, VJ_PROTO_UDP4 and VJ_PROTO_UDP6 are
 * refused with EPROTONOSUPPORT.
 */
static int t_socket_bad_proto(void)
{
	static const int protos[] = { 3, IPPROTO_UDP, 255, 0x10000 };
	size_t i;

	for (i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		EXPECT_ERR(socket(AF_VJCHAN, SOCK_DGRAM, protos[i]),
			   EPROTONOSUPPORT, "socket(protocol %d)", protos[i]);
	return 0;
}

static void unpriv_caps(void *arg)
{
	int cap = CAP_NET_RAW;

	(void)arg;
	caps_drop(&cap, 1);
	EXPECT_ERR(socket(AF_VJCHAN, SOCK_DGRAM, 0), EPERM,
		   "socket without CAP_NET_RAW");
}

static void unpriv_nobody(void *arg)
{
	(void)arg;
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
		fail("dropping to nobody: %s", errname(errno));
	EXPECT_ERR(socket(AF_VJCHAN, SOCK_DGRAM, 0), EPERM,
		   "socket as uid 65534");
}

/* Creating a channel needs CAP_NET_RAW: without it (or as nobody), EPERM. */
static int t_socket_unpriv(void)
{
	in_child(unpriv_caps, NULL);
	in_child(unpriv_nobody, NULL);
	return 0;
}

static void userns_only(void *arg)
{
	(void)arg;
	if (unshare(CLONE_NEWUSER))
		skip("unshare(CLONE_NEWUSER): %s", errname(errno));
	EXPECT_ERR(socket(AF_VJCHAN, SOCK_DGRAM, 0), EPERM,
		   "socket in a new user ns, initial net ns");
}

static void userns_netns(void *arg)
{
	int fd;

	(void)arg;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET))
		skip("unshare(CLONE_NEWUSER | CLONE_NEWNET): %s",
		     errname(errno));
	fd = socket(AF_VJCHAN, SOCK_DGRAM, 0);
	EXPECT_OK(fd, "socket in a net ns owned by our new user ns");
	close(fd);
}

/*
 * CAP_NET_RAW counts in the user namespace owning the socket's net
 * namespace: full caps in a child user ns do not grant the initial net
 * ns, but do grant a net ns that user ns owns.
 */
static int t_socket_userns(void)
{
	in_child(userns_only, NULL);
	in_child(userns_netns, NULL);
	return 0;
}

/* entries == 0 is refused with EINVAL and the geometry stays default. */
static int t_ring_entries_zero(void)
{
	int fd = test_socket();

	EXPECT_ERR(test_set_ring(fd, 0, VJ_BUF_DEF_SIZE), EINVAL, "entries 0");
	expect_geometry(fd, VJ_RING_DEF_ENTRIES, VJ_BUF_DEF_SIZE,
			"after a refused VJ_RING");
	close(fd);
	return 0;
}

/* entries that are not a power of two are refused with EINVAL. */
static int t_ring_entries_not_pow2(void)
{
	static const uint32_t bad[] = { 3, 9, 100, 257, 32767, 24576 };
	int fd = test_socket();
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_ERR(test_set_ring(fd, bad[i], VJ_BUF_DEF_SIZE), EINVAL,
			   "entries %u", bad[i]);
	expect_geometry(fd, VJ_RING_DEF_ENTRIES, VJ_BUF_DEF_SIZE,
			"after refused VJ_RING");
	close(fd);
	return 0;
}

/* Powers of two above VJ_RING_MAX_ENTRIES are refused with EINVAL. */
static int t_ring_entries_huge(void)
{
	static const uint32_t bad[] = { 65536, 1u << 20, 1u << 31, 0xffffffff };
	int fd = test_socket();
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_ERR(test_set_ring(fd, bad[i], VJ_BUF_DEF_SIZE), EINVAL,
			   "entries %u", bad[i]);
	close(fd);
	return 0;
}

/* The entries bounds are inclusive: 4 fails, 8 and 32768 are accepted. */
static int t_ring_entries_bounds(void)
{
	int fd = test_socket();

	EXPECT_ERR(test_set_ring(fd, 4, VJ_BUF_DEF_SIZE), EINVAL, "entries 4");
	EXPECT_ERR(test_set_ring(fd, 1, VJ_BUF_DEF_SIZE), EINVAL, "entries 1");
	EXPECT_OK(test_set_ring(fd, VJ_RING_MIN_ENTRIES, VJ_BUF_DEF_SIZE),
		  "entries %u", VJ_RING_MIN_ENTRIES);
	expect_geometry(fd, VJ_RING_MIN_ENTRIES, VJ_BUF_DEF_SIZE, "min");
	EXPECT_OK(test_set_ring(fd, VJ_RING_MAX_ENTRIES, VJ_BUF_DEF_SIZE),
		  "entries %u (set twice before the ring exists)",
		  VJ_RING_MAX_ENTRIES);
	expect_geometry(fd, VJ_RING_MAX_ENTRIES, VJ_BUF_DEF_SIZE, "max");
	close(fd);
	return 0;
}

/* buf_size must be a power of two in [2048, 65536]. */
static int t_ring_bufsize_bad(void)
{
	static const uint32_t bad[] = { 0, 1, 1024, 2047, 2049, 3000, 131072,
					1u << 31 };
	static const uint32_t good[] = { 2048, 4096, 65536 };
	int fd = test_socket();
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_ERR(test_set_ring(fd, 8, bad[i]), EINVAL,
			   "buf_size %u", bad[i]);
	expect_geometry(fd, VJ_RING_DEF_ENTRIES, VJ_BUF_DEF_SIZE,
			"after refused VJ_RING");
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		EXPECT_OK(test_set_ring(fd, 8, good[i]), "buf_size %u", good[i]);
		expect_geometry(fd, 8, good[i], "accepted buf_size");
	}
	close(fd);
	return 0;
}

/* Rings over 1 GiB in total are refused with EINVAL; 512 MiB is fine. */
static int t_ring_total_limit(void)
{
	int fd = test_socket();

	EXPECT_ERR(test_set_ring(fd, 32768, 65536), EINVAL, "32768 x 64 KiB");
	EXPECT_ERR(test_set_ring(fd, 16384, 65536), EINVAL,
		   "16384 x 64 KiB (1 GiB of buffers plus descriptors)");
	EXPECT_ERR(test_set_ring(fd, 32768, 32768), EINVAL,
		   "32768 x 32 KiB (1 GiB of buffers plus descriptors)");
	EXPECT_OK(test_set_ring(fd, 8192, 65536), "8192 x 64 KiB (512 MiB)");
	expect_geometry(fd, 8192, 65536, "512 MiB ring");
	close(fd);
	return 0;
}

/* Unknown flags and a non-zero pad are refused with EINVAL. */
static int t_ring_flags_unknown(void)
{
	struct vj_ring_req req = { .entries = 8, .buf_size = 2048 };
	int fd = test_socket();

	req.flags = 1;
	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, VJ_RING, &req, sizeof(req)),
		   EINVAL, "flags 1");
	req.flags = 0x80000000;
	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, VJ_RING, &req, sizeof(req)),
		   EINVAL, "flags 0x80000000");
	req.flags = 0;
	req.pad = 1;
	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, VJ_RING, &req, sizeof(req)),
		   EINVAL, "pad 1");
	expect_geometry(fd, VJ_RING_DEF_ENTRIES, VJ_BUF_DEF_SIZE,
			"after refused VJ_RING");
	close(fd);
	return 0;
}

/* optlen below sizeof(struct vj_ring_req) is refused with EINVAL. */
static int t_ring_optlen_short(void)
{
	struct vj_ring_req req = { .entries = 8, .buf_size = 2048 };
	int fd = test_socket();

	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, VJ_RING, &req, 0), EINVAL,
		   "optlen 0");
	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, VJ_RING, &req, 8), EINVAL,
		   "optlen 8");
	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, VJ_RING, &req, sizeof(req) - 1),
		   EINVAL, "optlen %zu", sizeof(req) - 1);
	expect_geometry(fd, VJ_RING_DEF_ENTRIES, VJ_BUF_DEF_SIZE,
			"after refused VJ_RING");
	close(fd);
	return 0;
}

/* A longer optlen whose extra bytes are zero is accepted (forward compat). */
static int t_ring_optlen_long_zero_tail(void)
{
	static uint8_t buf[4096];
	struct vj_ring_req req = { .entries = 16, .buf_size = 4096 };
	int fd = test_socket();

	memcpy(buf, &req, sizeof(req));
	EXPECT_OK(setsockopt(fd, SOL_VJCHAN, VJ_RING, buf, 32), "optlen 32");
	expect_geometry(fd, 16, 4096, "optlen 32");
	req.entries = 32;
	memcpy(buf, &req, sizeof(req));
	EXPECT_OK(setsockopt(fd, SOL_VJCHAN, VJ_RING, buf, sizeof(buf)),
		  "optlen %zu", sizeof(buf));
	expect_geometry(fd, 32, 4096, "optlen 4096");
	close(fd);
	return 0;
}

/* A longer optlen with any non-zero extra byte is refused with E2BIG. */
static int t_ring_optlen_long_nonzero_tail(void)
{
	static uint8_t buf[4096];
	struct vj_ring_req req = { .entries = 16, .buf_size = 4096 };
	int fd = test_socket();

	memcpy(buf, &req, sizeof(req));
	buf[sizeof(req)] = 1;
	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, VJ_RING, buf, sizeof(req) + 1),
		   E2BIG, "optlen 17, tail byte 1");
	buf[sizeof(req)] = 0;
	buf[sizeof(buf) - 1] = 0x80;
	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, VJ_RING, buf, sizeof(buf)),
		   E2BIG, "optlen 4096, last byte set");
	expect_geometry(fd, VJ_RING_DEF_ENTRIES, VJ_BUF_DEF_SIZE,
			"after refused VJ_RING");
	close(fd);
	return 0;
}

/* Once bind() created the ring, VJ_RING fails with EBUSY, same or not. */
static int t_ring_set_after_bind(void)
{
	struct vj_flow f = flow4(IPPROTO_UDP, NULL, 0, NULL, tport(0), 0);
	int fd = test_socket();

	EXPECT_OK(test_set_ring(fd, 16, 2048), "VJ_RING 16");
	EXPECT_OK(test_bind(fd, &f), "bind");
	EXPECT_ERR(test_set_ring(fd, 32, 2048), EBUSY, "VJ_RING after bind");
	EXPECT_ERR(test_set_ring(fd, 16, 2048), EBUSY,
		   "identical VJ_RING after bind");
	expect_geometry(fd, 16, 2048, "after EBUSY");
	close(fd);

	/* bind() with no VJ_RING creates the default ring. */
	fd = test_socket();
	EXPECT_OK(test_bind(fd, &f), "bind with the default geometry");
	EXPECT_ERR(test_set_ring(fd, 16, 2048), EBUSY, "VJ_RING after bind");
	expect_geometry(fd, VJ_RING_DEF_ENTRIES, VJ_BUF_DEF_SIZE, "default");
	close(fd);
	return 0;
}

/* mmap() of an unbound socket creates the ring too: VJ_RING then EBUSY. */
static int t_ring_set_after_mmap(void)
{
	struct test_chan c;

	chan_init(&c, test_socket());
	EXPECT_OK(test_set_ring(c.fd, 8, 2048), "VJ_RING 8");
	chan_map(&c);
	EXPECT_ERR(test_set_ring(c.fd, 16, 2048), EBUSY, "VJ_RING after mmap");
	chan_unmap(&c);
	EXPECT_ERR(test_set_ring(c.fd, 16, 2048), EBUSY,
		   "VJ_RING after munmap (the ring still exists)");
	expect_geometry(c.fd, 8, 2048, "after EBUSY");
	chan_close(&c);
	return 0;
}

static void getopt_short(int fd, int opt, socklen_t least, socklen_t size,
			 const char *name)
{
	uint8_t buf[512];
	socklen_t len;
	size_t i;

	if (least < size) {
		/* An older, shorter structure: exactly its bytes. */
		memset(buf, 0xa5, sizeof(buf));
		len = least;
		EXPECT_OK(getsockopt(fd, SOL_VJCHAN, opt, buf, &len),
			  "getsockopt(%s) optlen %u", name, least);
		CHECK(len == least, "getsockopt(%s): optlen set to %u, want %u",
		      name, len, least);
		for (i = least; i < size + 64; i++)
			CHECK(buf[i] == 0xa5, "getsockopt(%s) optlen %u wrote "
			      "byte %zu", name, least, i);
	}
	len = least - 1;
	EXPECT_ERR(getsockopt(fd, SOL_VJCHAN, opt, buf, &len), EINVAL,
		   "getsockopt(%s) optlen %u", name, least - 1);
	len = 0;
	EXPECT_ERR(getsockopt(fd, SOL_VJCHAN, opt, buf, &len), EINVAL,
		   "getsockopt(%s) optlen 0", name);
	memset(buf, 0xa5, sizeof(buf));
	len = size + 64;
	EXPECT_OK(getsockopt(fd, SOL_VJCHAN, opt, buf, &len),
		  "getsockopt(%s) optlen %u", name, size + 64);
	CHECK(len == size, "getsockopt(%s): optlen set to %u, want %u",
	      name, len, size);
	for (i = size; i < size + 64; i++)
		CHECK(buf[i] == 0xa5, "getsockopt(%s) wrote byte %zu beyond "
		      "the structure", name, i);
}

/* getsockopt needs optlen >= the struct; it copies and reports exactly it. */
static int t_getsockopt_short(void)
{
	int fd = test_socket();

	getopt_short(fd, VJ_RING, sizeof(struct vj_ring_req),
		     sizeof(struct vj_ring_req), "VJ_RING");
	getopt_short(fd, VJ_MMAP_OFFSETS, sizeof(struct vj_mmap_offsets),
		     sizeof(struct vj_mmap_offsets), "VJ_MMAP_OFFSETS");
	getopt_short(fd, VJ_STATISTICS, VJ_STATISTICS_SIZE_V1,
		     sizeof(struct vj_statistics), "VJ_STATISTICS");
	close(fd);
	return 0;
}

static void check_layout(const struct vj_mmap_offsets *o, uint32_t entries,
			 uint32_t buf_size)
{
	uint64_t hdr_end;

	CHECK(o->entries == entries && o->buf_size == buf_size,
	      "VJ_MMAP_OFFSETS for %u/%u reports %u/%u", entries, buf_size,
	      o->entries, o->buf_size);
	CHECK(!(o->producer & 3) && !(o->consumer & 3) && !(o->flags & 3),
	      "indices not 4-byte aligned");
	CHECK(o->producer / 64 != o->consumer / 64,
	      "producer (%llu) and consumer (%llu) share a cache line",
	      (unsigned long long)o->producer,
	      (unsigned long long)o->consumer);
	CHECK(o->flags != o->producer && o->flags != o->consumer,
	      "flags word overlaps an index");
	CHECK(!(o->desc & 7), "descriptor array not 8-byte aligned");
	hdr_end = o->producer;
	if (o->consumer > hdr_end)
		hdr_end = o->consumer;
	if (o->flags > hdr_end)
		hdr_end = o->flags;
	CHECK(o->desc >= hdr_end + 4, "descriptors overlap the indices");
	CHECK(o->bufs >= o->desc + (uint64_t)entries * sizeof(struct vj_desc),
	      "buffers overlap the descriptors");
	CHECK(o->size >= o->bufs + (uint64_t)entries * buf_size,
	      "size %llu too small for the buffers",
	      (unsigned long long)o->size);
}

/*
 * Before any VJ_RING the geometry is the default; VJ_MMAP_OFFSETS is valid
 * before the ring exists and follows VJ_RING; statistics start at zero.
 */
static int t_getsockopt_defaults(void)
{
	struct vj_statistics zero, s;
	int fd = test_socket();

	expect_geometry(fd, VJ_RING_DEF_ENTRIES, VJ_BUF_DEF_SIZE, "fresh");
	struct vj_mmap_offsets o = test_get_offsets(fd);

	check_layout(&o, VJ_RING_DEF_ENTRIES, VJ_BUF_DEF_SIZE);
	memset(&zero, 0, sizeof(zero));
	s = test_get_stats(fd);
	CHECK(!memcmp(&s, &zero, sizeof(s)), "fresh socket has statistics");
	EXPECT_OK(test_set_ring(fd, 16, 4096), "VJ_RING 16/4096");
	o = test_get_offsets(fd);
	check_layout(&o, 16, 4096);
	close(fd);
	return 0;
}

/* The layout is sane for small, default, large and wide geometries. */
static int t_mmap_offsets_layout(void)
{
	static const uint32_t geo[][2] = {
		{ 8, 2048 }, { 256, 2048 }, { 1024, 65536 }, { 32768, 2048 },
		{ 8, 65536 },
	};
	size_t i;

	for (i = 0; i < sizeof(geo) / sizeof(geo[0]); i++) {
		int fd = test_socket();
		struct vj_mmap_offsets o;

		EXPECT_OK(test_set_ring(fd, geo[i][0], geo[i][1]), "VJ_RING %u/%u",
			  geo[i][0], geo[i][1]);
		o = test_get_offsets(fd);
		check_layout(&o, geo[i][0], geo[i][1]);
		close(fd);
	}
	return 0;
}

/* Unknown options, wrong levels and setting get-only options: ENOPROTOOPT. */
static int t_unknown_opt(void)
{
	struct vj_ring_req req = { .entries = 8, .buf_size = 2048 };
	uint8_t buf[128] = { 0 };
	socklen_t len = sizeof(buf);
	int fd = test_socket();

	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, 99, buf, sizeof(buf)),
		   ENOPROTOOPT, "setsockopt optname 99");
	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, 0, buf, sizeof(buf)),
		   ENOPROTOOPT, "setsockopt optname 0");
	EXPECT_ERR(getsockopt(fd, SOL_VJCHAN, 99, buf, &len), ENOPROTOOPT,
		   "getsockopt optname 99");
	EXPECT_ERR(setsockopt(fd, IPPROTO_IP, VJ_RING, &req, sizeof(req)),
		   ENOPROTOOPT, "setsockopt level SOL_IP");
	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN - 1, VJ_RING, &req, sizeof(req)),
		   ENOPROTOOPT, "setsockopt level 298");
	len = sizeof(buf);
	EXPECT_ERR(getsockopt(fd, IPPROTO_UDP, VJ_RING, buf, &len),
		   ENOPROTOOPT, "getsockopt level SOL_UDP");
	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, VJ_MMAP_OFFSETS, buf,
			      sizeof(struct vj_mmap_offsets)),
		   ENOPROTOOPT, "setsockopt VJ_MMAP_OFFSETS");
	EXPECT_ERR(setsockopt(fd, SOL_VJCHAN, VJ_STATISTICS, buf,
			      sizeof(struct vj_statistics)),
		   ENOPROTOOPT, "setsockopt VJ_STATISTICS");
	expect_geometry(fd, VJ_RING_DEF_ENTRIES, VJ_BUF_DEF_SIZE,
			"after refused options");
	close(fd);
	return 0;
}

/* SOL_SOCKET options keep working and describe the socket. */
static int t_sol_socket(void)
{
	int fd = test_socket(), v;
	socklen_t len = sizeof(v);

	EXPECT_OK(getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &len), "SO_TYPE");
	CHECK(v == SOCK_DGRAM, "SO_TYPE %d", v);
	len = sizeof(v);
	EXPECT_OK(getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &len),
		  "SO_DOMAIN");
	CHECK(v == AF_VJCHAN, "SO_DOMAIN %d", v);
	len = sizeof(v);
	EXPECT_OK(getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v, &len),
		  "SO_PROTOCOL");
	CHECK(v == 0, "SO_PROTOCOL %d", v);
	len = sizeof(v);
	EXPECT_OK(getsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &len), "SO_ERROR");
	CHECK(v == 0, "fresh socket has SO_ERROR %d", v);
	close(fd);
	return 0;
}

const struct vj_case abi_cases[] = {
	VJ_CASE("SOCKET_BAD_TYPE", t_socket_bad_type),
	VJ_CASE("SOCKET_BAD_PROTO", t_socket_bad_proto),
	VJ_CASE("SOCKET_UNPRIV", t_socket_unpriv),
	VJ_CASE("SOCKET_USERNS", t_socket_userns),
	VJ_CASE("RING_ENTRIES_ZERO", t_ring_entries_zero),
	VJ_CASE("RING_ENTRIES_NOT_POW2", t_ring_entries_not_pow2),
	VJ_CASE("RING_ENTRIES_HUGE", t_ring_entries_huge),
	VJ_CASE("RING_ENTRIES_BOUNDS", t_ring_entries_bounds),
	VJ_CASE("RING_BUFSIZE_BAD", t_ring_bufsize_bad),
	VJ_CASE("RING_TOTAL_LIMIT", t_ring_total_limit),
	VJ_CASE("RING_FLAGS_UNKNOWN", t_ring_flags_unknown),
	VJ_CASE("RING_OPTLEN_SHORT", t_ring_optlen_short),
	VJ_CASE("RING_OPTLEN_LONG_ZERO_TAIL", t_ring_optlen_long_zero_tail),
	VJ_CASE("RING_OPTLEN_LONG_NONZERO_TAIL",
		t_ring_optlen_long_nonzero_tail),
	VJ_CASE("RING_SET_AFTER_BIND", t_ring_set_after_bind),
	VJ_CASE("RING_SET_AFTER_MMAP", t_ring_set_after_mmap),
	VJ_CASE("GETSOCKOPT_SHORT", t_getsockopt_short),
	VJ_CASE("GETSOCKOPT_DEFAULTS", t_getsockopt_defaults),
	VJ_CASE("MMAP_OFFSETS_LAYOUT", t_mmap_offsets_layout),
	VJ_CASE("UNKNOWN_OPT", t_unknown_opt),
	VJ_CASE("SOL_SOCKET_OPTS", t_sol_socket),
	{ NULL }
};
