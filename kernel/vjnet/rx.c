// SPDX-License-Identifier: GPL-2.0
/*
 * vjnet receive: the receive queue holds vjchan global buffers; the device
 * writes a virtio_net_hdr_v1 into the buffer's headroom and the frame at
 * buf->data.  The NAPI poll takes completed buffers, hands them to vjchan in
 * one vj_napi_rx_batch() (bound channels get theirs, the rest become skbs in
 * this poll without a copy), reclaims sent frames and refills the queue.
 */

#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/virtio.h>

#include "vjnet.h"

/* Post one global buffer: header in its headroom, then VJ_GBUF_SIZE. */
static int rx_add(struct vjnet_priv *vi, gfp_t gfp)
{
	struct vj_buffer *buf = vj_get_buffer(vi->dev);
	struct scatterlist sg;
	int err;

	BUILD_BUG_ON(VJNET_HDR_LEN > VJ_GBUF_HEADROOM);
	if (!buf)
		return -ENOMEM;
	sg_init_one(&sg, buf->data - VJNET_HDR_LEN, VJNET_HDR_LEN + buf->size);
	err = virtqueue_add_inbuf(vi->rvq, &sg, 1, buf, gfp);
	if (err)
		vj_put_buffer(buf);
	return err;
}

/*
 * Fill the receive queue.  Returns false if the pool ran dry with the queue
 * empty: nothing will complete, so someone must try again later.
 */
bool vjnet_rx_fill(struct vjnet_priv *vi, gfp_t gfp)
{
	unsigned int added = 0;
	int err = 0;

	while (vi->rvq->num_free) {
		err = rx_add(vi, gfp);
		if (err)
			break;
		added++;
	}
	if (err == -ENOMEM) {
		u64_stats_update_begin(&vi->rx_stats.syncp);
		u64_stats_inc(&vi->rx_stats.pool_empty);
		u64_stats_update_end(&vi->rx_stats.syncp);
	}
	if (added)
		virtqueue_kick(vi->rvq);
	return virtqueue_get_vring_size(vi->rvq) != vi->rvq->num_free;
}

void vjnet_refill_work(struct work_struct *work)
{
	struct vjnet_priv *vi = container_of(to_delayed_work(work),
					     struct vjnet_priv, refill);

	/* The poll refills; it re-arms this work if the pool is still dry. */
	local_bh_disable();
	napi_schedule(&vi->napi);
	local_bh_enable();
}

void vjnet_rx_done(struct virtqueue *rvq)
{
	struct vjnet_priv *vi = rvq->vdev->priv;

	virtqueue_disable_cb(rvq);
	napi_schedule(&vi->napi);
}

/* Take up to @budget completed buffers into vi->batch; counts bad ones. */
static unsigned int rx_collect(struct vjnet_priv *vi, int budget,
			       u64 *bytes)
{
	unsigned int n = 0, len, bad = 0;
	struct vj_buffer *buf;

	while (n < budget && (buf = virtqueue_get_buf(vi->rvq, &len))) {
		if (unlikely(len < VJNET_HDR_LEN + ETH_HLEN ||
			     len > VJNET_HDR_LEN + buf->size)) {
			bad++;
			vj_put_buffer(buf);
			continue;
		}
		buf->len = len - VJNET_HDR_LEN;
		*bytes += buf->len;
		vi->batch[n++] = buf;
	}
	if (bad) {
		u64_stats_update_begin(&vi->rx_stats.syncp);
		u64_stats_add(&vi->rx_stats.length_errors, bad);
		u64_stats_update_end(&vi->rx_stats.syncp);
	}
	return n;
}

int vjnet_poll(struct napi_struct *napi, int budget)
{
	struct vjnet_priv *vi = container_of(napi, struct vjnet_priv, napi);
	struct vj_rx_result res = {};
	struct vjnet_rx_stats *st = &vi->rx_stats;
	unsigned int n = 0;
	u64 bytes = 0;

	vjnet_tx_reclaim(vi, budget);
	if (budget) {
		n = rx_collect(vi, min_t(int, budget, NAPI_POLL_WEIGHT),
			       &bytes);
		if (n)
			vj_napi_rx_batch(napi, vi->batch, n, &res);
		if (!vjnet_rx_fill(vi, GFP_ATOMIC))
			schedule_delayed_work(&vi->refill, HZ / 10);
	}

	u64_stats_update_begin(&st->syncp);
	u64_stats_add(&st->packets, n);
	u64_stats_add(&st->bytes, bytes);
	u64_stats_add(&st->channel, res.channel);
	u64_stats_add(&st->stack, res.stack);
	u64_stats_add(&st->stack_copied, res.stack_copied);
	u64_stats_add(&st->stack_bytes, res.stack_bytes);
	u64_stats_add(&st->dropped, res.dropped);
	u64_stats_inc(&st->polls);
	u64_stats_update_end(&st->syncp);

	if (n < budget && napi_complete_done(napi, n)) {
		/* Re-arm both; anything that slipped in runs another poll. */
		bool more = !virtqueue_enable_cb(vi->rvq);

		more |= !vjnet_tx_rearm(vi);
		if (more && napi_schedule_prep(napi)) {
			virtqueue_disable_cb(vi->rvq);
			__napi_schedule(napi);
		}
	}
	return n;
}

/* Device reset: give every buffer still posted back to the pool. */
void vjnet_rx_free_unused(struct vjnet_priv *vi)
{
	struct vj_buffer *buf;

	while ((buf = virtqueue_detach_unused_buf(vi->rvq)))
		vj_put_buffer(buf);
}
