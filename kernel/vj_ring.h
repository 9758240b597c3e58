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
 * descriptor and buffer byte written before it.
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
 */
#ifndef _VJ_RING_H
#define _VJ_RING_H

#include <linux/atomic.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/vjchan.h>

struct sk_buff;
struct vj_buffer;
struct xdp_buff;

#define VJ_OFF_PRODUCER		0
#define VJ_OFF_FLAGS		4
#define VJ_OFF_CONSUMER		128
#define VJ_OFF_DESC		256
/* Largest area a channel may pin. */
#define VJ_RING_MAX_BYTES	SZ_1G

struct vj_ring_stats {
	u64 rx_packets;
	u64 rx_bytes;
	u64 rx_ring_full;
	u64 rx_invalid_cons;
	u64 rx_truncated;
	u64 rx_driver;
	u64 rx_hook;
	u64 rx_xdp;
	u64 rx_filtered;
	u64 rx_csum_bad;
	u64 rx_udp_bad_csum;
	u64 rx_udp_malformed;
	u64 rx_udp_not_peer;
	u64 rx_direct;
};

/* Why the kernel consumer handed a slot back (vj_ring_consume()). */
enum vj_consumed {
	VJ_CONSUMED,		/* delivered to the receiving call */
	VJ_DROP_UDP_BAD_CSUM,
	VJ_DROP_UDP_MALFORMED,
	VJ_DROP_UDP_NOT_PEER,
};

/* Kernel-private state of one slot; user space never sees it. */
struct vj_slot {
	struct vj_buffer *gbuf;	/* global buffer awaiting copy, or NULL */
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
	u32 pub;		/* producer index published to user space */
	u32 cons;		/* last valid consumer index seen */
	u32 npending;		/* slots in [pub, prod) holding a global buffer */
	u32 gbuf_cap;		/* most global buffers it may hold */
	atomic_t *net_gbufs;	/* its namespace's held count, vj_net */
	bool dead;		/* device gone: nothing more will arrive */
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
	struct vj_ring_stats stats;
};

int vj_ring_geometry_check(const struct vj_ring_req *req);
void vj_ring_offsets(const struct vj_ring_req *req,
		     struct vj_mmap_offsets *off);
struct vj_ring *vj_ring_create(const struct vj_ring_req *req,
			       atomic_t *net_gbufs);
void vj_ring_destroy(struct vj_ring *ring);
int vj_ring_mmap_check(const struct vj_mmap_offsets *off,
		       const struct vm_area_struct *vma);
int vj_ring_mmap(struct vj_ring *ring, struct vm_area_struct *vma);

int vj_ring_rx_skb(struct vj_ring *ring, const struct sk_buff *skb,
		   const u8 *mac, unsigned int l2, int ifindex, u32 path);
int vj_ring_rx_xdp(struct vj_ring *ring, const struct xdp_buff *xdp,
		   int ifindex, __be16 proto);
void vj_ring_count_drops(struct vj_ring *ring, unsigned int n);
void vj_ring_count_csum_bad(struct vj_ring *ring);
int vj_ring_rx_gbuf(struct vj_ring *ring, struct vj_buffer *gbuf,
		    u16 l3_off, __be16 proto);
void vj_ring_flush(struct vj_ring *ring);
void vj_ring_poll_sync(struct vj_ring *ring);
bool vj_ring_readable(struct vj_ring *ring);
bool vj_ring_waiting(struct vj_ring *ring);
void vj_ring_set_dead(struct vj_ring *ring);
bool vj_ring_dead(struct vj_ring *ring);
int vj_ring_direct_init(struct vj_ring *ring);
void vj_ring_direct_exit(struct vj_ring *ring);
int vj_ring_direct_get(struct vj_ring *ring);
void vj_ring_direct_put(struct vj_ring *ring, u32 id);
void *vj_ring_direct_addr(struct vj_ring *ring, u32 id);
int vj_ring_direct_publish(struct vj_ring *ring, u32 id, u32 off, u32 len,
			   int ifindex, __be16 proto);
void vj_ring_get_stats(struct vj_ring *ring, struct vj_ring_stats *st);
int vj_ring_peek(struct vj_ring *ring, struct vj_desc *d, u32 *idx);
const u8 *vj_ring_data(struct vj_ring *ring, const struct vj_desc *d);
void vj_ring_consume(struct vj_ring *ring, u32 idx, enum vj_consumed why);

#endif /* _VJ_RING_H */
