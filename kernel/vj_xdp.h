/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The XDP receive path: a kfunc that XDP programs call to hand a frame to
 * its channel before any skb exists.  See kernel/xdp.c and docs/DESIGN.md.
 */
#ifndef _VJ_XDP_H
#define _VJ_XDP_H

int vj_xdp_init(void);

#endif /* _VJ_XDP_H */
