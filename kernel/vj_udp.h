/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UDP channel sockets: a channel bound to a local UDP port that receives
 * like a UDP socket.  udp.c holds the socket operations, udp_opt.c the
 * socket options, udp_holder.c the port holder, udp_rx.c the receiving
 * calls and udp_cmsg.c the sender's address and control messages they
 * write.
 *
 * The port holder is a UDP socket of the same family in the same network
 * namespace, created with the channel socket in the caller's context.
 * Binding the channel binds the holder first, which reserves the port
 * against ordinary UDP sockets exactly as one of them would, and only then
 * binds the channel's flow {family, IPPROTO_UDP, bound address or any,
 * port}.  Sending, connect(), getsockname()/getpeername() and the IP and
 * UDP options go to the holder.  In the filtered and sanctioned modes UDP
 * delivers the datagrams to the holder, whose sk_data_ready() moves them
 * into the channel's ring (udp_holder.c); in bypass mode the fast paths
 * take them first.  The receiving calls read the ring, and the holder only
 * for its errors (MSG_ERRQUEUE, sk_err).
 *
 * Locking: bind_lock serializes bind, autobind and following the holder
 * after connect(): the holder's calls and its socket lock are taken under
 * it; vs->lock (struct vj_sock) then guards the channel's binding (ring,
 * flow-table slots, bound) and the firewall mode, and is never held while
 * the holder's socket lock is taken, since mmap() takes vs->lock under
 * mmap_lock and a holder's send may fault under its socket lock.  Order:
 * bind_lock, holder's socket lock, (mmap_lock,) vs->lock.  rx_lock
 * serializes the receiving calls, which consume the ring.  None is held
 * while sleeping for data.
 */
#ifndef _VJ_UDP_H
#define _VJ_UDP_H

#include <linux/mutex.h>
#include <linux/sockptr.h>
#include <linux/types.h>

#include "vj_socket.h"

struct msghdr;
struct net;
struct socket;

struct vj_udp_sock {
	struct vj_sock vs;	/* must be first */
	struct vj_flow_entry alt;	/* the second flow id slot, beside vs.fe */
	struct vj_flow_entry *fe;	/* the slot bound while vs.bound */
	unsigned long unhash_gp; /* RCU state when a slot last left the table */
	struct socket *holder;	/* the port holder, for the socket's life */
	struct mutex bind_lock;	/* bind, autobind, following the holder */
	struct mutex rx_lock;	/* receiving calls */
	int family;		/* AF_INET or AF_INET6 */
	__be16 port;		/* the bound port, for the receiving calls */
	u16 fw_mode;		/* VJ_BIND_FW_* for the bind */
	bool pktinfo;		/* IP_PKTINFO / IPV6_RECVPKTINFO */
	bool progs;		/* a filter or reuseport program was attached */
};

/* One datagram that passed the receiving call's checks (udp_rx.c). */
struct vj_udp_dgram {
	union vj_addr saddr;
	union vj_addr daddr;
	__be16 sport;
	__be16 dport;
	u8 tos;			/* IPv4 TOS, IPv6 traffic class */
	u8 ttl;			/* IPv4 TTL, IPv6 hop limit */
	u32 payload_off;	/* from the packet's first byte */
	u32 payload_len;
};

static inline struct vj_udp_sock *vj_udp_sk(const struct sock *sk)
{
	return container_of(vj_sk(sk), struct vj_udp_sock, vs);
}

int vj_udp_init(void);
void vj_udp_exit(void);

/* udp_opt.c */
int vj_udp_setsockopt(struct socket *sock, int level, int optname,
		      sockptr_t optval, unsigned int optlen);
int vj_udp_getsockopt(struct socket *sock, int level, int optname,
		      char __user *optval, int __user *optlen);

/* udp_holder.c */
int vj_udp_holder_create(struct net *net, int family, struct socket **res);
void vj_udp_holder_attach(struct vj_udp_sock *us);
void vj_udp_holder_release(struct vj_udp_sock *us);

/* udp_cmsg.c */
void vj_udp_put_name(struct vj_udp_sock *us, struct msghdr *msg,
		     const struct vj_udp_dgram *dg, int ifindex);
void vj_udp_put_cmsgs(struct vj_udp_sock *us, struct msghdr *msg,
		      const struct vj_udp_dgram *dg, int ifindex, u64 tstamp);

/* udp_rx.c */
int vj_udp_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		   int flags);
bool vj_udp_readable(struct vj_udp_sock *us);
int vj_udp_inq(struct vj_udp_sock *us);

#endif /* _VJ_UDP_H */
