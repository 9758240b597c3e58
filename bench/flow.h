/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmark flow, shared by the generator, the receivers and the XDP
 * programs (so: plain #defines only).  Sequence numbers: the top
 * BENCH_TAG_BITS are the cell tag, the rest count frames from 0.
 */
#ifndef BENCH_FLOW_H
#define BENCH_FLOW_H

#define BENCH_DST_IP	"203.0.113.1"
#define BENCH_SRC_IP	"203.0.113.2"
#define BENCH_DPORT	9000
#define BENCH_SPORT	9001
/* Flows of a cell (vjgen -f): source ports BENCH_SPORT onwards. */
#define BENCH_MAX_FLOWS	1024
/* The flows of a group cell (vjrx udp-reuseport-N, udp-vjchan-group-N). */
#define BENCH_GROUP_FLOWS	64
/* The guest's benchmark NIC and the generator's made-up source MAC. */
#define BENCH_DST_MAC	{ 0x52, 0x54, 0x00, 0x12, 0x34, 0x10 }
#define BENCH_SRC_MAC	{ 0x52, 0x54, 0x00, 0x12, 0x34, 0x20 }

#define BENCH_TAG_BITS	8
#define BENCH_CTR_BITS	(32 - BENCH_TAG_BITS)
#define BENCH_CTR_MASK	((1U << BENCH_CTR_BITS) - 1)
#define BENCH_SEQ(tag, ctr) (((unsigned int)(tag) << BENCH_CTR_BITS) | (ctr))
/*
 * Transmit cells (vjtx): the sender sets this counter bit on the frames it
 * sends in its measurement window, so the host's sink counts the window's
 * frames apart from the warm-up's.
 */
#define BENCH_WIN_BIT	(1U << (BENCH_CTR_BITS - 1))

#endif /* BENCH_FLOW_H */
