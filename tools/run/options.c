// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Carrying the options a program set on its UDP socket before bind() over
 * to the channel that replaces it.
 *
 * Each option of the table below is read from the program's socket and
 * from a fresh UDP socket of the same family; only a value that differs
 * (one the program set) is set on the channel, so defaults that the
 * channel keeps its own way (SO_RCVBUF: the ring is sized by VJ_RING) are
 * left alone.  Options not in the table are not carried over, notably
 * multicast group memberships, which programs join after bind().
 *
 * CARRY: set on the channel; if the channel refuses it, the replacement
 *	fails with the channel's error (replace.c).
 * REFUSE: switches for control messages a channel's receive path never
 *	writes (it writes SCM_TIMESTAMP, SCM_TIMESTAMPNS, IP_PKTINFO, IP_TTL,
 *	IP_TOS, IP_ORIGDSTADDR and their IPv6 counterparts); a program that
 *	turned one on is not given a channel: the replacement fails with
 *	ENOPROTOOPT, which the channel itself also returns for them.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <unistd.h>

#include "run.h"

/* Kernel option names glibc's headers may lack (linux/in.h, linux/in6.h). */
#ifndef IP_CHECKSUM
#define IP_CHECKSUM		23
#endif
#ifndef IP_RECVFRAGSIZE
#define IP_RECVFRAGSIZE		25
#endif
#ifndef IPV6_FLOWINFO
#define IPV6_FLOWINFO		11
#endif
#ifndef IPV6_RECVFRAGSIZE
#define IPV6_RECVFRAGSIZE	77
#endif
#ifndef UDP_GRO
#define UDP_GRO			104
#endif

enum carry { CARRY, CARRY_BUF, REFUSE };

struct opt {
	int		level;
	int		name;
	const char	*text;
	enum carry	how;
};

#define OPT(level, name, how)	{ level, name, #name, how }

static const struct opt sock_opts[] = {
	OPT(SOL_SOCKET, SO_REUSEADDR, CARRY),
	OPT(SOL_SOCKET, SO_REUSEPORT, CARRY),
	OPT(SOL_SOCKET, SO_BROADCAST, CARRY),
	OPT(SOL_SOCKET, SO_SNDBUF, CARRY_BUF),
	OPT(SOL_SOCKET, SO_RCVBUF, CARRY_BUF),
	OPT(SOL_SOCKET, SO_PRIORITY, CARRY),
	OPT(SOL_SOCKET, SO_MARK, CARRY),
	OPT(SOL_SOCKET, SO_RCVTIMEO, CARRY),
	OPT(SOL_SOCKET, SO_SNDTIMEO, CARRY),
	OPT(SOL_SOCKET, SO_BINDTODEVICE, CARRY),
	OPT(SOL_SOCKET, SO_TIMESTAMPNS, CARRY),
	OPT(SOL_SOCKET, SO_TIMESTAMP, CARRY),
	OPT(SOL_SOCKET, SO_TIMESTAMPING, REFUSE),
	OPT(SOL_SOCKET, SO_RXQ_OVFL, REFUSE),
	OPT(SOL_UDP, UDP_SEGMENT, CARRY),
	OPT(SOL_UDP, UDP_GRO, REFUSE),
	{ 0 }
};

static const struct opt ip_opts[] = {
	OPT(SOL_IP, IP_TOS, CARRY),
	OPT(SOL_IP, IP_TTL, CARRY),
	OPT(SOL_IP, IP_PKTINFO, CARRY),
	OPT(SOL_IP, IP_RECVERR, CARRY),
	OPT(SOL_IP, IP_MTU_DISCOVER, CARRY),
	OPT(SOL_IP, IP_FREEBIND, CARRY),
	OPT(SOL_IP, IP_TRANSPARENT, CARRY),
	OPT(SOL_IP, IP_MULTICAST_TTL, CARRY),
	OPT(SOL_IP, IP_MULTICAST_LOOP, CARRY),
	OPT(SOL_IP, IP_MULTICAST_ALL, CARRY),
	OPT(SOL_IP, IP_RECVTOS, CARRY),
	OPT(SOL_IP, IP_RECVTTL, CARRY),
	OPT(SOL_IP, IP_RECVORIGDSTADDR, CARRY),
	OPT(SOL_IP, IP_RECVOPTS, REFUSE),
	OPT(SOL_IP, IP_RETOPTS, REFUSE),
	OPT(SOL_IP, IP_PASSSEC, REFUSE),
	OPT(SOL_IP, IP_CHECKSUM, REFUSE),
	OPT(SOL_IP, IP_RECVFRAGSIZE, REFUSE),
	{ 0 }
};

static const struct opt ip6_opts[] = {
	OPT(SOL_IPV6, IPV6_UNICAST_HOPS, CARRY),
	OPT(SOL_IPV6, IPV6_TCLASS, CARRY),
	OPT(SOL_IPV6, IPV6_RECVPKTINFO, CARRY),
	OPT(SOL_IPV6, IPV6_RECVERR, CARRY),
	OPT(SOL_IPV6, IPV6_MTU_DISCOVER, CARRY),
	OPT(SOL_IPV6, IPV6_DONTFRAG, CARRY),
	OPT(SOL_IPV6, IPV6_FREEBIND, CARRY),
	OPT(SOL_IPV6, IPV6_TRANSPARENT, CARRY),
	OPT(SOL_IPV6, IPV6_MULTICAST_HOPS, CARRY),
	OPT(SOL_IPV6, IPV6_MULTICAST_LOOP, CARRY),
	OPT(SOL_IPV6, IPV6_RECVTCLASS, CARRY),
	OPT(SOL_IPV6, IPV6_RECVHOPLIMIT, CARRY),
	OPT(SOL_IPV6, IPV6_RECVORIGDSTADDR, CARRY),
	OPT(SOL_IPV6, IPV6_FLOWINFO, REFUSE),
	OPT(SOL_IPV6, IPV6_RECVFRAGSIZE, REFUSE),
	OPT(SOL_IPV6, IPV6_2292PKTINFO, REFUSE),
	OPT(SOL_IPV6, IPV6_2292HOPLIMIT, REFUSE),
	OPT(SOL_IPV6, IPV6_RECVRTHDR, REFUSE),
	OPT(SOL_IPV6, IPV6_RECVHOPOPTS, REFUSE),
	OPT(SOL_IPV6, IPV6_RECVDSTOPTS, REFUSE),
	OPT(SOL_IPV6, IPV6_RECVPATHMTU, REFUSE),
	{ 0 }
};

/* Large enough for every option above (SO_TIMESTAMPING's struct is 8). */
#define OPT_MAX		32

static int carry_table(const struct opt *t, int from, int ref, int to,
		       const char **what)
{
	unsigned char v[OPT_MAX], d[OPT_MAX];
	socklen_t vlen, dlen;
	int half;

	for (; t->text; t++) {
		vlen = sizeof(v);
		dlen = sizeof(d);
		memset(v, 0, sizeof(v));
		memset(d, 0, sizeof(d));
		/* An option this kernel lacks was not set by the program. */
		if (getsockopt(from, t->level, t->name, v, &vlen) < 0)
			continue;
		if (getsockopt(ref, t->level, t->name, d, &dlen) < 0)
			dlen = 0;
		if (vlen == dlen && !memcmp(v, d, vlen))
			continue;
		*what = t->text;
		if (t->how == REFUSE) {
			errno = ENOPROTOOPT;
			return -1;
		}
		if (t->how == CARRY_BUF) {
			/* getsockopt() reports twice what was asked for. */
			memcpy(&half, v, sizeof(half));
			half /= 2;
			memcpy(v, &half, sizeof(half));
		}
		if (setsockopt(to, t->level, t->name, v, vlen) < 0)
			return -1;
	}
	return 0;
}

/*
 * Sets on socket `to` the options of the table that socket `from`, of
 * address family `family`, has changed from their defaults.  Returns 0,
 * or -1 with errno set and *what naming the option that could not be
 * carried over.
 */
int vj_run_copy_options(int from, int to, int family, const char **what)
{
	int ref, ret;

	*what = "a reference UDP socket";
	ref = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
	if (ref < 0)
		return -1;
	ret = carry_table(sock_opts, from, ref, to, what);
	if (!ret)
		ret = carry_table(family == AF_INET ? ip_opts : ip6_opts,
				  from, ref, to, what);
	if (ret) {
		int saved = errno;

		close(ref);
		errno = saved;
		return -1;
	}
	close(ref);
	return 0;
}
