/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Firewall policy of channels: which receive path may serve which channel.
 *
 * A channel's firewall mode (VJ_BIND_FW_* in the uapi header) is fixed at
 * bind.  Filtered channels are fed only by the filtered path, a
 * NF_INET_LOCAL_IN hook that runs after the ruleset has accepted the packet.
 * The fast paths (the pre-routing hook, the driver API, XDP) classify with
 * vj_flow_lookup_fast(), which returns a channel only if that channel may
 * take the packet before the firewall; otherwise the packet goes on to the
 * stack untouched and the filtered path claims it later.  A fast path never
 * falls back to a less specific channel: the winner of the match rule is
 * the only channel that may get the packet, on whichever path.
 */
#ifndef _VJ_FIREWALL_H
#define _VJ_FIREWALL_H

#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/types.h>

/* The filtered path: after the filter (0), security (50) and helper tables. */
#define VJ_FW_PRIORITY		NF_IP_PRI_LAST
#define VJ_FW6_PRIORITY		NF_IP6_PRI_LAST

struct net;
struct nf_hook_state;
struct sk_buff;
struct net_device;
struct sock;
struct vj_chan;
struct vj_flow_key;
struct vj_net;

int vj_fw_bind_check(struct sock *sk, u16 flags);
int vj_fw_mode_check(u16 flags);
bool vj_dst_local(struct net *net, const struct vj_flow_key *key,
		  const struct net_device *dev);
struct vj_chan *vj_flow_lookup_fast(struct vj_net *vn,
				    const struct vj_flow_key *key,
				    const struct net_device *dev);
unsigned int vj_fw_local_in(void *priv, struct sk_buff *skb,
			    const struct nf_hook_state *state);

#endif /* _VJ_FIREWALL_H */
