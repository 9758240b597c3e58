/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flow key: what the classifier matches a packet against.  Apart from
 * vj_flow.h so that the frame parser (parse.c), which fills it in, needs
 * nothing but this and the protocol headers.
 */
#ifndef _VJ_KEY_H
#define _VJ_KEY_H

#include <linux/types.h>

/* A packet's flow, or a channel's with unspecified fields zero. */
struct vj_flow_key {
	u32	ifindex;
	__be16	sport;
	__be16	dport;
	u8	proto;
	u8	family;		/* 0: IPv4, 1: IPv6 */
	u16	pad;
	__be32	saddr[4];
	__be32	daddr[4];
};

#endif /* _VJ_KEY_H */
