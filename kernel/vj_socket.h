/* SPDX-License-Identifier: GPL-2.0 */
/* The PF_VJCHAN socket family. */
#ifndef _VJ_SOCKET_H
#define _VJ_SOCKET_H

struct sock;
struct seq_file;
struct vj_chan;

int vj_socket_init(void);
void vj_socket_exit(void);
void vj_sock_dev_gone(struct sock *sk);
void vj_sock_show(struct seq_file *seq, struct vj_chan *chan);

#endif /* _VJ_SOCKET_H */
