// SPDX-License-Identifier: GPL-2.0
/*
 * Firewall policy of channels, and the filtered receive path.
 *
 * The filtered path hooks NF_INET_LOCAL_IN for IPv4 and IPv6 at the last
 * priority, after the filter and security tables: a packet reaches it only
 * if the ruleset accepted it, with every counter, log and rate limit
 * applied.  IPv4 packets arrive reassembled (ip_local_deliver() defragments
 * before LOCAL_IN); IPv6 fragments are reassembled before this hook only
 * when conntrack is active in the namespace (nf_defrag_ipv6 in pre-routing),
 * otherwise after it, so without conntrack they go to the stack.
 *
 * Conntrack confirms a new connection in its own LOCAL_IN hook, also at the
 * last priority; which of the two runs first depends on registration order.
 * A packet the filtered path steals would skip that confirmation, and the
 * connection would never become "established", so the hook confirms the
 * entry itself, through the nf_ct_hook that nf_conntrack publishes (no
 * symbol dependency on nf_conntrack).  Confirmation can drop the packet
 * (a clash); the hook then returns that verdict, as nf_confirm() would.
 *
 * The fast paths classify with vj_flow_lookup_fast(): only bypass channels,
 * and sanctioned channels for the connections the ruleset marked
 * (sanction.c), are served before the firewall; transit traffic only with
 * VJ_BIND_F_TRANSIT.
 */

#include <linux/capability.h>
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/skbuff.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/route.h>
#include <net/sock.h>

#include "vj_deliver.h"
#include "vj_firewall.h"
#include "vj_flow.h"
#include "vj_parse.h"
#include "vj_sanction.h"
#include "vj_stats.h"

/**
 * vj_fw_bind_check - may @sk bind a channel with these sockaddr_vj flags?
 * @sk: the channel's socket
 * @flags: svj_flags as given to bind()
 *
 * Returns 0, -EINVAL for unknown bits or modes, -EOPNOTSUPP for a mode this
 * kernel does not implement, or -EPERM without CAP_NET_ADMIN over the
 * socket's network namespace (both the opener of the socket and the caller
 * must have it, as sk_net_capable() checks).
 */
int vj_fw_bind_check(struct sock *sk, u16 flags)
{
	int err = vj_fw_mode_check(flags);

	if (err)
		return err;
	if (!sk_net_capable(sk, CAP_NET_ADMIN))
		return -EPERM;
	return 0;
}

/**
 * vj_fw_mode_check - are these sockaddr_vj flags valid on this kernel?
 * @flags: svj_flags, or a UDP channel socket's VJ_BIND_FLAGS
 *
 * Returns 0, -EINVAL for unknown bits or modes (or VJ_BIND_F_TRANSIT
 * without bypass) or -EOPNOTSUPP for a mode this kernel does not implement.
 * No capability is checked.
 */
int vj_fw_mode_check(u16 flags)
{
	u16 mode = flags & VJ_BIND_FW_MASK;

	if (flags & ~(VJ_BIND_FW_MASK | VJ_BIND_F_TRANSIT | VJ_BIND_F_DIRECT))
		return -EINVAL;
	if (mode != VJ_BIND_FW_FILTERED && mode != VJ_BIND_FW_SANCTIONED &&
	    mode != VJ_BIND_FW_BYPASS)
		return -EINVAL;
	/* The filtered path sees only packets the stack delivers locally. */
	if ((flags & VJ_BIND_F_TRANSIT) && mode != VJ_BIND_FW_BYPASS)
		return -EINVAL;
	/* A direct channel's frames never pass the firewall. */
	if ((flags & VJ_BIND_F_DIRECT) && mode != VJ_BIND_FW_BYPASS)
		return -EINVAL;
	/* The ruleset sanctions through the conntrack mark. */
	if (mode == VJ_BIND_FW_SANCTIONED &&
	    !IS_ENABLED(CONFIG_NF_CONNTRACK_MARK))
		return -EOPNOTSUPP;
	return 0;
}

/*
 * Has @dev joined the IPv4 group @group?  What ip_check_mc_rcu() answers
 * for the receive path (it is not exported), but for the group alone: a
 * source filter (IGMPv3) of the group is not applied here.
 */
static bool vj_mc4_joined(const struct in_device *in_dev, __be32 group)
{
	const struct ip_mc_list *im;

	for (im = rcu_dereference(in_dev->mc_list); im;
	     im = rcu_dereference(im->next_rcu))
		if (im->multiaddr == group)
			return true;
	return false;
}

/* Has @dev joined the IPv6 group @group?  As vj_mc4_joined(). */
static bool vj_mc6_joined(const struct net_device *dev,
			  const struct in6_addr *group)
{
	const struct inet6_dev *idev = __in6_dev_get(dev);
	const struct ifmcaddr6 *mc;

	if (!idev)
		return false;
	for (mc = rcu_dereference(idev->mc_list); mc;
	     mc = rcu_dereference(mc->next))
		if (ipv6_addr_equal(&mc->mca_addr, group))
			return true;
	return false;
}

/*
 * IPv4: what ip_route_input_slow() and ip_route_input_rcu() accept for
 * local delivery from a device other than loopback: no multicast, limited
 * broadcast, zero-network or (without route_localnet) loopback address on
 * either side, but limited broadcast as destination; multicast only to a
 * group the device has joined.
 */
static bool vj_dst_local4(struct net *net, const struct vj_flow_key *key,
			  const struct net_device *dev)
{
	__be32 saddr = key->saddr[0], daddr = key->daddr[0];
	struct in_device *in_dev;

	/* What lo receives was routed on output: the stack takes it as is. */
	if (dev->flags & IFF_LOOPBACK)
		goto by_type;
	in_dev = __in_dev_get_rcu(dev);
	if (!in_dev)
		return false;
	if (ipv4_is_multicast(saddr) || ipv4_is_lbcast(saddr))
		return false;
	if (ipv4_is_lbcast(daddr) || (!saddr && !daddr))
		return true;
	if (ipv4_is_zeronet(saddr) || ipv4_is_zeronet(daddr))
		return false;
	if ((ipv4_is_loopback(daddr) || ipv4_is_loopback(saddr)) &&
	    !IN_DEV_NET_ROUTE_LOCALNET(in_dev, net))
		return false;
	if (ipv4_is_multicast(daddr))
		return vj_mc4_joined(in_dev, daddr);
by_type:
	switch (inet_addr_type_dev_table(net, dev, daddr)) {
	case RTN_LOCAL:
	case RTN_BROADCAST:
	case RTN_MULTICAST:
		return true;
	default:
		return false;
	}
}

/*
 * IPv6: what ip6_rcv_core() and the input route accept from a device other
 * than loopback: no loopback address on either side, no multicast source,
 * no multicast destination of scope 0 or interface-local scope; multicast
 * only to a group the device has joined; unicast to an address of this
 * host (a link-local one on @dev itself).
 */
static bool vj_dst_local6(struct net *net, const struct vj_flow_key *key,
			  const struct net_device *dev)
{
	const struct in6_addr *saddr = (const struct in6_addr *)key->saddr;
	const struct in6_addr *daddr = (const struct in6_addr *)key->daddr;
	bool lo = dev->flags & IFF_LOOPBACK;

	if (!lo && (ipv6_addr_loopback(saddr) || ipv6_addr_loopback(daddr)))
		return false;
	if (ipv6_addr_is_multicast(saddr))
		return false;
	if (ipv6_addr_is_multicast(daddr)) {
		if (IPV6_ADDR_MC_SCOPE(daddr) == 0)
			return false;
		if (lo)
			return true;
		return IPV6_ADDR_MC_SCOPE(daddr) != 1 &&
		       vj_mc6_joined(dev, daddr);
	}
	return ipv6_chk_addr(net, daddr,
			     ipv6_addr_type(daddr) & IPV6_ADDR_LINKLOCAL ?
			     dev : NULL, 0);
}

/**
 * vj_dst_local - is the packet addressed to this host?
 * @net: the namespace it arrived in
 * @key: its flow key (addresses and family)
 * @dev: the device it arrived on
 *
 * True for what the stack would deliver locally: local, broadcast and
 * joined multicast destinations, without the martians it drops (loopback,
 * zero-network and multicast sources, loopback destinations from the
 * wire); false for those and for what the stack would forward.  Used by
 * the fast paths, which run before routing.  Caller holds
 * rcu_read_lock().
 */
bool vj_dst_local(struct net *net, const struct vj_flow_key *key,
		  const struct net_device *dev)
{
	if (!key->family)
		return vj_dst_local4(net, key, dev);
	return vj_dst_local6(net, key, dev);
}

/**
 * vj_flow_lookup_fast - classify for a path that runs before the firewall
 * @vn: the namespace's channels
 * @key: the packet's flow key
 * @dev: the device it arrived on
 * @len: its length from the IP header on, as conntrack counts it
 *
 * Returns the channel that wins the match rule if it may take the packet
 * on a fast path, else NULL: the packet then goes on to the stack untouched
 * (and, if the winner is a filtered channel, reaches it through the
 * firewall).  A packet of a sanctioned connection that is returned is
 * counted in the connection's conntrack entry, which does not see it.
 * Caller holds rcu_read_lock().
 */
struct vj_chan *vj_flow_lookup_fast(struct vj_net *vn,
				    const struct vj_flow_key *key,
				    const struct net_device *dev,
				    unsigned int len)
{
	struct vj_chan *chan = vj_flow_lookup(vn, key);
	struct vj_sanction *s = NULL;

	if (!chan)
		return NULL;
	switch (chan->fw_mode) {
	case VJ_BIND_FW_BYPASS:
		break;
	case VJ_BIND_FW_SANCTIONED:
		s = vj_sanction_find(vn, chan, key);
		if (s)
			break;
		fallthrough;
	default:
		vj_count(VJ_CNT_FW_DEFERRED);
		return NULL;
	}
	if (!chan->transit && !vj_dst_local(vn->net, key, dev)) {
		vj_count(VJ_CNT_NOT_LOCAL);
		return NULL;
	}
	if (s)
		vj_sanction_use(s, len);
	return chan;
}

/* Confirm the packet's conntrack entry, as nf_confirm() would have. */
static unsigned int fw_confirm(struct sk_buff *skb)
{
	struct nf_conn *ct = (struct nf_conn *)skb_nfct(skb);
	const struct nf_ct_hook *ct_hook;

	if (!ct || nf_ct_is_template(ct) || nf_ct_is_confirmed(ct))
		return NF_ACCEPT;
	ct_hook = rcu_dereference(nf_ct_hook);
	if (!ct_hook || !ct_hook->confirm)
		return NF_ACCEPT;
	return ct_hook->confirm(skb);
}

static unsigned int fw_deliver(struct vj_net *vn, struct sk_buff *skb,
			       const struct vj_flow_key *key, int thoff)
{
	struct vj_chan *chan;
	unsigned int verdict;

	/* Netfilter hooks run under rcu_read_lock(). */
	chan = vj_flow_lookup(vn, key);
	if (!chan)
		return NF_ACCEPT;
	verdict = fw_confirm(skb);
	if (verdict != NF_ACCEPT)
		return verdict;
	if (chan->fw_mode == VJ_BIND_FW_SANCTIONED)
		vj_sanction_note(vn, chan, key, skb);
	if (!vj_deliver_skb(chan, skb, key, thoff, NF_INET_LOCAL_IN,
			    VJ_DESC_F_FILTERED))
		return NF_ACCEPT;
	return NF_STOLEN;
}

/* The filtered path's NF_INET_LOCAL_IN hook, registered by hook.c. */
unsigned int vj_fw_local_in(void *priv, struct sk_buff *skb,
			    const struct nf_hook_state *state)
{
	struct vj_net *vn = priv;
	struct vj_flow_key key;
	int thoff;

	if (!rcu_access_pointer(vn->masks[state->pf == NFPROTO_IPV6]))
		return NF_ACCEPT;
	/* IPv4 is reassembled by now; IPv6 only when conntrack is active. */
	if (vj_parse_skb(skb, state->pf, state->in->ifindex, &key, &thoff))
		return NF_ACCEPT;
	return fw_deliver(vn, skb, &key, thoff);
}
