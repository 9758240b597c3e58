// SPDX-License-Identifier: GPL-2.0
/*
 * Shared test library: the consumer side of a channel ring.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "ring.h"
#include "util.h"

int test_set_ring(int fd, uint32_t entries, uint32_t buf_size)
{
	struct vj_ring_req req = {
		.entries = entries,
		.buf_size = buf_size,
	};

	return setsockopt(fd, SOL_VJCHAN, VJ_RING, &req, sizeof(req));
}

uint16_t test_bind_flags = VJ_BIND_FW_BYPASS;

int test_bind(int fd, const struct vj_flow *f)
{
	struct sockaddr_vj sa;

	memset(&sa, 0, sizeof(sa));
	sa.svj_family = AF_VJCHAN;
	sa.svj_flags = test_bind_flags;
	sa.svj_flow = *f;
	return bind(fd, (struct sockaddr *)&sa, sizeof(sa));
}

int test_getopt(int fd, int opt, void *buf, socklen_t size, socklen_t *len)
{
	*len = size;
	if (getsockopt(fd, SOL_VJCHAN, opt, buf, len))
		return -errno;
	return 0;
}

void chan_init(struct test_chan *c, int fd)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->map = MAP_FAILED;
}

/* VJ_MMAP_OFFSETS into c->off, checked; NULL or the reason. */
static const char *ring_offsets(struct test_chan *c)
{
	static __thread char why[160];
	struct vj_mmap_offsets *o = &c->off;
	socklen_t len;
	int e;

	e = test_getopt(c->fd, VJ_MMAP_OFFSETS, o, sizeof(*o), &len);
	if (e) {
		snprintf(why, sizeof(why), "getsockopt(VJ_MMAP_OFFSETS): %s",
			 errname(-e));
		return why;
	}
	if (len != sizeof(*o)) {
		snprintf(why, sizeof(why),
			 "getsockopt(VJ_MMAP_OFFSETS): optlen %u, want %zu",
			 len, sizeof(*o));
		return why;
	}
	if (!o->entries || (o->entries & (o->entries - 1))) {
		snprintf(why, sizeof(why),
			 "VJ_MMAP_OFFSETS: entries %u not a power of two",
			 o->entries);
		return why;
	}
	if (o->producer + 4 > o->size || o->consumer + 4 > o->size ||
	    o->flags + 4 > o->size ||
	    o->desc + (uint64_t)o->entries * sizeof(struct vj_desc) > o->size ||
	    o->bufs + (uint64_t)o->entries * o->buf_size > o->size) {
		snprintf(why, sizeof(why),
			 "VJ_MMAP_OFFSETS: layout outside size %llu",
			 (unsigned long long)o->size);
		return why;
	}
	return NULL;
}

static void ring_set_ptrs(struct test_chan *c)
{
	const struct vj_mmap_offsets *o = &c->off;

	c->prod = (_Atomic uint32_t *)(c->map + o->producer);
	c->cons = (_Atomic uint32_t *)(c->map + o->consumer);
	c->flags = (_Atomic uint32_t *)(c->map + o->flags);
	c->desc = (struct vj_desc *)(c->map + o->desc);
	c->bufs = c->map + o->bufs;
	c->head = atomic_load_explicit(c->cons, memory_order_relaxed);
}

bool chan_bound_direct(int fd)
{
	struct sockaddr_vj sa;
	socklen_t len = sizeof(sa);

	memset(&sa, 0, sizeof(sa));
	return !getsockname(fd, (struct sockaddr *)&sa, &len) &&
	       len >= sizeof(sa) && sa.svj_family == AF_VJCHAN &&
	       (sa.svj_flags & VJ_BIND_F_DIRECT);
}

const char *ring_map(struct test_chan *c)
{
	const char *w = ring_offsets(c);

	if (w)
		return w;
	/* A direct channel's buffers can only be mapped read-only. */
	if (chan_bound_direct(c->fd))
		return ring_map_parts(c, PROT_READ);
	return ring_map_whole(c, PROT_READ | PROT_WRITE);
}

const char *ring_map_whole(struct test_chan *c, int prot)
{
	static __thread char why[160];
	const char *w = ring_offsets(c);

	if (w)
		return w;
	c->map = mmap(NULL, c->off.size, prot, MAP_SHARED, c->fd, 0);
	if (c->map == MAP_FAILED) {
		snprintf(why, sizeof(why), "mmap(%llu): %s",
			 (unsigned long long)c->off.size, errname(errno));
		return why;
	}
	ring_set_ptrs(c);
	return NULL;
}

const char *ring_map_parts(struct test_chan *c, int bufs_prot)
{
	static __thread char why[160];
	const struct vj_mmap_offsets *o = &c->off;
	const char *w = ring_offsets(c);
	uint8_t *map;

	if (w)
		return w;
	/* One reservation, so that the parts lie as one mapping's would. */
	map = mmap(NULL, o->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		snprintf(why, sizeof(why), "reserve %llu bytes: %s",
			 (unsigned long long)o->size, errname(errno));
		return why;
	}
	if (mmap(map, o->bufs, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 c->fd, 0) == MAP_FAILED) {
		snprintf(why, sizeof(why), "mmap(%llu) of the ring: %s",
			 (unsigned long long)o->bufs, errname(errno));
		munmap(map, o->size);
		return why;
	}
	if (mmap(map + o->bufs, o->size - o->bufs, bufs_prot,
		 MAP_SHARED | MAP_FIXED, c->fd, (off_t)o->bufs) == MAP_FAILED) {
		snprintf(why, sizeof(why), "mmap(%llu) of the buffers at %llu: %s",
			 (unsigned long long)(o->size - o->bufs),
			 (unsigned long long)o->bufs, errname(errno));
		munmap(map, o->size);
		return why;
	}
	c->map = map;
	ring_set_ptrs(c);
	return NULL;
}

const char *ring_unmap(struct test_chan *c)
{
	static __thread char why[64];

	if (c->map != MAP_FAILED && munmap(c->map, c->off.size)) {
		snprintf(why, sizeof(why), "munmap: %s", errname(errno));
		return why;
	}
	c->map = MAP_FAILED;
	return NULL;
}

uint32_t chan_producer(struct test_chan *c)
{
	/* (C), matches (B): the descriptors and data are visible. */
	return atomic_load_explicit(c->prod, memory_order_acquire);
}

void chan_set_consumer(struct test_chan *c, uint32_t v)
{
	/* (D), matches (A): done with the buffers before this. */
	atomic_store_explicit(c->cons, v, memory_order_release);
}

uint32_t chan_pending(struct test_chan *c)
{
	return chan_producer(c) - c->head;
}

const char *ring_avail(struct test_chan *c, uint32_t *n)
{
	static __thread char why[128];
	uint32_t prod = chan_producer(c);

	*n = prod - c->head;
	if (*n > c->off.entries) {
		snprintf(why, sizeof(why),
			 "producer %u is %u ahead of consumer %u (entries %u)",
			 prod, *n, c->head, c->off.entries);
		*n = 0;
		return why;
	}
	return NULL;
}

void desc_read(const struct vj_desc *in_ring, struct vj_desc *d)
{
	const volatile struct vj_desc *vd = in_ring;

	d->buf = vd->buf;
	d->off = vd->off;
	d->len = vd->len;
	d->ifindex = vd->ifindex;
	d->l3_off = vd->l3_off;
	d->proto = vd->proto;
	d->flags = vd->flags;
	d->tstamp = vd->tstamp;
}

const char *desc_bounds(const struct vj_desc *d, uint32_t entries,
			uint32_t buf_size)
{
	static __thread char why[160];

	if (d->buf < entries && d->off <= buf_size &&
	    d->len <= buf_size - d->off)
		return NULL;
	snprintf(why, sizeof(why),
		 "out of bounds: buf %u off %u len %u (entries %u buf_size %u)",
		 d->buf, d->off, d->len, entries, buf_size);
	return why;
}

const char *ring_desc(struct test_chan *c, uint32_t idx, struct vj_desc *d,
		      const uint8_t **data)
{
	static __thread char why[200];
	const char *bad;

	desc_read(&c->desc[idx & (c->off.entries - 1)], d);
	bad = desc_bounds(d, c->off.entries, c->off.buf_size);
	if (bad) {
		snprintf(why, sizeof(why), "descriptor %u %s", idx, bad);
		return why;
	}
	*data = c->bufs + (size_t)d->buf * c->off.buf_size + d->off;
	return NULL;
}

void ring_release(struct test_chan *c, uint32_t n)
{
	c->head += n;
	chan_set_consumer(c, c->head);
}

void ring_poll(struct test_chan *c)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

	poll(&pfd, 1, 0);
}
