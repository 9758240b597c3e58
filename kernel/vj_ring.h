/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The channel ring: one single-producer/single-consumer descriptor ring and
 * its buffers, in one vmalloc area mapped into the receiving process.
 *
 * Layout of the area (reported to user space by VJ_MMAP_OFFSETS, so that it
 * is not frozen into the ABI):
 *
 *   0                 producer index, flags      (kernel writes)
 *   VJ_OFF_CONSUMER   consumer index             (user space writes)
 *   VJ_OFF_DESC       entries * struct vj_desc   (kernel writes)
 *   bufs              entries * buf_size         (kernel or device writes)
 *
 * It is mapped whole at offset 0, or in two parts: the pages before bufs
 * at offset 0 and the buffers alone at offset bufs (page aligned).  A
 * direct ring's buffers are never mapped writable (vj_ring_mmap()).
 *
 * The producer and consumer words sit 128 bytes apart so that each side's
 * line, and the line the adjacent-line prefetcher pairs with it, stay with
 * one CPU.
 *
 * Barriers.  The kernel is the only producer (its producers are serialized
 * by ring->lock), user space the only consumer:
 *
 *   kernel (producer)                         user (consumer)
 *   (A) cons = load_acquire(&consumer)        (C) prod = load_acquire(&producer)
 *       write buffer + descriptor                 read descriptor + buffer
 *   (B) store_release(&producer, prod + n)    (D) store_release(&consumer, cons + n)
 *
 * (A) pairs with (D): the kernel writes into a buffer only after it has seen
 * the consumer index that hands it back, so it never overwrites data that user
 * space is still reading.
 * (B) pairs with (C): user space that sees a producer index also sees every
 * descriptor and buffer byte written before it.  (B) comes after each
 * frame on the UDP holder's path and on direct receive; on the hook and XDP
 * paths (VJ_PUBLISH_BATCH) once per channel at the end of the softirq pass
 * (wake.c), or every 64 slots (a quarter of a small ring), or at once
 * outside softirq; in the consumer's poll or receiving call after the copy
 * of driver frames (vj_ring_flush()); and last before (E).  Each (B)
 * publishes every slot filled before it.
 *
 * When the bound device goes away the kernel, after its last (B), does
 *   (E) store_release(&flags, VJ_RING_F_DEAD)  and user space
 *   (F) flags = load_acquire(&flags)
 * (E) pairs with (F): a consumer that sees DEAD, then reads the producer
 * index, sees the final one; it can drain the ring and stop.
 *
 * Direct receive (VJ_BIND_F_DIRECT) keeps (A)..(F); the device writes the
 * buffer before the driver sees it complete (the virtqueue's used ring),
 * and (B) publishes it.  A buffer is reposted only after (A) has seen the
 * consumer index that hands its slot back.
 *
 * On a UDP channel socket the kernel is also a consumer: the receiving
 * system call (vj_ring_peek(), vj_ring_consume()) reads the slot at its own
 * copy of the consumer index, under ring->lock, from its private copy of
 * the descriptor, and hands the slot back with (D) itself, so the producer's
 * (A) pairs with it exactly as with user space: the producer rewrites the
 * buffer only after the kernel consumer has finished copying out of it.
 *
 * The kernel never trusts the ring: it keeps its own copy of both indices,
 * reads the consumer index once per use (when it needs room, and on every
 * poll) and accepts it only inside [last valid consumer, published
 * producer], and never reads descriptors or the producer index back from
 * shared memory.
 *
 * The code is split by concern: ring.c holds the ring object (geometry,
 * memory charge, creation, mapping, counters); ring_prod.c the kernel
 * producer, with (A), (B) and (E); ring_cons.c poll readiness and the
 * kernel consumer, with (D); ring_direct.c the buffers of a direct ring;
 * ring_gbuf.c the global buffers a ring holds.  Each has its header
 * (vj_ring_prod.h ...); vj_ring_int.h declares the producer helpers that
 * ring_cons.c and ring_direct.c call.
 */
#ifndef _VJ_RING_H
#define _VJ_RING_H

#include <linux/atomic.h>
#include <linux/sizes.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/vjchan.h>

struct sk_buff;
struct vj_gbuf;

#define VJ_OFF_PRODUCER		0
#define VJ_OFF_FLAGS		4
#define VJ_OFF_CONSUMER		128
#define VJ_OFF_DESC		256
/* Largest area a channel may pin. */
#define VJ_RING_MAX_BYTES	SZ_1G

/* Kernel-private state of one slot; user space never sees it. */
struct vj_slot {
	struct vj_gbuf *gbuf;	/* global buffer awaiting copy, or NULL */
	struct sk_buff *skb;	/* a held datagram (VJ_DESC_F_HELD), or NULL */
	struct vj_desc desc;	/* descriptor to publish */
};

struct vj_ring {
	u32 entries;
	u32 mask;
	u32 buf_size;
	size_t size;		/* bytes mapped */
	size_t bufs_off;
	void *area;		/* vmalloc_user() area */
	u32 *producer;
	u32 *flags;
	u32 *consumer;
	struct vj_desc *desc;
	u8 *bufs;
	struct vj_slot *slots;
	struct user_struct *user;	/* charged RLIMIT_MEMLOCK, or NULL */
	unsigned long pinned_pages;

	spinlock_t lock;	/* serializes kernel producers */
	u32 prod;		/* next slot the kernel fills */
	u32 pub;		/* producer index published to user space;
				 * [pub, prod) is filled, not yet published
				 */
	u32 cons;		/* last valid consumer index seen */
	u32 npending;		/* slots in [pub, prod) holding a global buffer */
	u32 gbuf_cap;		/* most global buffers it may hold */
	u32 held_bytes;		/* truesize of the held datagrams */
	atomic_t *net_gbufs;	/* its namespace's held count, vj_net */
	bool dead;		/* device gone: nothing more will arrive */
	/*
	 * The CPU of the consumer's latest poll() or receiving call, -1
	 * before any (VJ_SPREAD_CONSUMER); written by the consumer, only
	 * when it moves, read by the receive paths.
	 */
	int consumer_cpu;
	/*
	 * Direct receive (VJ_BIND_F_DIRECT): only the device writes the
	 * buffers.  A buffer is on the free list, posted to the device, or
	 * named by a slot in [reclaimed, prod); slots in [reclaimed, cons)
	 * were handed back by the consumer and their buffers go back on the
	 * free list at the next vj_ring_direct_get().
	 */
	bool direct;
	/*
	 * A mapping that could write the buffers was made (see
	 * vj_ring_mmap()); a direct ring never has one.  Read and set under
	 * the owning socket's lock, as direct is changed.
	 */
	bool bufs_writable;
	u32 reclaimed;
	u32 nfree;
	u32 *free_ids;
	struct vj_statistics stats;	/* the uapi struct: VJ_STATISTICS */
};

/* The consumer runs on this CPU now: note it if it moved. */
static inline void vj_ring_note_consumer(struct vj_ring *ring)
{
	int cpu = raw_smp_processor_id();

	if (READ_ONCE(ring->consumer_cpu) != cpu)
		WRITE_ONCE(ring->consumer_cpu, cpu);
}

static inline int vj_ring_consumer_cpu(const struct vj_ring *ring)
{
	return READ_ONCE(ring->consumer_cpu);
}

int vj_ring_geometry_check(const struct vj_ring_req *req);
void vj_ring_offsets(const struct vj_ring_req *req,
		     struct vj_mmap_offsets *off);
struct vj_ring *vj_ring_create(const struct vj_ring_req *req,
			       atomic_t *net_gbufs);
void vj_ring_destroy(struct vj_ring *ring);
int vj_ring_mmap_check(const struct vj_mmap_offsets *off,
		       const struct vm_area_struct *vma);
int vj_ring_mmap(struct vj_ring *ring, struct vm_area_struct *vma);
void vj_ring_count_drops(struct vj_ring *ring, unsigned int n);
void vj_ring_count_csum_bad(struct vj_ring *ring);
void vj_ring_get_stats(struct vj_ring *ring, struct vj_statistics *st);

#endif /* _VJ_RING_H */
