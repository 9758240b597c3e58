// SPDX-License-Identifier: GPL-2.0
/*
 * The netfilter entry points: packets from any network device, as skbs.
 *
 *   pre-routing  (NF_INET_PRE_ROUTING, priority VJ_HOOK_PRIORITY) a fast
 *                path for unmodified drivers (virtio_net, veth, e1000, lo,
 *                ...): after the IP layer has validated the header (so
 *                lengths can be trusted) and before defragmentation and
 *                conntrack (so a claimed packet costs no conntrack entry);
 *   LOCAL_IN     (NF_INET_LOCAL_IN, at the last priority) the filtered
 *                path: after the ruleset has accepted the packet.
 *
 * Both ask the classifier (classify.c) which channel the packet may feed;
 * such a packet is copied once into the channel's ring (deliver.c) and
 * consumed; any other packet is returned untouched with NF_ACCEPT.  A
 * netfilter hook coexists with every other user of the device (bridges,
 * bonding, macvlan hold the one rx_handler slot) and is per namespace.  See
 * docs/DESIGN.md for the alternatives.
 *
 * The four hooks (both families) are registered together on the first
 * bind in a namespace and stay until the namespace goes, so bind/close
 * cycles do not churn the hook list.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "vj_classify.h"
#include "vj_deliver.h"
#include "vj_flow.h"
#include "vj_net.h"
#include "vj_hook.h"

#define VJ_HOOK_PRIORITY	(NF_IP_PRI_CONNTRACK_DEFRAG - 10)
#define VJ_HOOK6_PRIORITY	(NF_IP6_PRI_CONNTRACK_DEFRAG - 10)

static unsigned int vj_hook_in(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state)
{
	struct vj_net *vn = priv;
	struct vj_flow_key key;
	struct vj_flow_entry *fe;
	unsigned int verdict;
	int thoff;

	fe = vj_classify_skb(vn, skb, state, &key, &thoff, &verdict);
	if (!fe)
		return verdict;
	if (!vj_deliver_skb(fe, skb, &key, thoff, state->hook,
			    state->hook == NF_INET_LOCAL_IN ?
			    VJ_DESC_F_FILTERED : 0))
		return NF_ACCEPT;
	return NF_STOLEN;
}

static void vj_hook_pair(struct nf_hook_ops *ops, struct vj_net *vn,
			 unsigned int hooknum, int prio4, int prio6)
{
	ops[0] = (struct nf_hook_ops) {
		.hook = vj_hook_in,
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
 * Register the namespace's hooks, the pre-routing and LOCAL_IN pairs, if
 * they are not yet: before its first channel is bound.
 */
int vj_hook_register(struct vj_net *vn)
{
	int err = 0;

	mutex_lock(&vn->lock);
	if (vn->hooks_registered)
		goto out_unlock;

	vj_hook_pair(&vn->hook_ops[0], vn, NF_INET_PRE_ROUTING,
		     VJ_HOOK_PRIORITY, VJ_HOOK6_PRIORITY);
	vj_hook_pair(&vn->hook_ops[2], vn, NF_INET_LOCAL_IN,
		     VJ_FW_PRIORITY, VJ_FW6_PRIORITY);
	err = nf_register_net_hooks(vn->net, vn->hook_ops,
				    ARRAY_SIZE(vn->hook_ops));
	if (!err)
		vn->hooks_registered = true;
out_unlock:
	mutex_unlock(&vn->lock);
	return err;
}

/* The namespace is going: called with vn->lock held. */
void vj_hook_unregister(struct vj_net *vn)
{
	lockdep_assert_held(&vn->lock);
	if (vn->hooks_registered)
		nf_unregister_net_hooks(vn->net, vn->hook_ops,
					ARRAY_SIZE(vn->hook_ops));
	vn->hooks_registered = false;
}
