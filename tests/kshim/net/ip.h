/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: what kernel/parse.c takes from the kernel's <net/ip.h>. */
#ifndef _VJ_KSHIM_NET_IP_H
#define _VJ_KSHIM_NET_IP_H

#include <string.h>
#include <linux/ip.h>

#define IP_MF		0x2000
#define IP_OFFSET	0x1FFF

static inline bool ip_is_fragment(const struct iphdr *iph)
{
	return (iph->frag_off & htons(IP_MF | IP_OFFSET)) != 0;
}

/* The ones' complement sum of the @ihl 32-bit words at @p, folded: 0 if
 * the checksum field is right.
 */
static inline uint16_t ip_fast_csum(const void *p, unsigned int ihl)
{
	const uint8_t *b = p;
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < ihl * 4; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

#endif
