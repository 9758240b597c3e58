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
 * namespace goes, so bind/close cycles do not churn the hook list.  The
 * filtered path's LOCAL_IN hooks (firewall.c) are registered here with
 * them, in one call.
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
				 const struct vj_flow_key *key, int thoff)
{
	struct vj_chan *chan;

	/* Netfilter hooks run under rcu_read_lock(). */
	chan = vj_flow_lookup_fast(vn, key, skb->dev);
	if (!chan || !vj_deliver_skb(chan, skb, key, thoff,
				     NF_INET_PRE_ROUTING, 0))
		return NF_ACCEPT;
	return NF_STOLEN;
}

static unsigned int hook_in(void *priv, struct sk_buff *skb,
			    const struct nf_hook_state *state)
{
	struct vj_net *vn = priv;
	struct vj_flow_key key;
	int thoff;

	if (!rcu_access_pointer(vn->masks[state->pf == NFPROTO_IPV6]))
		return NF_ACCEPT;
	if (vj_parse_skb(skb, state->pf, state->in->ifindex, &key, &thoff))
		return NF_ACCEPT;
	return hook_deliver(vn, skb, &key, thoff);
}

static void hook_pair(struct nf_hook_ops *ops, struct vj_net *vn,
		      nf_hookfn *fn, unsigned int hooknum, int prio4, int prio6)
{
	ops[0] = (struct nf_hook_ops) {
		.hook = fn,
		.priv = vn,
		.pf = NFPROTO_IPV4,
		.hooknum = hooknum,
		.priority = prio4,
	};
	ops[1] = ops[0];
	ops[1].pf = NFPROTO_IPV6;
	ops[1].priority = prio6;
}

/*
 * Register the namespace's hooks: the pre-routing pair (this file) and the
 * filtered path's LOCAL_IN pair (firewall.c), together.
 */
int vj_hook_register(struct vj_net *vn)
{
	int err;

	lockdep_assert_held(&vn->lock);
	if (vn->hooks_registered)
		return 0;

	hook_pair(&vn->hook_ops[0], vn, hook_in, NF_INET_PRE_ROUTING,
		  VJ_HOOK_PRIORITY, VJ_HOOK6_PRIORITY);
	hook_pair(&vn->hook_ops[2], vn, vj_fw_local_in, NF_INET_LOCAL_IN,
		  VJ_FW_PRIORITY, VJ_FW6_PRIORITY);
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
