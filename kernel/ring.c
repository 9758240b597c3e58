// SPDX-License-Identifier: GPL-2.0
/*
 * Channel ring: creation, mapping, the kernel producer and the copy of
 * global buffers in the consumer's context.  The protocol and its barriers
 * are described once, in vj_ring.h; each barrier below carries its label.
 */

#include <linux/capability.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/checksum.h>
#include <net/xdp.h>

#include "vj_ring.h"
#include "vj_pool.h"
#include "vj_stats.h"
#include "vjchan_driver.h"

/* Slots copied per hold of the producer lock in vj_ring_flush(). */
#define VJ_FLUSH_CHUNK	64

/*
 * Global buffers that channels may hold until their consumers poll, as
 * fractions of the pool: one channel an eighth, the channels of one network
 * namespace together a quarter, all channels together half.  The other half
 * stays for frames on their way to the stack and for the drivers' own
 * refills, whatever consumers do.
 */
#define VJ_GBUF_CHAN_DIV	8
#define VJ_GBUF_NET_DIV		4
#define VJ_GBUF_ALL_DIV		2

/* Global buffers held by all channels. */
static atomic_t vj_ring_gbufs = ATOMIC_INIT(0);

static unsigned int vj_gbuf_limit(unsigned int div)
{
	return max(vj_pool_size() / div, 1U);
}

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
	/* A channel that does not poll must not sit on the pool. */
	ring->gbuf_cap = min(vj_gbuf_limit(VJ_GBUF_CHAN_DIV), ring->entries);
	ring->net_gbufs = net_gbufs;
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

/* A global buffer held by @ring goes back to the pool. */
static void vj_ring_gbuf_release(struct vj_ring *ring, struct vj_buffer *gbuf)
{
	vj_pool_put(gbuf);
	atomic_dec(ring->net_gbufs);
	atomic_dec(&vj_ring_gbufs);
}

/*
 * Called once no producer can reach the ring any more (after an RCU grace
 * period) and no mapping is left (the mapping holds the socket's file).
 * Global buffers still queued are returned to the pool.
 */
void vj_ring_destroy(struct vj_ring *ring)
{
	u32 i;

	for (i = ring->pub; i != ring->prod; i++) {
		struct vj_slot *slot = &ring->slots[i & ring->mask];

		if (slot->gbuf)
			vj_ring_gbuf_release(ring, slot->gbuf);
	}
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

/*
 * Read the consumer index once and accept it only if it lies in
 * [ring->cons, ring->pub]: user space may hand back only what it was given.
 * Anything else is counted and ignored, as if the consumer had not moved.
 * Called with ring->lock held.
 */
static void vj_ring_sync_cons(struct vj_ring *ring)
{
	u32 cons = smp_load_acquire(ring->consumer); /* A, matches D */

	if (cons - ring->cons <= ring->pub - ring->cons)
		WRITE_ONCE(ring->cons, cons);
	else
		ring->stats.rx_invalid_cons++;
}

/* Returns the slot to fill, or NULL with the drop counted. */
static struct vj_slot *vj_ring_reserve(struct vj_ring *ring)
{
	if (ring->prod - ring->cons >= ring->entries) {
		vj_ring_sync_cons(ring);
		if (ring->prod - ring->cons >= ring->entries) {
			ring->stats.rx_ring_full++;
			return NULL;
		}
	}
	return &ring->slots[ring->prod & ring->mask];
}

static void vj_desc_publish(struct vj_desc *shared, const struct vj_desc *d)
{
	WRITE_ONCE(shared->buf, d->buf);
	WRITE_ONCE(shared->off, d->off);
	WRITE_ONCE(shared->len, d->len);
	WRITE_ONCE(shared->ifindex, d->ifindex);
	WRITE_ONCE(shared->l3_off, d->l3_off);
	WRITE_ONCE(shared->proto, d->proto);
	WRITE_ONCE(shared->flags, d->flags);
	WRITE_ONCE(shared->tstamp, d->tstamp);
}

/* Publish [pub, prod); only when no slot in it waits for a copy. */
static void vj_ring_publish(struct vj_ring *ring)
{
	u32 i;

	for (i = ring->pub; i != ring->prod; i++) {
		u32 slot = i & ring->mask;

		vj_desc_publish(&ring->desc[slot], &ring->slots[slot].desc);
	}
	WRITE_ONCE(ring->pub, ring->prod);
	smp_store_release(ring->producer, ring->pub); /* B, matches C */
}

static void vj_ring_account(struct vj_ring *ring, const struct vj_desc *d)
{
	ring->stats.rx_packets++;
	ring->stats.rx_bytes += d->len;
	if (d->flags & VJ_DESC_F_TRUNC)
		ring->stats.rx_truncated++;
	if (d->flags & VJ_DESC_F_DIRECT)
		ring->stats.rx_direct++;
	if (d->flags & VJ_DESC_F_DRIVER)
		ring->stats.rx_driver++;
	else if (d->flags & VJ_DESC_F_XDP)
		ring->stats.rx_xdp++;
	else if (d->flags & VJ_DESC_F_FILTERED)
		ring->stats.rx_filtered++;
	else
		ring->stats.rx_hook++;
}

/*
 * Reserve the next slot, with ring->lock held.  Returns the slot, or
 * ERR_PTR(-ENOSPC) when the ring is full (the drop is counted) and
 * ERR_PTR(-ENODEV) once the ring is dead.
 */
static struct vj_slot *vj_ring_reserve_slot(struct vj_ring *ring)
{
	struct vj_slot *slot;

	if (unlikely(ring->dead))
		return ERR_PTR(-ENODEV);
	slot = vj_ring_reserve(ring);
	return slot ?: ERR_PTR(-ENOSPC);
}

/*
 * vj_ring_reserve_slot() for a producer that copies into the slot's own
 * buffer.  A direct ring's buffers belong to the device, and only
 * vj_ring_direct_publish() produces into it: to the others it is as if
 * dead.
 */
static struct vj_slot *vj_ring_reserve_copy(struct vj_ring *ring)
{
	if (unlikely(ring->direct))
		return ERR_PTR(-ENODEV);
	return vj_ring_reserve_slot(ring);
}

/*
 * Describe the packet in the slot being produced, @stored of its @len bytes
 * being in the buffer, and count it.  Called with ring->lock held.
 */
static void vj_ring_produce(struct vj_ring *ring, struct vj_desc *d,
			    unsigned int len, unsigned int stored, int ifindex,
			    u16 l3_off, __be16 proto, u32 flags)
{
	d->buf = ring->prod & ring->mask;
	d->off = 0;
	d->len = stored;
	d->ifindex = ifindex;
	d->l3_off = l3_off;
	d->proto = proto;
	d->flags = flags | (stored < len ? VJ_DESC_F_TRUNC : 0);
	d->tstamp = ktime_get_ns();
	vj_ring_account(ring, d);
	ring->prod++;
}

/*
 * A packet whose transport checksum is left to hardware (CHECKSUM_PARTIAL:
 * local traffic on lo and veth, virtio's NEEDS_CSUM) carries only the
 * pseudo-header sum; complete it in the copy, as skb_checksum_help() would.
 */
static void vj_ring_fix_partial_csum(const struct sk_buff *skb, u8 *dst,
				     unsigned int l2, unsigned int copy)
{
	int start = skb_checksum_start_offset(skb);
	unsigned int at;
	__sum16 sum;

	if (start < 0 || start >= skb->len)
		return;
	at = l2 + start + skb->csum_offset;
	if (at + sizeof(sum) > copy)
		return;
	sum = csum_fold(skb_checksum(skb, start, skb->len - start, 0));
	if (!sum)
		sum = CSUM_MANGLED_0;
	memcpy(dst + at, &sum, sizeof(sum));
}

/*
 * Copy one skb into the ring.  skb->data is at the network header; the @l2
 * bytes of link header at @mac (none if @l2 is 0) are copied in front of
 * it.  @path is the VJ_DESC_F_* bit of the receive path.  Returns 0,
 * -ENOSPC if the ring was full (the drop is counted) or -ENODEV if the
 * ring is dead.
 */
int vj_ring_rx_skb(struct vj_ring *ring, const struct sk_buff *skb,
		   const u8 *mac, unsigned int l2, int ifindex, u32 path)
{
	unsigned int len, copy;
	struct vj_slot *slot;
	u8 *dst;

	len = l2 + skb->len;
	spin_lock_bh(&ring->lock);
	slot = vj_ring_reserve_copy(ring);
	if (IS_ERR(slot)) {
		spin_unlock_bh(&ring->lock);
		return PTR_ERR(slot);
	}
	dst = ring->bufs + (size_t)(ring->prod & ring->mask) * ring->buf_size;
	copy = min(len, ring->buf_size);
	if (l2)
		memcpy(dst, mac, l2);
	if (skb_copy_bits(skb, 0, dst + l2, copy - l2))
		copy = l2; /* cannot happen: skb->len bytes are there */
	if (skb->ip_summed == CHECKSUM_PARTIAL)
		vj_ring_fix_partial_csum(skb, dst, l2, copy);
	vj_ring_produce(ring, &slot->desc, len, copy, ifindex, l2,
			skb->protocol, path | (l2 ? VJ_DESC_F_L2 : 0));
	if (!ring->npending)
		vj_ring_publish(ring);
	spin_unlock_bh(&ring->lock);
	return 0;
}

/*
 * Copy one XDP frame, linear part and fragments, into the ring with its
 * Ethernet header (VJ_DESC_F_XDP | VJ_DESC_F_L2, l3_off ETH_HLEN).  As
 * much as fits in a buffer is copied; the rest is cut off (VJ_DESC_F_TRUNC).
 * Returns 0, -ENOSPC if the ring was full (the drop is counted) or -ENODEV
 * if the ring is dead.
 */
int vj_ring_rx_xdp(struct vj_ring *ring, const struct xdp_buff *xdp,
		   int ifindex, __be16 proto)
{
	unsigned int head = xdp->data_end - xdp->data;
	unsigned int len = xdp_get_buff_len(xdp);
	unsigned int copy, done, i;
	struct vj_slot *slot;
	u8 *dst;

	spin_lock_bh(&ring->lock);
	slot = vj_ring_reserve_copy(ring);
	if (IS_ERR(slot)) {
		spin_unlock_bh(&ring->lock);
		return PTR_ERR(slot);
	}
	dst = ring->bufs + (size_t)(ring->prod & ring->mask) * ring->buf_size;
	copy = min(len, ring->buf_size);
	done = min(head, copy);
	memcpy(dst, xdp->data, done);
	if (unlikely(xdp_buff_has_frags(xdp))) {
		const struct skb_shared_info *sinfo =
			xdp_get_shared_info_from_buff(xdp);

		for (i = 0; i < sinfo->nr_frags && done < copy; i++) {
			const skb_frag_t *frag = &sinfo->frags[i];
			unsigned int n = min(skb_frag_size(frag), copy - done);

			memcpy(dst + done, skb_frag_address(frag), n);
			done += n;
		}
	}
	vj_ring_produce(ring, &slot->desc, len, done, ifindex, ETH_HLEN, proto,
			VJ_DESC_F_XDP | VJ_DESC_F_L2);
	if (!ring->npending)
		vj_ring_publish(ring);
	spin_unlock_bh(&ring->lock);
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

/*
 * Take one more global buffer for @ring, within the limits of the channel,
 * its namespace and all channels (VJ_GBUF_*_DIV).  Returns false, the
 * refusal counted as rx_ring_full and driver_capped, if one is reached.
 * Called with ring->lock held.
 */
static bool vj_ring_gbuf_charge(struct vj_ring *ring)
{
	if (ring->npending >= ring->gbuf_cap)
		goto refuse;
	if (atomic_inc_return(ring->net_gbufs) > vj_gbuf_limit(VJ_GBUF_NET_DIV))
		goto undo_net;
	if (atomic_inc_return(&vj_ring_gbufs) > vj_gbuf_limit(VJ_GBUF_ALL_DIV))
		goto undo_all;
	return true;

undo_all:
	atomic_dec(&vj_ring_gbufs);
undo_net:
	atomic_dec(ring->net_gbufs);
refuse:
	ring->stats.rx_ring_full++;
	vj_count(VJ_CNT_DRIVER_CAPPED);
	return false;
}

/*
 * Queue a global buffer from the driver API.  It is not visible to user
 * space (which cannot map global buffers) until the consumer's next poll
 * copies it into the slot's own buffer: see vj_ring_flush().  The buffers
 * held this way are bounded per channel, per namespace and in all (see
 * VJ_GBUF_*_DIV); beyond a bound, frames are dropped as for a full ring.
 * Returns 0, -ENOSPC (ring full or a bound reached, counted) or -ENODEV
 * (ring dead); on error the caller still owns @gbuf.
 */
int vj_ring_rx_gbuf(struct vj_ring *ring, struct vj_buffer *gbuf,
		    u16 l3_off, __be16 proto)
{
	struct vj_slot *slot;

	spin_lock_bh(&ring->lock);
	slot = vj_ring_reserve_copy(ring);
	if (!IS_ERR(slot) && !vj_ring_gbuf_charge(ring))
		slot = ERR_PTR(-ENOSPC);
	if (IS_ERR(slot)) {
		spin_unlock_bh(&ring->lock);
		return PTR_ERR(slot);
	}
	slot->gbuf = gbuf;
	vj_ring_produce(ring, &slot->desc, gbuf->len,
			min(gbuf->len, ring->buf_size), gbuf->dev->ifindex,
			l3_off, proto, VJ_DESC_F_L2 | VJ_DESC_F_DRIVER);
	WRITE_ONCE(ring->npending, ring->npending + 1);
	spin_unlock_bh(&ring->lock);
	return 0;
}

/*
 * Consumer context (poll): copy queued global buffers into the channel's own
 * buffers, return them to the pool and publish everything in order.  The
 * lock is dropped every VJ_FLUSH_CHUNK slots to bound the time spent with
 * bottom halves off.
 */
void vj_ring_flush(struct vj_ring *ring)
{
	if (!READ_ONCE(ring->npending))
		return;

	spin_lock_bh(&ring->lock);
	while (ring->npending) {
		u32 n = 0;

		while (ring->npending && n++ < VJ_FLUSH_CHUNK) {
			u32 idx = ring->pub & ring->mask;
			struct vj_slot *slot = &ring->slots[idx];

			if (slot->gbuf) {
				memcpy(ring->bufs + (size_t)idx * ring->buf_size,
				       slot->gbuf->data, slot->desc.len);
				vj_ring_gbuf_release(ring, slot->gbuf);
				slot->gbuf = NULL;
				WRITE_ONCE(ring->npending, ring->npending - 1);
			}
			vj_desc_publish(&ring->desc[idx], &slot->desc);
			WRITE_ONCE(ring->pub, ring->pub + 1);
		}
		smp_store_release(ring->producer, ring->pub); /* B, matches C */
		if (ring->npending) {
			spin_unlock_bh(&ring->lock);
			spin_lock_bh(&ring->lock);
		}
	}
	/* Slots filled by the hook behind the last copied one. */
	vj_ring_publish(ring);
	spin_unlock_bh(&ring->lock);
}

/*
 * Consumer context: validate the consumer index now, so that a bad value is
 * seen (and counted) without waiting for the ring to fill.
 */
void vj_ring_poll_sync(struct vj_ring *ring)
{
	spin_lock_bh(&ring->lock);
	vj_ring_sync_cons(ring);
	spin_unlock_bh(&ring->lock);
}

/*
 * True if descriptors are published for the consumer, or driver frames
 * wait for the copy that vj_ring_flush() (or vj_ring_peek()) makes.
 */
bool vj_ring_waiting(struct vj_ring *ring)
{
	return vj_ring_readable(ring) || READ_ONCE(ring->npending);
}

/* True if published descriptors are waiting for the consumer. */
bool vj_ring_readable(struct vj_ring *ring)
{
	return READ_ONCE(ring->cons) != READ_ONCE(ring->pub);
}

/*
 * The bound device is gone.  Refuse further packets, publish the driver
 * frames still queued, then tell user space: after DEAD the producer index
 * does not move again.  Process context.
 */
void vj_ring_set_dead(struct vj_ring *ring)
{
	spin_lock_bh(&ring->lock);
	WRITE_ONCE(ring->dead, true);
	spin_unlock_bh(&ring->lock);
	vj_ring_flush(ring);
	spin_lock_bh(&ring->lock);
	smp_store_release(ring->flags, VJ_RING_F_DEAD); /* E, matches F */
	spin_unlock_bh(&ring->lock);
}

/*
 * Direct receive.  The driver posts buffers it takes with
 * vj_ring_direct_get(), and each completed one goes either to user space
 * (vj_ring_direct_publish()) or back with vj_ring_direct_put().  Nothing
 * else produces into a direct ring (vj_ring_rx_skb() and vj_ring_rx_gbuf()
 * refuse it), so every published slot names a buffer the device wrote.
 */

/* Make @ring direct: every buffer free.  Before anything was produced. */
int vj_ring_direct_init(struct vj_ring *ring)
{
	u32 *ids, i;

	if (ring->buf_size > PAGE_SIZE)
		return -EMSGSIZE;
	/* User space must not be able to write what the device wrote. */
	if (ring->bufs_writable)
		return -EBUSY;
	ids = kvcalloc(ring->entries, sizeof(*ids), GFP_KERNEL_ACCOUNT);
	if (!ids)
		return -ENOMEM;
	for (i = 0; i < ring->entries; i++)
		ids[i] = ring->entries - 1 - i;
	spin_lock_bh(&ring->lock);
	if (ring->prod || ring->direct) {
		spin_unlock_bh(&ring->lock);
		kvfree(ids);
		return -EBUSY;
	}
	ring->free_ids = ids;
	ring->nfree = ring->entries;
	ring->direct = true;
	spin_unlock_bh(&ring->lock);
	return 0;
}

/*
 * Undo vj_ring_direct_init() for a bind that failed: nothing was produced,
 * every buffer is back on the free list.
 */
void vj_ring_direct_exit(struct vj_ring *ring)
{
	u32 *ids;

	spin_lock_bh(&ring->lock);
	WARN_ON_ONCE(ring->prod || ring->nfree != ring->entries);
	ids = ring->free_ids;
	ring->free_ids = NULL;
	ring->nfree = 0;
	ring->direct = false;
	spin_unlock_bh(&ring->lock);
	kvfree(ids);
}

/* Slots the consumer handed back give their buffers to the free list. */
static void vj_ring_direct_reclaim(struct vj_ring *ring)
{
	vj_ring_sync_cons(ring);
	for (; ring->reclaimed != ring->cons; ring->reclaimed++) {
		u32 slot = ring->reclaimed & ring->mask;

		/* Kernel-private: the descriptor as published, not as shared. */
		ring->free_ids[ring->nfree++] = ring->slots[slot].desc.buf;
	}
}

/* A buffer to post to the device, or -ENOBUFS when user space holds all. */
int vj_ring_direct_get(struct vj_ring *ring)
{
	int id = -ENOBUFS;

	spin_lock_bh(&ring->lock);
	if (!ring->nfree)
		vj_ring_direct_reclaim(ring);
	if (ring->nfree)
		id = ring->free_ids[--ring->nfree];
	spin_unlock_bh(&ring->lock);
	return id;
}

/* A buffer back from the device unpublished (copied out, or unused). */
void vj_ring_direct_put(struct vj_ring *ring, u32 id)
{
	spin_lock_bh(&ring->lock);
	if (!WARN_ON_ONCE(ring->nfree >= ring->entries))
		ring->free_ids[ring->nfree++] = id;
	spin_unlock_bh(&ring->lock);
}

/* @id comes from vj_ring_direct_get(), so it is below ring->entries. */
void *vj_ring_direct_addr(struct vj_ring *ring, u32 id)
{
	return ring->bufs + (size_t)id * ring->buf_size;
}

/*
 * Publish buffer @id, which the device filled with a frame of @len bytes at
 * @off.  Returns 0, or -ENODEV once the ring is dead (the caller still owns
 * the buffer).  The ring cannot be full: the slots in [cons, prod) name
 * distinct buffers, and @id is not one of them.
 */
int vj_ring_direct_publish(struct vj_ring *ring, u32 id, u32 off, u32 len,
			   int ifindex, __be16 proto)
{
	struct vj_slot *slot;

	spin_lock_bh(&ring->lock);
	slot = vj_ring_reserve_slot(ring);
	if (IS_ERR(slot)) {
		spin_unlock_bh(&ring->lock);
		return PTR_ERR(slot);
	}
	vj_ring_produce(ring, &slot->desc, len, len, ifindex, ETH_HLEN, proto,
			VJ_DESC_F_L2 | VJ_DESC_F_DRIVER | VJ_DESC_F_DIRECT);
	slot->desc.buf = id;
	slot->desc.off = off;
	vj_ring_publish(ring);
	spin_unlock_bh(&ring->lock);
	return 0;
}

bool vj_ring_dead(struct vj_ring *ring)
{
	return READ_ONCE(ring->dead);
}

void vj_ring_get_stats(struct vj_ring *ring, struct vj_ring_stats *st)
{
	spin_lock_bh(&ring->lock);
	*st = ring->stats;
	spin_unlock_bh(&ring->lock);
}

/*
 * The kernel as consumer (UDP channel sockets, kernel/udp_rx.c): the
 * receiving system call takes the datagram at the consumer index itself,
 * then hands the slot back as user space would, with (D).
 *
 * Snapshot the kernel's private descriptor of the oldest published slot
 * into @d and its index into @idx.  The consumer index user space may have
 * moved through the mapping is taken into account first (and validated, as
 * always).  Returns 0, or -EAGAIN when no descriptor is published.
 */
int vj_ring_peek(struct vj_ring *ring, struct vj_desc *d, u32 *idx)
{
	int err = -EAGAIN;

	vj_ring_flush(ring);
	spin_lock_bh(&ring->lock);
	vj_ring_sync_cons(ring);
	if (ring->cons != ring->pub) {
		*idx = ring->cons;
		*d = ring->slots[ring->cons & ring->mask].desc;
		err = 0;
	}
	spin_unlock_bh(&ring->lock);
	return err;
}

/*
 * The bytes of the packet that @d describes, or NULL if the descriptor does
 * not fit its buffer.  The bytes are in the mapping: user space can change
 * them at any time, so the caller copies what it validates.
 */
const u8 *vj_ring_data(struct vj_ring *ring, const struct vj_desc *d)
{
	if (d->buf >= ring->entries || d->off > ring->buf_size ||
	    d->len > ring->buf_size - d->off)
		return NULL;
	return ring->bufs + (size_t)d->buf * ring->buf_size + d->off;
}

/*
 * Hand slot @idx back to the producer, counting why: delivered to the
 * caller (@why VJ_CONSUMED), or dropped.  If the consumer index moved past
 * @idx meanwhile (user space consumed through the mapping) nothing changes.
 */
void vj_ring_consume(struct vj_ring *ring, u32 idx, enum vj_consumed why)
{
	spin_lock_bh(&ring->lock);
	switch (why) {
	case VJ_CONSUMED:
		break;
	case VJ_DROP_UDP_BAD_CSUM:
		ring->stats.rx_udp_bad_csum++;
		break;
	case VJ_DROP_UDP_MALFORMED:
		ring->stats.rx_udp_malformed++;
		break;
	case VJ_DROP_UDP_NOT_PEER:
		ring->stats.rx_udp_not_peer++;
		break;
	}
	if (ring->cons == idx) {
		WRITE_ONCE(ring->cons, idx + 1);
		smp_store_release(ring->consumer, idx + 1); /* D, matches A */
	}
	spin_unlock_bh(&ring->lock);
}
