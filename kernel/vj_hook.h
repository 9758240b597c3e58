/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The receive hook: packets from any network device, taken from the IPv4 and
 * IPv6 pre-routing netfilter hooks and copied into their channel.  Its
 * registration also registers the filtered path's LOCAL_IN hooks.
 */
#ifndef _VJ_HOOK_H
#define _VJ_HOOK_H

struct vj_net;

int vj_hook_register(struct vj_net *vn);
void vj_hook_unregister(struct vj_net *vn);

#endif /* _VJ_HOOK_H */
