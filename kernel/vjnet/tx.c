// SPDX-License-Identifier: GPL-2.0
/*
 * vjnet transmit: each frame is a virtio_net_hdr_v1 (kept in the skb's
 * control block) and the skb's data, its pages one descriptor each.  The
 * header asks the device for what the stack left undone: the checksum of
 * a CHECKSUM_PARTIAL skb (VIRTIO_NET_F_CSUM) and the segmentation of a
 * TSO skb (VIRTIO_NET_F_HOST_TSO4/6), as virtio_net_hdr_from_skb() fills
 * it; the stack hands vjnet only what the features it was given allow.
 * Each frame goes on the transmit queue of the pair the stack chose (its
 * queue mapping).  Sent frames are freed from that pair's NAPI poll, on its
 * transmit interrupt, and from start_xmit when the queue runs low.  The
 * queue's lock (__netif_tx_lock) serialises every use of its virtqueue.
 */

#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/virtio.h>

#include "vjnet.h"

static struct virtio_net_hdr_v1 *vjnet_tx_hdr(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(skb->cb) < VJNET_HDR_LEN);
	return (struct virtio_net_hdr_v1 *)skb->cb;
}

/* Free what the device has sent.  Caller holds the transmit queue lock. */
static unsigned int vjnet_tx_free_sent(struct vjnet_queue *q, int budget)
{
	unsigned int n = 0, len;
	struct sk_buff *skb;

	while ((skb = virtqueue_get_buf(q->svq, &len))) {
		napi_consume_skb(skb, budget);
		n++;
	}
	return n;
}

/*
 * Restart a queue stopped for room, not one that vjnet_reinit() stopped
 * (netif_device_detach(), under the same lock): a poll that runs before it
 * disables NAPI must not reopen the queue to a device about to lose it.
 */
static void vjnet_tx_maybe_wake(struct vjnet_queue *q,
				struct netdev_queue *txq)
{
	if (netif_tx_queue_stopped(txq) && netif_device_present(q->vi->dev) &&
	    q->svq->num_free >= VJNET_TX_SG)
		netif_tx_wake_queue(txq);
}

/* From the NAPI poll: free sent frames, restart a stopped queue. */
void vjnet_tx_reclaim(struct vjnet_queue *q, int budget)
{
	struct netdev_queue *txq = netdev_get_tx_queue(q->vi->dev, q->index);

	__netif_tx_lock(txq, raw_smp_processor_id());
	vjnet_tx_free_sent(q, budget);
	vjnet_tx_maybe_wake(q, txq);
	__netif_tx_unlock(txq);
}

/* From the NAPI poll, done: re-enable the transmit interrupt. */
bool vjnet_tx_rearm(struct vjnet_queue *q)
{
	struct netdev_queue *txq = netdev_get_tx_queue(q->vi->dev, q->index);
	bool idle;

	__netif_tx_lock(txq, raw_smp_processor_id());
	idle = virtqueue_enable_cb(q->svq);
	__netif_tx_unlock(txq);
	return idle;
}

void vjnet_tx_done(struct virtqueue *svq)
{
	struct vjnet_priv *vi = svq->vdev->priv;

	virtqueue_disable_cb(svq);
	napi_schedule(&vi->q[svq->index / 2].napi);
}

netdev_tx_t vjnet_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct vjnet_priv *vi = netdev_priv(dev);
	u16 qi = skb_get_queue_mapping(skb);
	struct netdev_queue *txq = netdev_get_tx_queue(dev, qi);
	struct vjnet_queue *q = &vi->q[qi];
	struct vjnet_tx_stats *st = &q->tx_stats;
	struct virtio_net_hdr_v1 *hdr;
	unsigned int len = skb->len;
	int nsg, err;

	vjnet_tx_free_sent(q, 0);
	hdr = vjnet_tx_hdr(skb);
	memset(hdr, 0, VJNET_HDR_LEN);
	/* The v1 header starts with the legacy one (num_buffers follows). */
	if (unlikely(virtio_net_hdr_from_skb(skb, (struct virtio_net_hdr *)hdr,
					     true, false, 0)))
		goto drop;
	sg_init_table(q->tx_sg, VJNET_TX_SG);
	sg_set_buf(q->tx_sg, hdr, VJNET_HDR_LEN);
	nsg = skb_to_sgvec(skb, q->tx_sg + 1, 0, skb->len);
	if (unlikely(nsg < 0))
		goto drop;
	err = virtqueue_add_outbuf(q->svq, q->tx_sg, nsg + 1, skb,
				   GFP_ATOMIC);
	if (unlikely(err))
		goto drop;

	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->packets);
	u64_stats_add(&st->bytes, len);
	if (q->svq->num_free < VJNET_TX_SG) {
		/* No room for a worst-case frame: wait for the device. */
		netif_tx_stop_queue(txq);
		u64_stats_inc(&st->queue_stopped);
	}
	if (!netdev_xmit_more() || netif_xmit_stopped(txq)) {
		if (virtqueue_kick_prepare(q->svq) && virtqueue_notify(q->svq))
			u64_stats_inc(&st->kicks);
	}
	u64_stats_update_end(&st->syncp);
	if (netif_tx_queue_stopped(txq)) {
		/* The device may have sent everything before we stopped. */
		vjnet_tx_free_sent(q, 0);
		vjnet_tx_maybe_wake(q, txq);
	}
	return NETDEV_TX_OK;

drop:
	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->dropped);
	u64_stats_update_end(&st->syncp);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

/* Device reset: free every frame still queued. */
void vjnet_tx_free_unused(struct vjnet_queue *q)
{
	struct sk_buff *skb;

	while ((skb = virtqueue_detach_unused_buf(q->svq)))
		dev_kfree_skb(skb);
}
