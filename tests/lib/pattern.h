/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared test library: the test payload pattern, the one that vjtest, the
 * test senders, the benchmark generator and libvjchan's vj_pattern_*()
 * use.  Bytes 0..3 hold a sequence number (big-endian), byte i >= 4 holds
 * (seq + i) & 0xff.  Filling and checking run of bytes is one memcpy() or
 * memcmp() against a ramp, fast enough for the benchmark's receive loops.
 */
#ifndef _VJ_TL_PATTERN_H
#define _VJ_TL_PATTERN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* pattern_ramp[j] = j & 0xff, for j < PATTERN_RAMP_LEN. */
#define PATTERN_CHUNK		65536u
#define PATTERN_RAMP_LEN	(256 + PATTERN_CHUNK)
extern uint8_t pattern_ramp[PATTERN_RAMP_LEN];

/* Bytes from .. len - 1 of the pattern of seq: byte i is (seq + i) & 0xff. */
static inline void pattern_fill_from(uint8_t *p, uint32_t from, uint32_t len,
				     uint32_t seq)
{
	while (from < len) {
		uint32_t n = len - from < PATTERN_CHUNK ? len - from :
			     PATTERN_CHUNK;

		memcpy(p + from, pattern_ramp + ((seq + from) & 0xff), n);
		from += n;
	}
}

/* Do bytes from .. len - 1 hold the pattern of seq? */
static inline bool pattern_ok_from(const uint8_t *p, uint32_t from,
				   uint32_t len, uint32_t seq)
{
	while (from < len) {
		uint32_t n = len - from < PATTERN_CHUNK ? len - from :
			     PATTERN_CHUNK;

		if (memcmp(p + from, pattern_ramp + ((seq + from) & 0xff), n))
			return false;
		from += n;
	}
	return true;
}

static inline uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* The whole payload; shorter than 4 bytes, the leading bytes of seq. */
static inline void payload_fill(uint8_t *p, uint32_t len, uint32_t seq)
{
	uint32_t i;

	for (i = 0; i < len && i < 4; i++)
		p[i] = seq >> (24 - 8 * i);
	pattern_fill_from(p, 4, len, seq);
}

/* True if p holds the pattern of the sequence number it starts with. */
static inline bool payload_ok(const uint8_t *p, uint32_t len, uint32_t *seq)
{
	uint32_t s;

	if (len < 4)
		return false;
	s = get_be32(p);
	if (seq)
		*seq = s;
	return pattern_ok_from(p, 4, len, s);
}

/* payload_ok() with the reason: NULL, or where the pattern breaks. */
const char *payload_check(const uint8_t *buf, uint32_t len, uint32_t *seq);

#endif /* _VJ_TL_PATTERN_H */
