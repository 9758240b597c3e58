// SPDX-License-Identifier: GPL-2.0
/*
 * The frame parser: the flow key of an Ethernet frame in memory, for the
 * receive paths that see frames before an skb exists (driver API, XDP,
 * direct receive), and the IPv6 extension-header walk that UDP channel
 * sockets repeat on the copy they check.
 *
 * Nothing here trusts the frame.  Every call is given two lengths:
 *
 *   hlen  the bytes at the frame's first byte that this parser may read:
 *         what the caller can see (a private copy of the headers, the
 *         linear part of an XDP buffer, a whole global buffer);
 *   len   the frame's length, which may be larger: the rest is in
 *         fragments, or in a buffer the caller did not copy.
 *
 * A header is read only once it is known to lie within hlen.  A frame
 * whose headers run past len is malformed (-EINVAL); one whose headers lie
 * within len but not within hlen cannot be classified here (-ENODATA):
 * the caller counts it (hdr_unreadable) and leaves it to the stack, which
 * parses it with skb_header_pointer().  A frame that cannot be parsed is
 * left to the stack, which counts and drops it.
 *
 * This file includes nothing but protocol headers, so that the same source
 * is built in user space under AddressSanitizer (tests/parse_fuzz.c) with
 * every input placed at the end of an allocation of exactly hlen bytes.
 */

#include <linux/errno.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/string.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "vj_key.h"
#include "vj_parse.h"

/* Does @proto's header start with a source and a destination port? */
bool vj_proto_has_ports(u8 proto)
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

/*
 * May @n bytes at @off be read?  0 if they lie within both the packet
 * (@limit) and the readable bytes (@hlen); -EINVAL if they run past the
 * packet; -ENODATA if they are in the packet but beyond what is readable.
 */
static int vj_parse_need(unsigned int off, unsigned int n, unsigned int hlen,
			 unsigned int limit)
{
	if (off > limit || n > limit - off)
		return -EINVAL;
	if (off > hlen || n > hlen - off)
		return -ENODATA;
	return 0;
}

/* The ports of @key's transport header at @thoff, if it has ports. */
static int vj_parse_l4_ports(const u8 *p, unsigned int hlen,
			     unsigned int limit, unsigned int thoff,
			     struct vj_flow_key *key)
{
	int err;

	if (!vj_proto_has_ports(key->proto))
		return 0;
	err = vj_parse_need(thoff, 4, hlen, limit);
	if (err)
		return err;
	memcpy(&key->sport, p + thoff, 2);
	memcpy(&key->dport, p + thoff + 2, 2);
	return 0;
}

/* An IPv4 packet of @len bytes at @p, @hlen of them readable. */
static int vj_parse_ipv4(const u8 *p, unsigned int hlen, unsigned int len,
			 struct vj_flow_key *key)
{
	const struct iphdr *iph = (const struct iphdr *)p;
	unsigned int ihl, tot;
	int err;

	err = vj_parse_need(0, sizeof(*iph), hlen, len);
	if (err)
		return err;
	if (iph->version != 4)
		return -EINVAL;
	ihl = iph->ihl * 4;
	tot = ntohs(iph->tot_len);
	if (ihl < sizeof(*iph) || tot < ihl || tot > len)
		return -EINVAL;	/* Bogus IP header */
	err = vj_parse_need(0, ihl, hlen, tot);	/* the options, for the sum */
	if (err)
		return err;
	if (ip_fast_csum(iph, iph->ihl))
		return -EINVAL;	/* Bad header checksum: the stack counts it */
	if (ip_is_fragment(iph))
		return -EINVAL;	/* Fragments go to the stack */
	key->family = 0;
	key->proto = iph->protocol;
	key->saddr[0] = iph->saddr;
	key->daddr[0] = iph->daddr;
	return vj_parse_l4_ports(p, hlen, tot, ihl, key);
}

/**
 * vj_parse_ipv6_exthdrs - skip IPv6 extension headers
 * @p: the IPv6 packet's first byte
 * @hlen: bytes at @p that may be read
 * @limit: the packet's end (its fixed header plus payload length)
 * @off: the first extension header's offset
 * @nexthdr: its type; on success, the transport header's type
 *
 * Skips what ipv6_skip_exthdr() skips for the receive hooks, so that every
 * path finds the same transport header: hop-by-hop, routing, destination
 * options and AH (AH's length counts 4-byte words beyond the first two,
 * the others' 8-byte words beyond the first); a fragment header only if
 * its offset and flags are all zero (any other fragment goes to the stack,
 * as the hooks leave it); a routing header only if no segments are left
 * (else the stack routes the packet on); "no next header" ends the parse.  Each header is
 * at least 8 bytes and must lie within @limit, which bounds the walk; only
 * a header's first 8 bytes are read, and only once they are known to lie
 * within @hlen.
 *
 * Return: the transport header's offset; -EINVAL for a chain that runs
 * past @limit, ends in a fragment or "no next header", or holds a routing
 * header with segments left; -ENODATA for one
 * that continues beyond @hlen.
 */
int vj_parse_ipv6_exthdrs(const u8 *p, unsigned int hlen, unsigned int limit,
			  unsigned int off, u8 *nexthdr)
{
	while (ipv6_ext_hdr(*nexthdr)) {
		const struct ipv6_opt_hdr *h;
		unsigned int elen;
		int err;

		if (*nexthdr == NEXTHDR_NONE)
			return -EINVAL;
		err = vj_parse_need(off, 8, hlen, limit);
		if (err)
			return err;
		h = (const struct ipv6_opt_hdr *)(p + off);
		switch (*nexthdr) {
		case NEXTHDR_FRAGMENT: {
			const struct frag_hdr *fh = (const struct frag_hdr *)h;

			if (fh->frag_off)
				return -EINVAL;
			elen = sizeof(*fh);
			break;
		}
		case NEXTHDR_AUTH:
			elen = ipv6_authlen(h);
			break;
		case NEXTHDR_ROUTING:
			/* Segments left: this host is not the destination yet. */
			if (((const struct ipv6_rt_hdr *)h)->segments_left)
				return -EINVAL;
			elen = ipv6_optlen(h);
			break;
		default:
			elen = ipv6_optlen(h);
			break;
		}
		if (elen > limit - off)
			return -EINVAL;
		*nexthdr = h->nexthdr;
		off += elen;
	}
	return off;
}

/* An IPv6 packet of @len bytes at @p, @hlen of them readable. */
static int vj_parse_ipv6(const u8 *p, unsigned int hlen, unsigned int len,
			 struct vj_flow_key *key)
{
	const struct ipv6hdr *ip6 = (const struct ipv6hdr *)p;
	unsigned int plen, limit;
	u8 nexthdr;
	int thoff, err;

	err = vj_parse_need(0, sizeof(*ip6), hlen, len);
	if (err)
		return err;
	if (ip6->version != 6)
		return -EINVAL;
	plen = ntohs(ip6->payload_len);
	if (plen > len - sizeof(*ip6))
		return -EINVAL;
	limit = sizeof(*ip6) + plen;
	nexthdr = ip6->nexthdr;
	thoff = vj_parse_ipv6_exthdrs(p, hlen, limit, sizeof(*ip6), &nexthdr);
	if (thoff < 0)
		return thoff;
	key->family = 1;
	key->proto = nexthdr;
	memcpy(key->saddr, &ip6->saddr, sizeof(key->saddr));
	memcpy(key->daddr, &ip6->daddr, sizeof(key->daddr));
	return vj_parse_l4_ports(p, hlen, limit, thoff, key);
}

/**
 * vj_parse_frame - the flow key of an Ethernet frame
 * @frame: its first byte
 * @hlen: bytes at @frame that may be read (more than @len are not)
 * @len: the frame's length
 * @key: filled in, but its ifindex
 * @proto: the link-layer protocol
 *
 * The network header is at ETH_HLEN: VLAN-tagged frames go to the stack.
 *
 * Return: 0; -EINVAL for a frame no channel can claim (not IP, malformed,
 * a fragment); -ENODATA for one whose headers lie beyond @hlen.  On 0 the
 * IP header is within @hlen (vj_frame_ip_len() may read it).
 */
int vj_parse_frame(const u8 *frame, unsigned int hlen, unsigned int len,
		   struct vj_flow_key *key, __be16 *proto)
{
	const struct ethhdr *eth = (const struct ethhdr *)frame;
	int err;

	if (hlen > len)
		hlen = len;
	err = vj_parse_need(0, ETH_HLEN, hlen, len);
	if (err)
		return err;
	memset(key, 0, sizeof(*key));
	*proto = eth->h_proto;
	switch (eth->h_proto) {
	case htons(ETH_P_IP):
		return vj_parse_ipv4(frame + ETH_HLEN, hlen - ETH_HLEN,
				     len - ETH_HLEN, key);
	case htons(ETH_P_IPV6):
		return vj_parse_ipv6(frame + ETH_HLEN, hlen - ETH_HLEN,
				     len - ETH_HLEN, key);
	default:
		return -EINVAL;
	}
}

/**
 * vj_frame_ip_len - the length of a frame's IP packet
 * @frame: an Ethernet frame that vj_parse_frame() accepted
 * @proto: the protocol it returned
 *
 * Returns the length from the IP header on, as the header gives it (the
 * IPv4 total length; the IPv6 payload length plus the fixed header):
 * without the link header and any padding behind the packet, so what the
 * stack's skb->len is at the network layer.  vj_parse_frame() checked that
 * this many bytes are in the frame, and that the IP header is readable.
 */
unsigned int vj_frame_ip_len(const u8 *frame, __be16 proto)
{
	const u8 *p = frame + ETH_HLEN;

	if (proto == htons(ETH_P_IP))
		return ntohs(((const struct iphdr *)p)->tot_len);
	return sizeof(struct ipv6hdr) +
	       ntohs(((const struct ipv6hdr *)p)->payload_len);
}
