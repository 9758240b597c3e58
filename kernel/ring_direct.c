// SPDX-License-Identifier: GPL-2.0
/*
 * Channel ring, direct receive (VJ_BIND_F_DIRECT).  The driver posts
 * buffers it takes with vj_ring_direct_get(), and each completed one goes
 * either to user space (vj_ring_direct_publish()) or back with
 * vj_ring_direct_put().  Nothing else produces into a direct ring
 * (vj_ring_rx_skb() and vj_ring_rx_gbuf() refuse it), so every published
 * slot names a buffer the device wrote.  The protocol and its barriers are
 * described once, in vj_ring.h.
 */

#include <linux/if_ether.h>
#include <linux/slab.h>

#include "vj_ring.h"
#include "vj_ring_direct.h"
#include "vj_ring_int.h"

/* Make @ring direct: every buffer free.  Before anything was produced. */
int vj_ring_direct_init(struct vj_ring *ring)
{
	u32 *ids, i;

	if (ring->buf_size > PAGE_SIZE)
		return -EMSGSIZE;
	/* User space must not be able to write what the device wrote. */
	if (ring->bufs_writable)
		return -EBUSY;
	ids = kvcalloc(ring->entries, sizeof(*ids), GFP_KERNEL_ACCOUNT);
	if (!ids)
		return -ENOMEM;
	for (i = 0; i < ring->entries; i++)
		ids[i] = ring->entries - 1 - i;
	spin_lock_bh(&ring->lock);
	if (ring->prod || ring->direct) {
		spin_unlock_bh(&ring->lock);
		kvfree(ids);
		return -EBUSY;
	}
	ring->free_ids = ids;
	ring->nfree = ring->entries;
	ring->direct = true;
	spin_unlock_bh(&ring->lock);
	return 0;
}

/*
 * Undo vj_ring_direct_init() for a bind that failed: nothing was produced,
 * every buffer is back on the free list.
 */
void vj_ring_direct_exit(struct vj_ring *ring)
{
	u32 *ids;

	spin_lock_bh(&ring->lock);
	WARN_ON_ONCE(ring->prod || ring->nfree != ring->entries);
	ids = ring->free_ids;
	ring->free_ids = NULL;
	ring->nfree = 0;
	ring->direct = false;
	spin_unlock_bh(&ring->lock);
	kvfree(ids);
}

/* Slots the consumer handed back give their buffers to the free list. */
static void vj_ring_direct_reclaim(struct vj_ring *ring)
{
	vj_ring_sync_cons(ring);
	for (; ring->reclaimed != ring->cons; ring->reclaimed++) {
		u32 slot = ring->reclaimed & ring->mask;

		/* Kernel-private: the descriptor as published, not as shared. */
		ring->free_ids[ring->nfree++] = ring->slots[slot].desc.buf;
	}
}

/* A buffer to post to the device, or -ENOBUFS when user space holds all. */
int vj_ring_direct_get(struct vj_ring *ring)
{
	int id = -ENOBUFS;

	spin_lock_bh(&ring->lock);
	if (!ring->nfree)
		vj_ring_direct_reclaim(ring);
	if (ring->nfree)
		id = ring->free_ids[--ring->nfree];
	spin_unlock_bh(&ring->lock);
	return id;
}

/* A buffer back from the device unpublished (copied out, or unused). */
void vj_ring_direct_put(struct vj_ring *ring, u32 id)
{
	spin_lock_bh(&ring->lock);
	if (!WARN_ON_ONCE(ring->nfree >= ring->entries))
		ring->free_ids[ring->nfree++] = id;
	spin_unlock_bh(&ring->lock);
}

/* @id comes from vj_ring_direct_get(), so it is below ring->entries. */
void *vj_ring_direct_addr(struct vj_ring *ring, u32 id)
{
	return ring->bufs + (size_t)id * ring->buf_size;
}

/*
 * Publish buffer @id, which the device filled with a frame of @len bytes at
 * @off; @flags: VJ_DESC_F_* beyond those of every direct frame.  Returns
 * 0, or -ENODEV once the ring is dead (the caller still owns the buffer).
 * The ring cannot be full: the slots in [cons, prod) name distinct
 * buffers, and @id is not one of them.
 */
int vj_ring_direct_publish(struct vj_ring *ring, u32 id, u32 off, u32 len,
			   int ifindex, __be16 proto, u32 flags)
{
	struct vj_slot *slot;

	spin_lock_bh(&ring->lock);
	slot = vj_ring_reserve_slot(ring);
	if (IS_ERR(slot)) {
		spin_unlock_bh(&ring->lock);
		return PTR_ERR(slot);
	}
	vj_ring_produce(ring, &slot->desc, len, len, ifindex, ETH_HLEN, proto,
			flags | VJ_DESC_F_L2 | VJ_DESC_F_DRIVER |
			VJ_DESC_F_DIRECT);
	slot->desc.buf = id;
	slot->desc.off = off;
	vj_ring_publish(ring);
	spin_unlock_bh(&ring->lock);
	return 0;
}
