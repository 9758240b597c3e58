/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pool: the free global buffers that the driver API hands out.
 */
#ifndef _VJ_POOL_H
#define _VJ_POOL_H

#include <linux/skbuff.h>

#include "vjchan_driver.h"

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

#endif /* _VJ_POOL_H */
