// SPDX-License-Identifier: GPL-2.0
/*
 * Global buffers.  A fixed set of VJ_GBUF_SIZE buffers is allocated at load
 * time; the free ones sit in a ptr_ring, whose producer and consumer locks
 * are separate, so a driver taking buffers on one CPU and a consumer
 * returning them on another do not contend.
 *
 * The ptr_ring has twice as many slots as there are buffers: its consumer
 * clears taken slots in batches, so up to a batch of slots that no longer
 * hold a buffer still read as occupied, and a ring of exactly nbufs slots
 * would refuse a put.
 *
 * Each buffer's memory is a page fragment of VJ_GBUF_TRUESIZE bytes laid out
 * as an skb head (headroom, data, room for skb_shared_info), so the default
 * channel can build an skb around it without a copy (default.c); the
 * vj_gbuf then gets a fresh fragment (vj_pool_set_head()).
 */

#include <linux/ptr_ring.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "vj_pool.h"
#include "vj_stats.h"
#include "vjchan_driver.h"

static struct vj_gbuf *pool_bufs;
static unsigned int pool_nbufs;
static struct ptr_ring pool_free_ring;
static atomic_t pool_out;	/* buffers handed out and not yet back */

int vj_pool_init(unsigned int nbufs)
{
	unsigned int i;
	int err;

	pool_bufs = kvcalloc(nbufs, sizeof(*pool_bufs), GFP_KERNEL);
	if (!pool_bufs)
		return -ENOMEM;
	err = ptr_ring_init(&pool_free_ring, 2 * nbufs, GFP_KERNEL);
	if (err)
		goto err_free_bufs;
	for (i = 0; i < nbufs; i++) {
		struct vj_gbuf *buf = &pool_bufs[i];

		void *head = netdev_alloc_frag(VJ_GBUF_TRUESIZE);

		if (!head) {
			err = -ENOMEM;
			goto err_free_data;
		}
		vj_pool_set_head(buf, head);
		buf->size = VJ_GBUF_SIZE;
		/* Nothing else can see the ring yet: no lock needed. */
		__ptr_ring_produce(&pool_free_ring, buf);
	}
	pool_nbufs = nbufs;
	return 0;

err_free_data:
	while (i--)
		skb_free_frag(pool_bufs[i].head);
	ptr_ring_cleanup(&pool_free_ring, NULL);
err_free_bufs:
	kvfree(pool_bufs);
	return err;
}

void vj_pool_exit(void)
{
	unsigned int i, free = vj_pool_free();

	/* Every buffer must be home by now; a missing one is a leak. */
	if (free != pool_nbufs)
		pr_err("pool: %u of %u buffers not returned\n",
		       pool_nbufs - free, pool_nbufs);
	ptr_ring_cleanup(&pool_free_ring, NULL);
	for (i = 0; i < pool_nbufs; i++)
		skb_free_frag(pool_bufs[i].head);
	kvfree(pool_bufs);
}

/* Give @buf the memory @head (VJ_GBUF_TRUESIZE bytes, a page fragment). */
void vj_pool_set_head(struct vj_gbuf *buf, void *head)
{
	buf->head = head;
	buf->data = head + VJ_GBUF_HEADROOM;
}

struct vj_gbuf *vj_pool_get(void)
{
	struct vj_gbuf *buf = ptr_ring_consume_bh(&pool_free_ring);

	if (buf)
		atomic_inc(&pool_out);
	else
		vj_count(VJ_CNT_POOL_EMPTY);
	return buf;
}

void vj_pool_put(struct vj_gbuf *buf)
{
	buf->dev = NULL;
	buf->len = 0;
	/* Cannot fail (see above); if it did, the buffer stays counted out. */
	atomic_dec(&pool_out);
	if (WARN_ON_ONCE(ptr_ring_produce_bh(&pool_free_ring, buf)))
		atomic_inc(&pool_out);
}

unsigned int vj_pool_size(void)
{
	return pool_nbufs;
}

unsigned int vj_pool_free(void)
{
	return pool_nbufs - atomic_read(&pool_out);
}
