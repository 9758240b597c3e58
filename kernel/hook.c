// SPDX-License-Identifier: GPL-2.0
/*
 * Receive hook for unmodified drivers (virtio_net, veth, e1000, lo, ...).
 *
 * Channels hook NF_INET_PRE_ROUTING for IPv4 and IPv6 in each namespace
 * that has bound a channel, at priority VJ_HOOK_PRIORITY: after the IP layer
 * has validated the header (so lengths can be trusted) and before
 * defragmentation and conntrack (so a claimed packet costs no conntrack
 * entry).  This is a fast path: it serves only the channels that
 * vj_flow_lookup_fast() allows (bypass channels, packets addressed to this
 * host).  A packet of such a channel is copied once into the channel's
 * buffer and consumed; any other packet is returned untouched with
 * NF_ACCEPT, to reach a filtered channel, if it has one, through the
 * firewall (firewall.c).  A
 * netfilter hook coexists with every other user of the device (bridges,
 * bonding, macvlan hold the one rx_handler slot) and is per namespace.  See
 * docs/DESIGN.md for the alternatives.
 *
 * Hooks are registered on the first bind in a namespace and stay until the
 * namespace goes, so bind/close cycles do not churn the hook list.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "vj_deliver.h"
#include "vj_firewall.h"
#include "vj_flow.h"
#include "vj_hook.h"
#include "vj_parse.h"

#define VJ_HOOK_PRIORITY	(NF_IP_PRI_CONNTRACK_DEFRAG - 10)
#define VJ_HOOK6_PRIORITY	(NF_IP6_PRI_CONNTRACK_DEFRAG - 10)

/* Hand a packet whose key is filled in to its channel, if it may have it. */
static unsigned int hook_deliver(struct vj_net *vn, struct sk_buff *skb,
				 const struct vj_flow_key *key)
{
	struct vj_chan *chan;

	/* Netfilter hooks run under rcu_read_lock(). */
	chan = vj_flow_lookup_fast(vn, key, skb->dev);
	if (!chan || !vj_deliver_skb(chan, skb, key->ifindex, 0))
		return NF_ACCEPT;
	return NF_STOLEN;
}

static unsigned int hook_ipv4(void *priv, struct sk_buff *skb,
			      const struct nf_hook_state *state)
{
	struct vj_net *vn = priv;
	const struct iphdr *iph = ip_hdr(skb);
	struct vj_flow_key key;

	if (!rcu_access_pointer(vn->masks[0]))
		return NF_ACCEPT;
	if (ip_is_fragment(iph))
		return NF_ACCEPT;
	memset(&key, 0, sizeof(key));
	key.proto = iph->protocol;
	key.saddr[0] = iph->saddr;
	key.daddr[0] = iph->daddr;
	key.ifindex = state->in->ifindex;
	if (vj_parse_ports(skb, skb_network_offset(skb) + iph->ihl * 4, &key))
		return NF_ACCEPT;
	return hook_deliver(vn, skb, &key);
}

static unsigned int hook_ipv6(void *priv, struct sk_buff *skb,
			      const struct nf_hook_state *state)
{
	struct vj_net *vn = priv;
	const struct ipv6hdr *ip6 = ipv6_hdr(skb);
	struct vj_flow_key key;
	__be16 frag_off = 0;
	u8 nexthdr;
	int thoff;

	if (!rcu_access_pointer(vn->masks[1]))
		return NF_ACCEPT;
	nexthdr = ip6->nexthdr;
	thoff = ipv6_skip_exthdr(skb, skb_network_offset(skb) + sizeof(*ip6),
				 &nexthdr, &frag_off);
	if (thoff < 0 || frag_off)
		return NF_ACCEPT;
	memset(&key, 0, sizeof(key));
	key.family = 1;
	key.proto = nexthdr;
	memcpy(key.saddr, &ip6->saddr, sizeof(key.saddr));
	memcpy(key.daddr, &ip6->daddr, sizeof(key.daddr));
	key.ifindex = state->in->ifindex;
	if (vj_parse_ports(skb, thoff, &key))
		return NF_ACCEPT;
	return hook_deliver(vn, skb, &key);
}

int vj_hook_register(struct vj_net *vn)
{
	int err;

	lockdep_assert_held(&vn->lock);
	if (vn->hooks_registered)
		return 0;

	vn->hook_ops[0] = (struct nf_hook_ops) {
		.hook = hook_ipv4,
		.priv = vn,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_PRE_ROUTING,
		.priority = VJ_HOOK_PRIORITY,
	};
	vn->hook_ops[1] = (struct nf_hook_ops) {
		.hook = hook_ipv6,
		.priv = vn,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_PRE_ROUTING,
		.priority = VJ_HOOK6_PRIORITY,
	};
	err = nf_register_net_hooks(vn->net, vn->hook_ops,
				    ARRAY_SIZE(vn->hook_ops));
	if (!err)
		vn->hooks_registered = true;
	return err;
}

void vj_hook_unregister(struct vj_net *vn)
{
	if (vn->hooks_registered)
		nf_unregister_net_hooks(vn->net, vn->hook_ops,
					ARRAY_SIZE(vn->hook_ops));
	vn->hooks_registered = false;
}
