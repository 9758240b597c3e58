/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the host-side generator and sink (vjgen) and the guest-side
 * receivers (vjrx) and sender (vjtx): the benchmark flow and its frames.  The payload pattern and the
 * checksum arithmetic are the shared test library's (tests/lib/pattern.h,
 * tests/lib/csum.h).
 *
 * Every frame is Ethernet/IPv4/UDP from BENCH_SRC_IP:BENCH_SPORT to
 * BENCH_DST_IP:BENCH_DPORT.  Its payload carries a 32-bit sequence number
 * in bytes 0..3 (big-endian) and (seq + i) & 0xff in byte i >= 4, the test
 * pattern of libvjchan and the test suite.  The top BENCH_TAG_BITS of the sequence number are
 * the cell tag, so a receiver can tell its own packets from ones still in
 * flight from an earlier cell; the low bits count up from 0.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#include "csum.h"
#include "flow.h"

#define BENCH_HDR_LEN	(14 + 20 + 8)	/* Ethernet + IPv4 + UDP */
#define BENCH_MAX_PAYLOAD 1472		/* 1500-byte MTU */
#define BENCH_MIN_PAYLOAD 4

/*
 * An IPv4 packet of @len bytes checked the way the stack checks one: the
 * IPv4 header and its checksum, not a fragment, UDP to port @dport, the UDP
 * length and checksum (0: none).  Returns the UDP payload, with its length
 * in *@len, or NULL.  The sum over the UDP datagram, the per-packet work
 * every receiver does, is added to *@sum once the lengths are checked.
 */
static inline const uint8_t *bench_udp4(const uint8_t *ip, uint32_t *len,
					uint16_t dport, uint64_t *sum)
{
	uint32_t ihl, tot, ulen;
	const uint8_t *udp;
	uint16_t csum, port;
	uint64_t s;

	if (*len < 20 || ip[0] >> 4 != 4)
		return NULL;
	ihl = (ip[0] & 15) * 4;
	tot = (uint32_t)ip[2] << 8 | ip[3];
	if (ihl < 20 || tot < ihl + 8 || tot > *len || ip[9] != IPPROTO_UDP ||
	    ((ip[6] & 0x3f) | ip[7]) || csum_fold(csum_partial(0, ip, ihl)))
		return NULL;
	udp = ip + ihl;
	memcpy(&port, udp + 2, 2);
	ulen = (uint32_t)udp[4] << 8 | udp[5];
	if (port != htons(dport) || ulen < 8 || ulen > tot - ihl)
		return NULL;
	memcpy(&csum, udp + 6, 2);
	/* Pseudo header: addresses, protocol, UDP length. */
	s = csum_partial(0, ip + 12, 8);
	s += htons(IPPROTO_UDP) + htons(ulen);
	s = csum_partial(s, udp, ulen);
	*sum += s;
	if (csum && csum_fold(s))
		return NULL;
	*len = ulen - 8;
	return udp + 8;
}

/*
 * Pacing at @rate frames a second (0: flat out) from time @t0: how many of
 * up to @max more frames are due at time @t when @sent have gone; if none,
 * *@next is when the next one is.  Times in seconds.
 */
static inline unsigned long bench_due(double t0, double t, unsigned long rate,
				      unsigned long sent, unsigned long max,
				      double *next)
{
	double want;
	unsigned long due;

	if (!rate)
		return max;
	want = (t - t0) * rate + 1;
	due = want > sent ? (unsigned long)want - sent : 0;
	*next = t0 + (double)(sent + 1) / rate;
	return due < max ? due : max;
}

#endif /* BENCH_COMMON_H */
