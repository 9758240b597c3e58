// SPDX-License-Identifier: GPL-2.0
/*
 * Direct receive (VJ_BIND_F_DIRECT): a bypass channel owns a device's
 * receive queue and the device writes frames straight into the channel's
 * ring buffers (vjchan_driver.h describes the driver's side).
 *
 * User space cannot write the buffers of a direct ring: it maps them
 * read-only, and no mapping that could write them may exist when the
 * channel binds (vj_ring_mmap(), vj_ring_direct_init()).  Only the device
 * writes them, and only while they are posted.  Even so the kernel reads a
 * completed buffer once: it copies the first VJ_DIRECT_HEAD bytes into a
 * private array, which alone is classified (vj_parse_frame() is told that
 * only those bytes may be read: a frame whose headers continue beyond
 * them, such as IPv6 with long extension headers, is not the channel's,
 * counted in hdr_unreadable), and a frame that is not the channel's goes
 * to the stack in an skb made of that array and a single copy of the rest.
 * So every frame the stack gets from the queue is as the device wrote it.
 *
 * What the owner sees and controls: every frame the device receives on the
 * queue, whatever its flow, is written into one of the owner's buffers
 * before the kernel copies it out for the stack, and the buffer stays
 * readable through the owner's read-only mapping afterwards.  So the owner
 * can read all traffic of the queue (it needs CAP_NET_ADMIN, as for a
 * packet socket).  An owner that holds every buffer does not stop the
 * queue: the driver may post global buffers while it has none free
 * (vj_direct_rx_spill()), into which the queue goes on receiving; the
 * owner's frames that land there are copied into its ring when a buffer
 * of its has come free, or dropped (rx_ring_full).  Which frames reach the
 * owner's queue at all is the driver's to steer: the only queue of a
 * single-queue device, or one queue of several to which the device's
 * receive hash sends the owner's flow (vj_direct_flow()).
 *
 * Locking: the registry of devices, and which channel owns which device,
 * change under rtnl_lock only.
 */

#include <linux/etherdevice.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "vj_chain.h"
#include "vj_classify.h"
#include "vj_csum.h"
#include "vj_direct.h"
#include "vj_flow.h"
#include "vj_ring.h"
#include "vj_ring_direct.h"
#include "vj_stack.h"
#include "vj_stats.h"

/*
 * Bytes of a frame copied for classification, and all that the parser may
 * read: the Ethernet header, an IPv4 header with options (60 bytes) or an
 * IPv6 header with up to 198 bytes of extension headers, and the ports.
 */
#define VJ_DIRECT_HEAD	256

/* A device whose driver offers direct receive. */
struct vj_direct_dev {
	struct list_head list;
	struct net_device *dev;
	const struct vj_direct_ops *ops;
	struct vj_direct *owner;
};

struct vj_direct {
	struct vj_flow_entry *fe;
	struct vj_ring *ring;
	struct vj_direct_dev *ddev;	/* NULL once detached */
	bool wake;			/* published in this poll */
};

static LIST_HEAD(vj_direct_devs);

static struct vj_direct_dev *vj_direct_dev_find(const struct net_device *dev)
{
	struct vj_direct_dev *dd;

	ASSERT_RTNL();
	list_for_each_entry(dd, &vj_direct_devs, list)
		if (dd->dev == dev)
			return dd;
	return NULL;
}

/**
 * vj_direct_register - offer direct receive on @dev
 * @dev: the driver's device, before or after register_netdev()
 * @ops: attach and detach
 *
 * Context: rtnl_lock held.
 * Return: 0 or -ENOMEM.
 */
int vj_direct_register(struct net_device *dev, const struct vj_direct_ops *ops)
{
	struct vj_direct_dev *dd;

	ASSERT_RTNL();
	dd = kzalloc(sizeof(*dd), GFP_KERNEL);
	if (!dd)
		return -ENOMEM;
	dd->dev = dev;
	dd->ops = ops;
	list_add(&dd->list, &vj_direct_devs);
	return 0;
}
EXPORT_SYMBOL_GPL(vj_direct_register);

/**
 * vj_direct_flow - the 5-tuple of the frames a direct channel takes
 * @d: the owner, as given to ops->attach()
 * @f: filled in
 *
 * Return: 0, or -EOPNOTSUPP if the flow leaves the protocol, an address or
 * a port unspecified or is neither UDP nor TCP: its frames have no one
 * hash a driver could steer by.
 */
int vj_direct_flow(const struct vj_direct *d, struct vj_direct_flow *f)
{
	const struct vj_flow_entry *fe = d->fe;
	const u8 all = VJ_M_PROTO | VJ_M_SADDR | VJ_M_SPORT | VJ_M_DADDR |
		       VJ_M_DPORT;

	if ((fe->mask & all) != all ||
	    (fe->key.proto != IPPROTO_UDP && fe->key.proto != IPPROTO_TCP))
		return -EOPNOTSUPP;
	memset(f, 0, sizeof(*f));
	f->family = fe->key.family ? AF_INET6 : AF_INET;
	f->proto = fe->key.proto;
	f->sport = fe->key.sport;
	f->dport = fe->key.dport;
	memcpy(f->saddr, fe->key.saddr, sizeof(f->saddr));
	memcpy(f->daddr, fe->key.daddr, sizeof(f->daddr));
	return 0;
}
EXPORT_SYMBOL_GPL(vj_direct_flow);

static void vj_direct_detach(struct vj_direct_dev *dd)
{
	struct vj_direct *d = dd->owner;

	dd->ops->detach(dd->dev, d);
	d->ddev = NULL;
	dd->owner = NULL;
}

/**
 * vj_direct_unregister - withdraw direct receive from @dev
 * @dev: a device given to vj_direct_register()
 *
 * Detaches the owning channel, if any: its buffers come back from the
 * queue, and it receives nothing more (it sees POLLHUP when the device is
 * unregistered).  Context: rtnl_lock held.
 */
void vj_direct_unregister(struct net_device *dev)
{
	struct vj_direct_dev *dd = vj_direct_dev_find(dev);

	if (!dd)
		return;
	if (dd->owner)
		vj_direct_detach(dd);
	list_del(&dd->list);
	kfree(dd);
}
EXPORT_SYMBOL_GPL(vj_direct_unregister);

/**
 * vj_direct_dev_gone - @dev is unregistered or leaves its namespace
 * @dev: any device
 *
 * Detaches the owning channel, if any, before anything else of the event:
 * the queue no longer writes into its buffers, so frames that @dev
 * receives in another namespace never reach a mapping of this one.  The
 * device still offers direct receive (to a channel of its new namespace);
 * the channel is unhashed and sees POLLHUP (vj_flow_dev_gone()).
 * Context: rtnl_lock held (NETDEV_UNREGISTER).
 */
void vj_direct_dev_gone(struct net_device *dev)
{
	struct vj_direct_dev *dd = vj_direct_dev_find(dev);

	if (dd && dd->owner)
		vj_direct_detach(dd);
}

/*
 * Bind-time: make @fe, whose ring is @ring, own the receive queue of
 * device @ifindex.  Called with rtnl_lock held, before the flow is bound.
 */
int vj_direct_attach(struct net *net, int ifindex, struct vj_flow_entry *fe,
		     struct vj_ring *ring, struct vj_direct **out)
{
	struct net_device *dev;
	struct vj_direct_dev *dd;
	struct vj_direct *d;
	int err;

	ASSERT_RTNL();
	dev = __dev_get_by_index(net, ifindex);
	if (!dev)
		return -ENODEV;
	dd = vj_direct_dev_find(dev);
	if (!dd)
		return -EOPNOTSUPP;
	if (dd->owner)
		return -EBUSY;
	d = kzalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);
	if (!d)
		return -ENOMEM;
	err = vj_ring_direct_init(ring);
	if (err)
		goto err_free;
	d->fe = fe;
	d->ring = ring;
	d->ddev = dd;
	dd->owner = d;
	err = dd->ops->attach(dev, d);
	if (err)
		goto err_disown;
	*out = d;
	return 0;

err_disown:
	dd->owner = NULL;
	vj_ring_direct_exit(ring);
err_free:
	kfree(d);
	return err;
}

/* Give the queue back, if the device is still there, and free @d. */
void vj_direct_release_locked(struct vj_direct *d)
{
	ASSERT_RTNL();
	if (d->ddev)
		vj_direct_detach(d->ddev);
	kfree(d);
}

/* Close: vj_direct_release_locked() under rtnl_lock; @d may be NULL. */
void vj_direct_release(struct vj_direct *d)
{
	if (!d)
		return;
	rtnl_lock();
	vj_direct_release_locked(d);
	rtnl_unlock();
}

/**
 * vj_direct_get - a channel buffer to post to the device
 * @d: the owner, as given to ops->attach()
 * @page: its page
 * @offset: its offset in @page
 * @size: its size (the ring's buf_size, at most a page)
 *
 * Return: the buffer's id (for vj_direct_rx() or vj_direct_put()), or
 * -ENOBUFS while user space holds all the others.
 */
int vj_direct_get(struct vj_direct *d, struct page **page,
		  unsigned int *offset, unsigned int *size)
{
	int id = vj_ring_direct_get(d->ring);
	void *addr;

	if (id < 0)
		return id;
	addr = vj_ring_direct_addr(d->ring, id);
	*page = vmalloc_to_page(addr);
	*offset = offset_in_page(addr);
	*size = d->ring->buf_size;
	return id;
}
EXPORT_SYMBOL_GPL(vj_direct_get);

/**
 * vj_direct_put - a posted buffer came back unused
 * @d: the owner
 * @id: from vj_direct_get()
 */
void vj_direct_put(struct vj_direct *d, unsigned int id)
{
	vj_ring_direct_put(d->ring, id);
}
EXPORT_SYMBOL_GPL(vj_direct_put);

/*
 * True if the frame whose first @hlen bytes are the private copy @head
 * (of @len bytes in all) is @d's.
 */
static bool vj_direct_claims(struct vj_direct *d, struct net_device *dev,
			     const u8 *head, unsigned int hlen,
			     unsigned int len, __be16 *proto)
{
	bool mine;

	rcu_read_lock();
	mine = vj_classify_frame(dev, head, hlen, len, proto) == d->fe;
	rcu_read_unlock();
	return mine;
}

/**
 * vj_direct_data - where a buffer of the channel's starts, for the driver
 * @d: the owner
 * @id: from vj_direct_get(), back from the device
 *
 * The device may write a header of its own in front of the frame (the
 * driver says where the frame starts, vj_direct_rx()'s @off); the driver
 * reads it here, once, before it hands the buffer on.  User space can read
 * the buffer but not write it.
 *
 * Return: the buffer's first byte; ring buf_size bytes may be read.
 */
const void *vj_direct_data(const struct vj_direct *d, unsigned int id)
{
	return vj_ring_direct_addr(d->ring, id);
}
EXPORT_SYMBOL_GPL(vj_direct_data);

/*
 * The frame of @len bytes at @frame, whose first @hlen bytes were copied
 * to @head and classified, is the channel's: complete a partial checksum
 * @c in the buffer (and in @head, so that a copy for the stack built from
 * both agrees with it).  Returns the descriptor flags of the checksum.
 */
static u32 vj_direct_csum(u8 *frame, u8 *head, unsigned int hlen,
			  unsigned int len, struct vj_rx_csum *c)
{
	unsigned int at = c->start + c->offset;

	if (c->state == VJ_CSUM_PARTIAL) {
		vj_csum_complete(frame, len, c);
		if (at < hlen)
			memcpy(head + at, frame + at,
			       min_t(unsigned int, sizeof(__sum16), hlen - at));
		c->state = VJ_CSUM_VALID;
	}
	return vj_csum_desc_flags(c);
}

/**
 * vj_direct_rx - a posted buffer came back with a frame
 * @d: the owner
 * @napi: the driver's NAPI instance, whose poll is running
 * @id: from vj_direct_get()
 * @off: where the frame starts in the buffer (after the device's header)
 * @len: the frame's length, as the device reported it
 * @csum: what the device says of its checksum
 * @res: counts what became of the frame
 *
 * A frame of the channel's flow is published in place (res->direct), a
 * partial checksum completed first; any other is copied into an skb for
 * the stack (res->stack_copied) and the buffer is free again.  A frame
 * whose @csum does not fit it is dropped (res->dropped).  Consumes @id
 * either way.
 */
void vj_direct_rx(struct vj_direct *d, struct napi_struct *napi,
		  unsigned int id, unsigned int off, unsigned int len,
		  const struct vj_rx_csum *csum, struct vj_rx_result *res)
{
	struct net_device *dev = napi->dev;
	struct vj_ring *ring = d->ring;
	struct vj_rx_csum c = *csum;
	u8 head[VJ_DIRECT_HEAD];
	unsigned int hlen;
	struct sk_buff *skb;
	__be16 proto;
	u8 *frame;
	u32 flags;

	if (unlikely(off > ring->buf_size || len > ring->buf_size - off ||
		     len < ETH_HLEN || !vj_csum_fits(&c, len))) {
		res->dropped++;
		goto put;
	}
	frame = (u8 *)vj_ring_direct_addr(ring, id) + off;
	hlen = min_t(unsigned int, len, sizeof(head));
	memcpy(head, frame, hlen);
	if (vj_direct_claims(d, dev, head, hlen, len, &proto)) {
		flags = vj_direct_csum(frame, head, hlen, len, &c);
		if (!vj_ring_direct_publish(ring, id, off, len, dev->ifindex,
					    proto, flags)) {
			res->direct++;
			d->wake = true;
			return;
		}
	}

	/*
	 * Not the channel's: the stack gets a copy, parsed only there, whose
	 * first bytes are the ones classified, not read from the buffer again.
	 */
	skb = napi_alloc_skb(napi, len);
	if (unlikely(!skb)) {
		res->dropped++;
		goto put;
	}
	skb_put_data(skb, head, hlen);
	skb_put_data(skb, frame + hlen, len - hlen);
	vj_ring_direct_put(ring, id);
	if (unlikely(!vj_csum_to_skb(skb, &c))) {
		kfree_skb(skb);
		res->dropped++;
		return;
	}
	skb->protocol = eth_type_trans(skb, dev);
	res->stack_copied++;
	res->stack_bytes += len;
	napi_gro_receive(napi, skb);
	return;
put:
	vj_ring_direct_put(ring, id);
}
EXPORT_SYMBOL_GPL(vj_direct_rx);

/**
 * vj_direct_rx_spill - a global buffer posted to the owner's queue came back
 * @d: the owner
 * @napi: the driver's NAPI instance, whose poll is running
 * @buf: from vj_gbuf_get(), @buf->len set to the frame's length
 * @res: counts what became of the frame
 *
 * A driver tops the owner's queue up with a few global buffers while the
 * owner has no buffer free (it holds them all), so that the queue never
 * runs dry.  A frame of the channel's flow that lands in one is copied
 * into a buffer of the owner's come free since and published
 * (res->direct), or dropped if there is none (res->dropped, counted in the
 * channel's rx_ring_full); any other frame goes to the stack, as from
 * vj_direct_rx() (other channels get nothing from a direct queue), but in
 * an skb built around @buf, not a copy (res->stack).  Global
 * buffers are never mapped to user space: the whole frame is classified
 * where it lies.  Consumes @buf.
 */
void vj_direct_rx_spill(struct vj_direct *d, struct napi_struct *napi,
			struct vj_gbuf *buf, struct vj_rx_result *res)
{
	struct vj_ring *ring = d->ring;
	__be16 proto;
	bool mine;
	int id;

	if (unlikely(!buf->dev || buf->len > buf->size ||
		     buf->len < ETH_HLEN || buf->more || buf->gso_size ||
		     buf->data != buf->head + VJ_GBUF_HEADROOM ||
		     !vj_csum_fits(&buf->csum, buf->len))) {
		res->dropped++;
		vj_chain_put(buf);
		return;
	}
	rcu_read_lock();
	mine = vj_classify_frame(buf->dev, buf->data, buf->len, buf->len,
				 &proto) == d->fe;
	rcu_read_unlock();
	if (!mine) {
		vj_stack_napi_rx(napi, buf, res);
		return;
	}
	id = vj_ring_direct_get(ring);
	if (id >= 0 && buf->len <= ring->buf_size) {
		if (buf->csum.state == VJ_CSUM_PARTIAL)
			vj_csum_complete(buf->data, buf->len, &buf->csum);
		memcpy(vj_ring_direct_addr(ring, id), buf->data, buf->len);
		if (!vj_ring_direct_publish(ring, id, 0, buf->len,
					    buf->dev->ifindex, proto,
					    vj_csum_desc_flags(&buf->csum))) {
			res->direct++;
			d->wake = true;
			vj_gbuf_put(buf);
			return;
		}
	}
	if (id >= 0)
		vj_ring_direct_put(ring, id);
	vj_ring_count_drops(ring, 1);
	res->dropped++;
	vj_gbuf_put(buf);
}
EXPORT_SYMBOL_GPL(vj_direct_rx_spill);

/**
 * vj_direct_rx_done - end of a NAPI poll: wake the consumer if it has frames
 * @d: the owner
 */
void vj_direct_rx_done(struct vj_direct *d)
{
	if (d->wake) {
		d->wake = false;
		d->fe->sk->sk_data_ready(d->fe->sk);
	}
}
EXPORT_SYMBOL_GPL(vj_direct_rx_done);
