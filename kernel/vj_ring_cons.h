/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The consumer's side of a channel ring in the kernel (ring_cons.c): poll
 * readiness, and the kernel as consumer for UDP channel sockets, which
 * hands slots back with (D) of vj_ring.h.
 */
#ifndef _VJ_RING_CONS_H
#define _VJ_RING_CONS_H

#include <linux/types.h>

struct sk_buff;
struct vj_desc;
struct vj_ring;

/* Why the kernel consumer handed a slot back (vj_ring_consume()). */
enum vj_consumed {
	VJ_CONSUMED,		/* delivered to the receiving call */
	VJ_DROP_UDP_BAD_CSUM,
	VJ_DROP_UDP_MALFORMED,
	VJ_DROP_UDP_NOT_PEER,
};

void vj_ring_poll_sync(struct vj_ring *ring);
bool vj_ring_readable(struct vj_ring *ring);
bool vj_ring_waiting(struct vj_ring *ring);
int vj_ring_peek(struct vj_ring *ring, struct vj_desc *d, u32 *idx);
struct sk_buff *vj_ring_held(struct vj_ring *ring, u32 idx);
const u8 *vj_ring_data(struct vj_ring *ring, const struct vj_desc *d);
void vj_ring_consume(struct vj_ring *ring, u32 idx, enum vj_consumed why);

#endif /* _VJ_RING_CONS_H */
