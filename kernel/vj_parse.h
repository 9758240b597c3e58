/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Header parsing shared by the receive paths: from an skb (receive hook)
 * and from a raw Ethernet frame in a global buffer (driver API).
 */
#ifndef _VJ_PARSE_H
#define _VJ_PARSE_H

#include <linux/types.h>

struct sk_buff;
struct vj_flow_key;

int vj_parse_ports(const struct sk_buff *skb, int thoff,
		   struct vj_flow_key *key);
int vj_parse_skb(const struct sk_buff *skb, u8 pf, int ifindex,
		 struct vj_flow_key *key, int *thoff);
int vj_parse_frame(const u8 *frame, unsigned int len, struct vj_flow_key *key,
		   __be16 *proto);
unsigned int vj_frame_ip_len(const u8 *frame, __be16 proto);

#endif /* _VJ_PARSE_H */
