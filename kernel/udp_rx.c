// SPDX-License-Identifier: GPL-2.0
/*
 * UDP channel sockets: the receiving calls (recvmsg, and through it
 * recvmmsg, recvfrom, recv and read) and the readiness test of poll.
 *
 * The protocol work runs here, in the receiver's system call, not in
 * softirq: the receive paths only copy the packet into the ring, as for any
 * channel.  The call takes the slot at the consumer index (vj_ring_peek()),
 * copies the IP and UDP headers out of the mapped buffer into its own
 * memory before it checks them (user space can write the mapping),
 * verifies the UDP checksum unless the receive path already did
 * (VJ_DESC_F_CSUM_OK), copies the payload to the caller and hands the slot
 * back (vj_ring_consume()).  A datagram too large for a buffer is held by the
 * ring as UDP delivered it (VJ_DESC_F_HELD, udp_holder.c) and copied from
 * there, its checksum summed as udp_recvmsg() sums it.  A packet that fails a
 * check is dropped and counted (rx_udp_malformed, rx_udp_bad_csum,
 * rx_udp_not_peer), never delivered, and the next one is tried.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/net.h>
#include <linux/sched/signal.h>
#include <linux/socket.h>
#include <linux/udp.h>
#include <linux/uio.h>
#include <net/checksum.h>
#include <net/inet_sock.h>
#include <net/ip6_checksum.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/udp.h>

#include "vj_parse.h"
#include "vj_ring.h"
#include "vj_ring_cons.h"
#include "vj_ring_prod.h"
#include "vj_udp.h"

/*
 * Header bytes copied out of the buffer to be checked: IPv4 with options,
 * or IPv6 with the extension headers that fit, and UDP (longer IPv6
 * extension headers are walked in the buffer, see vj_udp_check()).
 */
#define VJ_UDP_HDR_MAX		256

/*
 * The IP length to check a datagram against, of @avail bytes copied from
 * the IP header on.  What came through the stack (VJ_DESC_F_FILTERED) the
 * IP layer has checked, and UDP trims a datagram to its UDP length before
 * it delivers it (udp_holder.c), so the copy may end before the IP header's
 * length: the copy is the datagram.  From the fast paths, a copy shorter
 * than the IP length is a malformed packet.
 */
static unsigned int vj_udp_ip_len(const struct vj_desc *d, unsigned int iplen,
				  unsigned int avail)
{
	if (d->flags & VJ_DESC_F_FILTERED)
		return min(iplen, avail);
	return iplen;
}

/*
 * The addresses, TOS (traffic class) and TTL (hop limit) of @dg, from its
 * checked IPv4 or IPv6 header @nh.
 */
static void vj_udp_dgram_ip(int family, const void *nh,
			    struct vj_udp_dgram *dg)
{
	if (family == AF_INET) {
		const struct iphdr *iph = nh;

		dg->saddr.ip4 = iph->saddr;
		dg->daddr.ip4 = iph->daddr;
		dg->tos = iph->tos;
		dg->ttl = iph->ttl;
	} else {
		const struct ipv6hdr *ip6 = nh;

		memcpy(dg->saddr.bytes, &ip6->saddr, sizeof(dg->saddr.bytes));
		memcpy(dg->daddr.bytes, &ip6->daddr, sizeof(dg->daddr.bytes));
		dg->tos = ip6_tclass(ip6_flowinfo(ip6));
		dg->ttl = ip6->hop_limit;
	}
}

/*
 * Check the packet that @d describes, @data its bytes in the mapping, as a
 * UDP datagram for this socket, and fill @dg.  Returns VJ_CONSUMED if it
 * may be delivered, else why it is dropped.
 */
static enum vj_consumed vj_udp_check(struct vj_udp_sock *us,
				     const struct vj_desc *d, const u8 *data,
				     struct vj_udp_dgram *dg)
{
	u8 hdr[VJ_UDP_HDR_MAX] __aligned(4);
	unsigned int l3 = d->l3_off, avail, n, ulen, iplen;
	struct udphdr uh;
	__wsum csum;
	int off;

	/* A datagram cut to the buffer size cannot be delivered whole. */
	if (d->flags & VJ_DESC_F_TRUNC || l3 >= d->len)
		return VJ_DROP_UDP_MALFORMED;
	avail = d->len - l3;
	n = min_t(unsigned int, avail, sizeof(hdr));
	memcpy(hdr, data + l3, n);

	memset(dg, 0, sizeof(*dg));
	if (us->family == AF_INET) {
		const struct iphdr *iph = (const struct iphdr *)hdr;

		if (d->proto != htons(ETH_P_IP) || n < sizeof(*iph) ||
		    iph->version != 4 || iph->ihl < 5)
			return VJ_DROP_UDP_MALFORMED;
		off = iph->ihl * 4;
		iplen = vj_udp_ip_len(d, ntohs(iph->tot_len), avail);
		if (iph->protocol != IPPROTO_UDP ||
		    iph->frag_off & htons(IP_MF | IP_OFFSET) ||
		    off + sizeof(uh) > n || iplen > avail ||
		    iplen < off + sizeof(uh))
			return VJ_DROP_UDP_MALFORMED;
	} else {
		const struct ipv6hdr *ip6 = (const struct ipv6hdr *)hdr;
		u8 nh;

		if (d->proto != htons(ETH_P_IPV6) || n < sizeof(*ip6) ||
		    ip6->version != 6)
			return VJ_DROP_UDP_MALFORMED;
		nh = ip6->nexthdr;
		iplen = vj_udp_ip_len(d, sizeof(*ip6) + ntohs(ip6->payload_len),
				      avail);
		if (iplen > avail)
			return VJ_DROP_UDP_MALFORMED;
		/*
		 * The classifier's walk, bounded by the packet, over the
		 * buffer itself: extension headers may be longer than the
		 * copy.  Each header's type and length are read once and
		 * checked against @iplen, which the kernel knows, so
		 * whatever user space writes meanwhile can only make the
		 * walk end elsewhere within the buffer.
		 */
		off = vj_parse_ipv6_exthdrs(data + l3, avail, iplen,
					    sizeof(*ip6), &nh);
		if (off < 0 || nh != IPPROTO_UDP || iplen < off + sizeof(uh))
			return VJ_DROP_UDP_MALFORMED;
	}
	vj_udp_dgram_ip(us->family, hdr, dg);
	/* In the copy, or beyond it after long IPv6 extension headers. */
	memcpy(&uh, off + sizeof(uh) <= n ? hdr + off : data + l3 + off,
	       sizeof(uh));
	ulen = ntohs(uh.len);
	/*
	 * What UDP delivered is the datagram as it left it: trimmed to its
	 * UDP length, or shorter by a socket filter (which runs only on a
	 * checksum already verified, so VJ_DESC_F_CSUM_OK is set then).
	 */
	if (d->flags & VJ_DESC_F_FILTERED && ulen >= sizeof(uh))
		ulen = iplen - off;
	/* Bytes after the UDP length are padding, as UDP trims them. */
	if (ulen < sizeof(uh) || ulen > iplen - off ||
	    uh.dest != READ_ONCE(us->port))
		return VJ_DROP_UDP_MALFORMED;

	if (!(d->flags & VJ_DESC_F_CSUM_OK)) {
		/* The header as checked, then the payload from the buffer. */
		csum = csum_partial(&uh, sizeof(uh), 0);
		csum = csum_partial(data + l3 + off + sizeof(uh),
				    ulen - sizeof(uh), csum);
		if (us->family == AF_INET) {
			/* Zero: sent without a checksum, allowed on IPv4. */
			if (uh.check &&
			    csum_tcpudp_magic(dg->saddr.ip4, dg->daddr.ip4,
					      ulen, IPPROTO_UDP, csum))
				return VJ_DROP_UDP_BAD_CSUM;
		} else {
			/* Zero is not a checksum on IPv6 (RFC 8200, 8.1). */
			if (!uh.check ||
			    csum_ipv6_magic((struct in6_addr *)dg->saddr.bytes,
					    (struct in6_addr *)dg->daddr.bytes,
					    ulen, IPPROTO_UDP, csum))
				return VJ_DROP_UDP_BAD_CSUM;
		}
	}
	dg->sport = uh.source;
	dg->dport = uh.dest;
	dg->payload_off = l3 + off + sizeof(uh);
	dg->payload_len = ulen - sizeof(uh);
	return VJ_CONSUMED;
}

/* A connected socket takes datagrams from its peer only. */
static bool vj_udp_from_peer(struct vj_udp_sock *us, const struct vj_udp_dgram *dg)
{
	struct sock *hsk = us->holder->sk;

	if (READ_ONCE(hsk->sk_state) != TCP_ESTABLISHED)
		return true;
	if (READ_ONCE(inet_sk(hsk)->inet_dport) != dg->sport)
		return false;
	if (us->family == AF_INET)
		return READ_ONCE(inet_sk(hsk)->inet_daddr) == dg->saddr.ip4;
	return !memcmp(&hsk->sk_v6_daddr, dg->saddr.bytes,
		       sizeof(dg->saddr.bytes));
}

/*
 * Copy the datagram to the caller, from the mapping (@data) or the held
 * datagram (@skb).  Returns the bytes copied, or the datagram's length with
 * MSG_TRUNC, or -EFAULT.
 */
static int vj_udp_copy_out(struct vj_udp_sock *us, const struct vj_desc *d,
			   const u8 *data, struct sk_buff *skb,
			   const struct vj_udp_dgram *dg, struct msghdr *msg,
			   size_t len, int flags)
{
	size_t copied = min_t(size_t, len, dg->payload_len);

	if (copied < dg->payload_len)
		msg->msg_flags |= MSG_TRUNC;
	if (skb) {
		if (skb_copy_datagram_msg(skb, 0, msg, copied))
			return -EFAULT;
	} else if (copy_to_iter(data + dg->payload_off, copied,
				&msg->msg_iter) != copied) {
		return -EFAULT;
	}
	if (msg->msg_name)
		vj_udp_put_name(us, msg, dg, d->ifindex);
	vj_udp_put_cmsgs(us, msg, dg, d->ifindex, d->tstamp);
	return flags & MSG_TRUNC ? dg->payload_len : copied;
}

/*
 * A held datagram (VJ_DESC_F_HELD): UDP checked its headers and left
 * skb->data at the payload; its checksum is summed here unless known good,
 * as udp_recvmsg() does.  Fills @dg (payload_off unused) as vj_udp_check().
 */
static enum vj_consumed vj_udp_check_held(struct vj_udp_sock *us,
					  struct sk_buff *skb,
					  struct vj_udp_dgram *dg)
{
	memset(dg, 0, sizeof(*dg));
	if (!udp_skb_csum_unnecessary(skb) && __udp_lib_checksum_complete(skb))
		return VJ_DROP_UDP_BAD_CSUM;
	vj_udp_dgram_ip(us->family, skb_network_header(skb), dg);
	dg->sport = udp_hdr(skb)->source;
	dg->dport = udp_hdr(skb)->dest;
	dg->payload_len = skb->len;
	return VJ_CONSUMED;
}

/*
 * Check the datagram of slot @idx, described by @d, and fill @dg.  @data
 * is set to its bytes in the mapping, or @skb to the datagram the slot
 * holds (VJ_DESC_F_HELD; the caller drops the reference).
 */
static enum vj_consumed vj_udp_check_slot(struct vj_udp_sock *us,
					  struct vj_ring *ring,
					  const struct vj_desc *d, u32 idx,
					  const u8 **data, struct sk_buff **skb,
					  struct vj_udp_dgram *dg)
{
	enum vj_consumed why;

	*data = NULL;
	*skb = NULL;
	if (d->flags & VJ_DESC_F_HELD) {
		*skb = vj_ring_held(ring, idx);
		why = *skb ? vj_udp_check_held(us, *skb, dg) :
			     VJ_DROP_UDP_MALFORMED;
	} else {
		*data = vj_ring_data(ring, d);
		why = *data ? vj_udp_check(us, d, *data, dg) :
			      VJ_DROP_UDP_MALFORMED;
	}
	if (why == VJ_CONSUMED && !vj_udp_from_peer(us, dg))
		why = VJ_DROP_UDP_NOT_PEER;
	return why;
}

/*
 * Take the first good datagram of the ring: drop (and count) the bad ones
 * in front of it, then deliver it into @msg, leaving it in the ring for
 * MSG_PEEK.  With @msg NULL only the bad ones are dropped, and the good
 * one's payload length is returned.  Returns what vj_udp_copy_out() returns,
 * or -EAGAIN if no good datagram is queued.  Called with rx_lock held.
 */
static int vj_udp_rx_one(struct vj_udp_sock *us, struct vj_ring *ring,
			 struct msghdr *msg, size_t len, int flags)
{
	enum vj_consumed why;
	struct vj_udp_dgram dg;
	struct sk_buff *skb;
	struct vj_desc d;
	const u8 *data;
	u32 idx;
	int ret;

	for (;;) {
		ret = vj_ring_peek(ring, &d, &idx);
		if (ret)
			return ret;
		why = vj_udp_check_slot(us, ring, &d, idx, &data, &skb, &dg);
		if (why != VJ_CONSUMED) {
			kfree_skb(skb);
			vj_ring_consume(ring, idx, why);
			cond_resched();
			continue;
		}
		if (!msg) {
			consume_skb(skb);
			return dg.payload_len;
		}
		ret = vj_udp_copy_out(us, &d, data, skb, &dg, msg, len, flags);
		consume_skb(skb);
		/* As UDP: a datagram that faulted is gone too. */
		if (!(flags & MSG_PEEK))
			vj_ring_consume(ring, idx, VJ_CONSUMED);
		return ret;
	}
}

/* Poll: is a good datagram at the head of the ring? */
bool vj_udp_readable(struct vj_udp_sock *us)
{
	/* Pairs with vj_sock_ensure_ring(). */
	struct vj_ring *ring = smp_load_acquire(&us->vs.ring);
	bool ready;

	if (!ring)
		return false;
	/* Only poll() asks: its caller is the consumer. */
	vj_ring_note_consumer(ring);
	vj_ring_flush(ring);
	if (!vj_ring_readable(ring))
		return false;
	/* A receiver at work will drop the bad ones itself. */
	if (!mutex_trylock(&us->rx_lock))
		return true;
	ready = vj_udp_rx_one(us, ring, NULL, 0, 0) >= 0;
	mutex_unlock(&us->rx_lock);
	return ready;
}

/*
 * SIOCINQ (FIONREAD), as on UDP: the payload length of the first good
 * datagram, 0 if there is none.
 */
int vj_udp_inq(struct vj_udp_sock *us)
{
	/* Pairs with vj_sock_ensure_ring(). */
	struct vj_ring *ring = smp_load_acquire(&us->vs.ring);
	int ret;

	if (!ring)
		return 0;
	if (mutex_lock_interruptible(&us->rx_lock))
		return -EINTR;
	ret = vj_udp_rx_one(us, ring, NULL, 0, 0);
	mutex_unlock(&us->rx_lock);
	return ret == -EAGAIN ? 0 : ret;
}

/*
 * Something for a sleeping receiver: a datagram, a pending error of the
 * channel socket or of the holder, shutdown.
 */
static bool vj_udp_rx_ready(struct vj_udp_sock *us)
{
	/* Pairs with vj_sock_ensure_ring(). */
	struct vj_ring *ring = smp_load_acquire(&us->vs.ring);

	return (ring && vj_ring_waiting(ring)) ||
	       READ_ONCE(us->vs.sk.sk_err) ||
	       READ_ONCE(us->holder->sk->sk_err) ||
	       (READ_ONCE(us->vs.sk.sk_shutdown) & RCV_SHUTDOWN);
}

/*
 * Sleep until vj_udp_rx_ready(), a signal or the timeout.  Datagrams (the
 * producers' sk_data_ready()) and the channel socket's error (ENODEV,
 * vj_flow_dev_gone()'s sk_error_report()) wake the socket's queue; the
 * holder's errors its own queue: wait on both.  Returns the time left.
 */
static long vj_udp_rx_wait(struct vj_udp_sock *us, long timeo)
{
	struct sock *sk = &us->vs.sk;
	DEFINE_WAIT(wait_data);
	DEFINE_WAIT(wait_err);

	prepare_to_wait(sk_sleep(sk), &wait_data, TASK_INTERRUPTIBLE);
	prepare_to_wait(&us->holder->wq.wait, &wait_err, TASK_INTERRUPTIBLE);
	if (!vj_udp_rx_ready(us) && !signal_pending(current))
		timeo = schedule_timeout(timeo);
	finish_wait(&us->holder->wq.wait, &wait_err);
	finish_wait(sk_sleep(sk), &wait_data);
	return timeo;
}

/*
 * recvmsg() on a UDP channel socket, as udp_recvmsg(): a pending error
 * first, the holder's (an ICMP error on a connected socket), then the
 * channel socket's (ENODEV once the device the channel is bound to is
 * unregistered, or the error recvmmsg() kept after a partial batch), each
 * taken as it is returned (SO_ERROR takes the channel socket's too);
 * poll() reports POLLERR until then.  Then a datagram, else 0 after
 * SHUT_RD, EAGAIN without waiting (MSG_DONTWAIT, O_NONBLOCK, SO_RCVTIMEO
 * expired), or wait.  MSG_ERRQUEUE reads the holder's queue.
 */
int vj_udp_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		   int flags)
{
	struct sock *sk = sock->sk;
	struct vj_udp_sock *us = vj_udp_sk(sk);
	struct vj_ring *ring;
	long timeo;
	int ret;

	if (flags & MSG_ERRQUEUE)
		return sock_recvmsg(us->holder, msg, flags);
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	for (;;) {
		ret = sock_error(us->holder->sk) ?: sock_error(sk);
		if (ret)
			return ret;
		/* Pairs with vj_sock_ensure_ring(). */
		ring = smp_load_acquire(&us->vs.ring);
		ret = -EAGAIN;
		if (ring) {
			vj_ring_note_consumer(ring);
			if (mutex_lock_interruptible(&us->rx_lock))
				return sock_intr_errno(timeo);
			ret = vj_udp_rx_one(us, ring, msg, len, flags);
			mutex_unlock(&us->rx_lock);
		}
		if (ret != -EAGAIN)
			return ret;
		if (!timeo)
			return -EAGAIN;
		if (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN)
			return 0;
		if (signal_pending(current))
			return sock_intr_errno(timeo);
		timeo = vj_udp_rx_wait(us, timeo);
	}
}
