/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The netfilter entry points (hook.c): the pre-routing fast path and the
 * filtered path at LOCAL_IN, IPv4 and IPv6, registered together.
 */
#ifndef _VJ_HOOK_H
#define _VJ_HOOK_H

struct vj_net;

int vj_hook_register(struct vj_net *vn);
void vj_hook_unregister(struct vj_net *vn);

#endif /* _VJ_HOOK_H */
