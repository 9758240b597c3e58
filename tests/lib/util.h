/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared test library: time, errno names and the seeded random numbers of
 * the fuzzer and the stress test.
 */
#ifndef _VJ_TL_UTIL_H
#define _VJ_TL_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#define NSEC		1000000000ull	/* nanoseconds per second */
#define MSEC		1000000ull	/* nanoseconds per millisecond */

uint64_t now_ns(void);			/* CLOCK_MONOTONIC */
void msleep(unsigned int ms);
const char *errname(int err);		/* "ENOENT", or "errno N" */

/* splitmix64: small, fast, and every seed gives a good sequence. */
struct rng {
	uint64_t s;
};

uint64_t rnd64(struct rng *r);
uint32_t below(struct rng *r, uint32_t n);	/* 0 .. n - 1; 0 if n is 0 */
bool chance(struct rng *r, unsigned int pct);

#define PICK(r, a)	((a)[below((r), ARRAY_SIZE(a))])

#endif /* _VJ_TL_UTIL_H */
