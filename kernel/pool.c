// SPDX-License-Identifier: GPL-2.0
/*
 * Global buffers.  A fixed set of VJ_GBUF_SIZE buffers is allocated at load
 * time; the free ones sit in a ptr_ring, whose producer and consumer locks
 * are separate, so a driver taking buffers on one CPU and a consumer
 * returning them on another do not contend.
 *
 * In front of the ring each CPU keeps a cache of free buffers, touched only
 * by that CPU with bottom halves off: a get takes from it and refills it
 * from the ring a batch at a time, a put returns to it and spills a batch
 * to the ring when it is full.  A driver that takes and a consumer that
 * returns on the same CPU never touch the ring's locks; on two CPUs each
 * lock is taken once per batch, not per buffer.  Buffers out are counted
 * per CPU too (gets minus puts on that CPU), summed by vj_pool_free().
 * The caches hold at most a quarter of the pool together
 * (pool_cache_max), so a CPU finds the ring empty while other CPUs'
 * caches still hold buffers only when three quarters are out; a pool too
 * small for two buffers per CPU's cache has no caches.
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

/* Most buffers a CPU's cache holds; it moves half of that at once. */
#define VJ_POOL_CACHE	64

struct vj_pool_cache {
	unsigned int n;			/* buffers in buf[] */
	int out;			/* gets minus puts on this CPU */
	struct vj_gbuf *buf[VJ_POOL_CACHE];
};

static struct vj_gbuf *pool_bufs;
static unsigned int pool_nbufs;
static unsigned int pool_cache_max;	/* 0: no caches */
static struct ptr_ring pool_free_ring;
static DEFINE_PER_CPU(struct vj_pool_cache, vj_pool_caches);

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
	pool_cache_max = min_t(unsigned int, VJ_POOL_CACHE,
			       nbufs / (4 * num_possible_cpus()));
	if (pool_cache_max < 2)
		pool_cache_max = 0;
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
	struct vj_pool_cache *c;
	struct vj_gbuf *buf;

	local_bh_disable();
	c = this_cpu_ptr(&vj_pool_caches);
	if (pool_cache_max) {
		if (!c->n)
			c->n = ptr_ring_consume_batched(&pool_free_ring,
							(void **)c->buf,
							pool_cache_max / 2);
		buf = c->n ? c->buf[--c->n] : NULL;
	} else {
		buf = ptr_ring_consume(&pool_free_ring);
	}
	if (buf)
		WRITE_ONCE(c->out, c->out + 1);
	local_bh_enable();
	if (!buf)
		vj_count(VJ_CNT_POOL_EMPTY);
	return buf;
}

/*
 * Move the cache's last @n buffers to the ring.  It has twice as many slots
 * as there are buffers, so a produce cannot fail; if one did, the buffers
 * not moved stay in the cache.
 */
static void vj_pool_spill(struct vj_pool_cache *c, unsigned int n)
{
	spin_lock(&pool_free_ring.producer_lock);
	while (n-- &&
	       !WARN_ON_ONCE(__ptr_ring_produce(&pool_free_ring,
						c->buf[c->n - 1])))
		c->n--;
	spin_unlock(&pool_free_ring.producer_lock);
}

void vj_pool_put(struct vj_gbuf *buf)
{
	struct vj_pool_cache *c;

	buf->dev = NULL;
	buf->len = 0;
	local_bh_disable();
	c = this_cpu_ptr(&vj_pool_caches);
	WRITE_ONCE(c->out, c->out - 1);
	if (pool_cache_max && c->n == pool_cache_max)
		vj_pool_spill(c, pool_cache_max / 2);
	if (pool_cache_max && c->n < pool_cache_max) {
		c->buf[c->n++] = buf;
	} else if (WARN_ON_ONCE(ptr_ring_produce(&pool_free_ring, buf))) {
		/* Cannot fail (see above); if it did, it stays counted out. */
		WRITE_ONCE(c->out, c->out + 1);
	}
	local_bh_enable();
}

unsigned int vj_pool_size(void)
{
	return pool_nbufs;
}

/* Buffers not out: in the ring or in a CPU's cache. */
unsigned int vj_pool_free(void)
{
	int cpu, out = 0;

	for_each_possible_cpu(cpu)
		out += READ_ONCE(per_cpu_ptr(&vj_pool_caches, cpu)->out);
	return pool_nbufs - out;
}
