/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vjchan driver API: for NIC drivers that receive straight into channel
 * buffers.
 *
 * A driver takes a global buffer with vj_get_buffer(), has the device write
 * one Ethernet frame into buf->data (at most buf->size bytes), and hands it
 * over with vj_netif_rx(), or many at once with vj_netif_rx_batch() from its
 * NAPI poll.  vjchan classifies the frame: a frame of a bound channel is
 * queued on that channel (and copied into the channel's own, user-mapped
 * buffers when its consumer next polls); any other frame goes to the default
 * channel, which hands it to the normal stack as an skb on buf->dev.
 *
 * Context: softirq or process context; not hard interrupt context.
 * Ownership: every buffer taken with vj_get_buffer() must be passed to
 * exactly one of vj_netif_rx(), vj_netif_rx_batch() or vj_put_buffer().
 */
#ifndef _VJCHAN_DRIVER_H
#define _VJCHAN_DRIVER_H

#include <linux/llist.h>
#include <linux/netdevice.h>

/* Bytes of frame a global buffer holds. */
#define VJ_GBUF_SIZE	2048

/**
 * struct vj_buffer - a global receive buffer
 * @data: VJ_GBUF_SIZE bytes for one frame, starting with its Ethernet header
 * @size: capacity of @data
 * @len: frame length, set by the driver before vj_netif_rx_batch()
 * @dev: receiving device, set by vj_get_buffer()
 * @node: private to vjchan
 * @dev_tracker: private to vjchan
 */
struct vj_buffer {
	void *data;
	unsigned int size;
	unsigned int len;
	struct net_device *dev;
	struct llist_node node;
	netdevice_tracker dev_tracker;
};

struct vj_buffer *vj_get_buffer(struct net_device *dev);
void vj_put_buffer(struct vj_buffer *buf);
void vj_netif_rx(struct vj_buffer *buf, unsigned int len);
void vj_netif_rx_batch(struct vj_buffer **bufs, unsigned int n);

#endif /* _VJCHAN_DRIVER_H */
