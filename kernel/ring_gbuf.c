// SPDX-License-Identifier: GPL-2.0
/*
 * Channel ring: the global buffers it holds.  The driver API queues a
 * frame's global buffer on a slot (vj_ring_rx_gbuf()), where it stays out
 * of the pool until the consumer's next poll copies it into the slot's own
 * buffer (vj_ring_flush()).  This file bounds how many a ring, the rings
 * of a network namespace and all rings hold.
 */

#include <linux/atomic.h>
#include <linux/minmax.h>

#include "vj_ring.h"
#include "vj_ring_gbuf.h"
#include "vj_pool.h"
#include "vj_stats.h"

/*
 * Global buffers that channels may hold until their consumers poll, as
 * fractions of the pool: one channel an eighth, the channels of one network
 * namespace together a quarter, all channels together half.  The other half
 * stays for frames on their way to the stack and for the drivers' own
 * refills, whatever consumers do.
 */
#define VJ_GBUF_CHAN_DIV	8
#define VJ_GBUF_NET_DIV		4
#define VJ_GBUF_ALL_DIV		2

/* Global buffers held by all channels. */
static atomic_t vj_ring_gbufs = ATOMIC_INIT(0);

static unsigned int vj_gbuf_limit(unsigned int div)
{
	return max(vj_pool_size() / div, 1U);
}

/*
 * Set @ring's own bound; @net_gbufs is the count of its namespace
 * (vj_ring_create()).
 */
void vj_ring_gbuf_init(struct vj_ring *ring, atomic_t *net_gbufs)
{
	/* A channel that does not poll must not sit on the pool. */
	ring->gbuf_cap = min(vj_gbuf_limit(VJ_GBUF_CHAN_DIV), ring->entries);
	ring->net_gbufs = net_gbufs;
}

/*
 * Take one more global buffer for @ring, within the limits of the channel,
 * its namespace and all channels (VJ_GBUF_*_DIV).  Returns false, the
 * refusal counted as rx_ring_full and driver_capped, if one is reached.
 * Called with ring->lock held.
 */
bool vj_ring_gbuf_charge(struct vj_ring *ring)
{
	if (ring->npending >= ring->gbuf_cap)
		goto refuse;
	if (atomic_inc_return(ring->net_gbufs) > vj_gbuf_limit(VJ_GBUF_NET_DIV))
		goto undo_net;
	if (atomic_inc_return(&vj_ring_gbufs) > vj_gbuf_limit(VJ_GBUF_ALL_DIV))
		goto undo_all;
	return true;

undo_all:
	atomic_dec(&vj_ring_gbufs);
undo_net:
	atomic_dec(ring->net_gbufs);
refuse:
	ring->stats.rx_ring_full++;
	vj_count(VJ_CNT_DRIVER_CAPPED);
	return false;
}

/* A global buffer held by @ring goes back to the pool. */
void vj_ring_gbuf_release(struct vj_ring *ring, struct vj_gbuf *gbuf)
{
	vj_pool_put(gbuf);
	atomic_dec(ring->net_gbufs);
	atomic_dec(&vj_ring_gbufs);
}
