// SPDX-License-Identifier: GPL-2.0
/* Shared test library: hostile IP packets (craft.h). */
#include <stdio.h>
#include <string.h>

#include "craft.h"
#include "csum.h"
#include "pattern.h"

static uint32_t craft_seq;

/* The transport header's ports and, for 8 bytes or more, length and data. */
static void craft_l4(uint8_t *l4, const struct craft_addr *a, uint32_t l4len)
{
	memcpy(l4, &a->sport, 2);
	memcpy(l4 + 2, &a->dport, 2);
	if (l4len >= 8) {
		l4[4] = l4len >> 8;
		l4[5] = l4len & 0xff;
		payload_fill(l4 + 8, l4len - 8, craft_seq++);
	}
}

/*
 * A UDP length that disagrees with the datagram: below the header, cut
 * short, or beyond the packet.  Channels classify by ports alone.
 */
static void craft_bad_udp_len(struct rng *r, uint8_t *l4, uint32_t l4len)
{
	static const uint16_t fixed[] = { 0, 1, 7, 0xffff };
	uint32_t ulen;

	switch (below(r, 3)) {
	case 0:
		ulen = PICK(r, fixed);
		break;
	case 1:
		ulen = 8 + below(r, l4len - 8 + 1);	/* shorter */
		break;
	default:
		ulen = l4len + 1 + below(r, 300);	/* longer */
		break;
	}
	l4[4] = ulen >> 8;
	l4[5] = ulen & 0xff;
}

/*
 * An IPv6 extension header at h whose next header is nh, @words 8-byte
 * words long (AH: 12 bytes for 1 word, else its length field is set for
 * @words * 8 bytes); with @overrun, its length field claims 1608 bytes.
 * Options are PadN.  Returns the bytes it takes.
 */
static uint32_t craft_ext6(uint8_t *h, uint8_t type, uint8_t nh,
			   uint32_t words, int overrun)
{
	uint32_t len = words * 8;

	memset(h, 0, len);
	h[0] = nh;
	switch (type) {
	case 51:			/* authentication: (len + 2) * 4 */
		if (words == 1)
			len = 12;
		h[1] = overrun ? 200 : len / 4 - 2;
		return len;
	case 43:			/* routing, segments left 0 */
		h[1] = overrun ? 200 : words - 1;
		h[2] = 253;		/* experimental type */
		return len;
	default:			/* options (0, 60): PadN */
		h[1] = overrun ? 200 : words - 1;
		h[2] = 1;
		h[3] = len - 4;
		return len;
	}
}

static uint32_t craft_v4(struct rng *r, uint8_t *pkt,
			 const struct craft_addr *a, uint8_t proto,
			 uint32_t l4len, char *desc, size_t dn)
{
	uint32_t ihl = chance(r, 75) ? 5 : 6 + below(r, 10), i;
	uint8_t *ip = pkt, *l4 = pkt + ihl * 4;
	uint16_t frag = 0, sum;

	if (chance(r, 10))
		frag = 0x2000;			/* MF */
	else if (chance(r, 10))
		frag = 1 + below(r, 0x1fff);	/* offset */
	else if (chance(r, 20))
		frag = 0x4000;			/* DF */
	memset(ip, 0, ihl * 4);
	ip[0] = 0x40 | ihl;
	ip[2] = (ihl * 4 + l4len) >> 8;
	ip[3] = (ihl * 4 + l4len) & 0xff;
	ip[6] = frag >> 8;
	ip[7] = frag & 0xff;
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, a->saddr, 4);
	memcpy(ip + 16, a->daddr, 4);
	for (i = 20; i < ihl * 4; i++)
		ip[i] = chance(r, 80) ? 1 : (uint8_t)rnd64(r);	/* NOP */
	craft_l4(l4, a, l4len);
	if (proto == 17 && l4len >= 8 && chance(r, 15))
		craft_bad_udp_len(r, l4, l4len);
	/* The header checksum, wrong now and then (raw sockets redo it). */
	sum = csum_fold(csum_partial(0, ip, ihl * 4));
	if (chance(r, 5))
		sum ^= 1;
	memcpy(ip + 10, &sum, 2);
	snprintf(desc, dn, "raw4(ihl %u frag %#x proto %u l4 %u ulen %u)",
		 ihl, frag, proto, l4len,
		 l4len >= 8 ? l4[4] << 8 | l4[5] : 0);
	return ihl * 4 + l4len;
}

static uint32_t craft_v6(struct rng *r, uint8_t *pkt,
			 const struct craft_addr *a, uint8_t proto,
			 uint32_t l4len, char *desc, size_t dn)
{
	static const uint8_t kinds[] = { 0, 43, 51, 60 };
	uint8_t *ip = pkt, *h = pkt + 40, *l4;
	uint32_t ext = below(r, 11), plen, cut = 0, more = 0, words, n, i;
	uint16_t fo = 0;

	memset(ip, 0, 40);
	ip[0] = 0x60;
	ip[7] = 64;
	memcpy(ip + 8, a->saddr, 16);
	memcpy(ip + 24, a->daddr, 16);
	l4 = h;
	switch (ext) {
	case 1:				/* destination options */
		ip[6] = 60;
		l4 += craft_ext6(h, 60, proto, 1, 0);
		break;
	case 2:				/* fragment header */
		fo = PICK(r, ((const uint16_t[]){ 0, 1, 8, 9, 0x100 }));
		ip[6] = 44;
		memset(h, 0, 8);
		h[0] = proto;
		h[2] = fo >> 8;
		h[3] = fo & 0xff;
		h[7] = 1;
		l4 += 8;
		break;
	case 4:				/* hop-by-hop, routing, dest */
		ip[6] = 0;
		l4 += craft_ext6(l4, 0, 43, 1, 0);
		l4 += craft_ext6(l4, 43, 60, 1, 0);
		l4 += craft_ext6(l4, 60, proto, 1, 0);
		break;
	case 5:				/* authentication */
		ip[6] = 51;
		l4 += craft_ext6(h, 51, proto, 1, 0);
		break;
	case 6:				/* runs past the packet */
		ip[6] = PICK(r, kinds);
		l4 += craft_ext6(h, ip[6], proto, 1, 1);
		break;
	case 8:				/* one long one: ends past 128 B */
		ip[6] = PICK(r, ((const uint8_t[]){ 0, 43, 60 }));
		words = chance(r, 50) ? 10 + below(r, 30) : 40 + below(r, 136);
		l4 += craft_ext6(h, ip[6], proto, words, 0);
		break;
	case 9: {			/* a chain of long ones */
		uint8_t types[6];

		n = 2 + below(r, 5);
		types[0] = 0;		/* hop-by-hop comes first only */
		for (i = 1; i < n; i++)
			types[i] = PICK(r, ((const uint8_t[]){ 43, 51, 60 }));
		ip[6] = 0;
		for (i = 0; i < n; i++)
			l4 += craft_ext6(l4, types[i],
					 i + 1 < n ? types[i + 1] : proto,
					 1 + below(r, 24), 0);
		break;
	}
	default:			/* none; 7: data past plen */
		ip[6] = proto;
		break;
	}
	craft_l4(l4, a, l4len);
	if (proto == 17 && l4len >= 8 && chance(r, 15))
		craft_bad_udp_len(r, l4, l4len);
	plen = (l4 - h) + l4len;
	if (ext == 7 && plen)
		cut = 1 + below(r, plen < 16 ? plen : 16);
	if (ext == 10)			/* claims more than there is */
		more = 1 + below(r, 2000);
	ip[4] = (plen - cut + more) >> 8;
	ip[5] = (plen - cut + more) & 0xff;
	snprintf(desc, dn, "raw6(ext %u frag %#x proto %u l4 %u hdrs %u cut %u more %u)",
		 ext, fo, proto, l4len, (uint32_t)(l4 - h), cut, more);
	return 40 + plen;
}

uint32_t craft_ip(struct rng *r, uint8_t *pkt, int v6,
		  const struct craft_addr *a, char *desc, size_t dn)
{
	static const uint8_t protos[] = { 17, 17, 6, 136, 132, 33, 1, 0, 253 };
	uint8_t proto = chance(r, 90) ? PICK(r, protos) : (uint8_t)rnd64(r);
	uint32_t l4len = below(r, 100) < 70 ? 8 + below(r, 200) : below(r, 8);

	return v6 ? craft_v6(r, pkt, a, proto, l4len, desc, dn) :
		    craft_v4(r, pkt, a, proto, l4len, desc, dn);
}
