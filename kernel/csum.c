// SPDX-License-Identifier: GPL-2.0
/*
 * Checksum offload state from drivers (struct vj_rx_csum): checked once
 * against the frame's length where a driver hands the frame over
 * (vj_csum_fits()), then trusted only within that length.  A partial
 * checksum is completed in the bytes a channel's consumer will read
 * (vj_csum_complete(), as skb_checksum_help() does for an skb); the stack
 * gets the state on the skb (vj_csum_to_skb()).
 */

#include <linux/if_ether.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/unaligned.h>
#include <net/checksum.h>

#include "vj_csum.h"
#include "vjchan_driver.h"
#include <linux/vjchan.h>

/**
 * vj_csum_fits - does a checksum state describe a frame
 * @c: from the device
 * @len: the frame's length
 *
 * vjchan checks every frame handed to it so; a driver may check first to
 * count a device's bad header as its own error.
 *
 * Return: true for a known state and, for a partial checksum, the summed
 * bytes and the 2-byte field inside the frame, behind the Ethernet header.
 */
bool vj_csum_fits(const struct vj_rx_csum *c, unsigned int len)
{
	switch (c->state) {
	case VJ_CSUM_NONE:
	case VJ_CSUM_VALID:
		return true;
	case VJ_CSUM_PARTIAL:
		return c->start >= ETH_HLEN &&
		       (u32)c->start + c->offset + sizeof(__sum16) <= len;
	default:
		return false;
	}
}
EXPORT_SYMBOL_GPL(vj_csum_fits);

/*
 * Complete the partial checksum @c (vj_csum_fits(@c, @len) held) of the
 * @len bytes at @frame: the sum of the bytes from c->start to the end,
 * pseudo-header sum in the field included, folded into the field.
 */
void vj_csum_complete(u8 *frame, unsigned int len, const struct vj_rx_csum *c)
{
	__sum16 sum;

	sum = csum_fold(csum_partial(frame + c->start, len - c->start, 0));
	put_unaligned(sum ?: CSUM_MANGLED_0,
		      (__sum16 *)(frame + c->start + c->offset));
}

/*
 * Give @c to @skb, whose data starts with the frame's Ethernet header
 * (before eth_type_trans()).  False if the skb cannot take it.
 */
bool vj_csum_to_skb(struct sk_buff *skb, const struct vj_rx_csum *c)
{
	switch (c->state) {
	case VJ_CSUM_VALID:
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		return true;
	case VJ_CSUM_PARTIAL:
		return skb_partial_csum_set(skb, c->start, c->offset);
	default:
		return true;
	}
}

/*
 * Descriptor flags of a frame with @c: the checksum is known to be right
 * when the device verified it, or when the kernel completes it.
 */
u32 vj_csum_desc_flags(const struct vj_rx_csum *c)
{
	return c->state == VJ_CSUM_NONE ? 0 : VJ_DESC_F_CSUM_OK;
}
