/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The classifier (classify.c): which channel a receive path may feed, under
 * the channel's firewall mode; and the bind-time check of those modes.
 */
#ifndef _VJ_CLASSIFY_H
#define _VJ_CLASSIFY_H

#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/types.h>

/* The filtered path: after the filter (0), security (50) and helper tables. */
#define VJ_FW_PRIORITY		NF_IP_PRI_LAST
#define VJ_FW6_PRIORITY		NF_IP6_PRI_LAST

struct net_device;
struct nf_hook_state;
struct sk_buff;
struct sock;
struct vj_flow_entry;
struct vj_flow_key;
struct vj_net;

int vj_fw_bind_check(struct sock *sk, u16 flags);
int vj_fw_mode_check(u16 flags);
struct vj_flow_entry *vj_classify_skb(struct vj_net *vn, struct sk_buff *skb,
				      const struct nf_hook_state *state,
				      struct vj_flow_key *key, int *thoff,
				      unsigned int *verdict);
struct vj_flow_entry *vj_classify_frame(struct net_device *dev, const u8 *frame,
					unsigned int hlen, unsigned int len,
					__be16 *proto);

#endif /* _VJ_CLASSIFY_H */
