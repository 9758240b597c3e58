// SPDX-License-Identifier: GPL-2.0
/*
 * The port holder of a UDP channel socket: an ordinary UDP socket, created
 * in the caller's context, that UDP itself delivers to.
 *
 * The holder is made with __sock_create(..., kern = 0) from socket(), so
 * the socket-creation hooks apply to it as to the caller's own UDP socket:
 * the LSM's socket_create/post_create (and its label), and cgroup-BPF
 * sock_create programs (ip vrf exec binds it to the VRF, a program may
 * refuse it).
 *
 * Receiving.  A datagram for the holder's port goes through UDP's receive
 * path: the socket lookup (bound address and device, SO_REUSEADDR,
 * reuseport groups, connected sockets, every member of a multicast or
 * broadcast), reassembly, the IPsec input policy check, the socket filter,
 * cgroup-BPF ingress programs and the LSM's sock_rcv_skb, and the receive
 * buffer limit; UDP then queues it on the holder and calls sk_data_ready(),
 * which here, in the same context, takes every queued datagram off the
 * holder (__skb_recv_udp()) and copies it into the channel's ring with its
 * Ethernet header, VJ_DESC_F_FILTERED, with VJ_DESC_F_CSUM_OK if the
 * checksum is already known good.  A datagram too large for a buffer (up to
 * 64 KiB, often reassembled from fragments) is not copied: the ring holds it
 * (VJ_DESC_F_HELD), charged against the channel socket's SO_RCVBUF as UDP
 * charges its queue.  The receiving calls (udp_rx.c) check the headers and
 * sum what is not known good, in the consumer's context.  The arrival
 * interface is what UDP keeps for IP_PKTINFO (the holder has it set).
 *
 * This is the pattern of sockmap's verdict programs for UDP (data_ready,
 * then read_skb()).  An encapsulation socket (setup_udp_tunnel_sock(),
 * encap_rcv) would get datagrams one step earlier, but a socket with an
 * encap_type gets no ICMP errors (they go to encap_err_rcv() without the
 * ICMP type and code), and setup_udp_tunnel_sock() turns off multicast
 * loopback: a UDP channel socket would no longer be a UDP socket.
 *
 * Until the channel is bound (and when it is bound in bypass mode and UDP
 * still gets a datagram the fast paths did not take) the datagrams wait on
 * the holder; the next sk_data_ready() after the bind takes them.  The
 * holder's receive buffer bounds that wait, as for any UDP socket.
 */

#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ipv6.h>
#include <linux/net.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/udp.h>

#include "vj_ring.h"
#include "vj_ring_prod.h"
#include "vj_stats.h"
#include "vj_udp.h"

/*
 * Move one datagram that UDP queued on the holder into the ring: a copy,
 * or the datagram itself if it does not fit a buffer.  Takes @skb.
 */
static bool vj_udp_holder_ring(struct vj_udp_sock *us, struct vj_ring *ring,
			       struct sock *hsk, struct sk_buff *skb)
{
	unsigned int nh = skb->data - skb_network_header(skb), l2 = 0;
	u32 path = VJ_DESC_F_FILTERED;
	const u8 *mac = NULL;
	int ifindex, err;

	/* UDP left skb->data at the payload: copy from the IP header. */
	if (WARN_ON_ONCE(skb_network_header(skb) < skb->head)) {
		skb_consume_udp(hsk, skb, 0);
		return false;
	}
	/*
	 * With the Ethernet header in front, as the other skb paths copy it
	 * (skb->dev is UDP's scratch space by now: the header's length
	 * tells).
	 */
	if (skb_mac_header_was_set(skb) &&
	    skb_network_header(skb) - skb_mac_header(skb) == ETH_HLEN) {
		mac = skb_mac_header(skb);
		l2 = ETH_HLEN;
	}
	if (skb_csum_unnecessary(skb))
		path |= VJ_DESC_F_CSUM_OK;
	if (us->family == AF_INET)
		ifindex = PKTINFO_SKB_CB(skb)->ipi_ifindex;
	else
		ifindex = IP6CB(skb)->iif;
	if (l2 + nh + skb->len > ring->buf_size) {
		/* Too large for a buffer: the ring holds it, as it is. */
		err = vj_ring_rx_held(ring, skb, ifindex, path,
				      READ_ONCE(us->vs.sk.sk_rcvbuf));
	} else {
		__skb_push(skb, nh);
		err = vj_ring_rx_skb(ring, skb, mac, l2, ifindex, path,
				     VJ_PUBLISH_NOW);
		skb_consume_udp(hsk, skb, 0);
	}
	switch (err) {
	case 0:
		vj_count(VJ_CNT_FW_CLAIMED);
		return true;
	case -ENOSPC:
		vj_count(VJ_CNT_FW_DROPPED);
		return false;
	default:	/* dead: its device went away */
		return false;
	}
}

/* The holder's sk_data_ready(): UDP queued datagrams on it. */
static void vj_udp_holder_data_ready(struct sock *hsk)
{
	struct vj_udp_sock *us;
	struct vj_ring *ring;
	struct sk_buff *skb;
	bool wake = false;
	int off, err;

	rcu_read_lock();
	us = rcu_dereference_sk_user_data(hsk);
	if (!us || !READ_ONCE(us->vs.bound))
		goto out_unlock;
	/* Bound: the ring exists (see vj_sock_ensure_ring()). */
	ring = smp_load_acquire(&us->vs.ring);
	for (;;) {
		off = 0;
		skb = __skb_recv_udp(hsk, MSG_DONTWAIT, &off, &err);
		if (!skb)
			break;
		wake |= vj_udp_holder_ring(us, ring, hsk, skb);
	}
	if (wake)
		us->vs.sk.sk_data_ready(&us->vs.sk);
out_unlock:
	rcu_read_unlock();
}

/**
 * vj_udp_holder_create - a port holder, in the caller's context
 * @net: the namespace (the caller's)
 * @family: AF_INET or AF_INET6 (then IPv6 only)
 * @res: the holder
 *
 * The smallest receive buffer: datagrams leave it as soon as UDP queues
 * them, once the channel is bound.  IP_PKTINFO on an IPv4 holder keeps the
 * arrival interface with each datagram.
 *
 * Return: 0, or what socket creation returned (an LSM or a cgroup-BPF
 * program may refuse it).
 */
int vj_udp_holder_create(struct net *net, int family, struct socket **res)
{
	struct socket *holder;
	struct sock *hsk;
	int err;

	err = __sock_create(net, family, SOCK_DGRAM, IPPROTO_UDP, &holder, 0);
	if (err)
		return err;
	hsk = holder->sk;
	if (family == AF_INET6) {
		err = ip6_sock_set_v6only(hsk);
		if (err) {
			sock_release(holder);
			return err;
		}
	} else {
		ip_sock_set_pktinfo(hsk);
	}
	lock_sock(hsk);
	hsk->sk_userlocks |= SOCK_RCVBUF_LOCK;
	WRITE_ONCE(hsk->sk_rcvbuf, SOCK_MIN_RCVBUF);
	release_sock(hsk);
	*res = holder;
	return 0;
}

/* From now on, what UDP queues on the holder goes to @us's ring. */
void vj_udp_holder_attach(struct vj_udp_sock *us)
{
	struct sock *hsk = us->holder->sk;

	write_lock_bh(&hsk->sk_callback_lock);
	rcu_assign_sk_user_data(hsk, us);
	hsk->sk_data_ready = vj_udp_holder_data_ready;
	write_unlock_bh(&hsk->sk_callback_lock);
}

/* Close: no datagram reaches the channel from the holder after this. */
void vj_udp_holder_release(struct vj_udp_sock *us)
{
	struct sock *hsk = us->holder->sk;

	write_lock_bh(&hsk->sk_callback_lock);
	rcu_assign_sk_user_data(hsk, NULL);
	write_unlock_bh(&hsk->sk_callback_lock);
	sock_release(us->holder);
	us->holder = NULL;
}
