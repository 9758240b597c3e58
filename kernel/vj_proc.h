/* SPDX-License-Identifier: GPL-2.0 */
/* /proc/net/vjchan (channels of a namespace) and /proc/net/vjchan_pool. */
#ifndef _VJ_PROC_H
#define _VJ_PROC_H

struct net;

int vj_proc_net_init(struct net *net);
void vj_proc_net_exit(struct net *net);

#endif /* _VJ_PROC_H */
