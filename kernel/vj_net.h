/* SPDX-License-Identifier: GPL-2.0 */
/* Per network namespace state (struct vj_net, in vj_flow.h). */
#ifndef _VJ_NET_H
#define _VJ_NET_H

#include <net/netns/generic.h>

#include "vj_flow.h"

extern unsigned int vj_net_id;

static inline struct vj_net *vj_pernet(const struct net *net)
{
	return net_generic(net, vj_net_id);
}

int vj_net_init(void);
void vj_net_exit(void);

#endif /* _VJ_NET_H */
