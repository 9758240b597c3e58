/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The global buffer pool that the driver API hands out, and the default
 * channel: frames that no channel claims, handed to the normal stack.
 */
#ifndef _VJ_POOL_H
#define _VJ_POOL_H

struct vj_buffer;
struct seq_file;

int vj_pool_init(unsigned int nbufs);
void vj_pool_exit(void);
struct vj_buffer *vj_pool_get(void);
void vj_pool_put(struct vj_buffer *buf);
unsigned int vj_pool_size(void);
unsigned int vj_pool_free(void);

void vj_default_rx(struct vj_buffer *buf);
void vj_default_exit(void);

#endif /* _VJ_POOL_H */
