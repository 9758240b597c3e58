/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: what kernel/parse.c takes from the kernel's <net/ipv6.h>. */
#ifndef _VJ_KSHIM_NET_IPV6_H
#define _VJ_KSHIM_NET_IPV6_H

#include <linux/ipv6.h>

#define NEXTHDR_HOP		0
#define NEXTHDR_ROUTING		43
#define NEXTHDR_FRAGMENT	44
#define NEXTHDR_AUTH		51
#define NEXTHDR_NONE		59
#define NEXTHDR_DEST		60

struct __attribute__((packed)) frag_hdr {
	__u8	nexthdr;
	__u8	reserved;
	__be16	frag_off;
	__be32	identification;
};

#define ipv6_optlen(p)	(((p)->hdrlen + 1) << 3)
#define ipv6_authlen(p)	(((p)->hdrlen + 2) << 2)

static inline bool ipv6_ext_hdr(u8 nexthdr)
{
	return nexthdr == NEXTHDR_HOP || nexthdr == NEXTHDR_ROUTING ||
	       nexthdr == NEXTHDR_FRAGMENT || nexthdr == NEXTHDR_AUTH ||
	       nexthdr == NEXTHDR_NONE || nexthdr == NEXTHDR_DEST;
}

#endif
