/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The global buffers a channel ring holds until its consumer polls, and
 * their bounds (ring_gbuf.c).  Only the ring files include this.
 */
#ifndef _VJ_RING_GBUF_H
#define _VJ_RING_GBUF_H

#include <linux/atomic.h>
#include <linux/types.h>

struct vj_gbuf;
struct vj_ring;

void vj_ring_gbuf_init(struct vj_ring *ring, atomic_t *net_gbufs);
bool vj_ring_gbuf_charge(struct vj_ring *ring);
void vj_ring_gbuf_release(struct vj_ring *ring, struct vj_gbuf *gbuf);

#endif /* _VJ_RING_GBUF_H */
