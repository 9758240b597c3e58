/* SPDX-License-Identifier: GPL-2.0 */
/* The PF_VJCHAN socket family. */
#ifndef _VJ_SOCKET_H
#define _VJ_SOCKET_H

#include <linux/mutex.h>
#include <linux/sockptr.h>
#include <net/sock.h>

#include "vj_flow.h"

struct vj_direct;
struct vm_area_struct;

/* One channel socket; a UDP channel socket's object starts with it. */
struct vj_sock {
	struct sock sk;		/* must be first */
	struct mutex lock;	/* configuration: ring geometry, ring, bind */
	struct vj_ring_req req;
	struct vj_group_req group;	/* VJ_GROUP, for the coming bind */
	struct vj_ring *ring;
	struct vj_flow_entry fe;
	struct vj_direct *direct;	/* VJ_BIND_F_DIRECT, set at bind */
	bool bound;
};

/* Creates a socket of one channel protocol (socket.c's table). */
typedef int (*vj_sock_create_t)(struct net *net, struct socket *sock,
				int protocol);
#define VJ_NPROTOS	(VJ_PROTO_UDP6 + 1)

static inline struct vj_sock *vj_sk(const struct sock *sk)
{
	return container_of(sk, struct vj_sock, sk);
}

int vj_socket_init(void);
void vj_socket_exit(void);
void vj_sock_proto_set(int protocol, vj_sock_create_t create);
void vj_sock_init(struct socket *sock, struct sock *sk,
		  const struct proto_ops *ops);
int vj_sock_ensure_ring(struct vj_sock *vs);
int vj_sock_flow_bind(struct vj_sock *vs, struct vj_flow_entry *fe);
void vj_sock_unbind(struct vj_sock *vs);
void vj_sock_put(struct socket *sock);
int vj_sock_mmap(struct file *file, struct socket *sock,
		 struct vm_area_struct *vma);
int vj_sock_setsockopt(struct socket *sock, int optname, sockptr_t optval,
		       unsigned int optlen);
int vj_sock_getsockopt(struct socket *sock, int optname, char __user *optval,
		       int __user *optlen);

#endif /* _VJ_SOCKET_H */
