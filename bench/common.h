/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the host-side generator (vjgen) and the guest-side receivers
 * (vjrx): the benchmark flow and its frames.  The payload pattern and the
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

#include "flow.h"

#define BENCH_HDR_LEN	(14 + 20 + 8)	/* Ethernet + IPv4 + UDP */
#define BENCH_MAX_PAYLOAD 1472		/* 1500-byte MTU */
#define BENCH_MIN_PAYLOAD 4

#endif /* BENCH_COMMON_H */
