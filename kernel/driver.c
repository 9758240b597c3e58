// SPDX-License-Identifier: GPL-2.0
/*
 * Driver API (vjchan_driver.h): global buffers for NIC drivers, and the
 * classification of the frames they receive into them.
 */

#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <net/sock.h>

#include "vj_chain.h"
#include "vj_classify.h"
#include "vj_csum.h"
#include "vj_flow.h"
#include "vj_pool.h"
#include "vj_ring_prod.h"
#include "vj_stack.h"
#include "vj_stats.h"
#include "vjchan_driver.h"

/**
 * vj_gbuf_get - take a global receive buffer for @dev
 * @dev: the device that will receive into it
 *
 * Return: a buffer of VJ_GBUF_SIZE bytes, or NULL when the pool is empty
 * (counted as pool_empty).
 */
struct vj_gbuf *vj_gbuf_get(struct net_device *dev)
{
	struct vj_gbuf *buf = vj_pool_get();

	if (buf) {
		vj_pool_set_head(buf, buf->head);	/* data where it belongs */
		buf->dev = dev;
		buf->len = 0;
		buf->csum.state = VJ_CSUM_NONE;
		buf->more = NULL;
		buf->gso_size = 0;
		buf->gso_type = 0;
	}
	return buf;
}
EXPORT_SYMBOL_GPL(vj_gbuf_get);

/**
 * vj_gbuf_total - the number of global buffers there are (pool_buffers)
 *
 * A driver that keeps buffers posted in several queues takes a share of
 * them, so that the other queues and drivers, and the frames waiting in
 * channels, still find some.
 */
unsigned int vj_gbuf_total(void)
{
	return vj_pool_size();
}
EXPORT_SYMBOL_GPL(vj_gbuf_total);

/**
 * vj_gbuf_put - return a buffer that received nothing, or a dropped frame
 * @buf: a buffer from vj_gbuf_get(); the buffers chained behind it
 *	 (buf->more) go back with it
 */
void vj_gbuf_put(struct vj_gbuf *buf)
{
	vj_chain_put(buf);
}
EXPORT_SYMBOL_GPL(vj_gbuf_put);

/*
 * A frame across several buffers: only from a NAPI poll, and only one
 * that vj_chain_check() accepts.
 */
static struct vj_flow_entry *vj_driver_rx_chain(struct vj_gbuf *buf,
						struct napi_struct *napi,
						struct vj_rx_result *res)
{
	unsigned int len;

	if (unlikely(!napi || !buf->dev || !vj_chain_check(buf, &len))) {
		net_warn_ratelimited("bad frame from driver: chained, len %u, gso %u/%#x, dev %s\n",
				     buf->len, buf->gso_size, buf->gso_type,
				     buf->dev ? netdev_name(buf->dev) : "none");
		vj_count(VJ_CNT_DRIVER_BAD);
		vj_chain_put(buf);
		if (res)
			res->dropped++;
		return NULL;
	}
	vj_chain_rx(napi, buf, len, res);
	return NULL;
}

/*
 * Classify one frame and queue it.  Returns the channel whose consumer must
 * be woken, or NULL.  Called under rcu_read_lock().  With @napi (and @res),
 * an unclaimed frame goes to the stack in this NAPI poll without a copy
 * (vj_stack_napi_rx()); without, to the stack queue's work item.
 */
static struct vj_flow_entry *vj_driver_rx_one(struct vj_gbuf *buf,
					      struct napi_struct *napi,
					      struct vj_rx_result *res)
{
	struct net_device *dev = buf->dev;
	struct vj_flow_entry *fe;
	__be16 proto;

	vj_count(VJ_CNT_DRIVER_RX);
	if (unlikely(buf->more || buf->gso_size))
		return vj_driver_rx_chain(buf, napi, res);
	if (unlikely(!dev || buf->len > buf->size || buf->len < ETH_HLEN ||
		     buf->data != buf->head + VJ_GBUF_HEADROOM ||
		     !vj_csum_fits(&buf->csum, buf->len))) {
		/* A driver bug: nothing sane to hand on. */
		net_warn_ratelimited("bad frame from driver: len %u, csum %u %u+%u, dev %s\n",
				     buf->len, buf->csum.state, buf->csum.start,
				     buf->csum.offset,
				     dev ? netdev_name(dev) : "none");
		vj_count(VJ_CNT_DRIVER_BAD);
		vj_pool_put(buf);
		if (res)
			res->dropped++;
		return NULL;
	}
	/* The whole frame is in the buffer: all of it may be read. */
	fe = vj_classify_frame(dev, buf->data, buf->len, buf->len, &proto);
	if (!fe)
		goto to_stack;
	switch (vj_ring_rx_gbuf(fe->ring, buf, ETH_HLEN, proto)) {
	case 0:
		break;
	case -ENOSPC:
		vj_count(VJ_CNT_DRIVER_DROPPED);
		vj_pool_put(buf);
		if (res)
			res->dropped++;
		return NULL;
	default:	/* dead channel: as if it were not there */
		goto to_stack;
	}
	vj_count(VJ_CNT_DRIVER_CLAIMED);
	if (res)
		res->channel++;
	return fe;

to_stack:
	if (napi)
		vj_stack_napi_rx(napi, buf, res);
	else
		vj_stack_rx(buf);
	return NULL;
}

/**
 * vj_netif_rx - receive one frame placed in a global buffer
 * @buf: a buffer from vj_gbuf_get(), holding one Ethernet frame
 * @len: length of the frame
 *
 * Consumes @buf: it goes to the channel of its flow, or to the default
 * channel and from there to the normal stack.
 */
void vj_netif_rx(struct vj_gbuf *buf, unsigned int len)
{
	struct vj_flow_entry *fe;

	buf->len = len;
	rcu_read_lock();
	fe = vj_driver_rx_one(buf, NULL, NULL);
	if (fe)
		fe->sk->sk_data_ready(fe->sk);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(vj_netif_rx);

/*
 * A consumer is woken once per run of frames for its channel rather than
 * once per frame.
 */
static void vj_driver_rx_batch(struct napi_struct *napi,
			       struct vj_gbuf **bufs, unsigned int n,
			       struct vj_rx_result *res)
{
	struct vj_flow_entry *pending = NULL, *fe;
	unsigned int i;

	rcu_read_lock();
	for (i = 0; i < n; i++) {
		fe = vj_driver_rx_one(bufs[i], napi, res);
		if (fe && pending && fe != pending)
			pending->sk->sk_data_ready(pending->sk);
		if (fe)
			pending = fe;
	}
	if (pending)
		pending->sk->sk_data_ready(pending->sk);
	rcu_read_unlock();
}

/**
 * vj_netif_rx_batch - receive many frames, as from one NAPI poll
 * @bufs: buffers from vj_gbuf_get(), each with ->len set
 * @n: number of buffers
 *
 * As vj_netif_rx() for each buffer, but a consumer is woken once per run
 * of frames for its channel rather than once per frame.
 */
void vj_netif_rx_batch(struct vj_gbuf **bufs, unsigned int n)
{
	vj_driver_rx_batch(NULL, bufs, n, NULL);
}
EXPORT_SYMBOL_GPL(vj_netif_rx_batch);

/**
 * vj_napi_rx_batch - receive many frames in the driver's own NAPI poll
 * @napi: the NAPI instance whose poll is running
 * @bufs: buffers from vj_gbuf_get(), each with ->len set
 * @n: number of buffers
 * @res: zeroed by the caller; counts what became of the frames
 *
 * As vj_netif_rx_batch(), but unclaimed frames go to the stack through
 * napi_gro_receive() on @napi in this call, in skbs built around the
 * buffers' memory (no copy).  Consumes every buffer.
 */
void vj_napi_rx_batch(struct napi_struct *napi, struct vj_gbuf **bufs,
		      unsigned int n, struct vj_rx_result *res)
{
	vj_driver_rx_batch(napi, bufs, n, res);
}
EXPORT_SYMBOL_GPL(vj_napi_rx_batch);
