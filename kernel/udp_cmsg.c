// SPDX-License-Identifier: GPL-2.0
/*
 * UDP channel sockets: what a receiving call writes besides the payload,
 * the sender's address and the control messages, in the order UDP writes
 * them: the timestamp (SO_TIMESTAMP and SO_TIMESTAMPNS), then for IPv4
 * IP_PKTINFO, IP_TTL, IP_TOS and IP_ORIGDSTADDR, for IPv6 IPV6_PKTINFO,
 * IPV6_HOPLIMIT, IPV6_TCLASS and IPV6_ORIGDSTADDR.  Their switches are the
 * port holder's (the options are set on it, udp_opt.c), except IP_PKTINFO
 * and IPV6_RECVPKTINFO, which the channel keeps (the IPv4 holder always
 * has IP_PKTINFO on).  The values come from the datagram's headers as the
 * receiving call checked them (struct vj_udp_dgram), never from the
 * mapping.  The switches of the other control messages UDP can write are
 * refused (udp_opt.c).
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ipv6.h>
#include <linux/socket.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "vj_udp.h"

void vj_udp_put_name(struct vj_udp_sock *us, struct msghdr *msg,
		     const struct vj_udp_dgram *dg, int ifindex)
{
	if (us->family == AF_INET) {
		DECLARE_SOCKADDR(struct sockaddr_in *, sin, msg->msg_name);

		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_port = dg->sport;
		sin->sin_addr.s_addr = dg->saddr.ip4;
		msg->msg_namelen = sizeof(*sin);
	} else {
		DECLARE_SOCKADDR(struct sockaddr_in6 *, sin6, msg->msg_name);

		memset(sin6, 0, sizeof(*sin6));
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = dg->sport;
		memcpy(&sin6->sin6_addr, dg->saddr.bytes,
		       sizeof(sin6->sin6_addr));
		sin6->sin6_scope_id = ipv6_iface_scope_id(&sin6->sin6_addr,
							  ifindex);
		msg->msg_namelen = sizeof(*sin6);
	}
}

/*
 * SO_TIMESTAMP / SO_TIMESTAMPNS, old or new layout, as
 * sock_recv_timestamp() gives them: the time the kernel took the packet
 * (the descriptor's CLOCK_MONOTONIC tstamp) on CLOCK_REALTIME.
 */
static void vj_udp_put_tstamp(struct sock *sk, struct msghdr *msg, u64 mono_ns)
{
	struct timespec64 ts;
	bool new;

	if (!sock_flag(sk, SOCK_RCVTSTAMP))
		return;
	ts = ktime_to_timespec64(ktime_mono_to_real(ns_to_ktime(mono_ns)));
	new = sock_flag(sk, SOCK_TSTAMP_NEW);
	if (sock_flag(sk, SOCK_RCVTSTAMPNS)) {
		if (new) {
			struct __kernel_timespec kts = {
				.tv_sec = ts.tv_sec, .tv_nsec = ts.tv_nsec,
			};

			put_cmsg(msg, SOL_SOCKET, SO_TIMESTAMPNS_NEW,
				 sizeof(kts), &kts);
		} else {
			struct __kernel_old_timespec ots = {
				.tv_sec = ts.tv_sec, .tv_nsec = ts.tv_nsec,
			};

			put_cmsg(msg, SOL_SOCKET, SO_TIMESTAMPNS_OLD,
				 sizeof(ots), &ots);
		}
	} else if (new) {
		struct __kernel_sock_timeval stv = {
			.tv_sec = ts.tv_sec,
			.tv_usec = ts.tv_nsec / NSEC_PER_USEC,
		};

		put_cmsg(msg, SOL_SOCKET, SO_TIMESTAMP_NEW, sizeof(stv), &stv);
	} else {
		struct __kernel_old_timeval tv = {
			.tv_sec = ts.tv_sec,
			.tv_usec = ts.tv_nsec / NSEC_PER_USEC,
		};

		put_cmsg(msg, SOL_SOCKET, SO_TIMESTAMP_OLD, sizeof(tv), &tv);
	}
}

/*
 * IPv4, as ip_cmsg_recv_offset(): IP_PKTINFO (the arrival interface and
 * the destination address; ipi_spec_dst is that address too, the reply
 * source for a unicast datagram), IP_TTL, IP_TOS, IP_ORIGDSTADDR.
 */
static void vj_udp_put_ip4(struct vj_udp_sock *us, struct msghdr *msg,
			   const struct vj_udp_dgram *dg, int ifindex)
{
	unsigned long flags = inet_cmsg_flags(inet_sk(us->holder->sk));

	if (READ_ONCE(us->pktinfo)) {
		struct in_pktinfo info = {
			.ipi_ifindex = ifindex,
			.ipi_spec_dst.s_addr = dg->daddr.ip4,
			.ipi_addr.s_addr = dg->daddr.ip4,
		};

		put_cmsg(msg, SOL_IP, IP_PKTINFO, sizeof(info), &info);
	}
	if (flags & IP_CMSG_TTL) {
		int ttl = dg->ttl;

		put_cmsg(msg, SOL_IP, IP_TTL, sizeof(ttl), &ttl);
	}
	if (flags & IP_CMSG_TOS) {
		u8 tos = dg->tos;

		put_cmsg(msg, SOL_IP, IP_TOS, 1, &tos);
	}
	if (flags & IP_CMSG_ORIGDSTADDR) {
		struct sockaddr_in sin;

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = dg->daddr.ip4;
		sin.sin_port = dg->dport;
		put_cmsg(msg, SOL_IP, IP_ORIGDSTADDR, sizeof(sin), &sin);
	}
}

/*
 * IPv6, as ip6_datagram_recv_ctl(): IPV6_PKTINFO, IPV6_HOPLIMIT,
 * IPV6_TCLASS, IPV6_ORIGDSTADDR.
 */
static void vj_udp_put_ip6(struct vj_udp_sock *us, struct msghdr *msg,
			   const struct vj_udp_dgram *dg, int ifindex)
{
	const struct ipv6_pinfo *np = inet6_sk(us->holder->sk);

	if (READ_ONCE(us->pktinfo)) {
		struct in6_pktinfo info = { .ipi6_ifindex = ifindex };

		memcpy(&info.ipi6_addr, dg->daddr.bytes,
		       sizeof(info.ipi6_addr));
		put_cmsg(msg, SOL_IPV6, IPV6_PKTINFO, sizeof(info), &info);
	}
	if (np->rxopt.bits.rxhlim) {
		int hlim = dg->ttl;

		put_cmsg(msg, SOL_IPV6, IPV6_HOPLIMIT, sizeof(hlim), &hlim);
	}
	if (np->rxopt.bits.rxtclass) {
		int tclass = dg->tos;

		put_cmsg(msg, SOL_IPV6, IPV6_TCLASS, sizeof(tclass), &tclass);
	}
	if (np->rxopt.bits.rxorigdstaddr) {
		struct sockaddr_in6 sin6;

		memset(&sin6, 0, sizeof(sin6));
		sin6.sin6_family = AF_INET6;
		sin6.sin6_port = dg->dport;
		memcpy(&sin6.sin6_addr, dg->daddr.bytes,
		       sizeof(sin6.sin6_addr));
		sin6.sin6_scope_id = ipv6_iface_scope_id(&sin6.sin6_addr,
							 ifindex);
		put_cmsg(msg, SOL_IPV6, IPV6_ORIGDSTADDR, sizeof(sin6), &sin6);
	}
}

/**
 * vj_udp_put_cmsgs - the control messages of one datagram
 * @us: the receiving socket
 * @msg: the caller's message
 * @dg: the datagram as checked
 * @ifindex: the interface it arrived on
 * @tstamp: when the kernel took it, CLOCK_MONOTONIC ns
 */
void vj_udp_put_cmsgs(struct vj_udp_sock *us, struct msghdr *msg,
		      const struct vj_udp_dgram *dg, int ifindex, u64 tstamp)
{
	vj_udp_put_tstamp(&us->vs.sk, msg, tstamp);
	if (us->family == AF_INET)
		vj_udp_put_ip4(us, msg, dg, ifindex);
	else
		vj_udp_put_ip6(us, msg, dg, ifindex);
}
