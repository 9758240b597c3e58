// SPDX-License-Identifier: GPL-2.0
/*
 * Packet parsing for classification.  Nothing here trusts the packet: every
 * length is checked against what is really there, and a packet that cannot
 * be parsed is left to the normal stack, which will count and drop it.
 */

#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "vj_flow.h"
#include "vj_parse.h"

static bool proto_has_ports(u8 proto)
{
	switch (proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
		return true;
	default:
		return false;
	}
}

/* Fill in the ports of @key from the transport header at @thoff. */
int vj_parse_ports(const struct sk_buff *skb, int thoff,
		   struct vj_flow_key *key)
{
	__be16 _ports[2];
	const __be16 *ports;

	if (!proto_has_ports(key->proto))
		return 0;
	ports = skb_header_pointer(skb, thoff, sizeof(_ports), _ports);
	if (!ports)
		return -EINVAL;	/* Truncated transport header */
	key->sport = ports[0];
	key->dport = ports[1];
	return 0;
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
		key->family = 1;
		key->proto = nexthdr;
		memcpy(key->saddr, &ip6->saddr, sizeof(key->saddr));
		memcpy(key->daddr, &ip6->daddr, sizeof(key->daddr));
	}
	return vj_parse_ports(skb, *thoff, key);
}

static int parse_ipv4(const u8 *p, unsigned int len, struct vj_flow_key *key)
{
	const struct iphdr *iph = (const struct iphdr *)p;
	unsigned int ihl, tot;

	if (len < sizeof(*iph) || iph->version != 4)
		return -EINVAL;
	ihl = iph->ihl * 4;
	tot = ntohs(iph->tot_len);
	if (ihl < sizeof(*iph) || tot < ihl || tot > len)
		return -EINVAL;	/* Bogus IP header */
	if (ip_fast_csum(iph, iph->ihl))
		return -EINVAL;	/* Bad header checksum: the stack counts it */
	if (ip_is_fragment(iph))
		return -EINVAL;	/* Fragments go to the stack */
	key->family = 0;
	key->proto = iph->protocol;
	key->saddr[0] = iph->saddr;
	key->daddr[0] = iph->daddr;
	if (proto_has_ports(key->proto)) {
		if (tot - ihl < 4)
			return -EINVAL;
		memcpy(&key->sport, p + ihl, 2);
		memcpy(&key->dport, p + ihl + 2, 2);
	}
	return 0;
}

/*
 * Skip the IPv6 extension headers starting at @off (@nexthdr is the first
 * one's type) as ipv6_skip_exthdr() does for the receive hooks, so that both
 * paths find the same transport header: hop-by-hop, routing, destination
 * options and AH are skipped (AH's length counts 4-byte words beyond the
 * first two, the others' 8-byte words beyond the first); a fragment header
 * is skipped only if its offset and flags are all zero (any other fragment
 * goes to the stack, as the hooks leave it); "no next header" ends the
 * parse.  Each header is at least 8 bytes and must lie within @limit, which
 * bounds the walk.  Returns the offset of the transport header, with its
 * type in @nexthdr, or -EINVAL.
 */
static int skip_ipv6_exthdrs(const u8 *p, unsigned int off, unsigned int limit,
			     u8 *nexthdr)
{
	while (ipv6_ext_hdr(*nexthdr)) {
		const struct ipv6_opt_hdr *h;
		unsigned int hlen;

		if (*nexthdr == NEXTHDR_NONE || limit - off < sizeof(*h) + 6)
			return -EINVAL;
		h = (const struct ipv6_opt_hdr *)(p + off);
		switch (*nexthdr) {
		case NEXTHDR_FRAGMENT: {
			const struct frag_hdr *fh = (const struct frag_hdr *)h;

			if (fh->frag_off)
				return -EINVAL;
			hlen = sizeof(*fh);
			break;
		}
		case NEXTHDR_AUTH:
			hlen = ipv6_authlen(h);
			break;
		default:
			hlen = ipv6_optlen(h);
			break;
		}
		if (hlen > limit - off)
			return -EINVAL;
		*nexthdr = h->nexthdr;
		off += hlen;
	}
	return off;
}

/* An IPv6 packet, its extension headers skipped as the hooks skip them. */
static int parse_ipv6(const u8 *p, unsigned int len, struct vj_flow_key *key)
{
	const struct ipv6hdr *ip6 = (const struct ipv6hdr *)p;
	unsigned int plen, limit;
	u8 nexthdr;
	int thoff;

	if (len < sizeof(*ip6) || ip6->version != 6)
		return -EINVAL;
	plen = ntohs(ip6->payload_len);
	if (plen > len - sizeof(*ip6))
		return -EINVAL;
	limit = sizeof(*ip6) + plen;
	nexthdr = ip6->nexthdr;
	thoff = skip_ipv6_exthdrs(p, sizeof(*ip6), limit, &nexthdr);
	if (thoff < 0)
		return -EINVAL;
	key->family = 1;
	key->proto = nexthdr;
	memcpy(key->saddr, &ip6->saddr, sizeof(key->saddr));
	memcpy(key->daddr, &ip6->daddr, sizeof(key->daddr));
	if (proto_has_ports(key->proto)) {
		if (limit - thoff < 4)
			return -EINVAL;
		memcpy(&key->sport, p + thoff, 2);
		memcpy(&key->dport, p + thoff + 2, 2);
	}
	return 0;
}

/*
 * Classify an Ethernet frame.  Returns 0 with @key (but its ifindex) and
 * @proto filled in, or -EINVAL for a frame no channel can claim.  The network
 * header is at ETH_HLEN: VLAN-tagged frames go to the stack.
 */
int vj_parse_frame(const u8 *frame, unsigned int len, struct vj_flow_key *key,
		   __be16 *proto)
{
	const struct ethhdr *eth = (const struct ethhdr *)frame;

	if (len < ETH_HLEN)
		return -EINVAL;
	memset(key, 0, sizeof(*key));
	*proto = eth->h_proto;
	switch (eth->h_proto) {
	case htons(ETH_P_IP):
		return parse_ipv4(frame + ETH_HLEN, len - ETH_HLEN, key);
	case htons(ETH_P_IPV6):
		return parse_ipv6(frame + ETH_HLEN, len - ETH_HLEN, key);
	default:
		return -EINVAL;
	}
}
