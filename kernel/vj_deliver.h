/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Handing an skb that matched a channel to the channel's ring: shared by the
 * receive paths that see skbs (the pre-routing hook and the filtered path).
 */
#ifndef _VJ_DELIVER_H
#define _VJ_DELIVER_H

#include <linux/types.h>

struct sk_buff;
struct vj_flow_entry;

struct vj_flow_key;

bool vj_deliver_skb(struct vj_flow_entry *fe, struct sk_buff *skb,
		    const struct vj_flow_key *key, int thoff, unsigned int hook,
		    u32 path);
bool vj_deliver_gso(struct vj_flow_entry *fe, struct sk_buff *skb,
		    int ifindex);

#endif /* _VJ_DELIVER_H */
