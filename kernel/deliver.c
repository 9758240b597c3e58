// SPDX-License-Identifier: GPL-2.0
/*
 * Handing an skb that matched a channel to its ring, for the receive paths
 * that see skbs: the pre-routing hook (bypass channels, unmodified drivers)
 * and the filtered path (after the firewall); and the driver API's frames
 * across several buffers, which are skbs too (chain.c).
 *
 * A GRO aggregate is not a wire packet, but its segments belong to the
 * channel's flow as much as the packets GRO left alone: leaving aggregates
 * to the stack would split one flow between two receivers.  So an aggregate
 * is cut back into its segments (software GSO, as nfnetlink_queue does at
 * the same hooks) and each segment goes into the ring and is counted.
 *
 * The UDP or TCP checksum verdict is worked out here, once, so that the
 * consumer does not sum every byte again: the device's verdict where it
 * gave one (CHECKSUM_UNNECESSARY, or CHECKSUM_COMPLETE checked against the
 * pseudo-header), else the kernel sums the packet (nf_checksum(), what the
 * UDP and TCP receive paths would do) - except for a UDP channel socket,
 * whose receiving call sums a packet without a verdict itself, in the
 * consumer's context (udp_rx.c).  A packet with a bad checksum is
 * dropped and counted in the channel's rx_csum_bad; a good one is marked
 * VJ_DESC_F_CSUM_OK.
 */

#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/netfilter.h>
#include <linux/udp.h>
#include <net/gso.h>
#include <net/sock.h>

#include "vj_deliver.h"
#include "vj_flow.h"
#include "vj_ring.h"
#include "vj_ring_prod.h"
#include "vj_stats.h"
#include "vj_wake.h"

/*
 * Bytes of Ethernet header in front of skb->data (the network header at
 * the hooks), or 0: other link types and odd layouts (tunnels whose "mac
 * header" is an outer IP header) are delivered from the network header.
 */
static unsigned int vj_skb_eth_len(const struct sk_buff *skb)
{
	int off;

	if (!skb_mac_header_was_set(skb) || !skb->dev ||
	    (skb->dev->type != ARPHRD_ETHER &&
	     skb->dev->type != ARPHRD_LOOPBACK))
		return 0;
	off = -skb_mac_offset(skb);
	return off == ETH_HLEN && off <= skb_headroom(skb) ? ETH_HLEN : 0;
}

enum vj_csum_verdict { CSUM_UNKNOWN, CSUM_OK, CSUM_BAD };

/*
 * The transport checksum verdict for @skb (data at the network header, the
 * transport header at @thoff).  Only UDP and TCP are checked.
 */
static enum vj_csum_verdict
vj_deliver_csum_verdict(struct sk_buff *skb, const struct vj_flow_key *key,
			int thoff, unsigned int hook, bool defer_sum)
{
	struct udphdr uh;

	if (key->proto != IPPROTO_UDP && key->proto != IPPROTO_TCP)
		return CSUM_UNKNOWN;
	if (thoff < 0 || thoff >= skb->len)
		return CSUM_UNKNOWN;
	/* Checked by the device, or left to it by a local sender. */
	if (skb->ip_summed == CHECKSUM_UNNECESSARY ||
	    skb->ip_summed == CHECKSUM_PARTIAL)
		return CSUM_OK;
	/* No device verdict: the consumer sums it (UDP channel sockets). */
	if (defer_sum && skb->ip_summed == CHECKSUM_NONE)
		return CSUM_UNKNOWN;
	/* IPv4 UDP may go without a checksum: nothing to verify. */
	if (key->proto == IPPROTO_UDP && !key->family &&
	    (skb_copy_bits(skb, thoff, &uh, sizeof(uh)) || !uh.check))
		return CSUM_UNKNOWN;
	return nf_checksum(skb, hook, thoff, key->proto,
			   key->family ? AF_INET6 : AF_INET) ? CSUM_BAD : CSUM_OK;
}

static void vj_deliver_count(u32 path, bool claimed, unsigned int n)
{
	enum vj_counter c;

	if (path & VJ_DESC_F_DRIVER)
		c = claimed ? VJ_CNT_DRIVER_CLAIMED : VJ_CNT_DRIVER_DROPPED;
	else if (path & VJ_DESC_F_FILTERED)
		c = claimed ? VJ_CNT_FW_CLAIMED : VJ_CNT_FW_DROPPED;
	else
		c = claimed ? VJ_CNT_HOOK_CLAIMED : VJ_CNT_HOOK_DROPPED;
	vj_count_add(c, n);
}

/* Cut an aggregate into its segments and ring each; consumes @skb. */
static void vj_deliver_segments(struct vj_flow_entry *fe, struct sk_buff *skb,
				const u8 *mac, unsigned int l2, int ifindex,
				u32 path)
{
	unsigned int segs_in = skb_shinfo(skb)->gso_segs ?: 1;
	unsigned int claimed = 0, dropped = 0;
	struct sk_buff *segs, *seg, *next;

	segs = skb_gso_segment(skb, 0);
	if (!segs) {
		/* One segment's worth: the frame is a wire frame already. */
		skb_gso_reset(skb);
		segs = skb;
		skb = NULL;
	}
	if (IS_ERR(segs)) {
		/* No memory to cut it: every segment is lost for want of room. */
		vj_ring_count_drops(fe->ring, segs_in);
		vj_count(VJ_CNT_GSO_FAILED);
		vj_deliver_count(path, false, segs_in);
		kfree_skb(skb);
		return;
	}
	vj_count(VJ_CNT_GSO_SEGMENTED);
	skb_list_walk_safe(segs, seg, next) {
		skb_mark_not_on_list(seg);
		if (!vj_ring_rx_skb(fe->ring, seg, mac, l2, ifindex, path,
				    VJ_PUBLISH_BATCH)) {
			claimed++;
			consume_skb(seg);
		} else {
			dropped++;
			kfree_skb_reason(seg, SKB_DROP_REASON_FULL_RING);
		}
	}
	vj_deliver_count(path, true, claimed);
	vj_deliver_count(path, false, dropped);
	if (claimed)
		vj_wake(fe->sk, fe->ring);
	if (skb)
		consume_skb(skb);
}

/**
 * vj_deliver_skb - put a packet that matched @fe into its ring
 * @fe: the channel (the caller holds rcu_read_lock())
 * @skb: the packet, skb->data at the network header; owned by the caller
 * @key: its flow key
 * @thoff: offset of its transport header from skb->data
 * @hook: the netfilter hook the caller runs at
 * @path: VJ_DESC_F_FILTERED for the filtered path, 0 for the pre-routing hook
 *
 * Returns true if @skb was consumed: placed in the ring, or dropped and
 * counted because the ring was full or its checksum was bad.  Returns
 * false, leaving @skb to the caller, if the channel is dead (its device
 * went away): the packet then goes on as if the channel did not exist.
 */
bool vj_deliver_skb(struct vj_flow_entry *fe, struct sk_buff *skb,
		    const struct vj_flow_key *key, int thoff, unsigned int hook,
		    u32 path)
{
	unsigned int l2 = vj_skb_eth_len(skb);
	const u8 *mac = l2 ? skb_mac_header(skb) : NULL;
	int ifindex = key->ifindex;

	if (skb_is_gso(skb)) {
		u8 eth[ETH_HLEN];

		if (vj_ring_dead(fe->ring))
			return false;
		/* Segmenting resets the aggregate's mac header: keep a copy. */
		if (l2)
			memcpy(eth, mac, l2);
		/* GRO merged only segments whose checksums it verified. */
		vj_deliver_segments(fe, skb, l2 ? eth : NULL, l2, ifindex,
				    path | VJ_DESC_F_CSUM_OK);
		return true;
	}

	switch (vj_deliver_csum_verdict(skb, key, thoff, hook,
					fe->udp_chan)) {
	case CSUM_OK:
		path |= VJ_DESC_F_CSUM_OK;
		break;
	case CSUM_BAD:
		if (vj_ring_dead(fe->ring))
			return false;
		vj_ring_count_csum_bad(fe->ring);
		vj_count(VJ_CNT_CSUM_BAD);
		kfree_skb_reason(skb, SKB_DROP_REASON_TCP_CSUM);
		return true;
	default:
		break;
	}

	switch (vj_ring_rx_skb(fe->ring, skb, mac, l2, ifindex, path,
			       VJ_PUBLISH_BATCH)) {
	case 0:
		vj_deliver_count(path, true, 1);
		vj_wake(fe->sk, fe->ring);
		consume_skb(skb);
		return true;
	case -ENOSPC:
		vj_deliver_count(path, false, 1);
		kfree_skb_reason(skb, SKB_DROP_REASON_FULL_RING);
		return true;
	default:	/* dead: its device went away under us */
		return false;
	}
}

/**
 * vj_deliver_gso - the wire frames of a device's large frame to @fe's ring
 * @fe: the channel (the caller holds rcu_read_lock())
 * @skb: a frame of the driver API across several buffers (chain.c),
 *	skb->data at its network header behind an Ethernet header, with a
 *	partial checksum and a segmentation type
 * @ifindex: the device it came in on
 *
 * As an aggregate at the hook: cut into its segments, each summed by the
 * kernel and put in the ring (VJ_DESC_F_DRIVER | VJ_DESC_F_CSUM_OK).
 * Returns false, leaving @skb to the caller, if the channel is dead or
 * direct (a direct ring takes only what the device wrote into it: a frame
 * of its flow in flight on another queue goes to the stack, as from
 * vj_driver_rx_one()).
 */
bool vj_deliver_gso(struct vj_flow_entry *fe, struct sk_buff *skb,
		    int ifindex)
{
	u8 eth[ETH_HLEN];

	if (vj_ring_dead(fe->ring) || READ_ONCE(fe->ring->direct))
		return false;
	/* Segmenting resets the frame's mac header: keep a copy. */
	memcpy(eth, skb_mac_header(skb), ETH_HLEN);
	vj_deliver_segments(fe, skb, eth, ETH_HLEN, ifindex,
			    VJ_DESC_F_DRIVER | VJ_DESC_F_CSUM_OK);
	return true;
}
