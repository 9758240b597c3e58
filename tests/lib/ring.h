/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared test library: the consumer side of a channel, written from
 * include/uapi/linux/vjchan.h alone (no libvjchan), with C11
 * acquire/release atomics: the producer index is loaded with acquire (C in
 * the diagram of kernel/vj_ring.h), the consumer index stored with release
 * (D).
 *
 * These functions do not end the process: those that can go wrong return
 * NULL or the reason, for the caller to report its own way (the suite's
 * fail(), the stress test's record_fail()).
 */
#ifndef _VJ_TL_RING_H
#define _VJ_TL_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <linux/vjchan.h>

struct test_chan {
	int fd;
	uint8_t *map;
	struct vj_mmap_offsets off;
	_Atomic uint32_t *prod;
	_Atomic uint32_t *cons;
	_Atomic uint32_t *flags;
	struct vj_desc *desc;
	uint8_t *bufs;
	uint32_t head;			/* our consumer index */
};

struct test_pkt {
	struct vj_desc d;
	uint32_t slot;
	uint8_t data[VJ_BUF_MAX_SIZE];
};

/* Raw socket calls: their results, errno as the call left it. */
int test_set_ring(int fd, uint32_t entries, uint32_t buf_size);
/*
 * svj_flags that test_bind() uses.  Bypass by default: most cases test the
 * ring, the match rule and the fast paths, which serve bypass channels;
 * the firewall cases set the mode they test.
 */
extern uint16_t test_bind_flags;
int test_bind(int fd, const struct vj_flow *f);
/* getsockopt(SOL_VJCHAN): 0 or -errno; *len is the length returned. */
int test_getopt(int fd, int opt, void *buf, socklen_t size, socklen_t *len);

void chan_init(struct test_chan *c, int fd);
/*
 * VJ_MMAP_OFFSETS, then mmap(): the whole area read-write at offset 0, or,
 * for a channel bound with VJ_BIND_F_DIRECT, ring_map_parts(c, PROT_READ).
 */
const char *ring_map(struct test_chan *c);
/* VJ_MMAP_OFFSETS, then the whole area with @prot at offset 0. */
const char *ring_map_whole(struct test_chan *c, int prot);
/*
 * VJ_MMAP_OFFSETS, then the area in two mappings that lie as one would:
 * the pages before the buffers read-write at offset 0, the buffers with
 * @bufs_prot at offset off.bufs.  ring_unmap() unmaps both.
 */
const char *ring_map_parts(struct test_chan *c, int bufs_prot);
/* Is @fd a channel bound with VJ_BIND_F_DIRECT (getsockname())? */
bool chan_bound_direct(int fd);
const char *ring_unmap(struct test_chan *c);
uint32_t chan_producer(struct test_chan *c);
void chan_set_consumer(struct test_chan *c, uint32_t v);
uint32_t chan_pending(struct test_chan *c);
/* Packets ready after head; a producer beyond a ring's worth is a reason. */
const char *ring_avail(struct test_chan *c, uint32_t *n);
/* Copies each field of a descriptor in shared memory once. */
void desc_read(const struct vj_desc *in_ring, struct vj_desc *d);
const char *desc_bounds(const struct vj_desc *d, uint32_t entries,
			uint32_t buf_size);
/* Descriptor idx, checked, and where its bytes are in the mapping. */
const char *ring_desc(struct test_chan *c, uint32_t idx, struct vj_desc *d,
		      const uint8_t **data);
void ring_release(struct test_chan *c, uint32_t n);	/* head += n */
void ring_poll(struct test_chan *c);	/* poll() once: driver frames go in */

#endif /* _VJ_TL_RING_H */
