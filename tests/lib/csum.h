/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared test library: Internet checksum arithmetic (RFC 1071).
 *
 * csum_partial() is the 64-bit one's-complement partial sum of a buffer,
 * taken from native-order 32-bit loads, which equals the sum of its
 * big-endian 16-bit words up to the final byte swap (RFC 1071, 2(B));
 * csum_fold() folds and complements it into the value that goes in a
 * header as it is (memcpy, no byte swap).  csum_add() and csum_fold32()
 * are the same sum in host order: csum_add() adds the buffer's big-endian
 * words to a 32-bit sum that may also hold host-order terms (the pseudo
 * header's protocol and length), csum_fold32() gives the host-order
 * checksum, 0 for a buffer whose checksum verifies.
 */
#ifndef _VJ_TL_CSUM_H
#define _VJ_TL_CSUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t csum_partial(uint64_t sum, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t w;

	while (len >= 4) {
		memcpy(&w, p, 4);
		sum += w;
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		uint16_t h;

		memcpy(&h, p, 2);
		sum += h;
		p += 2;
		len -= 2;
	}
	if (len) {
		uint16_t h = 0;

		memcpy(&h, p, 1);	/* the odd byte, zero-padded */
		sum += h;
	}
	return sum;
}

/* Fold to 16 bits and complement: the value that goes in a header. */
static inline uint16_t csum_fold(uint64_t sum)
{
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static inline uint32_t csum_add(uint32_t sum, const void *buf, size_t len)
{
	uint16_t s = (uint16_t)~csum_fold(csum_partial(0, buf, len));

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	s = (uint16_t)(s >> 8 | s << 8);
#endif
	return sum + s;
}

static inline uint16_t csum_fold32(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

#endif /* _VJ_TL_CSUM_H */
