/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared test library: hostile IP packets, for every parser of the
 * receive paths.  The fuzzer sends them over lo (the receive hooks), the
 * parser check feeds them to the kernel's frame parser built in user space
 * under AddressSanitizer (tests/parse_fuzz.c), and the crafted-frame cases
 * send them on the wire (tests/craft.py builds the same shapes).
 *
 * Shapes: IPv4 with options, fragments, truncated transport headers, UDP
 * lengths that disagree with the datagram; IPv6 with chains of extension
 * headers (options, routing, authentication, fragment), extension headers
 * that run past the packet, that end past 128 or 256 bytes (up to 1400
 * bytes of options), a payload length shorter or longer than the data;
 * odd protocols.
 */
#ifndef _VJ_TL_CRAFT_H
#define _VJ_TL_CRAFT_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* Room a packet may need: 40 + 1400 of extension headers + transport. */
#define CRAFT_MAX	2048

struct craft_addr {
	uint8_t saddr[16];	/* IPv4: the first 4 bytes */
	uint8_t daddr[16];
	uint16_t sport;		/* network order */
	uint16_t dport;
};

/*
 * Write a hostile IPv4 (v6 false) or IPv6 packet to @a's addresses and
 * ports at @pkt (CRAFT_MAX bytes); describe it in @desc.  Returns its
 * length: the bytes written, whatever its headers claim.
 */
uint32_t craft_ip(struct rng *r, uint8_t *pkt, int v6,
		  const struct craft_addr *a, char *desc, size_t dn);

#endif /* _VJ_TL_CRAFT_H */
