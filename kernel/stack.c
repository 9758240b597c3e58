// SPDX-License-Identifier: GPL-2.0
/*
 * The stack queue: driver-API frames that no channel claims.  Its
 * consumer is a work item that turns each frame into an skb on the device it
 * arrived on and hands it to the normal stack with netif_receive_skb(), so
 * nothing is lost to a backlog limit.  The queue is unbounded but can never
 * hold more than the global pool, so it cannot overflow; only a failed skb
 * allocation loses a frame, and that is counted.
 *
 * Frames a driver hands over with vj_napi_rx_batch() take the other way,
 * vj_stack_napi_rx(): in the driver's NAPI poll, an skb is built around
 * the buffer's own memory and passed to napi_gro_receive(); the buffer gets
 * a fresh page fragment and goes back to the pool.  No copy, no work item.
 * Either way the skb carries the driver's checksum state (vj_csum_to_skb()).
 */

#include <linux/etherdevice.h>
#include <linux/llist.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>

#include "vj_csum.h"
#include "vj_pool.h"
#include "vj_stack.h"
#include "vj_stats.h"
#include "vjchan_driver.h"

/* Frames handed to the stack per bottom-half-disabled section. */
#define VJ_STACK_BATCH	64

static LLIST_HEAD(vj_stack_queue);
static void vj_stack_work_fn(struct work_struct *work);
static DECLARE_WORK(vj_stack_work, vj_stack_work_fn);

static void vj_stack_pass(struct vj_gbuf *buf)
{
	struct net_device *dev = buf->dev;
	struct sk_buff *skb;

	skb = netdev_alloc_skb_ip_align(dev, buf->len);
	if (!skb) {
		dev->stats.rx_dropped++;
		vj_count(VJ_CNT_DEFAULT_NOMEM);
		return;
	}
	skb_put_data(skb, buf->data, buf->len);
	if (unlikely(!vj_csum_to_skb(skb, &buf->csum))) {
		kfree_skb(skb);
		dev->stats.rx_dropped++;
		return;
	}
	skb->protocol = eth_type_trans(skb, dev);
	netif_receive_skb(skb);
	vj_count(VJ_CNT_DEFAULT_TO_STACK);
}

static void vj_stack_work_fn(struct work_struct *work)
{
	struct llist_node *list;
	struct vj_gbuf *buf, *next;
	unsigned int n = 0;

	list = llist_reverse_order(llist_del_all(&vj_stack_queue));
	local_bh_disable();
	llist_for_each_entry_safe(buf, next, list, node) {
		struct net_device *dev = buf->dev;

		vj_stack_pass(buf);
		netdev_put(dev, &buf->dev_tracker);
		vj_pool_put(buf);
		if (++n % VJ_STACK_BATCH == 0) {
			local_bh_enable();
			cond_resched();
			local_bh_disable();
		}
	}
	local_bh_enable();
}

/* Takes ownership of @buf; buf->dev is held until the stack has the frame. */
void vj_stack_rx(struct vj_gbuf *buf)
{
	vj_count(VJ_CNT_DEFAULT_RX);
	netdev_hold(buf->dev, &buf->dev_tracker, GFP_ATOMIC);
	if (llist_add(&buf->node, &vj_stack_queue))
		schedule_work(&vj_stack_work);
}

/*
 * NAPI context only: hand @buf's frame to the stack on buf->dev, in an skb
 * built around the buffer's memory, or in a copy when no fresh memory for
 * the buffer can be had.  Consumes @buf and accounts for it in @res.
 */
void vj_stack_napi_rx(struct napi_struct *napi, struct vj_gbuf *buf,
		      struct vj_rx_result *res)
{
	struct vj_rx_csum csum = buf->csum;
	struct net_device *dev = buf->dev;
	unsigned int len = buf->len;
	struct sk_buff *skb = NULL;
	void *fresh;

	vj_count(VJ_CNT_DEFAULT_RX);
	fresh = napi_alloc_frag(VJ_GBUF_TRUESIZE);
	if (likely(fresh)) {
		skb = napi_build_skb(buf->head, VJ_GBUF_TRUESIZE);
		if (likely(skb)) {
			skb_reserve(skb, VJ_GBUF_HEADROOM);
			skb_put(skb, len);
			vj_pool_set_head(buf, fresh);
			res->stack++;
			vj_count(VJ_CNT_DEFAULT_NOCOPY);
		} else {
			skb_free_frag(fresh);
		}
	}
	if (unlikely(!skb)) {
		skb = napi_alloc_skb(napi, len);
		if (!skb) {
			vj_pool_put(buf);
			res->dropped++;
			vj_count(VJ_CNT_DEFAULT_NOMEM);
			return;
		}
		skb_put_data(skb, buf->data, len);
		res->stack_copied++;
	}
	vj_pool_put(buf);
	if (unlikely(!vj_csum_to_skb(skb, &csum))) {
		/* Checked by the caller: cannot happen. */
		kfree_skb(skb);
		res->dropped++;
		return;
	}
	res->stack_bytes += len;
	skb->protocol = eth_type_trans(skb, dev);
	napi_gro_receive(napi, skb);
	vj_count(VJ_CNT_DEFAULT_TO_STACK);
}

/* Module exit: no driver can queue any more. */
void vj_stack_exit(void)
{
	flush_work(&vj_stack_work);
}
