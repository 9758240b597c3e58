/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The buffers of a direct channel ring (VJ_BIND_F_DIRECT, ring_direct.c):
 * taken to post to the device, published when the device filled them, or
 * put back.
 */
#ifndef _VJ_RING_DIRECT_H
#define _VJ_RING_DIRECT_H

#include <linux/types.h>

struct vj_ring;

int vj_ring_direct_init(struct vj_ring *ring);
void vj_ring_direct_exit(struct vj_ring *ring);
int vj_ring_direct_get(struct vj_ring *ring);
void vj_ring_direct_put(struct vj_ring *ring, u32 id);
void *vj_ring_direct_addr(struct vj_ring *ring, u32 id);
int vj_ring_direct_publish(struct vj_ring *ring, u32 id, u32 off, u32 len,
			   int ifindex, __be16 proto, u32 flags);

#endif /* _VJ_RING_DIRECT_H */
