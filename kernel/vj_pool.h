/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The global buffer pool that the driver API hands out, and the default
 * channel: frames that no channel claims, handed to the normal stack.
 */
#ifndef _VJ_POOL_H
#define _VJ_POOL_H

#include <linux/skbuff.h>

#include "vjchan_driver.h"

struct napi_struct;
struct seq_file;
struct vj_rx_result;

/* Memory behind one global buffer: an skb head around VJ_GBUF_SIZE bytes. */
#define VJ_GBUF_TRUESIZE \
	(SKB_DATA_ALIGN(VJ_GBUF_HEADROOM + VJ_GBUF_SIZE) + \
	 SKB_DATA_ALIGN(sizeof(struct skb_shared_info)))

int vj_pool_init(unsigned int nbufs);
void vj_pool_exit(void);
struct vj_gbuf *vj_pool_get(void);
void vj_pool_put(struct vj_gbuf *buf);
void vj_pool_set_head(struct vj_gbuf *buf, void *head);
unsigned int vj_pool_size(void);
unsigned int vj_pool_free(void);

void vj_default_rx(struct vj_gbuf *buf);
void vj_default_napi_rx(struct napi_struct *napi, struct vj_gbuf *buf,
			struct vj_rx_result *res);
void vj_default_exit(void);

#endif /* _VJ_POOL_H */
