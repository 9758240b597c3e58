// SPDX-License-Identifier: GPL-2.0
/*
 * UDP channel sockets: the socket options.  Most go to the port holder,
 * from the caller's context, so that UDP's own checks and errors apply;
 * the channel keeps the ones it serves itself (IP_PKTINFO and
 * IPV6_RECVPKTINFO, which the receiving calls report, and VJ_BIND_FLAGS).
 */

#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/net.h>
#include <linux/sockptr.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/udp.h>

#include "vj_classify.h"
#include "vj_socket.h"
#include "vj_udp.h"

/* Most bytes of a SOL_SOCKET option value forwarded to the holder. */
#define VJ_UDP_SOCKOPT_MAX	64

/* An int option as ip_setsockopt() reads it: 0, 1 or 4 bytes. */
static int vj_udp_opt_int_ip(sockptr_t optval, unsigned int optlen, int *val)
{
	u8 c;

	*val = 0;
	if (optlen >= sizeof(int))
		return copy_from_sockptr(val, optval, sizeof(int)) ? -EFAULT : 0;
	if (optlen >= 1) {
		if (copy_from_sockptr(&c, optval, 1))
			return -EFAULT;
		*val = c;
	}
	return 0;
}

/* An int option as ipv6_setsockopt() reads it: at least 4 bytes. */
static int vj_udp_opt_int_ip6(sockptr_t optval, unsigned int optlen, int *val)
{
	if (optlen < sizeof(int))
		return -EINVAL;
	return copy_from_sockptr(val, optval, sizeof(int)) ? -EFAULT : 0;
}

/*
 * Switches for control messages the receiving calls do not write
 * (udp_cmsg.c lists those they do): turning one on fails with ENOPROTOOPT
 * rather than be silently without effect.  The switches of IP_PKTINFO and
 * IPV6_RECVPKTINFO are the channel's own; the other options go to the
 * holder.
 */
static bool vj_udp_opt_refused(int level, int optname)
{
	switch (level) {
	case SOL_SOCKET:
		return optname == SO_TIMESTAMPING_OLD ||
		       optname == SO_TIMESTAMPING_NEW ||
		       optname == SO_RXQ_OVFL;
	case SOL_IP:
		return optname == IP_RECVOPTS || optname == IP_RETOPTS ||
		       optname == IP_PASSSEC || optname == IP_CHECKSUM ||
		       optname == IP_RECVFRAGSIZE;
	case SOL_IPV6:
		return optname == IPV6_2292PKTINFO ||
		       optname == IPV6_2292HOPOPTS ||
		       optname == IPV6_2292DSTOPTS ||
		       optname == IPV6_2292RTHDR ||
		       optname == IPV6_2292HOPLIMIT ||
		       optname == IPV6_RECVHOPOPTS ||
		       optname == IPV6_RECVRTHDR ||
		       optname == IPV6_RECVDSTOPTS ||
		       optname == IPV6_RECVPATHMTU ||
		       optname == IPV6_FLOWINFO ||
		       optname == IPV6_RECVFRAGSIZE;
	case SOL_UDP:
		return optname == UDP_GRO;
	}
	return false;
}

/*
 * A refused switch (vj_udp_opt_refused()) being turned on: -ENOPROTOOPT;
 * turned off, or another option: 0.  The value is read as the option's
 * own handler reads an int (a short one is the handler's error to give).
 */
static int vj_udp_opt_check(int level, int optname, sockptr_t optval,
			    unsigned int optlen)
{
	int val = 0;

	if (!vj_udp_opt_refused(level, optname) || !optlen)
		return 0;
	if (level == SOL_IP) {
		if (vj_udp_opt_int_ip(optval, optlen, &val))
			return -EFAULT;
	} else if (optlen >= sizeof(val)) {
		if (copy_from_sockptr(&val, optval, sizeof(val)))
			return -EFAULT;
	} else {
		return 0;
	}
	return val ? -ENOPROTOOPT : 0;
}

static int vj_udp_set_bind_flags(struct vj_udp_sock *us, sockptr_t optval,
				 unsigned int optlen)
{
	struct vj_sock *vs = &us->vs;
	u32 flags;
	int err;

	if (optlen < sizeof(flags))
		return -EINVAL;
	if (copy_from_sockptr(&flags, optval, sizeof(flags)))
		return -EFAULT;
	/* Transit traffic is not addressed to the port's owner. */
	if (flags & ~VJ_BIND_FW_MASK)
		return -EINVAL;
	err = vj_fw_mode_check(flags);
	if (err)
		return err;
	if (flags == VJ_BIND_FW_BYPASS &&
	    !sk_net_capable(&vs->sk, CAP_NET_ADMIN))
		return -EPERM;
	mutex_lock(&vs->lock);
	if (vs->bound)
		err = -EBUSY;
	else if (flags != VJ_BIND_FW_FILTERED && us->progs)
		err = -EOPNOTSUPP;	/* see vj_udp_set_prog() */
	else
		us->fw_mode = flags;
	mutex_unlock(&vs->lock);
	return err;
}

/*
 * A socket filter or a reuseport group's program: UDP runs it on the
 * holder's datagrams, so it applies where UDP delivers (the filtered mode),
 * and is refused where the fast paths would pass it by.
 */
static int vj_udp_set_prog(struct vj_udp_sock *us, int optname,
			   sockptr_t optval, unsigned int optlen)
{
	int err = 0;

	mutex_lock(&us->vs.lock);
	if (us->fw_mode != VJ_BIND_FW_FILTERED)
		err = -EOPNOTSUPP;
	else
		us->progs = true;
	mutex_unlock(&us->vs.lock);
	if (err)
		return err;
	return sock_setsockopt(us->holder, SOL_SOCKET, optname, optval, optlen);
}

/*
 * SOL_SOCKET (the socket has SOCK_CUSTOM_SOCKOPT, so every level comes
 * here).  Options that shape sending, binding or UDP's choice of socket
 * are set on the holder, then on the channel socket so that getsockopt()
 * reports them (SO_REUSEPORT is only recorded there: the core refuses it
 * on a socket that is not inet); socket filters and reuseport programs go
 * to the holder (vj_udp_set_prog()); the rest apply to the channel socket.
 */
static int vj_udp_set_sol_socket(struct socket *sock, int optname,
				 sockptr_t optval, unsigned int optlen)
{
	struct vj_udp_sock *us = vj_udp_sk(sock->sk);
	u8 buf[VJ_UDP_SOCKOPT_MAX];
	unsigned int n;
	int val, err;

	switch (optname) {
	case SO_REUSEPORT:
		if (optlen < sizeof(int))
			return -EINVAL;
		if (copy_from_sockptr(&val, optval, sizeof(val)))
			return -EFAULT;
		err = sock_setsockopt(us->holder, SOL_SOCKET, optname,
				      KERNEL_SOCKPTR(&val), sizeof(val));
		if (err)
			return err;
		lock_sock(sock->sk);
		sock->sk->sk_reuseport = !!val;
		release_sock(sock->sk);
		return 0;
	case SO_ATTACH_FILTER:
	case SO_ATTACH_BPF:
	case SO_ATTACH_REUSEPORT_CBPF:
	case SO_ATTACH_REUSEPORT_EBPF:
		return vj_udp_set_prog(us, optname, optval, optlen);
	case SO_DETACH_FILTER:
	case SO_LOCK_FILTER:
	case SO_DETACH_REUSEPORT_BPF:
		return sock_setsockopt(us->holder, SOL_SOCKET, optname, optval,
				       optlen);
	case SO_REUSEADDR:
	case SO_INCOMING_CPU:
	case SO_SNDBUF:
	case SO_SNDBUFFORCE:
	case SO_BROADCAST:
	case SO_PRIORITY:
	case SO_MARK:
	case SO_BINDTODEVICE:
	case SO_BINDTOIFINDEX:
	case SO_SNDTIMEO_OLD:
	case SO_SNDTIMEO_NEW:
		/* Read once: both sockets get the same value. */
		n = min_t(unsigned int, optlen, sizeof(buf));
		if (copy_from_sockptr(buf, optval, n))
			return -EFAULT;
		err = sock_setsockopt(us->holder, SOL_SOCKET, optname,
				      KERNEL_SOCKPTR(buf), n);
		if (err)
			return err;
		return sock_setsockopt(sock, SOL_SOCKET, optname,
				       KERNEL_SOCKPTR(buf), n);
	default:
		return sock_setsockopt(sock, SOL_SOCKET, optname, optval,
				       optlen);
	}
}

int vj_udp_setsockopt(struct socket *sock, int level, int optname,
		      sockptr_t optval, unsigned int optlen)
{
	struct vj_udp_sock *us = vj_udp_sk(sock->sk);
	int val, err;

	err = vj_udp_opt_check(level, optname, optval, optlen);
	if (err)
		return err;
	switch (level) {
	case SOL_VJCHAN:
		if (optname == VJ_BIND_FLAGS)
			return vj_udp_set_bind_flags(us, optval, optlen);
		return vj_sock_setsockopt(sock, optname, optval, optlen);
	case SOL_SOCKET:
		return vj_udp_set_sol_socket(sock, optname, optval, optlen);
	case SOL_IP:
		if (us->family != AF_INET || optname != IP_PKTINFO)
			break;
		err = vj_udp_opt_int_ip(optval, optlen, &val);
		if (!err)
			WRITE_ONCE(us->pktinfo, !!val);
		return err;
	case SOL_IPV6:
		if (us->family != AF_INET6)
			break;
		if (optname == IPV6_RECVPKTINFO) {
			err = vj_udp_opt_int_ip6(optval, optlen, &val);
			if (!err)
				WRITE_ONCE(us->pktinfo, !!val);
			return err;
		}
		/* A UDP channel is IPv6 only. */
		if (optname == IPV6_V6ONLY) {
			err = vj_udp_opt_int_ip6(optval, optlen, &val);
			return err ?: val ? 0 : -EINVAL;
		}
		break;
	}
	return us->holder->ops->setsockopt(us->holder, level, optname, optval,
					   optlen);
}

/* An int option value as ip_getsockopt() returns it (1 byte if asked). */
static int vj_udp_put_opt_int(int val, char __user *optval, int __user *optlen,
			      bool ip6)
{
	int len;

	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0 || (ip6 && len < (int)sizeof(int)))
		return -EINVAL;
	if (!ip6 && len < (int)sizeof(int) && len > 0) {
		u8 c = val;

		if (put_user(1, optlen) || copy_to_user(optval, &c, 1))
			return -EFAULT;
		return 0;
	}
	len = min_t(int, len, sizeof(int));
	if (put_user(len, optlen) || copy_to_user(optval, &val, len))
		return -EFAULT;
	return 0;
}

int vj_udp_getsockopt(struct socket *sock, int level, int optname,
		      char __user *optval, int __user *optlen)
{
	struct vj_udp_sock *us = vj_udp_sk(sock->sk);
	u32 flags;
	int len;

	switch (level) {
	case SOL_VJCHAN:
		if (optname != VJ_BIND_FLAGS)
			return vj_sock_getsockopt(sock, optname, optval,
						  optlen);
		if (get_user(len, optlen))
			return -EFAULT;
		if (len < (int)sizeof(flags))
			return -EINVAL;
		mutex_lock(&us->vs.lock);
		flags = us->fw_mode;
		mutex_unlock(&us->vs.lock);
		if (put_user(sizeof(flags), optlen) ||
		    copy_to_user(optval, &flags, sizeof(flags)))
			return -EFAULT;
		return 0;
	case SOL_IP:
		if (us->family == AF_INET && optname == IP_PKTINFO)
			return vj_udp_put_opt_int(READ_ONCE(us->pktinfo), optval,
					   optlen, false);
		break;
	case SOL_IPV6:
		if (us->family == AF_INET6 && optname == IPV6_RECVPKTINFO)
			return vj_udp_put_opt_int(READ_ONCE(us->pktinfo), optval,
					   optlen, true);
		break;
	}
	return us->holder->ops->getsockopt(us->holder, level, optname, optval,
					   optlen);
}
