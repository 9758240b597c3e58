/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module-wide counters, shown in /proc/net/vjchan_pool.  They audit the
 * global buffer pool, the stack queue and the lifetime of channels.
 *
 * Each CPU counts in its own copy (this_cpu_add(): no atomic operation, no
 * cache line written by two CPUs); a reader sums the copies.  A sum read
 * while packets flow is a moment's snapshot, exact once they stop.
 */
#ifndef _VJ_STATS_H
#define _VJ_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>

struct seq_file;

enum vj_counter {
	VJ_CNT_POOL_EMPTY,	/* vj_gbuf_get() found no buffer */
	VJ_CNT_DRIVER_RX,	/* frames given to vj_netif_rx() */
	VJ_CNT_DRIVER_CLAIMED,	/* of those, queued on a user channel */
	VJ_CNT_DRIVER_DROPPED,	/* of those, dropped: that channel was full */
	VJ_CNT_DRIVER_BAD,	/* of those, dropped: length over the buffer */
	VJ_CNT_DRIVER_CAPPED,	/* of dropped: channels held their share */
	VJ_CNT_DEFAULT_RX,	/* of those, given to the stack queue */
	VJ_CNT_DEFAULT_TO_STACK, /* stack queue: handed to the stack */
	VJ_CNT_DEFAULT_NOMEM,	/* stack queue: lost, no skb */
	VJ_CNT_DEFAULT_NOCOPY,	/* of to_stack: skb built around the buffer */
	VJ_CNT_HOOK_CLAIMED,	/* pre-routing hook: copied into a channel */
	VJ_CNT_HOOK_DROPPED,	/* pre-routing hook: dropped, channel full */
	VJ_CNT_XDP_CLAIMED,	/* XDP path: copied into a channel */
	VJ_CNT_XDP_DROPPED,	/* XDP path: dropped, channel full */
	VJ_CNT_FW_CLAIMED,	/* filtered path: copied into a channel */
	VJ_CNT_FW_DROPPED,	/* filtered path: dropped, channel full */
	VJ_CNT_FW_DEFERRED,	/* fast path matched, left for the firewall */
	VJ_CNT_NOT_LOCAL,	/* fast path matched, not addressed to us */
	VJ_CNT_HDR_UNREADABLE,	/* fast path: headers beyond what it can read */
	VJ_CNT_GSO_SEGMENTED,	/* GRO aggregates cut into their segments */
	VJ_CNT_GSO_FAILED,	/* aggregates lost: no memory to cut them */
	VJ_CNT_CSUM_BAD,	/* packets of a channel with a bad checksum */
	VJ_CNT_SANCTION_NOTED,	/* connections sanctioned by the ruleset */
	VJ_CNT_SANCTION_ENDED,	/* sanctions ended */
	VJ_CNT_SANCTION_REFUSED, /* sanctions not noted: table full, no memory */
	VJ_CNT_MASKS_NOMEM,	/* mask list kept: no memory to shrink it */
	VJ_CNT_CHANNELS_CREATED,
	VJ_CNT_CHANNELS_DESTROYED,
	VJ_CNT_BYTES_PINNED,	/* ring memory currently allocated */
	VJ_CNT_MAX
};

struct vj_counters {
	s64 c[VJ_CNT_MAX];
};

DECLARE_PER_CPU(struct vj_counters, vj_counters);

static inline void vj_count(enum vj_counter c)
{
	this_cpu_inc(vj_counters.c[c]);
}

static inline void vj_count_add(enum vj_counter c, unsigned int n)
{
	if (n)
		this_cpu_add(vj_counters.c[c], n);
}

static inline void vj_stats_add_pinned(long bytes)
{
	this_cpu_add(vj_counters.c[VJ_CNT_BYTES_PINNED], bytes);
}

s64 vj_counter_read(enum vj_counter c);

#endif /* _VJ_STATS_H */
