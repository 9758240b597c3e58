/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared test library: parsing the packets a channel delivers.
 *
 * pkt_parse_at() reads the IP header at the descriptor's l3_off and the
 * transport header after any IPv6 extension headers (hop-by-hop, routing,
 * destination options, authentication, and a fragment header).  It fails
 * only for a packet no channel may receive (no IP header where l3_off
 * says); what it cannot read further, it says in l4_err and leaves the
 * ports unread.  pkt_parse() is the strict form the suite's cases use: it
 * fails for l4_err too.
 */
#ifndef _VJ_TL_PKT_H
#define _VJ_TL_PKT_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/vjchan.h>

#include "ring.h"

struct pkt_info {
	int family;
	uint8_t proto;			/* after the extension headers */
	uint8_t tcp_flags;
	bool frag;			/* a fragment (offset or more-fragments) */
	union vj_addr saddr;
	union vj_addr daddr;
	uint16_t sport;			/* host order */
	uint16_t dport;
	uint32_t udp_len;		/* payload length per the UDP header */
	const uint8_t *l3;
	const uint8_t *payload;
	uint32_t plen;			/* payload bytes present */
	/* What the fuzzer and the stress test check beyond the cases. */
	uint32_t avail;			/* bytes from l3 to the end of the packet */
	uint32_t ip_len;		/* length from l3 per the IP header */
	uint32_t ip_hlen;		/* IP and extension headers */
	const uint8_t *l4;		/* transport header */
	uint32_t l4len;			/* its bytes present, within ip_len */
	bool ports;			/* sport and dport were read */
	const char *l4_err;		/* why the transport header was not read */
};

bool proto_has_ports(uint8_t proto);
const char *pkt_parse_at(const struct vj_desc *d, const uint8_t *data,
			 struct pkt_info *pi);
const char *pkt_parse(const struct test_pkt *p, struct pkt_info *pi);
const char *pkt_check_csums(const struct pkt_info *pi, bool udp);

#endif /* _VJ_TL_PKT_H */
