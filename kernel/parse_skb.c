// SPDX-License-Identifier: GPL-2.0
/*
 * The flow key of a packet seen by a netfilter hook.  The IP layer has
 * validated the network header by then; everything behind it is read with
 * skb_header_pointer() and ipv6_skip_exthdr(), which copy what is not in
 * the linear part and never read past the packet.  A packet that cannot be
 * parsed is left to the normal stack, which will count and drop it.
 */

#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "vj_key.h"
#include "vj_parse.h"

/* Fill in the ports of @key from the transport header at @thoff. */
static int vj_parse_skb_ports(const struct sk_buff *skb, int thoff,
			      struct vj_flow_key *key)
{
	__be16 _ports[2];
	const __be16 *ports;

	if (!vj_proto_has_ports(key->proto))
		return 0;
	ports = skb_header_pointer(skb, thoff, sizeof(_ports), _ports);
	if (!ports)
		return -EINVAL;	/* Truncated transport header */
	key->sport = ports[0];
	key->dport = ports[1];
	return 0;
}

/* Does the IPv6 packet have a routing header with segments left? */
static bool vj_parse_skb_rthdr_left(const struct sk_buff *skb)
{
	struct ipv6_rt_hdr _rh;
	const struct ipv6_rt_hdr *rh;
	unsigned int off = 0;

	if (ipv6_find_hdr(skb, &off, NEXTHDR_ROUTING, NULL, NULL) < 0)
		return false;
	rh = skb_header_pointer(skb, off, sizeof(_rh), &_rh);
	return !rh || rh->segments_left;
}

/**
 * vj_parse_skb - the flow key of a packet seen by a netfilter hook
 * @skb: the packet; skb->data at its validated IP header
 * @pf: NFPROTO_IPV4 or NFPROTO_IPV6
 * @ifindex: the interface it arrived on
 * @key: filled in
 * @thoff: set to the offset of the transport header from skb->data
 *
 * Returns 0, or -EINVAL for a fragment or a packet whose headers cannot be
 * parsed: such packets are left to the stack.
 */
int vj_parse_skb(const struct sk_buff *skb, u8 pf, int ifindex,
		 struct vj_flow_key *key, int *thoff)
{
	memset(key, 0, sizeof(*key));
	key->ifindex = ifindex;
	if (pf == NFPROTO_IPV4) {
		const struct iphdr *iph = ip_hdr(skb);

		if (ip_is_fragment(iph))
			return -EINVAL;
		key->proto = iph->protocol;
		key->saddr[0] = iph->saddr;
		key->daddr[0] = iph->daddr;
		*thoff = skb_network_offset(skb) + iph->ihl * 4;
	} else {
		const struct ipv6hdr *ip6 = ipv6_hdr(skb);
		__be16 frag_off = 0;
		u8 nexthdr = ip6->nexthdr;

		*thoff = ipv6_skip_exthdr(skb, skb_network_offset(skb) +
					  sizeof(*ip6), &nexthdr, &frag_off);
		if (*thoff < 0 || frag_off)
			return -EINVAL;
		/* As parse.c: segments left, the stack routes it on. */
		if (nexthdr != ip6->nexthdr && vj_parse_skb_rthdr_left(skb))
			return -EINVAL;
		key->family = 1;
		key->proto = nexthdr;
		memcpy(key->saddr, &ip6->saddr, sizeof(key->saddr));
		memcpy(key->daddr, &ip6->daddr, sizeof(key->daddr));
	}
	return vj_parse_skb_ports(skb, *thoff, key);
}
