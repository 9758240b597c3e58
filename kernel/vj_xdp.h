/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The XDP receive path: a kfunc that XDP programs call to hand a frame to
 * its channel before any skb exists.  See kernel/xdp.c and docs/DESIGN.md.
 */
#ifndef _VJ_XDP_H
#define _VJ_XDP_H

struct xdp_md;

int vj_xdp_init(void);
/* The kfunc, called by XDP programs only (kernel side: struct xdp_buff *). */
int vj_xdp_deliver(struct xdp_md *ctx);

#endif /* _VJ_XDP_H */
