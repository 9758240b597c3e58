// SPDX-License-Identifier: GPL-2.0
/*
 * UDP channel sockets: socket(AF_VJCHAN, SOCK_DGRAM, VJ_PROTO_UDP4 or
 * VJ_PROTO_UDP6).  Creation, bind and autobind through the port holder,
 * connect, getname, send, shutdown and poll.  The socket options are in
 * udp_opt.c, the holder in udp_holder.c, the receiving calls in udp_rx.c;
 * the design is in vj_udp.h.
 *
 * Every call that the holder serves is made on the holder from the
 * caller's own context, with the caller's sockaddr, msghdr and option
 * pointers, so that UDP's own checks (CAP_NET_BIND_SERVICE for low ports,
 * CAP_NET_ADMIN for SO_MARK, ...) and errors apply to the caller as they
 * would on an ordinary UDP socket.
 */

#include <asm/ioctls.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/sockios.h>
#include <linux/sockptr.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/sock_reuseport.h>
#include <net/tcp_states.h>

#include "vj_classify.h"
#include "vj_flow.h"
#include "vj_net.h"
#include "vj_ring.h"
#include "vj_socket.h"
#include "vj_udp.h"

static struct proto vj_udp_proto = {
	.name = "VJCHAN_UDP",
	.owner = THIS_MODULE,
	.obj_size = sizeof(struct vj_udp_sock),
};

static bool vj_udp_holder_has_port(const struct vj_udp_sock *us)
{
	return READ_ONCE(inet_sk(us->holder->sk)->inet_num);
}

/*
 * The flow id of the holder's state: {family, IPPROTO_UDP, daddr = the
 * bound address or any, dport = the port, ifindex = SO_BINDTODEVICE or the
 * scope of a link-local IPv6 address}, and once connected saddr and sport =
 * the peer's.  connect() of a wildcard-bound socket makes the local address
 * it chose the bound address, as UDP does.
 */
static void vj_udp_holder_flow(struct vj_udp_sock *us, struct vj_flow *flow)
{
	struct sock *hsk = us->holder->sk;
	struct inet_sock *inet = inet_sk(hsk);

	memset(flow, 0, sizeof(*flow));
	flow->family = us->family;
	flow->proto = IPPROTO_UDP;
	lock_sock(hsk);
	flow->dport = inet->inet_sport;
	flow->ifindex = READ_ONCE(hsk->sk_bound_dev_if);
	if (us->family == AF_INET)
		flow->daddr.ip4 = inet->inet_rcv_saddr;
	else
		memcpy(flow->daddr.bytes, &hsk->sk_v6_rcv_saddr,
		       sizeof(flow->daddr.bytes));
	if (hsk->sk_state == TCP_ESTABLISHED) {
		flow->sport = inet->inet_dport;
		if (us->family == AF_INET)
			flow->saddr.ip4 = inet->inet_daddr;
		else
			memcpy(flow->saddr.bytes, &hsk->sk_v6_daddr,
			       sizeof(flow->saddr.bytes));
	}
	release_sock(hsk);
}

/*
 * The slot not bound, once no receive path can still be reading it (see
 * vj_udp.h).  Called with vs->lock held.
 */
static struct vj_flow_entry *vj_udp_spare_slot(struct vj_udp_sock *us)
{
	cond_synchronize_rcu(us->unhash_gp);
	return us->fe == &us->vs.fe ? &us->alt : &us->vs.fe;
}

/*
 * Which channels may share the flow id (struct vj_flow_entry, group): when
 * UDP delivers, whichever it lets share the port (UDP chooses the socket);
 * in bypass and sanctioned mode, where the fast paths choose, the members
 * of the holder's reuseport group.
 */
static u32 vj_udp_group(struct vj_udp_sock *us)
{
	struct sock *hsk = us->holder->sk;
	struct sock_reuseport *reuse;
	u32 group = 0;

	if (us->fw_mode == VJ_BIND_FW_FILTERED)
		return VJ_FLOW_GROUP_UDP;
	rcu_read_lock();
	reuse = rcu_dereference(hsk->sk_reuseport_cb);
	if (reuse && hsk->sk_reuseport)
		group = reuse->reuseport_id + 1;
	rcu_read_unlock();
	return group;
}

/* Fill the unbound slot @fe for @flow; the ring exists. */
static int vj_udp_fill_slot(struct vj_udp_sock *us, struct vj_flow_entry *fe,
			    const struct vj_flow *flow)
{
	struct vj_flow_key key;
	u8 mask;
	int err;

	err = vj_flow_from_user(flow, &key, &mask);
	if (err)
		return err;
	fe->key = key;
	fe->mask = mask;
	fe->flow = *flow;
	fe->ring = us->vs.ring;
	fe->fw_mode = us->fw_mode;
	fe->transit = false;
	/*
	 * UDP delivers what the fast paths leave (in the filtered mode,
	 * everything); checksums without a device verdict are summed in
	 * recvmsg().
	 */
	fe->udp_chan = true;
	fe->group = vj_udp_group(us);
	/* UDP chooses among filtered members: the rule is the fast paths'. */
	fe->spread = us->fw_mode == VJ_BIND_FW_FILTERED ? VJ_SPREAD_HASH :
						       us->vs.group.spread;
	/* What would be cut goes to UDP, which delivers it whole. */
	fe->fast_max = us->vs.ring->buf_size - ETH_HLEN;
	return 0;
}

/* Take the channel out of the flow table.  Called with vs->lock held. */
static void vj_udp_unbind_chan(struct vj_udp_sock *us)
{
	struct vj_sock *vs = &us->vs;

	if (!vs->bound)
		return;
	vj_flow_unbind(vj_pernet(sock_net(&vs->sk)), us->fe);
	us->unhash_gp = get_state_synchronize_rcu();
	WRITE_ONCE(vs->bound, false);
}

/*
 * Bind the channel's flow to the port (and address and device) the holder
 * holds.  Called with bind_lock held, the holder bound and the channel not;
 * takes vs->lock after reading the holder's state (see vj_udp.h).
 */
static int vj_udp_bind_chan(struct vj_udp_sock *us)
{
	struct vj_sock *vs = &us->vs;
	struct vj_flow flow;
	struct vj_flow_entry *fe;
	int err;

	vj_udp_holder_flow(us, &flow);
	mutex_lock(&vs->lock);
	err = vj_sock_ensure_ring(vs);
	if (err)
		goto out_unlock;
	fe = vj_udp_spare_slot(us);
	err = vj_udp_fill_slot(us, fe, &flow);
	if (err)
		goto out_unlock;
	err = vj_sock_flow_bind(vs, fe);
	if (err)
		goto out_unlock;
	us->fe = fe;
	WRITE_ONCE(us->port, flow.dport);
	WRITE_ONCE(vs->bound, true);
out_unlock:
	mutex_unlock(&vs->lock);
	return err;
}

/*
 * bind(): the holder first (UDP's checks and errors, and the port
 * reservation), then the channel.  If the channel cannot be bound (its flow
 * id is another channel's: EADDRINUSE) the holder keeps the port and a
 * second bind() fails with EINVAL, as on UDP; the socket should be closed.
 */
static int vj_udp_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len)
{
	struct vj_udp_sock *us = vj_udp_sk(sock->sk);
	int err;

	mutex_lock(&us->bind_lock);
	if (READ_ONCE(us->vs.bound) || vj_udp_holder_has_port(us)) {
		err = -EINVAL;
		goto out_unlock;
	}
	err = us->holder->ops->bind(us->holder, uaddr, addr_len);
	if (!err)
		err = vj_udp_bind_chan(us);
out_unlock:
	mutex_unlock(&us->bind_lock);
	return err;
}

/* Bind to an ephemeral port on any address, as UDP does before a send. */
static int vj_udp_autobind(struct vj_udp_sock *us)
{
	struct sockaddr_storage any = {};
	int len, err = 0;

	mutex_lock(&us->bind_lock);
	if (READ_ONCE(us->vs.bound))
		goto out_unlock;
	if (!vj_udp_holder_has_port(us)) {
		any.ss_family = us->family;
		len = us->family == AF_INET ? sizeof(struct sockaddr_in) :
					      sizeof(struct sockaddr_in6);
		err = us->holder->ops->bind(us->holder,
					    (struct sockaddr *)&any, len);
		if (err)
			goto out_unlock;
	}
	err = vj_udp_bind_chan(us);
out_unlock:
	mutex_unlock(&us->bind_lock);
	return err;
}

/*
 * After the holder's connect() or disconnect: give the channel the flow id
 * of the holder's new state.  A disconnect (AF_UNSPEC) releases a port that
 * was not bound explicitly (UDP's rule): the channel lets go of it too, and
 * the next send or connect binds both again.  If the new flow id cannot be
 * had (another channel has it, or no memory), the channel keeps the one it
 * has: the peer filter of the receiving calls still applies.
 */
static void vj_udp_follow_holder(struct vj_udp_sock *us)
{
	struct vj_sock *vs = &us->vs;
	struct vj_flow_entry *spare;
	struct vj_flow flow;
	bool has_port;

	mutex_lock(&us->bind_lock);
	/* The holder's state first: its lock is never taken under vs->lock. */
	has_port = vj_udp_holder_has_port(us);
	if (has_port)
		vj_udp_holder_flow(us, &flow);
	mutex_lock(&vs->lock);
	if (!vs->bound)
		goto out_unlock;
	if (!has_port) {
		vj_udp_unbind_chan(us);
		goto out_unlock;
	}
	if (!memcmp(&flow, &us->fe->flow, sizeof(flow)))
		goto out_unlock;
	spare = vj_udp_spare_slot(us);
	if (vj_udp_fill_slot(us, spare, &flow) ||
	    vj_flow_replace(vj_pernet(sock_net(&vs->sk)), us->fe, spare))
		goto out_unlock;
	us->fe = spare;
	us->unhash_gp = get_state_synchronize_rcu();
out_unlock:
	mutex_unlock(&vs->lock);
	mutex_unlock(&us->bind_lock);
}

static int vj_udp_connect(struct socket *sock, struct sockaddr *uaddr,
			  int addr_len, int flags)
{
	struct vj_udp_sock *us = vj_udp_sk(sock->sk);
	bool unspec;
	int err;

	/* UDP refuses a short address before it autobinds. */
	unspec = addr_len >= (int)sizeof(uaddr->sa_family) &&
		 uaddr->sa_family == AF_UNSPEC;
	if (addr_len >= (int)sizeof(uaddr->sa_family) && !unspec) {
		err = vj_udp_autobind(us);
		if (err)
			return err;
	}
	err = us->holder->ops->connect(us->holder, uaddr, addr_len, flags);
	vj_udp_follow_holder(us);
	return err;
}

static int vj_udp_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct vj_udp_sock *us = vj_udp_sk(sock->sk);

	return us->holder->ops->getname(us->holder, uaddr, peer);
}

static int vj_udp_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct vj_udp_sock *us = vj_udp_sk(sock->sk);
	int err;

	if (!READ_ONCE(us->vs.bound)) {
		err = vj_udp_autobind(us);
		if (err)
			return err;
	}
	return sock_sendmsg(us->holder, msg);
}

/* As UDP: the holder's shutdown (ENOTCONN unless connected), mirrored. */
static int vj_udp_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;
	struct vj_udp_sock *us = vj_udp_sk(sk);
	int err;

	err = us->holder->ops->shutdown(us->holder, how);
	WRITE_ONCE(sk->sk_shutdown, READ_ONCE(us->holder->sk->sk_shutdown));
	/* Readers asleep in recvmsg() see RCV_SHUTDOWN. */
	sk->sk_state_change(sk);
	return err;
}

static __poll_t vj_udp_poll(struct file *file, struct socket *sock,
			    poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct vj_udp_sock *us = vj_udp_sk(sk);
	struct sock *hsk = us->holder->sk;
	__poll_t mask = 0;
	u8 shutdown;

	/* Datagrams wake the socket's queue, the holder's errors and send
	 * space the holder's; both barriers pair with the wakers' (see
	 * vj_raw_poll()).
	 */
	sock_poll_wait(file, sock, wait);
	sock_poll_wait(file, us->holder, wait);
	if (READ_ONCE(sk->sk_err) || READ_ONCE(hsk->sk_err) ||
	    !skb_queue_empty_lockless(&hsk->sk_error_queue))
		mask |= EPOLLERR;
	shutdown = READ_ONCE(sk->sk_shutdown);
	if (shutdown == SHUTDOWN_MASK)
		mask |= EPOLLHUP;
	if (shutdown & RCV_SHUTDOWN)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (vj_udp_readable(us))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (sock_writeable(hsk))
		mask |= EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND;
	return mask;
}

/*
 * SIOCINQ (FIONREAD) counts the channel's next datagram; the rest (SIOCOUTQ,
 * interface ioctls) are the holder's.
 */
static int vj_udp_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg)
{
	struct vj_udp_sock *us = vj_udp_sk(sock->sk);
	int n;

	if (cmd != SIOCINQ)
		return us->holder->ops->ioctl(us->holder, cmd, arg);
	n = vj_udp_inq(us);
	if (n < 0)
		return n;
	return put_user(n, (int __user *)arg);
}

/*
 * Unbind the channel before the holder lets the port go, so that no
 * ordinary socket that binds the port next loses a datagram to the channel.
 */
static int vj_udp_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct vj_udp_sock *us;

	if (!sk)
		return 0;
	us = vj_udp_sk(sk);
	mutex_lock(&us->vs.lock);
	vj_udp_unbind_chan(us);
	mutex_unlock(&us->vs.lock);
	vj_udp_holder_release(us);
	vj_sock_put(sock);
	return 0;
}

static const struct proto_ops vj_udp_ops = {
	.family = PF_VJCHAN,
	.owner = THIS_MODULE,
	.release = vj_udp_release,
	.bind = vj_udp_bind,
	.connect = vj_udp_connect,
	.socketpair = sock_no_socketpair,
	.accept = sock_no_accept,
	.getname = vj_udp_getname,
	.poll = vj_udp_poll,
	.ioctl = vj_udp_ioctl,
	.listen = sock_no_listen,
	.shutdown = vj_udp_shutdown,
	.setsockopt = vj_udp_setsockopt,
	.getsockopt = vj_udp_getsockopt,
	.sendmsg = vj_udp_sendmsg,
	.recvmsg = vj_udp_recvmsg,
	.mmap = vj_sock_mmap,
};

/* socket(AF_VJCHAN, SOCK_DGRAM, VJ_PROTO_UDP4 or VJ_PROTO_UDP6) */
static int vj_udp_create(struct net *net, struct socket *sock, int protocol)
{
	int family = protocol == VJ_PROTO_UDP4 ? AF_INET : AF_INET6;
	struct vj_udp_sock *us;
	struct socket *holder;
	struct sock *sk;
	int err;

	if (sock->type != SOCK_DGRAM)
		return -ESOCKTNOSUPPORT;
	err = vj_udp_holder_create(net, family, &holder);
	if (err)
		return err;
	sk = sk_alloc(net, PF_VJCHAN, GFP_KERNEL, &vj_udp_proto, 0);
	if (!sk) {
		err = -ENOMEM;
		goto err_release_holder;
	}
	vj_sock_init(sock, sk, &vj_udp_ops);
	sk->sk_protocol = protocol;
	/*
	 * What a cgroup sock_create program set on the holder (ip vrf exec
	 * binds it to the VRF), the channel socket reports, as UDP would.
	 */
	sk->sk_bound_dev_if = holder->sk->sk_bound_dev_if;
	sk->sk_mark = holder->sk->sk_mark;
	sk->sk_priority = holder->sk->sk_priority;
	/* SOL_SOCKET options come to vj_udp_setsockopt(). */
	set_bit(SOCK_CUSTOM_SOCKOPT, &sock->flags);
	us = vj_udp_sk(sk);
	us->alt.sk = sk;
	INIT_LIST_HEAD(&us->alt.list);
	us->fe = &us->vs.fe;
	us->unhash_gp = get_completed_synchronize_rcu();
	us->holder = holder;
	us->family = family;
	us->fw_mode = VJ_BIND_FW_FILTERED;
	mutex_init(&us->rx_lock);
	mutex_init(&us->bind_lock);
	vj_udp_holder_attach(us);
	return 0;

err_release_holder:
	sock_release(holder);
	return err;
}

/* Before the family is registered: socket() finds both protocols. */
int vj_udp_init(void)
{
	int err = proto_register(&vj_udp_proto, 0);

	if (err)
		return err;
	vj_sock_proto_set(VJ_PROTO_UDP4, vj_udp_create);
	vj_sock_proto_set(VJ_PROTO_UDP6, vj_udp_create);
	return 0;
}

void vj_udp_exit(void)
{
	vj_sock_proto_set(VJ_PROTO_UDP4, NULL);
	vj_sock_proto_set(VJ_PROTO_UDP6, NULL);
	proto_unregister(&vj_udp_proto);
}
