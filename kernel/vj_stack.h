/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stack queue (stack.c): driver-API frames that no channel claims,
 * passed to the normal stack.
 */
#ifndef _VJ_STACK_H
#define _VJ_STACK_H

struct napi_struct;
struct vj_gbuf;
struct vj_rx_result;

void vj_stack_rx(struct vj_gbuf *buf);
void vj_stack_napi_rx(struct napi_struct *napi, struct vj_gbuf *buf,
		      struct vj_rx_result *res);
void vj_stack_exit(void);

#endif /* _VJ_STACK_H */
