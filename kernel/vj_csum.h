/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checksum offload state from drivers (struct vj_rx_csum, csum.c);
 * vj_csum_fits() is in the driver API (vjchan_driver.h).
 */
#ifndef _VJ_CSUM_H
#define _VJ_CSUM_H

#include <linux/types.h>

struct sk_buff;
struct vj_rx_csum;

void vj_csum_complete(u8 *frame, unsigned int len,
		      const struct vj_rx_csum *c);
bool vj_csum_to_skb(struct sk_buff *skb, const struct vj_rx_csum *c);
u32 vj_csum_desc_flags(const struct vj_rx_csum *c);

#endif /* _VJ_CSUM_H */
