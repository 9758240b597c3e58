/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the host-side generator (vjgen) and the guest-side receivers
 * (vjrx): the benchmark flow, the payload pattern and checksums.
 *
 * Every frame is Ethernet/IPv4/UDP from BENCH_SRC_IP:BENCH_SPORT to
 * BENCH_DST_IP:BENCH_DPORT.  Its payload carries a 32-bit sequence number
 * in bytes 0..3 (big-endian) and (seq + i) & 0xff in byte i >= 4, the test
 * pattern of libvjchan.  The top BENCH_TAG_BITS of the sequence number are
 * the cell tag, so a receiver can tell its own packets from ones still in
 * flight from an earlier cell; the low bits count up from 0.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "flow.h"

#define BENCH_HDR_LEN	(14 + 20 + 8)	/* Ethernet + IPv4 + UDP */
#define BENCH_MAX_PAYLOAD 1472		/* 1500-byte MTU */
#define BENCH_MIN_PAYLOAD 4

/*
 * ramp[j] = j & 0xff: the pattern bytes 4.. of sequence number seq are
 * ramp[((seq + 4) & 0xff) ...], so filling and checking them is one
 * memcpy()/memcmp().
 */
#define BENCH_RAMP_LEN	(256 + BENCH_MAX_PAYLOAD)

static inline void bench_ramp_init(uint8_t *ramp)
{
	unsigned int j;

	for (j = 0; j < BENCH_RAMP_LEN; j++)
		ramp[j] = j;
}

static inline void bench_pattern_fill(const uint8_t *ramp, uint8_t *p,
				      uint32_t len, uint32_t seq)
{
	p[0] = seq >> 24;
	p[1] = seq >> 16;
	p[2] = seq >> 8;
	p[3] = seq;
	memcpy(p + 4, ramp + ((seq + 4) & 0xff), len - 4);
}

/* 0 if @p holds the pattern of the sequence number it starts with. */
static inline int bench_pattern_check(const uint8_t *ramp, const uint8_t *p,
				      uint32_t len, uint32_t *seq)
{
	uint32_t s;

	if (len < BENCH_MIN_PAYLOAD)
		return -1;
	s = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
	*seq = s;
	return memcmp(p + 4, ramp + ((s + 4) & 0xff), len - 4) ? -1 : 0;
}

/*
 * Internet checksum arithmetic (RFC 1071): the 64-bit one's-complement
 * partial sum of a buffer, to be folded by bench_csum_fold().  The sum of
 * big-endian 16-bit words is taken from native-order 32-bit loads, which is
 * the same up to the final byte swap of the fold (RFC 1071, 2(B)).
 */
static inline uint64_t bench_csum_add(uint64_t sum, const void *buf,
				      size_t len)
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
static inline uint16_t bench_csum_fold(uint64_t sum)
{
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

#endif /* BENCH_COMMON_H */
