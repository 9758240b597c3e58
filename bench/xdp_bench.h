/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by xdp_bench.bpf.c and rx_xdp.c. */
#ifndef XDP_BENCH_H
#define XDP_BENCH_H

#include <linux/types.h>

#include "flow.h"

/*
 * The one entry of the "counts" map of xdp_flow_drop.  @tag is written by
 * user space before the program is attached; the rest by the program.
 * @max_ctr is one more than the highest frame counter seen, so the frames
 * sent up to the newest one seen are max_ctr.
 */
struct xdp_bench_count {
	__u64	pkts;
	__u64	bytes;
	__u64	stale;
	__u64	bad;
	__u32	max_ctr;
	__u32	tag;
};

#endif /* XDP_BENCH_H */
