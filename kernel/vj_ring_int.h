/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Producer helpers of ring_prod.c that ring_cons.c and ring_direct.c call,
 * each with ring->lock held.  Only the ring files include this.
 */
#ifndef _VJ_RING_INT_H
#define _VJ_RING_INT_H

#include <linux/types.h>

struct vj_desc;
struct vj_ring;
struct vj_slot;

void vj_ring_sync_cons(struct vj_ring *ring);
struct vj_slot *vj_ring_reserve_slot(struct vj_ring *ring);
void vj_ring_produce(struct vj_ring *ring, struct vj_desc *d,
		     unsigned int len, unsigned int stored, int ifindex,
		     u16 l3_off, __be16 proto, u32 flags);
void vj_ring_publish(struct vj_ring *ring);
void vj_ring_held_drop(struct vj_ring *ring, struct vj_slot *slot,
		       bool consumed);

#endif /* _VJ_RING_INT_H */
