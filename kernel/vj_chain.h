/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Frames across several global buffers (chain.c).
 */
#ifndef _VJ_CHAIN_H
#define _VJ_CHAIN_H

#include <linux/types.h>

struct napi_struct;
struct vj_gbuf;
struct vj_rx_result;

bool vj_chain_check(const struct vj_gbuf *buf, unsigned int *len);
void vj_chain_put(struct vj_gbuf *buf);
void vj_chain_rx(struct napi_struct *napi, struct vj_gbuf *buf,
		 unsigned int len, struct vj_rx_result *res);

#endif /* _VJ_CHAIN_H */
