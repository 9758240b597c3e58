// SPDX-License-Identifier: GPL-2.0
/*
 * The PF_VJCHAN socket family: socket, setsockopt/getsockopt, bind,
 * getsockname, mmap, poll, close.  A socket is one channel.
 *
 * Locking: vs->lock serializes configuration (ring geometry, ring creation,
 * bind).  It is never held across a copy to or from user space, because
 * mmap() takes it under mmap_lock.  vs->ring is set once, under vs->lock,
 * and read without it through smp_load_acquire().
 *
 * Lifetime: sockets are SOCK_RCU_FREE, so a receive path that found the
 * channel under RCU may finish with it after close() has unbound it; the
 * ring goes in the destructor, after the grace period.  A mapping holds the
 * socket's file, so the ring outlives close() until munmap().
 */

#include <linux/capability.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/sockptr.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "vj_classify.h"
#include "vj_direct.h"
#include "vj_flow.h"
#include "vj_hook.h"
#include "vj_net.h"
#include "vj_ring.h"
#include "vj_ring_cons.h"
#include "vj_ring_direct.h"
#include "vj_ring_prod.h"
#include "vj_socket.h"
#include "vj_stats.h"

static struct proto vj_raw_proto = {
	.name = "VJCHAN",
	.owner = THIS_MODULE,
	.obj_size = sizeof(struct vj_sock),
};

/* Called with vs->lock held. */
int vj_sock_ensure_ring(struct vj_sock *vs)
{
	struct vj_ring *ring;

	if (vs->ring)
		return 0;
	ring = vj_ring_create(&vs->req,
			      &vj_pernet(sock_net(&vs->sk))->gbufs);
	if (IS_ERR(ring))
		return PTR_ERR(ring);
	vs->fe.ring = ring;
	/* Pairs with the lockless smp_load_acquire()s of vs->ring. */
	smp_store_release(&vs->ring, ring);
	return 0;
}

/*
 * Put @fe into the flow table of the socket's namespace, whose netfilter
 * hooks are registered first (on the namespace's first bind).  Called
 * with vs->lock held.  Returns 0 or what vj_hook_register() or
 * vj_flow_bind() returned.
 */
int vj_sock_flow_bind(struct vj_sock *vs, struct vj_flow_entry *fe)
{
	struct vj_net *vn = vj_pernet(sock_net(&vs->sk));
	int err = vj_hook_register(vn);

	return err ?: vj_flow_bind(vn, fe);
}

/*
 * Take the channel out of the flow table: no packet reaches it after.  A
 * direct channel then gives its device's receive queue back.
 */
void vj_sock_unbind(struct vj_sock *vs)
{
	mutex_lock(&vs->lock);
	if (vs->bound) {
		vj_flow_unbind(vj_pernet(sock_net(&vs->sk)), &vs->fe);
		vs->bound = false;
	}
	mutex_unlock(&vs->lock);
	/* Unbound: the queue sends this flow to the stack until detached. */
	vj_direct_release(vs->direct);
	vs->direct = NULL;
}

/* Detach the socket from its file and drop the file's reference. */
void vj_sock_put(struct socket *sock)
{
	struct sock *sk = sock->sk;

	sock_orphan(sk);
	sock->sk = NULL;
	sock_put(sk);
}

static int vj_raw_release(struct socket *sock)
{
	if (!sock->sk)
		return 0;
	vj_sock_unbind(vj_sk(sock->sk));
	vj_sock_put(sock);
	return 0;
}

static int vj_raw_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len)
{
	struct sockaddr_vj *addr = (struct sockaddr_vj *)uaddr;
	struct vj_sock *vs = vj_sk(sock->sk);
	struct vj_flow_entry *fe = &vs->fe;
	struct vj_flow_key key;
	u16 flags;
	u8 mask;
	int err;

	if (addr_len < (int)sizeof(*addr))
		return -EINVAL;
	if (addr->svj_family != AF_VJCHAN)
		return -EAFNOSUPPORT;
	/* The address is already in kernel memory, at most sockaddr_storage. */
	if (addr_len > sizeof(*addr) &&
	    memchr_inv((u8 *)addr + sizeof(*addr), 0, addr_len - sizeof(*addr)))
		return -E2BIG;
	flags = addr->svj_flags;
	err = vj_flow_from_user(&addr->svj_flow, &key, &mask);
	if (err)
		return err;
	err = vj_fw_bind_check(sock->sk, flags);
	if (err)
		return err;
	if ((flags & VJ_BIND_F_DIRECT) && !key.ifindex)
		return -EINVAL;

	/* rtnl_lock before vs->lock; vj_sock_unbind() never nests them. */
	if (flags & VJ_BIND_F_DIRECT)
		rtnl_lock();
	mutex_lock(&vs->lock);
	if (vs->bound) {
		err = -EINVAL;
		goto out_unlock;
	}
	err = vj_sock_ensure_ring(vs);
	if (err)
		goto out_unlock;
	fe->key = key;
	fe->mask = mask;
	fe->flow = addr->svj_flow;
	fe->fw_mode = flags & VJ_BIND_FW_MASK;
	fe->transit = flags & VJ_BIND_F_TRANSIT;
	fe->group = vs->group.id;
	fe->spread = vs->group.spread;
	if (flags & VJ_BIND_F_DIRECT) {
		/* A direct channel owns its device's queue alone. */
		err = -EINVAL;
		if (fe->group)
			goto out_unlock;
		err = vj_direct_attach(sock_net(sock->sk), key.ifindex, fe,
				       vs->ring, &vs->direct);
		if (err)
			goto out_unlock;
	}
	err = vj_sock_flow_bind(vs, fe);
	if (err)
		goto out_release_direct;
	vs->bound = true;
	goto out_unlock;

out_release_direct:
	if (vs->direct) {
		vj_direct_release_locked(vs->direct);
		vs->direct = NULL;
		vj_ring_direct_exit(vs->ring);
	}
out_unlock:
	mutex_unlock(&vs->lock);
	if (flags & VJ_BIND_F_DIRECT)
		rtnl_unlock();
	return err;
}

static int vj_raw_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sockaddr_vj *addr = (struct sockaddr_vj *)uaddr;
	struct vj_sock *vs = vj_sk(sock->sk);

	if (peer)
		return -EOPNOTSUPP;
	memset(addr, 0, sizeof(*addr));
	addr->svj_family = AF_VJCHAN;
	mutex_lock(&vs->lock);
	if (vs->bound) {
		addr->svj_flags = vs->fe.fw_mode |
				  (vs->fe.transit ? VJ_BIND_F_TRANSIT : 0) |
				  (vs->direct ? VJ_BIND_F_DIRECT : 0);
		addr->svj_flow = vs->fe.flow;
	}
	mutex_unlock(&vs->lock);
	return sizeof(*addr);
}

static __poll_t vj_raw_poll(struct file *file, struct socket *sock,
			    poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct vj_ring *ring;
	__poll_t mask = 0;

	/* Registers on the wait queue, then a full barrier that pairs with
	 * the one in the producer's wakeup (sk_data_ready() ->
	 * skwq_has_sleeper()), so a packet published after the checks below
	 * always finds this sleeper.
	 */
	sock_poll_wait(file, sock, wait);
	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	ring = smp_load_acquire(&vj_sk(sk)->ring); /* see vj_sock_ensure_ring() */
	if (ring) {
		vj_ring_note_consumer(ring);
		vj_ring_flush(ring);
		vj_ring_poll_sync(ring);
		if (vj_ring_readable(ring))
			mask |= EPOLLIN | EPOLLRDNORM;
		if (vj_ring_dead(ring))
			mask |= EPOLLHUP;
	}
	return mask;
}

int vj_sock_mmap(struct file *file, struct socket *sock,
		 struct vm_area_struct *vma)
{
	struct vj_sock *vs = vj_sk(sock->sk);
	struct vj_mmap_offsets off;
	int err;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;

	mutex_lock(&vs->lock);
	vj_ring_offsets(&vs->req, &off);
	/* A mapping of the wrong shape does not create the ring. */
	err = vj_ring_mmap_check(&off, vma);
	if (err)
		goto out_unlock;
	err = vj_sock_ensure_ring(vs);
	if (!err)
		err = vj_ring_mmap(vs->ring, vma);
out_unlock:
	mutex_unlock(&vs->lock);
	return err;
}

/*
 * Copy an option struct: at least @ksize bytes, and any bytes beyond the
 * ones this kernel knows must be zero, so the struct can grow.
 */
static int vj_sock_copy_opt(void *dst, size_t ksize, sockptr_t src, unsigned int usize)
{
	int ret;

	if (usize < ksize)
		return -EINVAL;
	if (copy_from_sockptr(dst, src, ksize))
		return -EFAULT;
	if (usize == ksize)
		return 0;
	if (sockptr_is_kernel(src))
		return memchr_inv(src.kernel + ksize, 0, usize - ksize) ?
		       -E2BIG : 0;
	ret = check_zeroed_user(src.user + ksize, usize - ksize);
	if (ret < 0)
		return ret;
	return ret ? 0 : -E2BIG;
}

/*
 * VJ_GROUP: checked whole, then kept for the coming bind.  A UDP channel
 * socket's group is its holder's reuseport group: it sets the rule only.
 */
static int vj_sock_set_group(struct vj_sock *vs, sockptr_t optval,
			     unsigned int optlen)
{
	struct vj_group_req g;
	int err;

	err = vj_sock_copy_opt(&g, sizeof(g), optval, optlen);
	if (err)
		return err;
	if (g.pad || g.spread > VJ_SPREAD_CONSUMER)
		return -EINVAL;
	if (g.id && vs->sk.sk_protocol != VJ_PROTO_RAW)
		return -EINVAL;
	mutex_lock(&vs->lock);
	if (vs->bound)
		err = -EBUSY;
	else
		vs->group = g;
	mutex_unlock(&vs->lock);
	return err;
}

/* The SOL_VJCHAN options common to every channel socket. */
int vj_sock_setsockopt(struct socket *sock, int optname, sockptr_t optval,
		       unsigned int optlen)
{
	struct vj_sock *vs = vj_sk(sock->sk);
	struct vj_ring_req req;
	int err;

	switch (optname) {
	case VJ_GROUP:
		return vj_sock_set_group(vs, optval, optlen);
	case VJ_RING:
		err = vj_sock_copy_opt(&req, sizeof(req), optval, optlen);
		if (err)
			return err;
		err = vj_ring_geometry_check(&req);
		if (err)
			return err;
		mutex_lock(&vs->lock);
		if (vs->ring)
			err = -EBUSY;
		else
			vs->req = req;
		mutex_unlock(&vs->lock);
		return err;
	default:
		return -ENOPROTOOPT;
	}
}

static int vj_raw_setsockopt(struct socket *sock, int level, int optname,
			     sockptr_t optval, unsigned int optlen)
{
	if (level != SOL_VJCHAN)
		return -ENOPROTOOPT;
	return vj_sock_setsockopt(sock, optname, optval, optlen);
}

/* The SOL_VJCHAN options common to every channel socket. */
int vj_sock_getsockopt(struct socket *sock, int optname, char __user *optval,
		       int __user *optlen)
{
	struct vj_sock *vs = vj_sk(sock->sk);
	union {
		struct vj_ring_req req;
		struct vj_group_req group;
		struct vj_mmap_offsets off;
		struct vj_statistics st;
	} u;
	struct vj_ring *ring;
	size_t size, least;
	int len;

	if (get_user(len, optlen))
		return -EFAULT;

	switch (optname) {
	case VJ_RING:
		size = sizeof(u.req);
		least = size;
		mutex_lock(&vs->lock);
		u.req = vs->req;
		mutex_unlock(&vs->lock);
		break;
	case VJ_GROUP:
		size = sizeof(u.group);
		least = size;
		mutex_lock(&vs->lock);
		u.group = vs->group;
		mutex_unlock(&vs->lock);
		break;
	case VJ_MMAP_OFFSETS:
		size = sizeof(u.off);
		least = size;
		mutex_lock(&vs->lock);
		vj_ring_offsets(&vs->req, &u.off);
		mutex_unlock(&vs->lock);
		break;
	case VJ_STATISTICS:
		size = sizeof(u.st);
		least = VJ_STATISTICS_SIZE_V1;
		/* Pairs with vj_sock_ensure_ring(). */
		ring = smp_load_acquire(&vs->ring);
		if (ring)
			vj_ring_get_stats(ring, &u.st);
		else
			memset(&u.st, 0, sizeof(u.st));
		break;
	default:
		return -ENOPROTOOPT;
	}

	/* At least a structure's first size; a longer buffer gets what this
	 * kernel has, a shorter one the fields its header knew.
	 */
	if (len < 0 || len < least)
		return -EINVAL;
	len = min_t(size_t, len, size);
	if (copy_to_user(optval, &u, len) || put_user(len, optlen))
		return -EFAULT;
	return 0;
}

static int vj_raw_getsockopt(struct socket *sock, int level, int optname,
			     char __user *optval, int __user *optlen)
{
	if (level != SOL_VJCHAN)
		return -ENOPROTOOPT;
	return vj_sock_getsockopt(sock, optname, optval, optlen);
}

static const struct proto_ops vj_raw_ops = {
	.family = PF_VJCHAN,
	.owner = THIS_MODULE,
	.release = vj_raw_release,
	.bind = vj_raw_bind,
	.connect = sock_no_connect,
	.socketpair = sock_no_socketpair,
	.accept = sock_no_accept,
	.getname = vj_raw_getname,
	.poll = vj_raw_poll,
	.ioctl = sock_no_ioctl,
	.listen = sock_no_listen,
	.shutdown = sock_no_shutdown,
	.setsockopt = vj_raw_setsockopt,
	.getsockopt = vj_raw_getsockopt,
	.sendmsg = sock_no_sendmsg,
	.recvmsg = sock_no_recvmsg,
	.mmap = vj_sock_mmap,
};

/* Runs after an RCU grace period (SOCK_RCU_FREE): no producer is left. */
static void vj_sock_destruct(struct sock *sk)
{
	struct vj_sock *vs = vj_sk(sk);

	if (vs->ring)
		vj_ring_destroy(vs->ring);
	mutex_destroy(&vs->lock);
	vj_count(VJ_CNT_CHANNELS_DESTROYED);
	pr_debug("channel %p destroyed\n", vs);
}

/*
 * Set up the channel part of a new socket (sk_alloc()ed with a proto whose
 * object starts with struct vj_sock) and attach it to @sock.
 */
void vj_sock_init(struct socket *sock, struct sock *sk,
		  const struct proto_ops *ops)
{
	struct vj_sock *vs = vj_sk(sk);

	sock->ops = ops;
	sock_init_data(sock, sk);
	sock_set_flag(sk, SOCK_RCU_FREE);
	sk->sk_family = PF_VJCHAN;
	sk->sk_destruct = vj_sock_destruct;
	mutex_init(&vs->lock);
	vs->req.entries = VJ_RING_DEF_ENTRIES;
	vs->req.buf_size = VJ_BUF_DEF_SIZE;
	vs->fe.sk = sk;
	INIT_LIST_HEAD(&vs->fe.list);
	vj_count(VJ_CNT_CHANNELS_CREATED);
	pr_debug("channel %p created\n", vs);
}

/*
 * The raw channel (VJ_PROTO_RAW): any flow, for CAP_NET_RAW.  Also what
 * an unknown protocol gets: these checks, then -EPROTONOSUPPORT.
 */
static int vj_raw_create(struct net *net, struct socket *sock, int protocol)
{
	struct sock *sk;

	if (!ns_capable(net->user_ns, CAP_NET_RAW))
		return -EPERM;
	if (sock->type != SOCK_DGRAM)
		return -ESOCKTNOSUPPORT;
	if (protocol != VJ_PROTO_RAW)
		return -EPROTONOSUPPORT;

	sk = sk_alloc(net, PF_VJCHAN, GFP_KERNEL, &vj_raw_proto, 0);
	if (!sk)
		return -ENOMEM;
	sk->sk_protocol = VJ_PROTO_RAW;
	vj_sock_init(sock, sk, &vj_raw_ops);
	return 0;
}

/*
 * The channel protocols (VJ_PROTO_*), each with the function that creates
 * its sockets: the raw channel here, UDP channel sockets from udp.c.
 * Written at module load and unload only, when no socket() can run.
 */
static vj_sock_create_t vj_protos[VJ_NPROTOS] = {
	[VJ_PROTO_RAW] = vj_raw_create,
};

/**
 * vj_sock_proto_set - let socket(PF_VJCHAN, ..., @protocol) create with @create
 * @protocol: a VJ_PROTO_* other than VJ_PROTO_RAW
 * @create: the protocol's create function, or NULL to withdraw it
 */
void vj_sock_proto_set(int protocol, vj_sock_create_t create)
{
	if (!WARN_ON_ONCE(protocol <= VJ_PROTO_RAW || protocol >= VJ_NPROTOS))
		WRITE_ONCE(vj_protos[protocol], create);
}

static int vj_sock_create(struct net *net, struct socket *sock, int protocol,
			  int kern)
{
	vj_sock_create_t create = NULL;

	/* A kernel socket would not hold its namespace; none is needed. */
	if (kern)
		return -EPROTONOSUPPORT;
	if (protocol >= 0 && protocol < VJ_NPROTOS)
		create = READ_ONCE(vj_protos[protocol]);
	return (create ?: vj_raw_create)(net, sock, protocol);
}

static const struct net_proto_family vj_sock_family = {
	.family = PF_VJCHAN,
	.create = vj_sock_create,
	.owner = THIS_MODULE,
};

int vj_socket_init(void)
{
	int err;

	err = proto_register(&vj_raw_proto, 0);
	if (err)
		return err;
	err = sock_register(&vj_sock_family);
	if (err)
		goto err_unregister_proto;
	return 0;

err_unregister_proto:
	proto_unregister(&vj_raw_proto);
	return err;
}

void vj_socket_exit(void)
{
	sock_unregister(PF_VJCHAN);
	proto_unregister(&vj_raw_proto);
}
