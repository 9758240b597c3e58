// SPDX-License-Identifier: GPL-2.0
/*
 * Shared test library: the payload pattern's ramp and its diagnosis.
 */
#include <stdio.h>

#include "pattern.h"

uint8_t pattern_ramp[PATTERN_RAMP_LEN];

__attribute__((constructor)) static void pattern_ramp_init(void)
{
	uint32_t j;

	for (j = 0; j < PATTERN_RAMP_LEN; j++)
		pattern_ramp[j] = j & 0xff;
}

const char *payload_check(const uint8_t *buf, uint32_t len, uint32_t *seq)
{
	static __thread char why[96];
	uint32_t s, i;

	if (len < 4)
		return "payload shorter than 4 bytes";
	s = get_be32(buf);
	if (!pattern_ok_from(buf, 4, len, s)) {
		for (i = 4; i < len; i++)
			if (buf[i] != ((s + i) & 0xff))
				break;
		snprintf(why, sizeof(why),
			 "payload of seq %u corrupt at byte %u (0x%02x, want 0x%02x)",
			 s, i, buf[i], (s + i) & 0xff);
		return why;
	}
	if (seq)
		*seq = s;
	return NULL;
}
