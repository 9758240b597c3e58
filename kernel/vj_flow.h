/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flow table: which channel a packet belongs to.
 *
 * Each network namespace keeps its bound channels in one hash table, one
 * entry (struct vj_flow_entry) per bound flow id, keyed by (mask, masked
 * flow key), where the mask says which fields the channel specifies.  A
 * lookup tries, per address family, each mask that some channel uses,
 * most specific first, and stops at the first hit: a tuple space search.
 * Entries of one group (struct vj_flow_entry, group) share a flow id: the
 * lookup finds the first, and a fast path spreads the group's flows over
 * its members with vj_flow_group_pick().
 * Readers (the receive paths) run under RCU and take no lock; writers
 * (bind, close, device removal, a UDP channel's connect) hold vj_net->lock.
 * An entry's key never changes while it is in the table: a new flow id for
 * a bound channel is a second entry that takes the first one's place
 * (vj_flow_replace()).
 */
#ifndef _VJ_FLOW_H
#define _VJ_FLOW_H

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/rculist.h>
#include <linux/types.h>
#include <linux/vjchan.h>

#include "vj_key.h"

struct net;
struct sock;
struct vj_net;
struct vj_ring;

/* Mask bits: a set bit means the field is specified.  The numeric order of
 * masks with equally many bits is the documented tie rule.
 */
#define VJ_M_IFINDEX	BIT(0)
#define VJ_M_PROTO	BIT(1)
#define VJ_M_SADDR	BIT(2)
#define VJ_M_SPORT	BIT(3)
#define VJ_M_DADDR	BIT(4)
#define VJ_M_DPORT	BIT(5)
#define VJ_NMASKS	64

#define VJ_HASH_BITS	10
#define VJ_SANCTION_BITS	8

/* A bound channel's place in the table: its flow id, socket and ring. */
struct vj_flow_entry {
	struct hlist_node hnode;	/* vj_net->table, RCU */
	struct list_head list;		/* vj_net->channels */
	struct vj_flow_key key;
	struct vj_flow flow;		/* as bound, for getsockname */
	u8 mask;
	u8 fw_mode;			/* VJ_BIND_FW_*, fixed at bind */
	bool transit;			/* VJ_BIND_F_TRANSIT, fixed at bind */
	/*
	 * A UDP channel socket: UDP delivers what the fast paths leave
	 * (udp_holder.c), and its receiving calls sum a checksum that has
	 * no device verdict (deliver.c).
	 */
	bool udp_chan;
	bool hashed;
	/*
	 * Longest packet, from the IP header on, that a fast path gives the
	 * channel; a longer one goes to the stack (a UDP channel socket: UDP
	 * delivers it, see udp_holder.c).  0: any length, cut to the buffer.
	 */
	u32 fast_max;
	/*
	 * Channels of one kind (raw or UDP) with the same flow id, firewall
	 * mode, spread rule and nonzero group share the flow id (a group);
	 * 0: it may not be shared.  Set at bind.
	 */
	u32 group;
	u8 spread;			/* VJ_SPREAD_*, the same in a group */
	bool grouped;			/* another entry has shared its flow id */
	struct sock *sk;
	struct vj_ring *ring;
};

/*
 * The group of UDP channel sockets that UDP delivers to: UDP's socket
 * lookup chooses among them, so they may share a flow id as their port
 * holders share the port.  Other groups are a reuseport group's id + 1.
 */
#define VJ_FLOW_GROUP_UDP	U32_MAX

/*
 * Whether the fast paths look @fe up: all but filtered UDP channels,
 * whose datagrams UDP delivers (a filtered raw channel's packets are
 * counted there, in fw_deferred).
 */
static inline bool vj_flow_on_fast(const struct vj_flow_entry *fe)
{
	return fe->fw_mode != VJ_BIND_FW_FILTERED || !fe->udp_chan;
}

/*
 * Whether the filtered path feeds @fe, or notes its connection: all but
 * UDP channels, sanctioned ones excepted.
 */
static inline bool vj_flow_on_filtered(const struct vj_flow_entry *fe)
{
	return !fe->udp_chan || fe->fw_mode == VJ_BIND_FW_SANCTIONED;
}

/* The ordered list of masks in use for one family, replaced under RCU. */
struct vj_masks {
	struct rcu_head rcu;
	unsigned int n;
	u8 mask[VJ_NMASKS];
};

int vj_flow_from_user(const struct vj_flow *flow, struct vj_flow_key *key,
		      u8 *mask);
struct vj_flow_entry *vj_flow_lookup(struct vj_net *vn,
				     const struct vj_flow_key *pkt);
struct vj_flow_entry *vj_flow_group_pick(struct vj_net *vn,
					 struct vj_flow_entry *first,
					 const struct vj_flow_key *pkt);
int vj_flow_bind(struct vj_net *vn, struct vj_flow_entry *fe);
int vj_flow_replace(struct vj_net *vn, struct vj_flow_entry *old,
		    struct vj_flow_entry *new);
void vj_flow_unbind(struct vj_net *vn, struct vj_flow_entry *fe);
void vj_flow_dev_gone(struct vj_net *vn, int ifindex);
void vj_flow_net_init(struct vj_net *vn, struct net *net);
void vj_flow_net_exit(struct vj_net *vn);

#endif /* _VJ_FLOW_H */
