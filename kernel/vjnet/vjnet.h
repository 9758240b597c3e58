/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vjnet: a virtio-net driver that receives into vjchan global buffers.
 *
 * Up to VJNET_MAX_PAIRS queue pairs (VIRTIO_NET_F_MQ), each a receive and
 * a transmit queue under one NAPI instance of its own; with
 * VIRTIO_NET_F_RSS the device steers received frames to the pairs by an
 * indirection table (ctrl.c).  Features negotiated: VERSION_1, MAC,
 * STATUS, CTRL_VQ, MQ, RSS, the transmit offloads CSUM, HOST_TSO4,
 * HOST_TSO6 (tx.c), and the receive offloads GUEST_CSUM and, with
 * MRG_RXBUF and CTRL_GUEST_OFFLOADS, GUEST_TSO4/6 (rx.c): a receive buffer
 * holds a whole frame behind a struct virtio_net_hdr_v1 that the device
 * writes into the buffer's headroom, or the first part of a TCP
 * segmentation offload's frame, the rest in the buffers that follow.
 * With a direct channel (VJ_BIND_F_DIRECT), one receive queue holds that
 * channel's ring buffers instead, the header at the start of each: the
 * only queue of a one-pair device, or the last active queue of a device
 * with RSS, to which the indirection table steers the channel's flow.
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
/* Queue pairs vjnet drives at most. */
#define VJNET_MAX_PAIRS	16
/* RSS: hash key bytes (Toeplitz, IPv6 4-tuple needs 36 + 4), table size. */
#define VJNET_RSS_KEY_LEN	40
#define VJNET_RSS_TABLE_LEN	128
/*
 * Global buffers a direct queue gets while its owner has no buffer free,
 * so that it never runs dry (vj_direct_rx_spill()).
 */
#define VJNET_SPILL	16
/*
 * Global buffers a receive queue keeps posted at least: two of the largest
 * frames of the receive segmentation offload (64 KiB in 2 KiB buffers, at
 * most 33 each).  vjnet drives no more pairs than half the pool fills so.
 */
#define VJNET_RX_SHARE_MIN	66

/* Receive-side counters of one queue, written only by its NAPI poll. */
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
	u64_stats_t spill_posted;	/* global buffers posted to a direct queue */
	u64_stats_t spilled;		/* frames received into those */
	u64_stats_t csum_valid;		/* checksum verified by the device */
	u64_stats_t csum_partial;	/* checksum left to complete */
	u64_stats_t hdr_errors;		/* device header not for the frame */
	u64_stats_t gso;		/* frames of a segmentation offload */
};

/* Transmit-side counters of one queue, written under its lock. */
struct vjnet_tx_stats {
	struct u64_stats_sync syncp;
	u64_stats_t packets;
	u64_stats_t bytes;
	u64_stats_t dropped;
	u64_stats_t queue_stopped;
	u64_stats_t kicks;
};

struct vjnet_priv;

/*
 * One queue pair: receive queue 2 * index, transmit queue 2 * index + 1.
 * Its own cache lines: the NAPI poll of one pair writes nothing of
 * another's.
 */
struct vjnet_queue {
	struct vjnet_priv *vi;
	struct virtqueue *rvq;
	struct virtqueue *svq;
	struct napi_struct napi;
	unsigned int index;
	char rx_name[16];		/* "input.N", the virtqueue's */
	char tx_name[16];		/* "output.N" */
	/* The receive queue is being reset (vjnet_rx_switch()). */
	bool resetting;
	/* Buffers of dropped frames still to take back (rx.c), by the poll. */
	unsigned int rx_skip;
	/*
	 * The channel that owns this receive queue (direct receive), or
	 * NULL: changed under rtnl_lock with NAPI disabled and the queue
	 * reset.
	 */
	struct vj_direct *direct;
	/* Refill when the pool ran dry and the receive queue is empty. */
	struct delayed_work refill;
	struct vjnet_rx_stats rx_stats;
	struct vjnet_tx_stats tx_stats;
	/* NAPI poll scratch: the frames of one poll. */
	struct vj_gbuf *batch[NAPI_POLL_WEIGHT];
	/* start_xmit scratch, under the transmit queue's lock. */
	struct scatterlist tx_sg[VJNET_TX_SG];
} ____cacheline_aligned_in_smp;

/* VIRTIO_NET_CTRL_MQ_RSS_CONFIG as the device reads it. */
struct vjnet_rss_cmd {
	__le32 hash_types;
	__le16 table_mask;
	__le16 unclassified_queue;
	__le16 table[VJNET_RSS_TABLE_LEN];
	__le16 max_tx_vq;
	u8 key_len;
	u8 key[VJNET_RSS_KEY_LEN];
} __packed;

/* Control queue command buffers (kmalloc: the device reads them). */
struct vjnet_ctrl {
	struct virtio_net_ctrl_hdr hdr;
	virtio_net_ctrl_ack status;
	__virtio16 pairs;
	__virtio64 offloads;
	struct vjnet_rss_cmd rss;
};

struct vjnet_priv {
	struct virtio_device *vdev;
	struct net_device *dev;
	struct virtqueue *cvq;		/* NULL without VIRTIO_NET_F_CTRL_VQ */
	bool has_cvq;
	struct vjnet_ctrl *ctrl;
	/*
	 * Pairs the device has, those vjnet drives (at most VJNET_MAX_PAIRS,
	 * fewer for a small pool: vjnet_ctrl_init()) and those in use
	 * (ethtool -L): written under rtnl_lock, read by the NAPI polls
	 * (READ_ONCE).
	 */
	u16 dev_pairs;
	u16 max_pairs;
	u16 pairs;
	/*
	 * Global buffers each receive queue keeps posted, at most: together
	 * the pairs take at most half the pool.
	 */
	unsigned int rx_share;
	/* VIRTIO_NET_F_MRG_RXBUF: a frame may span several buffers. */
	bool mergeable;
	/* GUEST_TSO4/6 negotiated (off while a direct channel binds). */
	bool guest_tso;
	/* VIRTIO_NET_F_RSS: the device steers by rss_table (ctrl.c). */
	bool has_rss;
	u8 rss_key[VJNET_RSS_KEY_LEN];
	u16 rss_table[VJNET_RSS_TABLE_LEN];
	/* vjnet_reinit() failed: no queues; the device stays down. */
	bool broken;
	struct work_struct config_work;
	struct vjnet_queue *q;		/* max_pairs of them */
};

/* rx.c */
int vjnet_poll(struct napi_struct *napi, int budget);
void vjnet_rx_done(struct virtqueue *rvq);
void vjnet_refill_work(struct work_struct *work);
bool vjnet_rx_fill(struct vjnet_queue *q, gfp_t gfp);
void vjnet_rx_free_unused(struct vjnet_queue *q);
int vjnet_rx_switch(struct vjnet_queue *q, struct vj_direct *d);

/* tx.c */
netdev_tx_t vjnet_start_xmit(struct sk_buff *skb, struct net_device *dev);
void vjnet_tx_done(struct virtqueue *svq);
void vjnet_tx_reclaim(struct vjnet_queue *q, int budget);
bool vjnet_tx_rearm(struct vjnet_queue *q);
void vjnet_tx_free_unused(struct vjnet_queue *q);

/* ctrl.c */
int vjnet_ctrl_init(struct vjnet_priv *vi);
int vjnet_set_pairs(struct vjnet_priv *vi, u16 pairs);
int vjnet_steer(struct vjnet_priv *vi, u16 pairs, const struct vj_direct *d);
int vjnet_set_guest_tso(struct vjnet_priv *vi, bool on);
int vjnet_tso_wanted(struct vjnet_priv *vi);
int vjnet_set_features(struct net_device *dev, netdev_features_t features);

/* ethtool.c */
extern const struct ethtool_ops vjnet_ethtool_ops;
void vjnet_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *s);

#endif /* _VJNET_H */
