// SPDX-License-Identifier: GPL-2.0
/*
 * Frames across several global buffers: a device's receive segmentation
 * offload writes a TCP frame of up to 64 KiB into a chain of buffers
 * (buf->more), the first holding the headers (vjchan_driver.h).
 *
 * The chain is checked once (vj_chain_check()): every buffer's length
 * within it, not too many, and a segmentation type and size that the
 * stack takes, with a partial checksum inside the first buffer.  An skb
 * is then built around the buffers' memory without a copy, as
 * vj_stack_napi_rx() does for one: the first buffer's as the head, the
 * others' as page fragments (in further skbs on the frag_list beyond
 * MAX_SKB_FRAGS, as virtio_net does), each buffer getting fresh memory.
 * The stack gets the skb through GRO; a channel gets its wire frames, cut
 * by vj_deliver_gso() as for a GRO aggregate at the hook.
 */

#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "vj_chain.h"
#include "vj_classify.h"
#include "vj_csum.h"
#include "vj_deliver.h"
#include "vj_flow.h"
#include "vj_pool.h"
#include "vj_stats.h"
#include "vjchan_driver.h"

/* The longest frame a chain holds: Ethernet, IPv6 and 64 KiB of payload. */
#define VJ_CHAIN_MAX_LEN	(ETH_HLEN + sizeof(struct ipv6hdr) + 65535)
#define VJ_CHAIN_MAX		DIV_ROUND_UP(VJ_CHAIN_MAX_LEN, VJ_GBUF_SIZE)

/*
 * True if buffer @b's bytes lie in its memory: from buf->data, moved back
 * by at most VJ_GBUF_HEADROOM (only @moved: a buffer behind the first),
 * to the end of its data.
 */
static bool vj_chain_buf_ok(const struct vj_gbuf *b, bool moved)
{
	void *data = b->head + VJ_GBUF_HEADROOM;

	if (b->data == data)
		return b->len && b->len <= b->size;
	return moved && b->data >= b->head && b->data < data && b->len &&
	       b->len <= (data - b->data) + b->size;
}

/*
 * True if the chain at @buf is a frame the stack can take, its length in
 * *@len: each buffer holds 1..size bytes where it may (vj_chain_buf_ok()),
 * the first the Ethernet header and the checksum field; at most
 * VJ_CHAIN_MAX buffers, VJ_CHAIN_MAX_LEN bytes; a TCP segmentation type
 * and a size of at most the device's MTU, with a partial checksum.
 */
bool vj_chain_check(const struct vj_gbuf *buf, unsigned int *len)
{
	const struct vj_gbuf *b;
	unsigned int n = 0;
	u32 type = buf->gso_type & ~SKB_GSO_TCP_ECN;

	*len = 0;
	for (b = buf; b; b = b->more) {
		if (++n > VJ_CHAIN_MAX || !vj_chain_buf_ok(b, b != buf))
			return false;
		*len += b->len;
	}
	return *len <= VJ_CHAIN_MAX_LEN && buf->len >= ETH_HLEN &&
	       buf->gso_size && buf->gso_size <= READ_ONCE(buf->dev->mtu) &&
	       (type == SKB_GSO_TCPV4 ||
				 type == SKB_GSO_TCPV6) &&
	       buf->csum.state == VJ_CSUM_PARTIAL &&
	       vj_csum_fits(&buf->csum, buf->len);
}

/* Return every buffer of the chain at @buf to the pool. */
void vj_chain_put(struct vj_gbuf *buf)
{
	struct vj_gbuf *next;

	for (; buf; buf = next) {
		next = buf->more;
		vj_pool_put(buf);
	}
}

/* Give @buf's memory to @skb as fragment @i; false if no fresh memory. */
static bool vj_chain_add_frag(struct sk_buff *head, struct sk_buff *skb,
			      int i, struct vj_gbuf *buf)
{
	void *fresh = napi_alloc_frag(VJ_GBUF_TRUESIZE);
	struct page *page;

	if (!fresh)
		return false;
	page = virt_to_head_page(buf->data);
	skb_add_rx_frag(skb, i, page, buf->data - page_address(page),
			buf->len, VJ_GBUF_TRUESIZE);
	if (skb != head) {
		head->data_len += buf->len;
		head->len += buf->len;
		head->truesize += VJ_GBUF_TRUESIZE;
	}
	vj_pool_set_head(buf, fresh);
	return true;
}

/*
 * An skb around the memory of the chain at @first (checked), or NULL when
 * memory runs out.  Every buffer goes back to the pool either way.
 */
static struct sk_buff *vj_chain_skb(struct vj_gbuf *first)
{
	struct sk_buff *head, *curr, *nskb;
	struct vj_gbuf *buf, *next;
	void *fresh;
	int i = 0;

	fresh = napi_alloc_frag(VJ_GBUF_TRUESIZE);
	if (!fresh)
		goto err_put;
	head = napi_build_skb(first->head, VJ_GBUF_TRUESIZE);
	if (!head) {
		skb_free_frag(fresh);
		goto err_put;
	}
	skb_reserve(head, VJ_GBUF_HEADROOM);
	skb_put(head, first->len);
	vj_pool_set_head(first, fresh);
	buf = first->more;
	vj_pool_put(first);

	for (curr = head; buf; buf = next) {
		next = buf->more;
		if (i == MAX_SKB_FRAGS) {
			nskb = alloc_skb(0, GFP_ATOMIC);
			if (!nskb)
				goto err_free_skb;
			if (curr == head)
				skb_shinfo(head)->frag_list = nskb;
			else
				curr->next = nskb;
			head->truesize += nskb->truesize;
			curr = nskb;
			i = 0;
		}
		if (!vj_chain_add_frag(head, curr, i++, buf))
			goto err_free_skb;
		vj_pool_put(buf);
	}
	return head;

err_free_skb:
	kfree_skb(head);
	vj_chain_put(buf);
	return NULL;
err_put:
	vj_chain_put(first);
	return NULL;
}

/**
 * vj_chain_rx - a frame across the chain at @buf, in the driver's NAPI poll
 * @napi: the driver's NAPI instance
 * @buf: the first buffer, vj_chain_check() true with @len
 * @len: the frame's length
 * @res: counts what became of it
 *
 * Classified by the headers in the first buffer: a channel's frame is
 * cut into wire frames for its ring, any other goes to the stack.
 * Consumes the chain.
 *
 * A channel that got frames has been woken.
 */
void vj_chain_rx(struct napi_struct *napi, struct vj_gbuf *buf,
		 unsigned int len, struct vj_rx_result *res)
{
	struct vj_rx_csum csum = buf->csum;
	struct net_device *dev = buf->dev;
	u16 gso_size = buf->gso_size;
	u32 gso_type = buf->gso_type;
	struct vj_flow_entry *fe;
	struct sk_buff *skb;
	__be16 proto;

	fe = vj_classify_frame(dev, buf->data, buf->len, len, &proto);
	skb = vj_chain_skb(buf);
	if (!skb) {
		res->dropped++;
		vj_count(VJ_CNT_DEFAULT_NOMEM);
		return;
	}
	if (!vj_csum_to_skb(skb, &csum)) {	/* checked: cannot fail */
		kfree_skb(skb);
		res->dropped++;
		return;
	}
	skb_shinfo(skb)->gso_size = gso_size;
	skb_shinfo(skb)->gso_type = gso_type | SKB_GSO_DODGY;
	skb_shinfo(skb)->gso_segs = 0;
	skb->protocol = eth_type_trans(skb, dev);
	skb_reset_network_header(skb);
	if (fe && vj_deliver_gso(fe, skb, dev->ifindex)) {
		res->channel++;
		return;
	}
	res->stack++;
	res->stack_bytes += len;
	vj_count(VJ_CNT_DEFAULT_RX);
	vj_count(VJ_CNT_DEFAULT_TO_STACK);
	napi_gro_receive(napi, skb);
}
