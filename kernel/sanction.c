// SPDX-License-Identifier: GPL-2.0
/*
 * Sanctioned connections.
 *
 * A sanctioned channel is filtered, except for the connections that the
 * administrator's ruleset marks: when the filtered path (LOCAL_IN, after
 * every rule) delivers a packet whose conntrack entry carries all the bits
 * of the sanction_mark module parameter, the connection's exact tuple is
 * remembered here, with a reference on the conntrack entry.  From then on
 * the fast paths deliver that connection's packets directly, as
 * nf_flowtable does for forwarded connections after "flow add": the rules
 * decided once, for the whole connection.  Each packet taken on a fast path
 * pushes the entry's timeout forward by the length it had when sanctioned,
 * so conntrack does not expire a connection it no longer sees, and is
 * added to the entry's packet and byte counters (if conntrack accounting
 * gave it them), in the direction of the packet that was sanctioned.
 *
 * A sanction ends when its conntrack entry dies or expires (checked on each
 * use, and swept when the table is full), when the channel is unbound, or
 * when the namespace goes.  Readers (the fast paths) take no lock; writers
 * hold vn->sanction_lock.  Entries are freed after an RCU grace period,
 * which also drops the conntrack reference.
 */

#include <linux/jhash.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/nf_conntrack_acct.h>

#include "vj_flow.h"
#include "vj_net.h"
#include "vj_sanction.h"
#include "vj_stats.h"

unsigned int vj_sanction_mark;
module_param_named(sanction_mark, vj_sanction_mark, uint, 0644);
MODULE_PARM_DESC(sanction_mark,
		 "conntrack mark bits that sanction a connection for the fast paths (0: none)");

#define VJ_SANCTION_MAX		4096	/* per namespace */

struct vj_sanction {
	struct hlist_node node;		/* vn->sanctions, RCU */
	struct rcu_head rcu;
	struct vj_flow_key key;		/* the connection's tuple, ifindex 0 */
	struct vj_flow_entry *fe;
	struct nf_conn *ct;		/* holds a reference */
	u32 timeout;			/* jiffies the entry had when noted */
	u8 dir;				/* IP_CT_DIR_* of the tuple */
};

static void vj_sanction_tuple(struct vj_flow_key *t, const struct vj_flow_key *key)
{
	*t = *key;
	t->ifindex = 0;
}

static struct hlist_head *vj_sanction_bucket(struct vj_net *vn,
					     const struct vj_flow_key *t)
{
	u32 h = jhash2((const u32 *)t, sizeof(*t) / sizeof(u32), vn->seed);

	return &vn->sanctions[h >> (32 - VJ_SANCTION_BITS)];
}

static void vj_sanction_free_rcu(struct rcu_head *head)
{
	struct vj_sanction *s = container_of(head, struct vj_sanction, rcu);

	nf_conntrack_put(&s->ct->ct_general);
	kfree(s);
}

/* Called with vn->sanction_lock held. */
static void vj_sanction_del(struct vj_net *vn, struct vj_sanction *s)
{
	hlist_del_rcu(&s->node);
	vn->nsanctions--;
	vj_count(VJ_CNT_SANCTION_ENDED);
	call_rcu(&s->rcu, vj_sanction_free_rcu);
}

/* The conntrack mark, or 0 on kernels built without it. */
static u32 vj_ct_mark(const struct nf_conn *ct)
{
#if IS_ENABLED(CONFIG_NF_CONNTRACK_MARK)
	return READ_ONCE(ct->mark);
#else
	return 0;
#endif
}

static bool vj_sanction_stale(const struct vj_sanction *s)
{
	return nf_ct_is_dying(s->ct) || nf_ct_is_expired(s->ct);
}

/* Called with vn->sanction_lock held: drop the entries of dead conntracks. */
static void vj_sanction_sweep(struct vj_net *vn)
{
	struct vj_sanction *s;
	struct hlist_node *n;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vn->sanctions); i++)
		hlist_for_each_entry_safe(s, n, &vn->sanctions[i], node)
			if (vj_sanction_stale(s))
				vj_sanction_del(vn, s);
}

/**
 * vj_sanction_note - remember a connection if the ruleset sanctioned it
 * @vn: the namespace's channels
 * @fe: the sanctioned channel the filtered path just delivered to
 * @key: the packet's flow key
 * @skb: the packet, with its (confirmed) conntrack entry
 *
 * The packet's direction in the entry (ORIGINAL or REPLY) is that of every
 * later packet of the same tuple.  Softirq context, under rcu_read_lock().
 */
void vj_sanction_note(struct vj_net *vn, struct vj_flow_entry *fe,
		      const struct vj_flow_key *key, struct sk_buff *skb)
{
	unsigned int mark = READ_ONCE(vj_sanction_mark);
	struct vj_sanction *s, *old;
	enum ip_conntrack_info ctinfo;
	struct hlist_head *head;
	struct vj_flow_key t;
	struct nf_conn *ct;

	if (!mark)
		return;
	ct = nf_ct_get(skb, &ctinfo);
	if (!ct || nf_ct_is_template(ct) || !nf_ct_is_confirmed(ct))
		return;
	if ((vj_ct_mark(ct) & mark) != mark)
		return;
	vj_sanction_tuple(&t, key);
	s = kzalloc(sizeof(*s), GFP_ATOMIC);
	if (!s) {
		vj_count(VJ_CNT_SANCTION_REFUSED);
		return;
	}
	s->key = t;
	s->fe = fe;
	s->ct = ct;
	s->timeout = max_t(u32, nf_ct_expires(ct), HZ);
	s->dir = CTINFO2DIR(ctinfo);
	head = vj_sanction_bucket(vn, &t);

	spin_lock_bh(&vn->sanction_lock);
	hlist_for_each_entry(old, head, node)
		if (!memcmp(&old->key, &t, sizeof(t)))
			goto out_free;	/* noted already */
	/* The channel is unbound under vn->lock, then forgotten here. */
	if (!READ_ONCE(fe->hashed))
		goto out_free;
	if (vn->nsanctions >= VJ_SANCTION_MAX)
		vj_sanction_sweep(vn);
	if (vn->nsanctions >= VJ_SANCTION_MAX) {
		vj_count(VJ_CNT_SANCTION_REFUSED);
		goto out_free;
	}
	nf_conntrack_get(&ct->ct_general);
	hlist_add_head_rcu(&s->node, head);
	vn->nsanctions++;
	spin_unlock_bh(&vn->sanction_lock);
	vj_count(VJ_CNT_SANCTION_NOTED);
	return;

out_free:
	spin_unlock_bh(&vn->sanction_lock);
	kfree(s);
}

/**
 * vj_sanction_find - may a fast path give this packet to @fe?
 * @vn: the namespace's channels
 * @fe: the sanctioned channel that won the match rule
 * @key: the packet's flow key
 *
 * Returns the sanction if the packet's connection was sanctioned for @fe
 * and its conntrack entry lives, else NULL.  Caller holds rcu_read_lock(),
 * which keeps the sanction until vj_sanction_use().
 */
struct vj_sanction *vj_sanction_find(struct vj_net *vn,
				     struct vj_flow_entry *fe,
				     const struct vj_flow_key *key)
{
	struct vj_sanction *s;
	struct vj_flow_key t;

	if (!READ_ONCE(vn->nsanctions))
		return NULL;
	vj_sanction_tuple(&t, key);
	hlist_for_each_entry_rcu(s, vj_sanction_bucket(vn, &t), node) {
		if (memcmp(&s->key, &t, sizeof(t)))
			continue;
		if (s->fe != fe || vj_sanction_stale(s))
			return NULL;
		return s;
	}
	return NULL;
}

/**
 * vj_sanction_use - a fast path takes a packet of a sanctioned connection
 * @s: the sanction vj_sanction_find() returned
 * @len: the packet's length from the IP header on
 *
 * Does for the conntrack entry what conntrack would have done had it seen
 * the packet: pushes its timeout forward, and adds the packet and @len
 * bytes to its counters if it has the accounting extension (that is, if
 * nf_conntrack_acct was on when it was created), as nf_ct_acct_add()
 * does.  Only inline helpers of the conntrack headers are used, so vjchan
 * keeps no symbol dependency on nf_conntrack.  Caller holds
 * rcu_read_lock().
 */
void vj_sanction_use(struct vj_sanction *s, unsigned int len)
{
	struct nf_conn *ct = s->ct;
	struct nf_conn_acct *acct;
	u32 now = nfct_time_stamp;

	/* Only when half of it is gone: keep the line mostly clean. */
	if ((s32)(READ_ONCE(ct->timeout) - now) < s->timeout / 2)
		WRITE_ONCE(ct->timeout, now + s->timeout);
	/* A confirmed entry's extensions are fixed: ct->ext stays put. */
	acct = nf_conn_acct_find(ct);
	if (acct) {
		atomic64_inc(&acct->counter[s->dir].packets);
		atomic64_add(len, &acct->counter[s->dir].bytes);
	}
}

/* @fe is being unbound (its packets can no longer find it). */
void vj_sanction_forget_chan(struct vj_net *vn, struct vj_flow_entry *fe)
{
	struct vj_sanction *s;
	struct hlist_node *n;
	unsigned int i;

	if (fe->fw_mode != VJ_BIND_FW_SANCTIONED)
		return;
	spin_lock_bh(&vn->sanction_lock);
	for (i = 0; i < ARRAY_SIZE(vn->sanctions); i++)
		hlist_for_each_entry_safe(s, n, &vn->sanctions[i], node)
			if (s->fe == fe)
				vj_sanction_del(vn, s);
	spin_unlock_bh(&vn->sanction_lock);
}

void vj_sanction_net_init(struct vj_net *vn)
{
	unsigned int i;

	spin_lock_init(&vn->sanction_lock);
	for (i = 0; i < ARRAY_SIZE(vn->sanctions); i++)
		INIT_HLIST_HEAD(&vn->sanctions[i]);
}

/* The namespace is going: no channel is left, so no entry either. */
void vj_sanction_net_exit(struct vj_net *vn)
{
	WARN_ON_ONCE(vn->nsanctions);
}
