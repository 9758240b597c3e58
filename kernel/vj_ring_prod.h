/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel producer of a channel ring (ring_prod.c): a frame from an
 * skb, an XDP frame or a global buffer into the next slot (or a datagram
 * too large for a buffer held in it), published with
 * (B) of vj_ring.h, at once or for a whole batch; the copy of global
 * buffers in the consumer's context; the end of production, (E), when the
 * bound device goes.
 */
#ifndef _VJ_RING_PROD_H
#define _VJ_RING_PROD_H

#include <linux/types.h>

struct sk_buff;
struct vj_gbuf;
struct vj_ring;
struct xdp_buff;

/*
 * When a copying producer publishes the slot it filled (the last argument
 * of vj_ring_rx_skb() and vj_ring_rx_xdp()):
 * VJ_PUBLISH_NOW	before it returns;
 * VJ_PUBLISH_BATCH	at the caller's vj_ring_publish_batch(), once for
 *			every slot filled since (wake.c calls it at the end of
 *			the softirq pass), or when 64 slots, or a quarter of
 *			the ring, wait unpublished.
 * Either way a slot is published only once no earlier slot waits for the
 * copy of a global buffer, and any publication publishes every slot filled
 * before it.
 */
enum vj_publish {
	VJ_PUBLISH_NOW,
	VJ_PUBLISH_BATCH,
};

int vj_ring_rx_skb(struct vj_ring *ring, const struct sk_buff *skb,
		   const u8 *mac, unsigned int l2, int ifindex, u32 path,
		   enum vj_publish when);
int vj_ring_rx_held(struct vj_ring *ring, struct sk_buff *skb, int ifindex,
		    u32 path, u32 limit);
int vj_ring_rx_xdp(struct vj_ring *ring, const struct xdp_buff *xdp,
		   int ifindex, __be16 proto, enum vj_publish when);
void vj_ring_publish_batch(struct vj_ring *ring);
int vj_ring_rx_gbuf(struct vj_ring *ring, struct vj_gbuf *gbuf,
		    u16 l3_off, __be16 proto);
void vj_ring_flush(struct vj_ring *ring);
void vj_ring_set_dead(struct vj_ring *ring);
bool vj_ring_dead(struct vj_ring *ring);

#endif /* _VJ_RING_PROD_H */
