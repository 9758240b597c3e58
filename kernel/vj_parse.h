/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Header parsing shared by the receive paths: from an skb (netfilter hooks,
 * parse_skb.c) and from a frame in memory (driver API, XDP, direct
 * receive, parse.c), which is given how many of its bytes may be read.
 */
#ifndef _VJ_PARSE_H
#define _VJ_PARSE_H

#include <linux/types.h>

struct sk_buff;
struct vj_flow_key;

bool vj_proto_has_ports(u8 proto);
int vj_parse_skb(const struct sk_buff *skb, u8 pf, int ifindex,
		 struct vj_flow_key *key, int *thoff);
int vj_parse_frame(const u8 *frame, unsigned int hlen, unsigned int len,
		   struct vj_flow_key *key, __be16 *proto);
int vj_parse_ipv6_exthdrs(const u8 *p, unsigned int hlen, unsigned int limit,
			  unsigned int off, u8 *nexthdr);
unsigned int vj_frame_ip_len(const u8 *frame, __be16 proto);

#endif /* _VJ_PARSE_H */
