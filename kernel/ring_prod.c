// SPDX-License-Identifier: GPL-2.0
/*
 * Channel ring, the kernel producer: reserving a slot, filling it from an
 * skb, an XDP frame or a global buffer, publishing it, the copy of global
 * buffers in the consumer's context, and the end of production when the
 * device goes.  The protocol and its barriers are described once, in
 * vj_ring.h; each barrier below carries its label.
 */

#include <linux/if_ether.h>
#include <linux/skbuff.h>
#include <net/checksum.h>
#include <net/xdp.h>

#include "vj_csum.h"
#include "vj_ring.h"
#include "vj_ring_gbuf.h"
#include "vj_ring_int.h"
#include "vj_ring_prod.h"
#include "vjchan_driver.h"

/* Slots copied per hold of the producer lock in vj_ring_flush(). */
#define VJ_FLUSH_CHUNK	64

/*
 * The most slots a batch leaves unpublished (VJ_PUBLISH_BATCH), as AF_XDP
 * publishes per NAPI poll of 64 frames: a softirq pass can bring a channel
 * hundreds of frames, and a consumer that cannot see them cannot free
 * their slots.  A quarter of a small ring at most.
 */
#define VJ_PUBLISH_BATCH_MAX	64

/*
 * Read the consumer index once and accept it only if it lies in
 * [ring->cons, ring->pub]: user space may hand back only what it was given.
 * Anything else is counted and ignored, as if the consumer had not moved.
 * Called with ring->lock held.
 */
void vj_ring_sync_cons(struct vj_ring *ring)
{
	u32 cons = smp_load_acquire(ring->consumer); /* A, matches D */

	if (cons - ring->cons <= ring->pub - ring->cons)
		WRITE_ONCE(ring->cons, cons);
	else
		ring->stats.rx_invalid_cons++;
}

/* Returns the slot to fill, or NULL with the drop counted. */
static struct vj_slot *vj_ring_reserve(struct vj_ring *ring)
{
	if (ring->prod - ring->cons >= ring->entries) {
		vj_ring_sync_cons(ring);
		if (ring->prod - ring->cons >= ring->entries) {
			ring->stats.rx_ring_full++;
			return NULL;
		}
	}
	return &ring->slots[ring->prod & ring->mask];
}

static void vj_desc_publish(struct vj_desc *shared, const struct vj_desc *d)
{
	WRITE_ONCE(shared->buf, d->buf);
	WRITE_ONCE(shared->off, d->off);
	WRITE_ONCE(shared->len, d->len);
	WRITE_ONCE(shared->ifindex, d->ifindex);
	WRITE_ONCE(shared->l3_off, d->l3_off);
	WRITE_ONCE(shared->proto, d->proto);
	WRITE_ONCE(shared->flags, d->flags);
	WRITE_ONCE(shared->tstamp, d->tstamp);
}

/* Whether a copying producer publishes after filling a slot. */
static bool vj_ring_publish_due(const struct vj_ring *ring,
				enum vj_publish when)
{
	if (ring->npending)
		return false;	/* vj_ring_flush() publishes, in order */
	if (when == VJ_PUBLISH_NOW)
		return true;
	return ring->prod - ring->pub >=
	       min_t(u32, VJ_PUBLISH_BATCH_MAX, ring->entries / 4);
}

/* Publish [pub, prod); only when no slot in it waits for a copy. */
void vj_ring_publish(struct vj_ring *ring)
{
	u32 i;

	if (ring->pub == ring->prod)
		return;
	for (i = ring->pub; i != ring->prod; i++) {
		u32 slot = i & ring->mask;

		vj_desc_publish(&ring->desc[slot], &ring->slots[slot].desc);
	}
	WRITE_ONCE(ring->pub, ring->prod);
	smp_store_release(ring->producer, ring->pub); /* B, matches C */
}

static void vj_ring_account(struct vj_ring *ring, const struct vj_desc *d)
{
	ring->stats.rx_packets++;
	ring->stats.rx_bytes += d->len;
	if (d->flags & VJ_DESC_F_TRUNC)
		ring->stats.rx_truncated++;
	if (d->flags & VJ_DESC_F_DIRECT)
		ring->stats.rx_direct++;
	if (d->flags & VJ_DESC_F_DRIVER)
		ring->stats.rx_driver++;
	else if (d->flags & VJ_DESC_F_XDP)
		ring->stats.rx_xdp++;
	else if (d->flags & VJ_DESC_F_FILTERED)
		ring->stats.rx_filtered++;
	else
		ring->stats.rx_hook++;
}

/*
 * Reserve the next slot, with ring->lock held.  Returns the slot, or
 * ERR_PTR(-ENOSPC) when the ring is full (the drop is counted) and
 * ERR_PTR(-ENODEV) once the ring is dead.
 */
struct vj_slot *vj_ring_reserve_slot(struct vj_ring *ring)
{
	struct vj_slot *slot;

	if (unlikely(ring->dead))
		return ERR_PTR(-ENODEV);
	slot = vj_ring_reserve(ring);
	if (!slot)
		return ERR_PTR(-ENOSPC);
	/* The consumer moved past a held datagram through the mapping. */
	if (unlikely(slot->skb))
		vj_ring_held_drop(ring, slot, false);
	return slot;
}

/*
 * Free the datagram @slot holds and its charge; @consumed says whether it
 * was delivered.  Called with ring->lock held.
 */
void vj_ring_held_drop(struct vj_ring *ring, struct vj_slot *slot,
		       bool consumed)
{
	struct sk_buff *skb = slot->skb;

	slot->skb = NULL;
	ring->held_bytes -= skb->truesize;
	if (consumed)
		consume_skb(skb);
	else
		kfree_skb(skb);
}

/*
 * vj_ring_reserve_slot() for a producer that copies into the slot's own
 * buffer.  A direct ring's buffers belong to the device, and only
 * vj_ring_direct_publish() produces into it: to the others it is as if
 * dead.
 */
static struct vj_slot *vj_ring_reserve_copy(struct vj_ring *ring)
{
	if (unlikely(ring->direct))
		return ERR_PTR(-ENODEV);
	return vj_ring_reserve_slot(ring);
}

/*
 * Describe the packet in the slot being produced, @stored of its @len bytes
 * being in the buffer, and count it.  Called with ring->lock held.
 */
void vj_ring_produce(struct vj_ring *ring, struct vj_desc *d,
		     unsigned int len, unsigned int stored, int ifindex,
		     u16 l3_off, __be16 proto, u32 flags)
{
	d->buf = ring->prod & ring->mask;
	d->off = 0;
	d->len = stored;
	d->ifindex = ifindex;
	d->l3_off = l3_off;
	d->proto = proto;
	d->flags = flags | (stored < len ? VJ_DESC_F_TRUNC : 0);
	d->tstamp = ktime_get_ns();
	vj_ring_account(ring, d);
	ring->prod++;
}

/*
 * A packet whose transport checksum is left to hardware (CHECKSUM_PARTIAL:
 * local traffic on lo and veth, virtio's NEEDS_CSUM) carries only the
 * pseudo-header sum; complete it in the copy, as skb_checksum_help() would.
 */
static void vj_ring_fix_partial_csum(const struct sk_buff *skb, u8 *dst,
				     unsigned int l2, unsigned int copy)
{
	int start = skb_checksum_start_offset(skb);
	unsigned int at;
	__sum16 sum;

	if (start < 0 || start >= skb->len)
		return;
	at = l2 + start + skb->csum_offset;
	if (at + sizeof(sum) > copy)
		return;
	sum = csum_fold(skb_checksum(skb, start, skb->len - start, 0));
	if (!sum)
		sum = CSUM_MANGLED_0;
	memcpy(dst + at, &sum, sizeof(sum));
}

/*
 * Copy one skb into the ring.  skb->data is at the network header; the @l2
 * bytes of link header at @mac (none if @l2 is 0) are copied in front of
 * it.  @path is the VJ_DESC_F_* bit of the receive path; @when says when
 * the slot is published (enum vj_publish).  Returns 0, -ENOSPC if the ring
 * was full (the drop is counted) or -ENODEV if the ring is dead.
 */
int vj_ring_rx_skb(struct vj_ring *ring, const struct sk_buff *skb,
		   const u8 *mac, unsigned int l2, int ifindex, u32 path,
		   enum vj_publish when)
{
	unsigned int len, copy;
	struct vj_slot *slot;
	u8 *dst;

	len = l2 + skb->len;
	spin_lock_bh(&ring->lock);
	slot = vj_ring_reserve_copy(ring);
	if (IS_ERR(slot)) {
		spin_unlock_bh(&ring->lock);
		return PTR_ERR(slot);
	}
	dst = ring->bufs + (size_t)(ring->prod & ring->mask) * ring->buf_size;
	copy = min(len, ring->buf_size);
	if (l2)
		memcpy(dst, mac, l2);
	if (skb_copy_bits(skb, 0, dst + l2, copy - l2))
		copy = l2; /* cannot happen: skb->len bytes are there */
	if (skb->ip_summed == CHECKSUM_PARTIAL)
		vj_ring_fix_partial_csum(skb, dst, l2, copy);
	vj_ring_produce(ring, &slot->desc, len, copy, ifindex, l2,
			skb->protocol, path | (l2 ? VJ_DESC_F_L2 : 0));
	if (vj_ring_publish_due(ring, when))
		vj_ring_publish(ring);
	spin_unlock_bh(&ring->lock);
	return 0;
}

/**
 * vj_ring_rx_held - give the ring a datagram instead of a copy of it
 * @ring: a UDP channel socket's ring
 * @skb: the datagram, which the ring owns from now on whatever the result
 * @ifindex: the interface it arrived on
 * @path: VJ_DESC_F_* bits of how it came (VJ_DESC_F_FILTERED, CSUM_OK)
 * @limit: the most bytes (truesize) of held datagrams, the socket's
 *	receive buffer; as UDP, one datagram is taken while below it
 *
 * For a datagram too large for a buffer: the slot holds @skb and its
 * descriptor says VJ_DESC_F_HELD with nothing in the buffer (len 0).
 * Returns 0, -ENOSPC if the ring is full or @limit reached (counted in
 * rx_ring_full) or -ENODEV if the ring is dead.
 */
int vj_ring_rx_held(struct vj_ring *ring, struct sk_buff *skb, int ifindex,
		    u32 path, u32 limit)
{
	struct vj_slot *slot;

	spin_lock_bh(&ring->lock);
	slot = vj_ring_reserve_copy(ring);
	if (!IS_ERR(slot) && ring->held_bytes > limit) {
		ring->stats.rx_ring_full++;
		slot = ERR_PTR(-ENOSPC);
	}
	if (IS_ERR(slot)) {
		spin_unlock_bh(&ring->lock);
		kfree_skb(skb);
		return PTR_ERR(slot);
	}
	slot->skb = skb;
	ring->held_bytes += skb->truesize;
	vj_ring_produce(ring, &slot->desc, 0, 0, ifindex, 0, skb->protocol,
			path | VJ_DESC_F_HELD);
	/* Counted as it came, not as stored: rx_bytes is about traffic. */
	ring->stats.rx_bytes += skb->len;
	if (!ring->npending)
		vj_ring_publish(ring);
	spin_unlock_bh(&ring->lock);
	return 0;
}

/*
 * Copy one XDP frame, linear part and fragments, into the ring with its
 * Ethernet header (VJ_DESC_F_XDP | VJ_DESC_F_L2, l3_off ETH_HLEN).  As
 * much as fits in a buffer is copied; the rest is cut off (VJ_DESC_F_TRUNC).
 * @when says when the slot is published (enum vj_publish).  Returns 0,
 * -ENOSPC if the ring was full (the drop is counted) or -ENODEV if the ring
 * is dead.
 */
int vj_ring_rx_xdp(struct vj_ring *ring, const struct xdp_buff *xdp,
		   int ifindex, __be16 proto, enum vj_publish when)
{
	unsigned int head = xdp->data_end - xdp->data;
	unsigned int len = xdp_get_buff_len(xdp);
	unsigned int copy, done, i;
	struct vj_slot *slot;
	u8 *dst;

	spin_lock_bh(&ring->lock);
	slot = vj_ring_reserve_copy(ring);
	if (IS_ERR(slot)) {
		spin_unlock_bh(&ring->lock);
		return PTR_ERR(slot);
	}
	dst = ring->bufs + (size_t)(ring->prod & ring->mask) * ring->buf_size;
	copy = min(len, ring->buf_size);
	done = min(head, copy);
	memcpy(dst, xdp->data, done);
	if (unlikely(xdp_buff_has_frags(xdp))) {
		const struct skb_shared_info *sinfo =
			xdp_get_shared_info_from_buff(xdp);

		for (i = 0; i < sinfo->nr_frags && done < copy; i++) {
			const skb_frag_t *frag = &sinfo->frags[i];
			unsigned int n = min(skb_frag_size(frag), copy - done);

			memcpy(dst + done, skb_frag_address(frag), n);
			done += n;
		}
	}
	vj_ring_produce(ring, &slot->desc, len, done, ifindex, ETH_HLEN, proto,
			VJ_DESC_F_XDP | VJ_DESC_F_L2);
	if (vj_ring_publish_due(ring, when))
		vj_ring_publish(ring);
	spin_unlock_bh(&ring->lock);
	return 0;
}

/**
 * vj_ring_publish_batch - publish the slots filled with VJ_PUBLISH_BATCH
 * @ring: the ring, which the caller keeps alive (a reference on its
 *	socket, or the RCU read-side section it found the channel in)
 *
 * One (B) for every slot filled since the last publication, unless an
 * earlier slot waits for the copy of a global buffer: the consumer's
 * vj_ring_flush() then publishes them all, in order, after that copy.
 */
void vj_ring_publish_batch(struct vj_ring *ring)
{
	spin_lock_bh(&ring->lock);
	if (!ring->npending)
		vj_ring_publish(ring);
	spin_unlock_bh(&ring->lock);
}

/*
 * Queue a global buffer from the driver API.  It is not visible to user
 * space (which cannot map global buffers) until the consumer's next poll
 * copies it into the slot's own buffer: see vj_ring_flush().  The buffers
 * held this way are bounded per channel, per namespace and in all (see
 * VJ_GBUF_*_DIV in ring_gbuf.c); beyond a bound, frames are dropped as for
 * a full ring.  Returns 0, -ENOSPC (ring full or a bound reached, counted)
 * or -ENODEV (ring dead); on error the caller still owns @gbuf.
 */
int vj_ring_rx_gbuf(struct vj_ring *ring, struct vj_gbuf *gbuf,
		    u16 l3_off, __be16 proto)
{
	struct vj_slot *slot;

	spin_lock_bh(&ring->lock);
	slot = vj_ring_reserve_copy(ring);
	if (!IS_ERR(slot) && !vj_ring_gbuf_charge(ring))
		slot = ERR_PTR(-ENOSPC);
	if (IS_ERR(slot)) {
		spin_unlock_bh(&ring->lock);
		return PTR_ERR(slot);
	}
	slot->gbuf = gbuf;
	vj_ring_produce(ring, &slot->desc, gbuf->len,
			min(gbuf->len, ring->buf_size), gbuf->dev->ifindex,
			l3_off, proto, VJ_DESC_F_L2 | VJ_DESC_F_DRIVER |
			vj_csum_desc_flags(&gbuf->csum));
	WRITE_ONCE(ring->npending, ring->npending + 1);
	spin_unlock_bh(&ring->lock);
	return 0;
}

/*
 * Consumer context (poll): copy queued global buffers into the channel's own
 * buffers (completing a partial checksum first, on the consumer's CPU),
 * return them to the pool and publish everything in order.  The
 * lock is dropped every VJ_FLUSH_CHUNK slots to bound the time spent with
 * bottom halves off.
 */
void vj_ring_flush(struct vj_ring *ring)
{
	if (!READ_ONCE(ring->npending))
		return;

	spin_lock_bh(&ring->lock);
	while (ring->npending) {
		u32 n = 0;

		while (ring->npending && n++ < VJ_FLUSH_CHUNK) {
			u32 idx = ring->pub & ring->mask;
			struct vj_slot *slot = &ring->slots[idx];

			if (slot->gbuf) {
				struct vj_gbuf *gbuf = slot->gbuf;

				if (gbuf->csum.state == VJ_CSUM_PARTIAL)
					vj_csum_complete(gbuf->data, gbuf->len,
							 &gbuf->csum);
				memcpy(ring->bufs + (size_t)idx * ring->buf_size,
				       gbuf->data, slot->desc.len);
				vj_ring_gbuf_release(ring, gbuf);
				slot->gbuf = NULL;
				WRITE_ONCE(ring->npending, ring->npending - 1);
			}
			vj_desc_publish(&ring->desc[idx], &slot->desc);
			WRITE_ONCE(ring->pub, ring->pub + 1);
		}
		smp_store_release(ring->producer, ring->pub); /* B, matches C */
		if (ring->npending) {
			spin_unlock_bh(&ring->lock);
			spin_lock_bh(&ring->lock);
		}
	}
	/* Slots filled by the hook behind the last copied one. */
	vj_ring_publish(ring);
	spin_unlock_bh(&ring->lock);
}

/*
 * The bound device is gone.  Refuse further packets, publish the driver
 * frames still queued and the slots of a batch not yet published, then
 * tell user space: after DEAD the producer index does not move again.
 * Process context.
 */
void vj_ring_set_dead(struct vj_ring *ring)
{
	spin_lock_bh(&ring->lock);
	WRITE_ONCE(ring->dead, true);
	spin_unlock_bh(&ring->lock);
	vj_ring_flush(ring);
	spin_lock_bh(&ring->lock);
	vj_ring_publish(ring);	/* npending is 0: nothing comes after dead */
	smp_store_release(ring->flags, VJ_RING_F_DEAD); /* E, matches F */
	spin_unlock_bh(&ring->lock);
}

bool vj_ring_dead(struct vj_ring *ring)
{
	return READ_ONCE(ring->dead);
}
