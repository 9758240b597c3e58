// SPDX-License-Identifier: GPL-2.0
/*
 * vjnet receive: the receive queue holds vjchan global buffers; the device
 * writes a virtio_net_hdr_v1 into the buffer's headroom and the frame at
 * buf->data.  The NAPI poll takes completed buffers, hands them to vjchan in
 * one vj_napi_rx_batch() (bound channels get theirs, the rest become skbs in
 * this poll without a copy), reclaims sent frames and refills the queue.
 *
 * Direct receive: while a channel owns the queue (vi->direct), it holds that
 * channel's ring buffers instead, one scatterlist entry each (a buffer is
 * at most a page and within one), the header at offset 0 and the frame
 * behind it.  Their tokens are the buffer id shifted left with bit 0 set,
 * which no vj_gbuf pointer has.  Each completed one goes to
 * vj_direct_rx().  When user space holds every buffer, the queue is empty
 * and the poll runs again a jiffy later to repost what it handed back.
 */

#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/virtio.h>
#include <linux/virtio_config.h>

#include "vjnet.h"

/*
 * Test hook: the next receive-queue reset of a direct detach fails as if
 * the device had refused it (vjnet_reinit() then resets the device whole).
 */
static bool vjnet_fail_rx_reset;
module_param_named(fail_rx_reset, vjnet_fail_rx_reset, bool, 0644);
MODULE_PARM_DESC(fail_rx_reset, "test: fail the next direct detach's queue reset");

/* Post one global buffer: header in its headroom, then VJ_GBUF_SIZE. */
static int vjnet_rx_add(struct vjnet_priv *vi, gfp_t gfp)
{
	struct vj_gbuf *buf = vj_gbuf_get(vi->dev);
	struct scatterlist sg;
	int err;

	BUILD_BUG_ON(VJNET_HDR_LEN > VJ_GBUF_HEADROOM);
	if (!buf)
		return -ENOMEM;
	sg_init_one(&sg, buf->data - VJNET_HDR_LEN, VJNET_HDR_LEN + buf->size);
	err = virtqueue_add_inbuf(vi->rvq, &sg, 1, buf, gfp);
	if (err)
		vj_gbuf_put(buf);
	return err;
}

static void *vjnet_direct_token(unsigned int id)
{
	return (void *)(((unsigned long)id << 1) | 1);
}

static bool vjnet_token_is_direct(void *token, unsigned int *id)
{
	unsigned long t = (unsigned long)token;

	*id = t >> 1;
	return t & 1;
}

/* Post one buffer of the direct channel. */
static int vjnet_rx_add_direct(struct vjnet_priv *vi, gfp_t gfp)
{
	unsigned int off, size;
	struct scatterlist sg;
	struct page *page;
	int id, err;

	id = vj_direct_get(vi->direct, &page, &off, &size);
	if (id < 0)
		return id;
	sg_init_table(&sg, 1);
	sg_set_page(&sg, page, size, off);
	err = virtqueue_add_inbuf(vi->rvq, &sg, 1, vjnet_direct_token(id), gfp);
	if (err)
		vj_direct_put(vi->direct, id);
	return err;
}

/*
 * Fill the receive queue.  Returns false if the pool (or the direct
 * channel) had no buffer with the queue empty: nothing will complete, so
 * someone must try again later.
 */
bool vjnet_rx_fill(struct vjnet_priv *vi, gfp_t gfp)
{
	unsigned int added = 0;
	int err = 0;

	while (vi->rvq->num_free) {
		err = vi->direct ? vjnet_rx_add_direct(vi, gfp) : vjnet_rx_add(vi, gfp);
		if (err)
			break;
		added++;
	}
	u64_stats_update_begin(&vi->rx_stats.syncp);
	if (err == -ENOMEM)
		u64_stats_inc(&vi->rx_stats.pool_empty);
	if (vi->direct)
		u64_stats_add(&vi->rx_stats.direct_posted, added);
	u64_stats_update_end(&vi->rx_stats.syncp);
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
static unsigned int vjnet_rx_collect(struct vjnet_priv *vi, int budget,
				     u64 *bytes)
{
	unsigned int n = 0, len, bad = 0;
	struct vj_gbuf *buf;

	while (n < budget && (buf = virtqueue_get_buf(vi->rvq, &len))) {
		if (unlikely(len < VJNET_HDR_LEN + ETH_HLEN ||
			     len > VJNET_HDR_LEN + buf->size)) {
			bad++;
			vj_gbuf_put(buf);
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

/* Direct receive: each completed channel buffer to vj_direct_rx(). */
static unsigned int vjnet_rx_direct(struct vjnet_priv *vi, int budget,
				    struct vj_rx_result *res, u64 *bytes)
{
	unsigned int n = 0, len, id, bad = 0;
	void *token;

	while (n < budget && (token = virtqueue_get_buf(vi->rvq, &len))) {
		if (WARN_ON_ONCE(!vjnet_token_is_direct(token, &id))) {
			vj_gbuf_put(token);
			continue;
		}
		if (unlikely(len < VJNET_HDR_LEN + ETH_HLEN)) {
			bad++;
			vj_direct_put(vi->direct, id);
			continue;
		}
		*bytes += len - VJNET_HDR_LEN;
		vj_direct_rx(vi->direct, &vi->napi, id, VJNET_HDR_LEN,
			     len - VJNET_HDR_LEN, res);
		n++;
	}
	if (n)
		vj_direct_rx_done(vi->direct);
	u64_stats_update_begin(&vi->rx_stats.syncp);
	u64_stats_add(&vi->rx_stats.length_errors, bad);
	u64_stats_add(&vi->rx_stats.direct_returned, n + bad);
	u64_stats_update_end(&vi->rx_stats.syncp);
	return n;
}

/*
 * Done with @n < budget: re-arm both queues' interrupts while this poll
 * still owns NAPI (the queues are not ours to touch once it is given up:
 * an interrupt may run the next poll on another CPU at once), then give it
 * up; whatever slipped in meanwhile runs another poll.  As virtio_net's
 * virtqueue_napi_complete(), for two queues under one NAPI.
 */
static void vjnet_poll_complete(struct vjnet_priv *vi, unsigned int n)
{
	unsigned int opaque = virtqueue_enable_cb_prepare(vi->rvq);
	bool tx_more = !vjnet_tx_rearm(vi);

	if (!napi_complete_done(&vi->napi, n)) {
		/* Still ours (busy polling, or scheduled again). */
		virtqueue_disable_cb(vi->rvq);
		return;
	}
	if ((tx_more || virtqueue_poll(vi->rvq, opaque)) &&
	    napi_schedule_prep(&vi->napi)) {
		virtqueue_disable_cb(vi->rvq);
		__napi_schedule(&vi->napi);
	}
}

int vjnet_poll(struct napi_struct *napi, int budget)
{
	struct vjnet_priv *vi = container_of(napi, struct vjnet_priv, napi);
	struct vj_rx_result res = {};
	struct vjnet_rx_stats *st = &vi->rx_stats;
	unsigned int n = 0;
	u64 bytes = 0;

	vjnet_tx_reclaim(vi, budget);
	if (budget && vi->direct) {
		n = vjnet_rx_direct(vi, budget, &res, &bytes);
		if (!vjnet_rx_fill(vi, GFP_ATOMIC))
			schedule_delayed_work(&vi->refill, 1);
	} else if (budget) {
		n = vjnet_rx_collect(vi, min_t(int, budget, NAPI_POLL_WEIGHT),
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
	u64_stats_add(&st->direct, res.direct);
	u64_stats_inc(&st->polls);
	u64_stats_update_end(&st->syncp);

	if (n < budget)
		vjnet_poll_complete(vi, n);
	return n;
}

/* A posted buffer taken back unused: to the pool or the direct channel. */
static void vjnet_rx_recycle(struct virtqueue *rvq, void *token)
{
	struct vjnet_priv *vi = rvq->vdev->priv;
	unsigned int id;

	if (!vjnet_token_is_direct(token, &id)) {
		vj_gbuf_put(token);
		return;
	}
	vj_direct_put(vi->direct, id);
	u64_stats_update_begin(&vi->rx_stats.syncp);
	u64_stats_inc(&vi->rx_stats.direct_returned);
	u64_stats_update_end(&vi->rx_stats.syncp);
}

/* Device reset: give every buffer still posted back to its owner. */
void vjnet_rx_free_unused(struct vjnet_priv *vi)
{
	void *token;

	while ((token = virtqueue_detach_unused_buf(vi->rvq)))
		vjnet_rx_recycle(vi->rvq, token);
}

/*
 * Give the receive queue to @d (or back to global buffers, @d NULL): stop
 * NAPI, take every posted buffer back with a reset of the queue alone
 * (VIRTIO_F_RING_RESET), switch, refill.  Under rtnl_lock, so open and stop
 * do not run meanwhile.
 */
int vjnet_rx_switch(struct vjnet_priv *vi, struct vj_direct *d)
{
	bool running = netif_running(vi->dev);
	int err;

	ASSERT_RTNL();
	if (running)
		napi_disable(&vi->napi);
	if (!d && READ_ONCE(vjnet_fail_rx_reset)) {	/* test hook */
		WRITE_ONCE(vjnet_fail_rx_reset, false);
		err = -EIO;
	} else {
		err = virtqueue_reset(vi->rvq, vjnet_rx_recycle, NULL);
	}
	if (!err)
		vi->direct = d;
	if (running) {
		if (!vjnet_rx_fill(vi, GFP_KERNEL))
			schedule_delayed_work(&vi->refill, 1);
		napi_enable(&vi->napi);
		local_bh_disable();
		napi_schedule(&vi->napi);
		local_bh_enable();
	}
	return err;
}
