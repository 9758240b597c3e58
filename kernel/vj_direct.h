/* SPDX-License-Identifier: GPL-2.0 */
/* Direct receive: a channel owns a device's receive queue (direct.c). */
#ifndef _VJ_DIRECT_H
#define _VJ_DIRECT_H

#include "vjchan_driver.h"

struct net;
struct net_device;
struct vj_flow_entry;
struct vj_ring;

int vj_direct_attach(struct net *net, int ifindex, struct vj_flow_entry *fe,
		     struct vj_ring *ring, struct vj_direct **out);
void vj_direct_release_locked(struct vj_direct *d);
void vj_direct_release(struct vj_direct *d);
void vj_direct_dev_gone(struct net_device *dev);

#endif /* _VJ_DIRECT_H */
