/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vjnet: a virtio-net driver that receives into vjchan global buffers.
 *
 * One receive and one transmit queue, one NAPI instance for both.  Features
 * negotiated: VERSION_1, MAC, STATUS; no offloads, no mergeable buffers, so
 * every receive buffer holds one whole frame behind a struct
 * virtio_net_hdr_v1 that the device writes into the buffer's headroom.
 * With a direct channel (VJ_BIND_F_DIRECT), the receive queue holds that
 * channel's ring buffers instead, the header at the start of each.
 */
#ifndef _VJNET_H
#define _VJNET_H

#include <linux/netdevice.h>
#include <linux/u64_stats_sync.h>
#include <linux/virtio.h>
#include <linux/virtio_net.h>
#include <linux/workqueue.h>

#include "vjchan_driver.h"

#define VJNET_HDR_LEN	sizeof(struct virtio_net_hdr_v1)
/* Transmit descriptors one frame may need: header plus data. */
#define VJNET_TX_SG	(MAX_SKB_FRAGS + 2)

/* Receive-side counters, written only by the NAPI poll. */
struct vjnet_rx_stats {
	struct u64_stats_sync syncp;
	u64_stats_t packets;		/* frames handed to vjchan */
	u64_stats_t bytes;
	u64_stats_t channel;		/* of those, queued on a channel */
	u64_stats_t stack;		/* to the stack, skb built around buffer */
	u64_stats_t stack_copied;	/* to the stack in a copy */
	u64_stats_t stack_bytes;
	u64_stats_t dropped;		/* lost in vjchan (channel full, no skb) */
	u64_stats_t length_errors;	/* device reported a bad length */
	u64_stats_t pool_empty;		/* refill found no global buffer */
	u64_stats_t polls;
	u64_stats_t direct;		/* published in a direct channel's ring */
	u64_stats_t direct_posted;	/* channel buffers posted to the device */
	u64_stats_t direct_returned;	/* channel buffers back from the device */
};

/* Transmit-side counters, written under the transmit queue's lock. */
struct vjnet_tx_stats {
	struct u64_stats_sync syncp;
	u64_stats_t packets;
	u64_stats_t bytes;
	u64_stats_t dropped;
	u64_stats_t queue_stopped;
	u64_stats_t kicks;
};

struct vjnet_priv {
	struct virtio_device *vdev;
	struct net_device *dev;
	struct virtqueue *rvq;
	struct virtqueue *svq;
	struct napi_struct napi;
	/*
	 * The channel that owns the receive queue (direct receive), or NULL:
	 * changed under rtnl_lock with NAPI disabled and the queue reset.
	 */
	struct vj_direct *direct;
	/* vjnet_reinit() failed: no queues; the device stays down. */
	bool broken;
	/* Refill when the pool ran dry and the receive queue is empty. */
	struct delayed_work refill;
	struct work_struct config_work;
	struct vjnet_rx_stats rx_stats;
	struct vjnet_tx_stats tx_stats;
	/* NAPI poll scratch: the frames of one poll. */
	struct vj_gbuf *batch[NAPI_POLL_WEIGHT];
	/* start_xmit scratch, under the transmit queue's lock. */
	struct scatterlist tx_sg[VJNET_TX_SG];
};

/* rx.c */
int vjnet_poll(struct napi_struct *napi, int budget);
void vjnet_rx_done(struct virtqueue *rvq);
void vjnet_refill_work(struct work_struct *work);
bool vjnet_rx_fill(struct vjnet_priv *vi, gfp_t gfp);
void vjnet_rx_free_unused(struct vjnet_priv *vi);
int vjnet_rx_switch(struct vjnet_priv *vi, struct vj_direct *d);

/* tx.c */
netdev_tx_t vjnet_start_xmit(struct sk_buff *skb, struct net_device *dev);
void vjnet_tx_done(struct virtqueue *svq);
void vjnet_tx_reclaim(struct vjnet_priv *vi, int budget);
bool vjnet_tx_rearm(struct vjnet_priv *vi);
void vjnet_tx_free_unused(struct vjnet_priv *vi);

/* ethtool.c */
extern const struct ethtool_ops vjnet_ethtool_ops;
void vjnet_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *s);

#endif /* _VJNET_H */
