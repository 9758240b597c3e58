// SPDX-License-Identifier: GPL-2.0
/*
 * Channel ring, the object: the geometry user space may ask for, the
 * charge of the pinned area, creation and destruction, the mapping and
 * the counters.  The protocol and its barriers are described once, in
 * vj_ring.h; the producer is in ring_prod.c, the kernel consumer in
 * ring_cons.c, direct receive in ring_direct.c and the global buffers a
 * ring holds in ring_gbuf.c.
 */

#include <linux/capability.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "vj_ring.h"
#include "vj_ring_gbuf.h"
#include "vj_ring_int.h"
#include "vj_stats.h"

static bool vj_ring_req_valid(const struct vj_ring_req *req)
{
	return req->entries >= VJ_RING_MIN_ENTRIES &&
	       req->entries <= VJ_RING_MAX_ENTRIES &&
	       is_power_of_2(req->entries) &&
	       req->buf_size >= VJ_BUF_MIN_SIZE &&
	       req->buf_size <= VJ_BUF_MAX_SIZE &&
	       is_power_of_2(req->buf_size) &&
	       !req->flags && !req->pad;
}

static size_t vj_ring_bufs_off(u32 entries)
{
	return PAGE_ALIGN(VJ_OFF_DESC + (size_t)entries * sizeof(struct vj_desc));
}

/* Returns 0 or -EINVAL: a geometry user space may ask for. */
int vj_ring_geometry_check(const struct vj_ring_req *req)
{
	size_t bytes;

	if (!vj_ring_req_valid(req))
		return -EINVAL;
	if (check_mul_overflow((size_t)req->entries, (size_t)req->buf_size,
			       &bytes) ||
	    check_add_overflow(bytes, vj_ring_bufs_off(req->entries), &bytes) ||
	    bytes > VJ_RING_MAX_BYTES)
		return -EINVAL;
	return 0;
}

/* @req must have passed vj_ring_geometry_check(). */
void vj_ring_offsets(const struct vj_ring_req *req, struct vj_mmap_offsets *off)
{
	memset(off, 0, sizeof(*off));
	off->producer = VJ_OFF_PRODUCER;
	off->flags = VJ_OFF_FLAGS;
	off->consumer = VJ_OFF_CONSUMER;
	off->desc = VJ_OFF_DESC;
	off->bufs = vj_ring_bufs_off(req->entries);
	off->size = PAGE_ALIGN(off->bufs + (size_t)req->entries * req->buf_size);
	off->entries = req->entries;
	off->buf_size = req->buf_size;
}

/* Charge the pinned area to RLIMIT_MEMLOCK, as AF_XDP charges its UMEM. */
static int vj_ring_charge(struct vj_ring *ring)
{
	unsigned long limit, old, new;
	unsigned long pages = ring->size >> PAGE_SHIFT;

	if (capable(CAP_IPC_LOCK))
		return 0;

	limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	ring->user = get_uid(current_user());
	do {
		old = atomic_long_read(&ring->user->locked_vm);
		new = old + pages;
		if (new < old || new > limit) {
			free_uid(ring->user);
			ring->user = NULL;
			return -ENOBUFS;
		}
	} while (atomic_long_cmpxchg(&ring->user->locked_vm, old, new) != old);
	ring->pinned_pages = pages;
	return 0;
}

static void vj_ring_uncharge(struct vj_ring *ring)
{
	if (!ring->user)
		return;
	atomic_long_sub(ring->pinned_pages, &ring->user->locked_vm);
	free_uid(ring->user);
}

/*
 * @net_gbufs counts the global buffers held by the channels of the ring's
 * network namespace; it must outlive the ring.
 */
struct vj_ring *vj_ring_create(const struct vj_ring_req *req,
			       atomic_t *net_gbufs)
{
	struct vj_mmap_offsets off;
	struct vj_ring *ring;
	int err;

	err = vj_ring_geometry_check(req);
	if (err)
		return ERR_PTR(err);
	vj_ring_offsets(req, &off);

	ring = kzalloc(sizeof(*ring), GFP_KERNEL_ACCOUNT);
	if (!ring)
		return ERR_PTR(-ENOMEM);
	ring->entries = req->entries;
	ring->mask = req->entries - 1;
	ring->buf_size = req->buf_size;
	ring->size = off.size;
	ring->bufs_off = off.bufs;
	ring->consumer_cpu = -1;
	vj_ring_gbuf_init(ring, net_gbufs);
	spin_lock_init(&ring->lock);

	err = vj_ring_charge(ring);
	if (err)
		goto err_free_ring;

	ring->slots = kvcalloc(ring->entries, sizeof(*ring->slots),
			       GFP_KERNEL_ACCOUNT);
	if (!ring->slots) {
		err = -ENOMEM;
		goto err_uncharge;
	}

	/*
	 * Charged to the memory cgroup of the creating task.  Past its
	 * memory.max the allocation fails with ENOMEM rather than invoking the
	 * cgroup's OOM killer (__GFP_RETRY_MAYFAIL), and quietly.
	 */
	ring->area = __vmalloc(ring->size, GFP_KERNEL_ACCOUNT | __GFP_ZERO |
			       __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
	if (!ring->area) {
		err = -ENOMEM;
		goto err_free_slots;
	}
	ring->producer = ring->area + off.producer;
	ring->flags = ring->area + off.flags;
	ring->consumer = ring->area + off.consumer;
	ring->desc = ring->area + off.desc;
	ring->bufs = ring->area + off.bufs;

	vj_stats_add_pinned(ring->size);
	return ring;

err_free_slots:
	kvfree(ring->slots);
err_uncharge:
	vj_ring_uncharge(ring);
err_free_ring:
	kfree(ring);
	return ERR_PTR(err);
}

/*
 * Called once no producer can reach the ring any more (after an RCU grace
 * period) and no mapping is left (the mapping holds the socket's file).
 * Global buffers still queued are returned to the pool, held datagrams
 * freed.
 */
void vj_ring_destroy(struct vj_ring *ring)
{
	u32 i;

	for (i = ring->pub; i != ring->prod; i++) {
		struct vj_slot *slot = &ring->slots[i & ring->mask];

		if (slot->gbuf)
			vj_ring_gbuf_release(ring, slot->gbuf);
	}
	/* Held datagrams, wherever the consumer left them. */
	for (i = 0; i < ring->entries; i++)
		if (ring->slots[i].skb)
			vj_ring_held_drop(ring, &ring->slots[i], false);
	vj_stats_add_pinned(-(long)ring->size);
	kvfree(ring->free_ids);
	vfree(ring->area);
	kvfree(ring->slots);
	vj_ring_uncharge(ring);
	kfree(ring);
}

/*
 * The parts of the area a mapping may ask for (the offset and length are
 * page multiples): the whole area at offset 0, the pages before the
 * buffers at offset 0, or the buffers alone at offset bufs.  Returns 0 or
 * -EINVAL.
 */
int vj_ring_mmap_check(const struct vj_mmap_offsets *off,
		       const struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;

	if (!vma->vm_pgoff)
		return len == off->size || len == off->bufs ? 0 : -EINVAL;
	if (vma->vm_pgoff == off->bufs >> PAGE_SHIFT &&
	    len == off->size - off->bufs)
		return 0;
	return -EINVAL;
}

/*
 * Map a part of the area (vj_ring_mmap_check()), page by page: it comes
 * from __vmalloc() (for the memory cgroup charge), not vmalloc_user(), so
 * remap_vmalloc_range() would refuse it.  As that would, the mapping
 * cannot grow and is left out of core dumps.
 *
 * User space never writes a direct ring's buffers: the kernel copies frames
 * for the stack out of them.  A mapping that covers them must not have
 * PROT_WRITE (-EACCES) and loses VM_MAYWRITE, so mprotect() cannot add it
 * (EACCES); being MAP_SHARED, it cannot be written through GUP with
 * FOLL_FORCE either (/proc/PID/mem, ptrace), nor by process_vm_writev().
 * A mapping of the buffers alone made without PROT_WRITE loses VM_MAYWRITE
 * on any ring, so it can be made before a direct bind.  Any other mapping
 * that covers the buffers marks the ring bufs_writable, and a ring so
 * marked cannot become direct (vj_ring_direct_init()).
 * Called with the owning socket's lock held.
 */
int vj_ring_mmap(struct vj_ring *ring, struct vm_area_struct *vma)
{
	struct vj_mmap_offsets off = {
		.bufs = ring->bufs_off,
		.size = ring->size,
	};
	unsigned long start, len, i;
	int err;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	err = vj_ring_mmap_check(&off, vma);
	if (err)
		return err;
	start = vma->vm_pgoff << PAGE_SHIFT;
	len = vma->vm_end - vma->vm_start;
	if (start + len > ring->bufs_off) {
		if (READ_ONCE(ring->direct) && (vma->vm_flags & VM_WRITE))
			return -EACCES;
		if (READ_ONCE(ring->direct) ||
		    (start == ring->bufs_off && !(vma->vm_flags & VM_WRITE)))
			vm_flags_clear(vma, VM_MAYWRITE);
		if (vma->vm_flags & VM_MAYWRITE)
			ring->bufs_writable = true;
	}
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (i = 0; i < len; i += PAGE_SIZE) {
		err = vm_insert_page(vma, vma->vm_start + i,
				     vmalloc_to_page(ring->area + start + i));
		if (err)
			return err;
	}
	return 0;
}

/* @n packets of this channel's flow were lost for want of room. */
void vj_ring_count_drops(struct vj_ring *ring, unsigned int n)
{
	spin_lock_bh(&ring->lock);
	ring->stats.rx_ring_full += n;
	spin_unlock_bh(&ring->lock);
}

/* A packet of this channel's flow was dropped for a bad checksum. */
void vj_ring_count_csum_bad(struct vj_ring *ring)
{
	spin_lock_bh(&ring->lock);
	ring->stats.rx_csum_bad++;
	spin_unlock_bh(&ring->lock);
}

void vj_ring_get_stats(struct vj_ring *ring, struct vj_statistics *st)
{
	spin_lock_bh(&ring->lock);
	*st = ring->stats;
	spin_unlock_bh(&ring->lock);
}
