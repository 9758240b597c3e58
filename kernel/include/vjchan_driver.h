/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vjchan driver API: for NIC drivers that receive straight into channel
 * buffers.
 *
 * A driver takes a global buffer with vj_gbuf_get(), has the device write
 * one Ethernet frame into buf->data (at most buf->size bytes), and hands it
 * over with vj_netif_rx(), or many at once with vj_netif_rx_batch() from its
 * NAPI poll.  vjchan classifies the frame: a frame of a bound channel is
 * queued on that channel (and copied into the channel's own, user-mapped
 * buffers when its consumer next polls); any other frame goes to the default
 * channel, which hands it to the normal stack as an skb on buf->dev.
 *
 * Two ways to hand frames over:
 *  - vj_netif_rx() / vj_netif_rx_batch(): unclaimed frames are copied into
 *    an skb by a work item (any softirq or process context caller).
 *  - vj_napi_rx_batch(): only from the driver's own NAPI poll.  Unclaimed
 *    frames become skbs in that same poll without a copy: the skb is built
 *    around the buffer's memory (napi_build_skb) and passed to
 *    napi_gro_receive(); the vj_gbuf gets fresh memory and goes back to
 *    the pool.  So buf->data of a returned buffer may differ from the one
 *    the driver posted; a driver must take the address again after
 *    vj_gbuf_get() and never keep it across a hand-over.
 *
 * Checksum offload: a driver whose device verifies the UDP/TCP checksum,
 * or leaves it for the receiver to complete (a virtual device passing on a
 * frame of its host's own stack), says so in buf->csum (struct
 * vj_rx_csum).  vjchan checks the values against the frame's length
 * (a frame whose values reach outside it is dropped and counted as a bad
 * frame), gives them to the stack as CHECKSUM_UNNECESSARY or
 * CHECKSUM_PARTIAL, and completes a partial checksum before a channel's
 * consumer sees the frame.
 *
 * Frames across several buffers (vj_napi_rx_batch() only): a device that
 * writes a large frame into several buffers (a segmentation offload's
 * frame of up to 64 KiB) hands the first over with buf->more naming the
 * next, and so on; the first holds all the headers, and buf->gso_size and
 * buf->gso_type (SKB_GSO_TCPV4 or SKB_GSO_TCPV6, with a partial checksum)
 * say how the frame is to be cut into wire frames.  A buffer behind the
 * first may hold its bytes from up to VJ_GBUF_HEADROOM bytes before
 * buf->data (a device that writes a header into the first buffer's
 * headroom writes the others' data from the same place): the driver then
 * moves buf->data back to where they start and counts buf->len from
 * there, at most buf->size plus the bytes moved.  The stack gets one skb
 * of all of them without a copy; a channel gets the wire frames, cut by
 * skb_gso_segment().
 *
 * Headroom: VJ_GBUF_HEADROOM bytes in front of buf->data belong to the
 * driver while it owns the buffer, e.g. for a device header that the device
 * writes just before the frame.  Their contents are not kept.
 *
 * Context: softirq or process context; not hard interrupt context.
 * Ownership: every buffer taken with vj_gbuf_get() must be passed to
 * exactly one of vj_netif_rx(), vj_netif_rx_batch() or vj_gbuf_put()
 * (vj_napi_rx_batch() and vj_gbuf_put() take the buffers chained behind
 * each, too).
 */
#ifndef _VJCHAN_DRIVER_H
#define _VJCHAN_DRIVER_H

#include <linux/llist.h>
#include <linux/netdevice.h>

/* Bytes of frame a global buffer holds. */
#define VJ_GBUF_SIZE	2048
/* Bytes in front of buf->data that the owning driver may use. */
#define VJ_GBUF_HEADROOM	NET_SKB_PAD

/* struct vj_rx_csum's state. */
enum vj_rx_csum_state {
	VJ_CSUM_NONE,		/* nothing known: the receiver verifies it */
	VJ_CSUM_VALID,		/* the device verified it */
	VJ_CSUM_PARTIAL,	/* to be completed, as CHECKSUM_PARTIAL */
};

/**
 * struct vj_rx_csum - what the device says of a frame's transport checksum
 * @state: enum vj_rx_csum_state
 * @start: VJ_CSUM_PARTIAL: where the checksummed bytes start, from the
 *	start of the frame (its Ethernet header); they run to its end
 * @offset: VJ_CSUM_PARTIAL: where the checksum field is, from @start; it
 *	holds the sum of the pseudo header only
 */
struct vj_rx_csum {
	u8 state;
	u16 start;
	u16 offset;
};

/**
 * struct vj_gbuf - a global receive buffer
 * @data: VJ_GBUF_SIZE bytes for one frame, starting with its Ethernet header
 * @size: capacity of @data
 * @len: frame length, set by the driver before vj_netif_rx_batch()
 * @dev: receiving device, set by vj_gbuf_get()
 * @csum: checksum state, VJ_CSUM_NONE from vj_gbuf_get(); the driver may
 *	set it with @len
 * @more: the next buffer of the same frame, NULL from vj_gbuf_get()
 * @gso_size: of a frame across several buffers: its wire frames' payload
 *	size, 0 from vj_gbuf_get()
 * @gso_type: SKB_GSO_TCPV4 or SKB_GSO_TCPV6 (with @gso_size), maybe with
 *	SKB_GSO_TCP_ECN; 0 from vj_gbuf_get()
 * @head: private to vjchan: start of the memory, VJ_GBUF_HEADROOM before @data
 * @node: private to vjchan
 * @dev_tracker: private to vjchan
 */
struct vj_gbuf {
	void *data;
	void *head;
	unsigned int size;
	unsigned int len;
	struct net_device *dev;
	struct vj_rx_csum csum;
	struct vj_gbuf *more;
	u16 gso_size;
	u32 gso_type;
	struct llist_node node;
	netdevice_tracker dev_tracker;
};

bool vj_csum_fits(const struct vj_rx_csum *c, unsigned int len);
struct vj_gbuf *vj_gbuf_get(struct net_device *dev);
void vj_gbuf_put(struct vj_gbuf *buf);
unsigned int vj_gbuf_total(void);
void vj_netif_rx(struct vj_gbuf *buf, unsigned int len);
void vj_netif_rx_batch(struct vj_gbuf **bufs, unsigned int n);

/**
 * struct vj_rx_result - what became of the frames of one vj_napi_rx_batch()
 * @channel: queued on a bound channel
 * @stack: handed to the stack in an skb built around the buffer
 * @stack_copied: handed to the stack in a copy (no memory to replace the
 *	buffer's own)
 * @dropped: lost: channel full, no skb, or a bad length
 * @direct: published in a direct channel's ring: written there by the
 *	device, without a copy (vj_direct_rx()), or copied there from a
 *	global buffer (vj_direct_rx_spill())
 * @stack_bytes: bytes of the frames in @stack and @stack_copied
 *
 * The caller zeroes it; vj_napi_rx_batch() adds to it.
 */
struct vj_rx_result {
	unsigned int channel;
	unsigned int stack;
	unsigned int stack_copied;
	unsigned int dropped;
	unsigned int direct;
	u64 stack_bytes;
};

void vj_napi_rx_batch(struct napi_struct *napi, struct vj_gbuf **bufs,
		      unsigned int n, struct vj_rx_result *res);

/*
 * Direct receive (VJ_BIND_F_DIRECT): a channel owns a device's receive
 * queue, and the driver posts the channel's own ring buffers to it.
 *
 * A driver offers it with vj_direct_register() (and withdraws it with
 * vj_direct_unregister() before unregister_netdev()).  When a channel binds
 * direct, ops->attach() must take back every buffer posted to the queue and
 * from then on post buffers from vj_direct_get() (and global ones only
 * while that has none, below); ops->detach() must take every one of those
 * back (vj_direct_put(), vj_gbuf_put()) and return to global buffers.
 * Both run under rtnl_lock; after detach() returns, the driver must not
 * touch the vj_direct again.
 *
 * In the NAPI poll, each completed buffer goes to vj_direct_rx() (a driver
 * whose device writes a header in front of the frame reads it at
 * vj_direct_data()), which
 * publishes a frame of the channel's flow in place or copies any other frame
 * into an skb for the stack, then vj_direct_rx_done() once per poll.
 * While vj_direct_get() has nothing (the owner holds every buffer), a
 * driver may post a few global buffers to the queue instead, so that the
 * queue never stops for the other flows it receives; each comes back
 * through vj_direct_rx_spill().
 * Buffers are at most a page and never cross a page boundary.
 * A driver with several receive queues gives the owner one of them and
 * steers the owner's flow there: vj_direct_flow() says which frames those
 * are, when the flow names one protocol (UDP or TCP), both addresses and
 * both ports, so that the device's receive hash of them is known.
 */
struct vj_direct;

struct vj_direct_ops {
	int (*attach)(struct net_device *dev, struct vj_direct *d);
	void (*detach)(struct net_device *dev, struct vj_direct *d);
};

/**
 * struct vj_direct_flow - the flow of a direct channel, for steering
 * @family: AF_INET or AF_INET6
 * @proto: IPPROTO_UDP or IPPROTO_TCP
 * @sport: source port of its frames
 * @dport: destination port of its frames
 * @saddr: source address of its frames (IPv4: the first 4 bytes)
 * @daddr: destination address of its frames (IPv4: the first 4 bytes)
 */
struct vj_direct_flow {
	u8 family;
	u8 proto;
	__be16 sport;
	__be16 dport;
	u8 saddr[16];
	u8 daddr[16];
};

int vj_direct_register(struct net_device *dev, const struct vj_direct_ops *ops);
int vj_direct_flow(const struct vj_direct *d, struct vj_direct_flow *f);
void vj_direct_unregister(struct net_device *dev);
int vj_direct_get(struct vj_direct *d, struct page **page,
		  unsigned int *offset, unsigned int *size);
void vj_direct_put(struct vj_direct *d, unsigned int id);
const void *vj_direct_data(const struct vj_direct *d, unsigned int id);
void vj_direct_rx(struct vj_direct *d, struct napi_struct *napi,
		  unsigned int id, unsigned int off, unsigned int len,
		  const struct vj_rx_csum *csum, struct vj_rx_result *res);
void vj_direct_rx_spill(struct vj_direct *d, struct napi_struct *napi,
			struct vj_gbuf *buf, struct vj_rx_result *res);
void vj_direct_rx_done(struct vj_direct *d);

#endif /* _VJCHAN_DRIVER_H */
