// SPDX-License-Identifier: GPL-2.0
/*
 * Channel ring, the consumer's side in the kernel: poll readiness, and the
 * kernel as consumer for UDP channel sockets.  The protocol and its
 * barriers are described once, in vj_ring.h; each barrier below carries
 * its label.
 */

#include <linux/skbuff.h>

#include "vj_ring.h"
#include "vj_ring_cons.h"
#include "vj_ring_int.h"
#include "vj_ring_prod.h"

/*
 * Consumer context: validate the consumer index now, so that a bad value is
 * seen (and counted) without waiting for the ring to fill.
 */
void vj_ring_poll_sync(struct vj_ring *ring)
{
	spin_lock_bh(&ring->lock);
	vj_ring_sync_cons(ring);
	spin_unlock_bh(&ring->lock);
}

/*
 * True if descriptors are published for the consumer, or driver frames
 * wait for the copy that vj_ring_flush() (or vj_ring_peek()) makes.
 */
bool vj_ring_waiting(struct vj_ring *ring)
{
	return vj_ring_readable(ring) || READ_ONCE(ring->npending);
}

/* True if published descriptors are waiting for the consumer. */
bool vj_ring_readable(struct vj_ring *ring)
{
	return READ_ONCE(ring->cons) != READ_ONCE(ring->pub);
}

/*
 * The kernel as consumer (UDP channel sockets, kernel/udp_rx.c): the
 * receiving system call takes the datagram at the consumer index itself,
 * then hands the slot back as user space would, with (D).
 *
 * Snapshot the kernel's private descriptor of the oldest published slot
 * into @d and its index into @idx.  The consumer index user space may have
 * moved through the mapping is taken into account first (and validated, as
 * always).  Returns 0, or -EAGAIN when no descriptor is published.
 */
int vj_ring_peek(struct vj_ring *ring, struct vj_desc *d, u32 *idx)
{
	int err = -EAGAIN;

	vj_ring_flush(ring);
	spin_lock_bh(&ring->lock);
	vj_ring_sync_cons(ring);
	if (ring->cons != ring->pub) {
		*idx = ring->cons;
		*d = ring->slots[ring->cons & ring->mask].desc;
		err = 0;
	}
	spin_unlock_bh(&ring->lock);
	return err;
}

/*
 * The bytes of the packet that @d describes, or NULL if the descriptor does
 * not fit its buffer.  The bytes are in the mapping: user space can change
 * them at any time, so the caller copies what it validates.
 */
const u8 *vj_ring_data(struct vj_ring *ring, const struct vj_desc *d)
{
	if (d->buf >= ring->entries || d->off > ring->buf_size ||
	    d->len > ring->buf_size - d->off)
		return NULL;
	return ring->bufs + (size_t)d->buf * ring->buf_size + d->off;
}

/*
 * The datagram slot @idx holds (VJ_DESC_F_HELD), with a reference the
 * caller drops, or NULL if the slot holds none or the consumer index moved
 * past it through the mapping.
 */
struct sk_buff *vj_ring_held(struct vj_ring *ring, u32 idx)
{
	struct sk_buff *skb = NULL;

	spin_lock_bh(&ring->lock);
	if (ring->cons == idx)
		skb = ring->slots[idx & ring->mask].skb;
	if (skb)
		skb_get(skb);
	spin_unlock_bh(&ring->lock);
	return skb;
}

/*
 * Hand slot @idx back to the producer, counting why: delivered to the
 * caller (@why VJ_CONSUMED), or dropped.  If the consumer index moved past
 * @idx meanwhile (user space consumed through the mapping) nothing changes.
 */
void vj_ring_consume(struct vj_ring *ring, u32 idx, enum vj_consumed why)
{
	spin_lock_bh(&ring->lock);
	switch (why) {
	case VJ_CONSUMED:
		break;
	case VJ_DROP_UDP_BAD_CSUM:
		ring->stats.rx_udp_bad_csum++;
		break;
	case VJ_DROP_UDP_MALFORMED:
		ring->stats.rx_udp_malformed++;
		break;
	case VJ_DROP_UDP_NOT_PEER:
		ring->stats.rx_udp_not_peer++;
		break;
	}
	if (ring->cons == idx) {
		struct vj_slot *slot = &ring->slots[idx & ring->mask];

		if (slot->skb)
			vj_ring_held_drop(ring, slot, why == VJ_CONSUMED);
		WRITE_ONCE(ring->cons, idx + 1);
		smp_store_release(ring->consumer, idx + 1); /* D, matches A */
	}
	spin_unlock_bh(&ring->lock);
}
