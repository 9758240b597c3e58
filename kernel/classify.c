// SPDX-License-Identifier: GPL-2.0
/*
 * The classifier: which channel, if any, a receive path may feed with a
 * packet.  Every receive path asks it, with one of two entries:
 *
 *   vj_classify_skb()    an skb at a netfilter hook (hook.c): the
 *                        pre-routing fast path and the filtered path at
 *                        NF_INET_LOCAL_IN;
 *   vj_classify_frame()  an Ethernet frame in memory, before any skb
 *                        exists: the driver API (driver.c), the XDP kfunc
 *                        (xdp.c) and direct receive (direct.c), each saying
 *                        how many of the frame's bytes may be read.
 *
 * Both parse the packet (parse.c, parse_skb.c), look its flow key up in the
 * flow table (flow.c) and apply the channel's firewall mode, fixed at bind
 * (VJ_BIND_FW_* in the uapi header):
 *
 *   filtered     only the filtered path feeds the channel, after the
 *                ruleset has accepted the packet;
 *   sanctioned   the fast paths also feed it, for the connections the
 *                ruleset marked (sanction.c), which the filtered path notes;
 *   bypass       the fast paths feed it.
 *
 * A fast path serves only traffic for this host (vj_dst_local(): what the
 * stack would deliver locally, without martians) unless the channel is a
 * transit one (VJ_BIND_F_TRANSIT).  A fast path never falls back to a less
 * specific channel: the winner of the match rule is the only channel that
 * may get the packet, on whichever path; a packet it may not take goes on
 * to the stack untouched, and reaches a filtered winner through the
 * firewall.
 *
 * The filtered path runs at NF_INET_LOCAL_IN at the last priority, after
 * the filter and security tables: a packet reaches it only if the ruleset
 * accepted it, with every counter, log and rate limit applied.  IPv4
 * packets arrive reassembled (ip_local_deliver() defragments before
 * LOCAL_IN); IPv6 fragments are reassembled before this hook only when
 * conntrack is active in the namespace (nf_defrag_ipv6 in pre-routing),
 * otherwise after it, so without conntrack they go to the stack.
 *
 * Conntrack confirms a new connection in its own LOCAL_IN hook, also at the
 * last priority; which of the two runs first depends on registration order.
 * A packet the filtered path steals would skip that confirmation, and the
 * connection would never become "established", so the classifier confirms
 * the entry itself, through the nf_ct_hook that nf_conntrack publishes (no
 * symbol dependency on nf_conntrack).  Confirmation can drop the packet
 * (a clash); the hook then returns that verdict, as nf_confirm() would.
 */

#include <linux/capability.h>
#include <linux/etherdevice.h>
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

#include "vj_classify.h"
#include "vj_flow.h"
#include "vj_net.h"
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

/*
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
static bool vj_dst_local(struct net *net, const struct vj_flow_key *key,
			 const struct net_device *dev)
{
	if (!key->family)
		return vj_dst_local4(net, key, dev);
	return vj_dst_local6(net, key, dev);
}

/*
 * vj_classify_fast - classify for a path that runs before the firewall
 * @vn: the namespace's channels
 * @key: the packet's flow key
 * @dev: the device it arrived on
 * @len: its length from the IP header on, as conntrack counts it
 *
 * Returns the channel that wins the match rule if it may take the packet on
 * a fast path (the member of its group for this flow), else NULL: the packet
 * then goes on to the stack untouched (and, if the winner is a filtered
 * channel, reaches it through the firewall).  A packet of a sanctioned
 * connection that is returned is counted in the connection's conntrack
 * entry, which does not see it.
 * Caller holds rcu_read_lock().
 */
static struct vj_flow_entry *vj_classify_fast(struct vj_net *vn,
					      const struct vj_flow_key *key,
					      const struct net_device *dev,
					      unsigned int len)
{
	struct vj_flow_entry *fe = vj_flow_lookup(vn, key);
	struct vj_sanction *s = NULL;

	if (!fe)
		return NULL;
	switch (fe->fw_mode) {
	case VJ_BIND_FW_BYPASS:
		break;
	case VJ_BIND_FW_SANCTIONED:
		s = vj_sanction_find(vn, fe, key);
		if (s)
			break;
		fallthrough;
	default:
		/* UDP delivers a filtered UDP channel's: nothing deferred. */
		if (vj_flow_on_filtered(fe))
			vj_count(VJ_CNT_FW_DEFERRED);
		return NULL;
	}
	if (!fe->transit && !vj_dst_local(vn->net, key, dev)) {
		vj_count(VJ_CNT_NOT_LOCAL);
		return NULL;
	}
	/* Too long for the channel's buffers: the stack delivers it whole. */
	if (fe->fast_max && len > fe->fast_max)
		return NULL;
	if (s)
		vj_sanction_use(s, len);
	/* A group: the member for this flow (the same on every fast path). */
	if (READ_ONCE(fe->grouped))
		fe = vj_flow_group_pick(vn, fe, key);
	return fe;
}

/* Confirm the packet's conntrack entry, as nf_confirm() would have. */
static unsigned int vj_classify_confirm(struct sk_buff *skb)
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

/*
 * The filtered path: any winner, once its conntrack entry is confirmed;
 * but a UDP channel socket's packets go on to UDP, which delivers them
 * (udp_holder.c), once a sanctioned one's connection is noted.
 */
static struct vj_flow_entry *vj_classify_filtered(struct vj_net *vn,
						  struct sk_buff *skb,
						  const struct vj_flow_key *key,
						  unsigned int *verdict)
{
	struct vj_flow_entry *fe = vj_flow_lookup(vn, key);

	if (!fe || !vj_flow_on_filtered(fe))
		return NULL;
	*verdict = vj_classify_confirm(skb);
	if (*verdict != NF_ACCEPT)
		return NULL;
	if (fe->fw_mode == VJ_BIND_FW_SANCTIONED)
		vj_sanction_note(vn, fe, key, skb);
	if (fe->udp_chan)
		return NULL;
	/* A raw group: the member its rule gives, as on the fast paths. */
	if (READ_ONCE(fe->grouped))
		fe = vj_flow_group_pick(vn, fe, key);
	return fe;
}

/**
 * vj_classify_skb - the channel an skb at a netfilter hook may feed
 * @vn: the namespace's channels
 * @skb: the packet, data at the network header
 * @state: the hook's state: NF_INET_PRE_ROUTING (a fast path) or
 *	NF_INET_LOCAL_IN (the filtered path), the family and the device
 * @key: filled in with the packet's flow key when a channel is returned
 * @thoff: the transport header's offset from skb->data, likewise
 * @verdict: NF_ACCEPT, or the verdict of a conntrack confirmation that
 *	dropped the packet (the filtered path; NULL is then returned)
 *
 * Return: the channel, or NULL: the packet goes on to the stack.
 * Context: a netfilter hook, under rcu_read_lock().
 */
struct vj_flow_entry *vj_classify_skb(struct vj_net *vn, struct sk_buff *skb,
				      const struct nf_hook_state *state,
				      struct vj_flow_key *key, int *thoff,
				      unsigned int *verdict)
{
	*verdict = NF_ACCEPT;
	/* No channel this path may feed (e.g. only UDP's): no parse. */
	if (state->hook == NF_INET_LOCAL_IN ? !READ_ONCE(vn->nfiltered) :
					      !READ_ONCE(vn->nfast))
		return NULL;
	if (!rcu_access_pointer(vn->masks[state->pf == NFPROTO_IPV6]))
		return NULL;
	/* At LOCAL_IN, IPv4 is reassembled; IPv6 only when conntrack is
	 * active.
	 */
	if (vj_parse_skb(skb, state->pf, state->in->ifindex, key, thoff))
		return NULL;
	if (state->hook == NF_INET_LOCAL_IN)
		return vj_classify_filtered(vn, skb, key, verdict);
	return vj_classify_fast(vn, key, skb->dev, skb->len);
}

/**
 * vj_classify_frame - the channel a frame in memory may feed
 * @dev: the device it arrived on
 * @frame: the frame, from its Ethernet header
 * @hlen: how many bytes at @frame may be read
 * @len: the frame's length (the rest is in fragments or not copied)
 * @proto: set to the frame's ethertype when a channel is returned
 *
 * For the fast paths that see frames before an skb exists.  A frame whose
 * headers lie beyond @hlen is counted in hdr_unreadable; one that is not
 * addressed to @dev's MAC address (promiscuous receive) is not a
 * channel's.
 *
 * Return: the channel, or NULL: the frame goes on to the stack.
 * Context: under rcu_read_lock().
 */
struct vj_flow_entry *vj_classify_frame(struct net_device *dev, const u8 *frame,
					unsigned int hlen, unsigned int len,
					__be16 *proto)
{
	const struct ethhdr *eth = (const struct ethhdr *)frame;
	struct vj_net *vn = vj_pernet(dev_net(dev));
	struct vj_flow_key key;

	/* No channel a fast path may feed: no parse. */
	if (!READ_ONCE(vn->nfast))
		return NULL;
	switch (vj_parse_frame(frame, hlen, len, &key, proto)) {
	case 0:
		break;
	case -ENODATA:
		vj_count(VJ_CNT_HDR_UNREADABLE);
		return NULL;
	default:
		return NULL;
	}
	/* Promiscuous receive: frames for other hosts are not ours. */
	if (!is_multicast_ether_addr(eth->h_dest) &&
	    !ether_addr_equal(eth->h_dest, dev->dev_addr))
		return NULL;
	key.ifindex = dev->ifindex;
	return vj_classify_fast(vn, &key, dev,
				vj_frame_ip_len(frame, *proto));
}
