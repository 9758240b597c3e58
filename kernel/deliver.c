// SPDX-License-Identifier: GPL-2.0
/*
 * Handing an skb that matched a channel to its ring, for the receive paths
 * that see skbs: the pre-routing hook (bypass channels, unmodified drivers)
 * and the filtered path (after the firewall).
 *
 * A GRO aggregate is not a wire packet, but its segments belong to the
 * channel's flow as much as the packets GRO left alone: leaving aggregates
 * to the stack would split one flow between two receivers.  So an aggregate
 * is cut back into its segments (software GSO, as nfnetlink_queue does at
 * the same hooks) and each segment goes into the ring and is counted.
 */

#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/gso.h>
#include <net/sock.h>

#include "vj_deliver.h"
#include "vj_flow.h"
#include "vj_ring.h"
#include "vj_stats.h"

/*
 * Bytes of Ethernet header in front of skb->data (the network header at
 * the hooks), or 0: other link types and odd layouts (tunnels whose "mac
 * header" is an outer IP header) are delivered from the network header.
 */
static unsigned int skb_eth_len(const struct sk_buff *skb)
{
	int off;

	if (!skb_mac_header_was_set(skb) || !skb->dev ||
	    (skb->dev->type != ARPHRD_ETHER &&
	     skb->dev->type != ARPHRD_LOOPBACK))
		return 0;
	off = -skb_mac_offset(skb);
	return off == ETH_HLEN && off <= skb_headroom(skb) ? ETH_HLEN : 0;
}

static void count_path(u32 path, bool claimed, unsigned int n)
{
	enum vj_counter c;

	if (path == VJ_DESC_F_FILTERED)
		c = claimed ? VJ_CNT_FW_CLAIMED : VJ_CNT_FW_DROPPED;
	else
		c = claimed ? VJ_CNT_HOOK_CLAIMED : VJ_CNT_HOOK_DROPPED;
	vj_count_add(c, n);
}

/* Cut an aggregate into its segments and ring each; consumes @skb. */
static void deliver_segments(struct vj_chan *chan, struct sk_buff *skb,
			     const u8 *mac, unsigned int l2, int ifindex,
			     u32 path)
{
	unsigned int segs_in = skb_shinfo(skb)->gso_segs ?: 1;
	unsigned int claimed = 0, dropped = 0;
	struct sk_buff *segs, *seg, *next;

	segs = skb_gso_segment(skb, 0);
	if (IS_ERR_OR_NULL(segs)) {
		/* No memory to cut it: every segment is lost for want of room. */
		vj_ring_count_drops(chan->ring, segs_in);
		vj_count(VJ_CNT_GSO_FAILED);
		count_path(path, false, segs_in);
		kfree_skb(skb);
		return;
	}
	vj_count(VJ_CNT_GSO_SEGMENTED);
	skb_list_walk_safe(segs, seg, next) {
		skb_mark_not_on_list(seg);
		if (!vj_ring_rx_skb(chan->ring, seg, mac, l2, ifindex, path)) {
			claimed++;
			consume_skb(seg);
		} else {
			dropped++;
			kfree_skb_reason(seg, SKB_DROP_REASON_FULL_RING);
		}
	}
	count_path(path, true, claimed);
	count_path(path, false, dropped);
	if (claimed)
		chan->sk->sk_data_ready(chan->sk);
	consume_skb(skb);
}

/**
 * vj_deliver_skb - put a packet that matched @chan into its ring
 * @chan: the channel (the caller holds rcu_read_lock())
 * @skb: the packet, skb->data at the network header; owned by the caller
 * @ifindex: the interface it arrived on
 * @path: VJ_DESC_F_FILTERED for the filtered path, 0 for the pre-routing hook
 *
 * Returns true if @skb was consumed: placed in the ring, or dropped and
 * counted because the ring was full.  Returns false, leaving @skb to the
 * caller, if the channel is dead (its device went away): the packet then
 * goes on as if the channel did not exist.
 */
bool vj_deliver_skb(struct vj_chan *chan, struct sk_buff *skb, int ifindex,
		    u32 path)
{
	unsigned int l2 = skb_eth_len(skb);
	const u8 *mac = l2 ? skb_mac_header(skb) : NULL;

	if (skb_is_gso(skb)) {
		u8 eth[ETH_HLEN];

		if (vj_ring_dead(chan->ring))
			return false;
		/* Segmenting resets the aggregate's mac header: keep a copy. */
		if (l2)
			memcpy(eth, mac, l2);
		deliver_segments(chan, skb, l2 ? eth : NULL, l2, ifindex, path);
		return true;
	}

	switch (vj_ring_rx_skb(chan->ring, skb, mac, l2, ifindex, path)) {
	case 0:
		count_path(path, true, 1);
		chan->sk->sk_data_ready(chan->sk);
		consume_skb(skb);
		return true;
	case -ENOSPC:
		count_path(path, false, 1);
		kfree_skb_reason(skb, SKB_DROP_REASON_FULL_RING);
		return true;
	default:	/* dead: its device went away under us */
		return false;
	}
}
