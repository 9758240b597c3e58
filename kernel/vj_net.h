/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per network namespace state: the flow table (flow.c), the netfilter
 * hooks (hook.c), the sanctioned connections (sanction.c) and the global
 * buffers the namespace's channels hold (ring_gbuf.c).  Created and
 * destroyed with the namespace (main.c).
 */
#ifndef _VJ_NET_H
#define _VJ_NET_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/spinlock.h>
#include <net/netns/generic.h>

#include "vj_flow.h"

struct vj_net {
	struct mutex lock;		/* writers: table, masks, channels */
	struct list_head channels;
	struct vj_masks __rcu *masks[2];
	unsigned int mask_refs[2][VJ_NMASKS];
	struct hlist_head table[1 << VJ_HASH_BITS];
	u32 seed;
	/*
	 * Entries in the table that the fast paths look up
	 * (vj_flow_on_fast()) and that the filtered path does
	 * (vj_flow_on_filtered()): without any, that path does no lookup.
	 */
	unsigned int nfast;
	unsigned int nfiltered;
	bool hooks_registered;
	/* pre-routing, then local-in (hook.c), IPv4 and IPv6 */
	struct nf_hook_ops hook_ops[4];
	spinlock_t sanction_lock;		/* writers of sanctions */
	unsigned int nsanctions;
	struct hlist_head sanctions[1 << VJ_SANCTION_BITS]; /* vj_sanction.h */
	struct net *net;
	/* global buffers its channels hold (ring_gbuf.c) */
	atomic_t gbufs;
};

extern unsigned int vj_net_id;

static inline struct vj_net *vj_pernet(const struct net *net)
{
	return net_generic(net, vj_net_id);
}

#endif /* _VJ_NET_H */
