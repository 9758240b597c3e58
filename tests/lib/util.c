// SPDX-License-Identifier: GPL-2.0
/*
 * Shared test library: time, errno names, random numbers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + ts.tv_nsec;
}

void msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

const char *errname(int err)
{
	static __thread char buf[16];
	const char *n = strerrorname_np(err);

	if (n)
		return n;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

uint64_t rnd64(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t below(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(rnd64(r) % n) : 0;
}

bool chance(struct rng *r, unsigned int pct)
{
	return below(r, 100) < pct;
}
