// SPDX-License-Identifier: GPL-2.0
/*
 * vjnet receive, per queue pair: the receive queue holds vjchan global
 * buffers; the device writes a virtio_net_hdr_v1 into the buffer's headroom
 * and the frame at buf->data.  The header is read once, for the frame's
 * checksum state (GUEST_CSUM: verified, or left to complete), which goes
 * with the frame (struct vj_rx_csum).  The pair's NAPI poll takes completed
 * buffers, hands them to vjchan in one vj_napi_rx_batch() (bound channels
 * get theirs, the rest become skbs in this poll without a copy), reclaims
 * the pair's sent frames and refills its receive queue.
 *
 * Direct receive: while a channel owns a queue (q->direct), it holds that
 * channel's ring buffers instead, one scatterlist entry each (a buffer is
 * at most a page and within one), the header at offset 0 and the frame
 * behind it.  Their tokens are the buffer id shifted left with bit 0 set,
 * which no vj_gbuf pointer has.  Each completed one goes to
 * vj_direct_rx().  While user space holds every buffer, the queue gets up
 * to VJNET_SPILL global buffers instead, each back through
 * vj_direct_rx_spill(); only if the pool has none either is the queue
 * empty, and the poll runs again a jiffy later to repost what came back.
 */

#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
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
static int vjnet_rx_add(struct vjnet_queue *q, gfp_t gfp)
{
	struct vj_gbuf *buf = vj_gbuf_get(q->vi->dev);
	struct scatterlist sg;
	int err;

	BUILD_BUG_ON(VJNET_HDR_LEN > VJ_GBUF_HEADROOM);
	if (!buf)
		return -ENOMEM;
	sg_init_one(&sg, buf->data - VJNET_HDR_LEN, VJNET_HDR_LEN + buf->size);
	err = virtqueue_add_inbuf(q->rvq, &sg, 1, buf, gfp);
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
static int vjnet_rx_add_direct(struct vjnet_queue *q, gfp_t gfp)
{
	unsigned int off, size;
	struct scatterlist sg;
	struct page *page;
	int id, err;

	id = vj_direct_get(q->direct, &page, &off, &size);
	if (id < 0)
		return id;
	sg_init_table(&sg, 1);
	sg_set_page(&sg, page, size, off);
	err = virtqueue_add_inbuf(q->rvq, &sg, 1, vjnet_direct_token(id), gfp);
	if (err)
		vj_direct_put(q->direct, id);
	return err;
}

/* Buffers posted to the receive queue. */
static unsigned int vjnet_rx_posted(struct vjnet_queue *q)
{
	return virtqueue_get_vring_size(q->rvq) - q->rvq->num_free;
}

/*
 * QEMU's RSS in software takes a frame from the tap queue it arrived on and
 * puts it into the receive queue its hash names; if that queue has no
 * buffer, the frame waits on the tap queue it came from, which is read
 * again only when the driver notifies the receive queue of the same
 * index, and that queue, not being empty, has notifications off.  So a
 * queue that ran dry can stop another queue's traffic for good.  A device
 * that found a queue empty asks to be notified when it is refilled
 * (virtqueue_kick_prepare() says so); then vjnet notifies every other
 * receive queue in use too: one register write per queue, and only when
 * the device ran out of buffers.
 */
static void vjnet_rx_notify_others(struct vjnet_queue *q)
{
	struct vjnet_priv *vi = q->vi;
	unsigned int i;

	for (i = 0; i < READ_ONCE(vi->pairs); i++)
		if (i != q->index && !READ_ONCE(vi->q[i].resetting))
			virtqueue_notify(vi->q[i].rvq);
}

/*
 * Fill the receive queue.  Returns false if the pool (or the direct
 * channel) had no buffer with the queue empty: nothing will complete, so
 * someone must try again later.
 */
bool vjnet_rx_fill(struct vjnet_queue *q, gfp_t gfp)
{
	unsigned int added = 0, spill = 0;
	int err = 0;

	while (q->rvq->num_free) {
		if (!q->direct) {
			if (vjnet_rx_posted(q) >= q->vi->rx_share)
				break;
			err = vjnet_rx_add(q, gfp);
		} else {
			err = vjnet_rx_add_direct(q, gfp);
			/* The owner holds every buffer: keep the queue going. */
			if (err == -ENOBUFS && vjnet_rx_posted(q) < VJNET_SPILL) {
				err = vjnet_rx_add(q, gfp);
				if (!err)
					spill++;
			}
		}
		if (err)
			break;
		added++;
	}
	u64_stats_update_begin(&q->rx_stats.syncp);
	if (err == -ENOMEM)
		u64_stats_inc(&q->rx_stats.pool_empty);
	if (q->direct)
		u64_stats_add(&q->rx_stats.direct_posted, added - spill);
	u64_stats_add(&q->rx_stats.spill_posted, spill);
	u64_stats_update_end(&q->rx_stats.syncp);
	if (added && virtqueue_kick_prepare(q->rvq)) {
		virtqueue_notify(q->rvq);
		vjnet_rx_notify_others(q);
	}
	return vjnet_rx_posted(q);
}

void vjnet_refill_work(struct work_struct *work)
{
	struct vjnet_queue *q = container_of(to_delayed_work(work),
					     struct vjnet_queue, refill);

	/* The poll refills; it re-arms this work if the pool is still dry. */
	local_bh_disable();
	napi_schedule(&q->napi);
	local_bh_enable();
}

void vjnet_rx_done(struct virtqueue *rvq)
{
	struct vjnet_priv *vi = rvq->vdev->priv;

	virtqueue_disable_cb(rvq);
	napi_schedule(&vi->q[rvq->index / 2].napi);
}

/* What one poll counts of the frames' lengths and headers. */
struct vjnet_rx_count {
	u64 bytes;
	unsigned int length_errors;
	unsigned int hdr_errors;
	unsigned int csum_valid;
	unsigned int csum_partial;
	unsigned int gso;
};

/*
 * A posted buffer taken back unused, or of a frame that is dropped: to the
 * pool or the direct channel.
 */
static void vjnet_rx_recycle(struct virtqueue *rvq, void *token)
{
	struct vjnet_priv *vi = rvq->vdev->priv;
	struct vjnet_queue *q = &vi->q[rvq->index / 2];
	unsigned int id;

	if (!vjnet_token_is_direct(token, &id)) {
		vj_gbuf_put(token);
		return;
	}
	vj_direct_put(q->direct, id);
	u64_stats_update_begin(&q->rx_stats.syncp);
	u64_stats_inc(&q->rx_stats.direct_returned);
	u64_stats_update_end(&q->rx_stats.syncp);
}

/* What the device's header says of a frame (vjnet_rx_hdr()). */
struct vjnet_rx_hdr {
	struct vj_rx_csum csum;
	unsigned int num_buffers;	/* it spans (MRG_RXBUF), at least 1 */
	u16 gso_size;
	u32 gso_type;
};

/* Buffers a header copied to @h says its frame spans; 1 without MRG_RXBUF. */
static unsigned int vjnet_hdr_num_buffers(struct vjnet_queue *q,
					  const struct virtio_net_hdr_v1 *h)
{
	return q->vi->mergeable ? virtio16_to_cpu(q->vi->vdev, h->num_buffers) : 1;
}

/* Buffers to take back for the header at @p (at least 1), for skipping. */
static unsigned int vjnet_rx_hdr_bufs(struct vjnet_queue *q, const void *p)
{
	struct virtio_net_hdr_v1 h;

	memcpy(&h, p, sizeof(h));
	return max(vjnet_hdr_num_buffers(q, &h), 1U);
}

/*
 * The device's header in front of a frame whose first buffer holds @len
 * bytes of it, copied once from @p, into @rh.  Only a TCP segmentation
 * offload's frame (GUEST_TSO4/6, never on a direct queue; segments of at
 * most the MTU, the checksum to complete) spans several buffers, and only
 * such a frame may exceed the MTU.  False (counted) for a header that does
 * not describe the frame; rh->num_buffers (at least 1) still says how many
 * buffers to take back.
 */
static bool vjnet_rx_hdr(struct vjnet_queue *q, const void *p,
			 unsigned int len, struct vjnet_rx_hdr *rh,
			 struct vjnet_rx_count *cnt)
{
	struct virtio_device *vdev = q->vi->vdev;
	unsigned int nb, mtu = READ_ONCE(q->vi->dev->mtu);
	struct vj_rx_csum *c = &rh->csum;
	struct virtio_net_hdr_v1 h;

	memcpy(&h, p, sizeof(h));
	nb = vjnet_hdr_num_buffers(q, &h);
	rh->num_buffers = max(nb, 1U);
	rh->gso_size = 0;
	rh->gso_type = 0;
	c->state = VJ_CSUM_NONE;
	if (h.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		c->state = VJ_CSUM_PARTIAL;
		c->start = virtio16_to_cpu(vdev, h.csum_start);
		c->offset = virtio16_to_cpu(vdev, h.csum_offset);
	} else if (h.flags & VIRTIO_NET_HDR_F_DATA_VALID) {
		c->state = VJ_CSUM_VALID;
	}
	switch (h.gso_type & ~VIRTIO_NET_HDR_GSO_ECN) {
	case VIRTIO_NET_HDR_GSO_NONE:
		break;
	case VIRTIO_NET_HDR_GSO_TCPV4:
		rh->gso_type = SKB_GSO_TCPV4;
		break;
	case VIRTIO_NET_HDR_GSO_TCPV6:
		rh->gso_type = SKB_GSO_TCPV6;
		break;
	default:
		goto bad;
	}
	if (rh->gso_type) {
		rh->gso_size = virtio16_to_cpu(vdev, h.gso_size);
		/* Segments no larger than the MTU, checksum to complete. */
		if (!q->vi->guest_tso || q->direct || !rh->gso_size ||
		    rh->gso_size > mtu || c->state != VJ_CSUM_PARTIAL)
			goto bad;
		if (h.gso_type & VIRTIO_NET_HDR_GSO_ECN)
			rh->gso_type |= SKB_GSO_TCP_ECN;
	}
	if (!nb || (nb > 1 && !rh->gso_type) || !vj_csum_fits(c, len))
		goto bad;
	/* A frame the device was not to send: over the MTU, not segmented. */
	if (!rh->gso_type && len > mtu + ETH_HLEN + VLAN_HLEN) {
		cnt->length_errors++;
		return false;
	}
	cnt->csum_partial += c->state == VJ_CSUM_PARTIAL;
	cnt->csum_valid += c->state == VJ_CSUM_VALID;
	cnt->gso += !!rh->gso_type;
	return true;
bad:
	cnt->hdr_errors++;
	return false;
}

/*
 * Take back @n more buffers of dropped frames, now or as the device
 * completes them (q->rx_skip, vjnet_rx_skipped()): a continuation is never
 * read as a frame.  At most a queue's worth, whatever a header says.
 */
static void vjnet_rx_skip(struct vjnet_queue *q, unsigned int n)
{
	unsigned int len, ring = virtqueue_get_vring_size(q->rvq);
	void *token;

	q->rx_skip = min(q->rx_skip + min(n, ring), ring);
	while (q->rx_skip && (token = virtqueue_get_buf(q->rvq, &len))) {
		vjnet_rx_recycle(q->rvq, token);
		q->rx_skip--;
	}
}

/* Every completed buffer first: one of a dropped frame is taken back. */
static bool vjnet_rx_skipped(struct vjnet_queue *q, void *token)
{
	if (likely(!q->rx_skip))
		return false;
	vjnet_rx_recycle(q->rvq, token);
	q->rx_skip--;
	return true;
}

/*
 * The @n buffers behind @first (MRG_RXBUF): the device wrote them from the
 * start of what was posted, the header's place, so their data starts
 * VJNET_HDR_LEN before buf->data.  Chained on @first; false (all put back,
 * counted, the rest skipped) if the device has not completed that many or
 * a length is impossible.
 */
static bool vjnet_rx_more(struct vjnet_queue *q, struct vj_gbuf *first,
			  unsigned int n, struct vjnet_rx_count *cnt)
{
	struct vj_gbuf *last = first, *buf;
	unsigned int len;

	while (n) {
		buf = virtqueue_get_buf(q->rvq, &len);
		if (unlikely(!buf)) {
			/* Not completed yet: dropped when they are. */
			cnt->length_errors++;
			vjnet_rx_skip(q, n);
			goto err_put;
		}
		n--;
		if (unlikely(!len || len > VJNET_HDR_LEN + buf->size)) {
			cnt->length_errors++;
			vj_gbuf_put(buf);
			vjnet_rx_skip(q, n);
			goto err_put;
		}
		buf->data -= VJNET_HDR_LEN;
		buf->len = len;
		cnt->bytes += len;
		last->more = buf;
		last = buf;
	}
	return true;

err_put:
	vj_gbuf_put(first);
	return false;
}

/*
 * A global buffer came back with @len bytes written, the device's header
 * first: set buf->len, buf->csum and, for a frame across several buffers,
 * the chain behind it and its segmentation, and count the bytes; or put
 * every buffer of a frame whose length or header is impossible back and
 * return false.
 */
static bool vjnet_rx_gbuf(struct vjnet_queue *q, struct vj_gbuf *buf,
			  unsigned int len, struct vjnet_rx_count *cnt)
{
	struct vjnet_rx_hdr rh;

	if (unlikely(len < VJNET_HDR_LEN + ETH_HLEN ||
		     len > VJNET_HDR_LEN + buf->size)) {
		cnt->length_errors++;
		vjnet_rx_skip(q, len >= VJNET_HDR_LEN ?
			vjnet_rx_hdr_bufs(q, buf->data - VJNET_HDR_LEN) - 1 : 0);
		vj_gbuf_put(buf);
		return false;
	}
	buf->len = len - VJNET_HDR_LEN;
	if (!vjnet_rx_hdr(q, buf->data - VJNET_HDR_LEN, buf->len, &rh, cnt)) {
		vj_gbuf_put(buf);
		vjnet_rx_skip(q, rh.num_buffers - 1);
		return false;
	}
	buf->csum = rh.csum;
	buf->gso_size = rh.gso_size;
	buf->gso_type = rh.gso_type;
	cnt->bytes += buf->len;
	return rh.num_buffers == 1 ||
	       vjnet_rx_more(q, buf, rh.num_buffers - 1, cnt);
}

/* Take up to @budget completed buffers into q->batch. */
static unsigned int vjnet_rx_collect(struct vjnet_queue *q, int budget,
				     struct vjnet_rx_count *cnt)
{
	unsigned int n = 0, len;
	struct vj_gbuf *buf;

	while (n < budget && (buf = virtqueue_get_buf(q->rvq, &len))) {
		if (unlikely(vjnet_rx_skipped(q, buf)))
			continue;
		if (vjnet_rx_gbuf(q, buf, len, cnt))
			q->batch[n++] = buf;
	}
	return n;
}

/*
 * Direct receive: each completed channel buffer to vj_direct_rx(), each
 * spill buffer (a global one, posted while the owner had none free) to
 * vj_direct_rx_spill().
 */
static unsigned int vjnet_rx_direct(struct vjnet_queue *q, int budget,
				    struct vj_rx_result *res,
				    struct vjnet_rx_count *cnt,
				    unsigned int *spilled)
{
	unsigned int n = 0, len, id, returned = 0;
	struct vjnet_rx_hdr rh;
	void *token;

	while (n < budget && (token = virtqueue_get_buf(q->rvq, &len))) {
		if (unlikely(vjnet_rx_skipped(q, token)))
			continue;
		if (!vjnet_token_is_direct(token, &id)) {
			if (!vjnet_rx_gbuf(q, token, len, cnt))
				continue;
			(*spilled)++;
			vj_direct_rx_spill(q->direct, &q->napi, token, res);
			n++;
			continue;
		}
		returned++;
		if (unlikely(len < VJNET_HDR_LEN + ETH_HLEN)) {
			cnt->length_errors++;
			vjnet_rx_skip(q, len >= VJNET_HDR_LEN ?
				vjnet_rx_hdr_bufs(q, vj_direct_data(q->direct,
								    id)) - 1 :
				0);
			vj_direct_put(q->direct, id);
			continue;
		}
		len -= VJNET_HDR_LEN;
		if (!vjnet_rx_hdr(q, vj_direct_data(q->direct, id), len, &rh,
				  cnt)) {
			vj_direct_put(q->direct, id);
			vjnet_rx_skip(q, rh.num_buffers - 1);
			continue;
		}
		cnt->bytes += len;
		vj_direct_rx(q->direct, &q->napi, id, VJNET_HDR_LEN, len,
			     &rh.csum, res);
		n++;
	}
	if (n)
		vj_direct_rx_done(q->direct);
	u64_stats_update_begin(&q->rx_stats.syncp);
	u64_stats_add(&q->rx_stats.direct_returned, returned);
	u64_stats_update_end(&q->rx_stats.syncp);
	return n;
}

/*
 * Done with @n < budget: re-arm both queues' interrupts while this poll
 * still owns NAPI (the queues are not ours to touch once it is given up:
 * an interrupt may run the next poll on another CPU at once), then give it
 * up; whatever slipped in meanwhile runs another poll.  As virtio_net's
 * virtqueue_napi_complete(), for the two queues of a pair under one NAPI.
 */
static void vjnet_poll_complete(struct vjnet_queue *q, unsigned int n)
{
	unsigned int opaque = virtqueue_enable_cb_prepare(q->rvq);
	bool tx_more = !vjnet_tx_rearm(q);

	if (!napi_complete_done(&q->napi, n)) {
		/* Still ours (busy polling, or scheduled again). */
		virtqueue_disable_cb(q->rvq);
		return;
	}
	if ((tx_more || virtqueue_poll(q->rvq, opaque)) &&
	    napi_schedule_prep(&q->napi)) {
		virtqueue_disable_cb(q->rvq);
		__napi_schedule(&q->napi);
	}
}

int vjnet_poll(struct napi_struct *napi, int budget)
{
	struct vjnet_queue *q = container_of(napi, struct vjnet_queue, napi);
	struct vj_rx_result res = {};
	struct vjnet_rx_stats *st = &q->rx_stats;
	struct vjnet_rx_count cnt = {};
	unsigned int n = 0, spilled = 0;

	vjnet_tx_reclaim(q, budget);
	if (budget && q->direct) {
		n = vjnet_rx_direct(q, budget, &res, &cnt, &spilled);
		if (!vjnet_rx_fill(q, GFP_ATOMIC))
			schedule_delayed_work(&q->refill, 1);
	} else if (budget) {
		n = vjnet_rx_collect(q, min_t(int, budget, NAPI_POLL_WEIGHT),
				     &cnt);
		if (n)
			vj_napi_rx_batch(napi, q->batch, n, &res);
		if (!vjnet_rx_fill(q, GFP_ATOMIC))
			schedule_delayed_work(&q->refill, HZ / 10);
	}

	u64_stats_update_begin(&st->syncp);
	u64_stats_add(&st->packets, n);
	u64_stats_add(&st->bytes, cnt.bytes);
	u64_stats_add(&st->length_errors, cnt.length_errors);
	u64_stats_add(&st->hdr_errors, cnt.hdr_errors);
	u64_stats_add(&st->csum_valid, cnt.csum_valid);
	u64_stats_add(&st->csum_partial, cnt.csum_partial);
	u64_stats_add(&st->gso, cnt.gso);
	u64_stats_add(&st->channel, res.channel);
	u64_stats_add(&st->stack, res.stack);
	u64_stats_add(&st->stack_copied, res.stack_copied);
	u64_stats_add(&st->stack_bytes, res.stack_bytes);
	u64_stats_add(&st->dropped, res.dropped);
	u64_stats_add(&st->direct, res.direct);
	u64_stats_add(&st->spilled, spilled);
	u64_stats_inc(&st->polls);
	u64_stats_update_end(&st->syncp);

	if (n < budget)
		vjnet_poll_complete(q, n);
	return n;
}

/* Device reset: give every buffer still posted back to its owner. */
void vjnet_rx_free_unused(struct vjnet_queue *q)
{
	void *token;

	while ((token = virtqueue_detach_unused_buf(q->rvq)))
		vjnet_rx_recycle(q->rvq, token);
	q->rx_skip = 0;
}

/*
 * Give receive queue @q to @d (or back to global buffers, @d NULL): stop
 * its NAPI, take every posted buffer back with a reset of that queue alone
 * (VIRTIO_F_RING_RESET), switch, refill.  Under rtnl_lock, so open and stop
 * do not run meanwhile.
 */
int vjnet_rx_switch(struct vjnet_queue *q, struct vj_direct *d)
{
	bool running = netif_running(q->vi->dev);
	int err;

	ASSERT_RTNL();
	if (running)
		napi_disable(&q->napi);
	/*
	 * The other pairs' polls notify this queue (vjnet_rx_notify_others());
	 * none may while it is reset: they run in softirq context, so once
	 * synchronize_net() returns every one has seen the flag.
	 */
	WRITE_ONCE(q->resetting, true);
	synchronize_net();
	if (!d && READ_ONCE(vjnet_fail_rx_reset)) {	/* test hook */
		WRITE_ONCE(vjnet_fail_rx_reset, false);
		err = -EIO;
	} else {
		err = virtqueue_reset(q->rvq, vjnet_rx_recycle, NULL);
	}
	WRITE_ONCE(q->resetting, false);
	if (!err) {
		q->direct = d;
		q->rx_skip = 0;		/* every buffer was taken back */
	}
	if (running) {
		if (!vjnet_rx_fill(q, GFP_KERNEL))
			schedule_delayed_work(&q->refill, 1);
		napi_enable(&q->napi);
		local_bh_disable();
		napi_schedule(&q->napi);
		local_bh_enable();
	}
	return err;
}
