// SPDX-License-Identifier: GPL-2.0
/*
 * Flow table: binding channels to flow ids and finding the channel of a
 * packet.  See vj_flow.h for the structure and uapi vjchan.h for the match
 * rules.
 */

#include <linux/bitops.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/socket.h>
#include <net/sock.h>

#include "vj_flow.h"
#include "vj_net.h"
#include "vj_ring.h"
#include "vj_ring_prod.h"
#include "vj_sanction.h"
#include "vj_stats.h"

static bool vj_addr_is_any(const union vj_addr *a)
{
	return !(a->ip6[0] | a->ip6[1] | a->ip6[2] | a->ip6[3]);
}

/*
 * Validate a flow id from user space and turn it into a key and mask.
 * Returns 0, -EAFNOSUPPORT for a family other than IPv4/IPv6, or -EINVAL.
 */
int vj_flow_from_user(const struct vj_flow *flow, struct vj_flow_key *key,
		      u8 *mask)
{
	u8 m = 0;

	memset(key, 0, sizeof(*key));
	switch (flow->family) {
	case AF_INET:
		/* An IPv4 address is the first word; the rest is not ours. */
		if (flow->saddr.ip6[1] | flow->saddr.ip6[2] |
		    flow->saddr.ip6[3] | flow->daddr.ip6[1] |
		    flow->daddr.ip6[2] | flow->daddr.ip6[3])
			return -EINVAL;
		key->family = 0;
		break;
	case AF_INET6:
		key->family = 1;
		break;
	default:
		return -EAFNOSUPPORT;
	}
	if (flow->pad)
		return -EINVAL;

	if (flow->ifindex)
		m |= VJ_M_IFINDEX;
	if (flow->proto)
		m |= VJ_M_PROTO;
	if (!vj_addr_is_any(&flow->saddr))
		m |= VJ_M_SADDR;
	if (flow->sport)
		m |= VJ_M_SPORT;
	if (!vj_addr_is_any(&flow->daddr))
		m |= VJ_M_DADDR;
	if (flow->dport)
		m |= VJ_M_DPORT;

	key->ifindex = flow->ifindex;
	key->proto = flow->proto;
	key->sport = flow->sport;
	key->dport = flow->dport;
	memcpy(key->saddr, flow->saddr.ip6, sizeof(key->saddr));
	memcpy(key->daddr, flow->daddr.ip6, sizeof(key->daddr));
	*mask = m;
	return 0;
}

static void vj_key_apply_mask(struct vj_flow_key *dst,
			      const struct vj_flow_key *pkt, u8 m)
{
	memset(dst, 0, sizeof(*dst));
	dst->family = pkt->family;
	if (m & VJ_M_IFINDEX)
		dst->ifindex = pkt->ifindex;
	if (m & VJ_M_PROTO)
		dst->proto = pkt->proto;
	if (m & VJ_M_SADDR)
		memcpy(dst->saddr, pkt->saddr, sizeof(dst->saddr));
	if (m & VJ_M_SPORT)
		dst->sport = pkt->sport;
	if (m & VJ_M_DADDR)
		memcpy(dst->daddr, pkt->daddr, sizeof(dst->daddr));
	if (m & VJ_M_DPORT)
		dst->dport = pkt->dport;
}

static struct hlist_head *vj_flow_bucket(struct vj_net *vn,
					 const struct vj_flow_key *key, u8 m)
{
	u32 h = jhash2((const u32 *)key, sizeof(*key) / sizeof(u32),
		       vn->seed ^ m);

	return &vn->table[h >> (32 - VJ_HASH_BITS)];
}

static bool vj_key_equal(const struct vj_flow_key *a, const struct vj_flow_key *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* Caller holds rcu_read_lock(); the channel stays valid until it drops it. */
struct vj_flow_entry *vj_flow_lookup(struct vj_net *vn,
				     const struct vj_flow_key *pkt)
{
	struct vj_masks *masks = rcu_dereference(vn->masks[pkt->family]);
	struct vj_flow_key mk;
	unsigned int i;

	if (!masks)
		return NULL;
	for (i = 0; i < masks->n; i++) {
		u8 m = masks->mask[i];
		struct vj_flow_entry *fe;

		vj_key_apply_mask(&mk, pkt, m);
		hlist_for_each_entry_rcu(fe, vj_flow_bucket(vn, &mk, m), hnode)
			if (fe->mask == m && vj_key_equal(&fe->key, &mk))
				return fe;
	}
	return NULL;
}

/* Most specific first: more fields, then the higher mask (the tie rule). */
static int vj_mask_cmp(const void *a, const void *b)
{
	u8 x = *(const u8 *)a, y = *(const u8 *)b;
	int wx = hweight8(x), wy = hweight8(y);

	if (wx != wy)
		return wy - wx;
	return (int)y - (int)x;
}

static int vj_masks_rebuild(struct vj_net *vn, unsigned int family)
{
	struct vj_masks *new, *old;
	unsigned int m;

	old = rcu_dereference_protected(vn->masks[family],
					lockdep_is_held(&vn->lock));
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	for (m = 0; m < VJ_NMASKS; m++)
		if (vn->mask_refs[family][m])
			new->mask[new->n++] = m;
	if (!new->n) {
		/* The receive paths test for NULL: no work without channels. */
		kfree(new);
		new = NULL;
	} else {
		sort(new->mask, new->n, sizeof(new->mask[0]), vj_mask_cmp, NULL);
	}
	rcu_assign_pointer(vn->masks[family], new);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/* Which paths look @fe up: count it in (@d 1) or out (-1). */
static void vj_flow_count_paths(struct vj_net *vn,
				const struct vj_flow_entry *fe, int d)
{
	if (vj_flow_on_fast(fe))
		WRITE_ONCE(vn->nfast, vn->nfast + d);
	if (vj_flow_on_filtered(fe))
		WRITE_ONCE(vn->nfiltered, vn->nfiltered + d);
}

static void vj_flow_unhash(struct vj_net *vn, struct vj_flow_entry *fe)
{
	unsigned int fam = fe->key.family;

	lockdep_assert_held(&vn->lock);
	vj_flow_count_paths(vn, fe, -1);
	hlist_del_rcu(&fe->hnode);
	WRITE_ONCE(fe->hashed, false);
	vj_sanction_forget_chan(vn, fe);
	/*
	 * No memory for a smaller list: the published one stays, still valid
	 * (nothing in it is freed) and a superset of the masks in use, which
	 * only costs a wasted probe.  mask_refs stays exact, so the next
	 * rebuild of this family drops the mask.
	 */
	if (!--vn->mask_refs[fam][fe->mask] && vj_masks_rebuild(vn, fam))
		vj_count(VJ_CNT_MASKS_NOMEM);
}

static bool vj_flow_same_id(const struct vj_flow_entry *a,
			    const struct vj_flow_entry *b)
{
	return a->mask == b->mask && vj_key_equal(&a->key, &b->key);
}

/* May @a and @b share their flow id? */
static bool vj_flow_may_share(const struct vj_flow_entry *a,
			      const struct vj_flow_entry *b)
{
	return a->group && a->group == b->group && a->fw_mode == b->fw_mode &&
	       a->udp_chan == b->udp_chan && a->spread == b->spread;
}

/*
 * Whether a channel other than @except has @fe's flow id and may not share
 * it; *@shared says whether one that may was found.
 */
static bool vj_flow_taken(struct vj_net *vn, const struct vj_flow_entry *fe,
			  const struct vj_flow_entry *except, bool *shared)
{
	struct vj_flow_entry *other;

	*shared = false;
	hlist_for_each_entry(other, vj_flow_bucket(vn, &fe->key, fe->mask), hnode) {
		if (other == except || !vj_flow_same_id(other, fe))
			continue;
		if (!vj_flow_may_share(other, fe))
			return true;
		*shared = true;
	}
	return false;
}

/* @fe joined a group: every member spreads from now on. */
static void vj_flow_mark_grouped(struct vj_net *vn, struct vj_flow_entry *fe)
{
	struct vj_flow_entry *other;

	hlist_for_each_entry(other, vj_flow_bucket(vn, &fe->key, fe->mask), hnode)
		if (vj_flow_same_id(other, fe))
			WRITE_ONCE(other->grouped, true);
}

/* The flow's hash for spreading over a group: addresses and ports. */
static u32 vj_flow_hash(const struct vj_net *vn, const struct vj_flow_key *pkt)
{
	u32 h = jhash2((__force const u32 *)pkt->saddr,
		       ARRAY_SIZE(pkt->saddr), vn->seed);

	h = jhash2((__force const u32 *)pkt->daddr, ARRAY_SIZE(pkt->daddr), h);
	return jhash_2words((__force u32)pkt->sport, (__force u32)pkt->dport, h);
}

/* The @k-th member of @first's group, @first if the group changed. */
static struct vj_flow_entry *vj_flow_group_nth(struct vj_flow_entry *first,
					       u32 k)
{
	struct vj_flow_entry *fe = first;

	hlist_for_each_entry_from_rcu(fe, hnode)
		if (vj_flow_same_id(fe, first) && !k--)
			return fe;
	return first;
}

/**
 * vj_flow_group_pick - the member of a group that takes a packet
 * @vn: the namespace's channels
 * @first: what vj_flow_lookup() returned for @pkt, a grouped entry
 * @pkt: the packet's flow key
 *
 * By the group's spread rule (uapi vjchan.h, VJ_SPREAD_*): the hash of
 * the flow's addresses and ports, the receiving CPU, or the CPU where a
 * member's consumer last ran, each modulo the members in the bucket's
 * order.  While the group does not change, a flow (VJ_SPREAD_HASH) or a
 * CPU (VJ_SPREAD_CPU) keeps its member on every path; a join or a leave
 * moves them, as in a reuseport group.  Reads only the entries and their
 * rings' consumer_cpu: no write.
 * Returns the member, @first if the group changed under the walk.
 * Caller holds rcu_read_lock().
 */
struct vj_flow_entry *vj_flow_group_pick(struct vj_net *vn,
					 struct vj_flow_entry *first,
					 const struct vj_flow_key *pkt)
{
	bool consumer = first->spread == VJ_SPREAD_CONSUMER;
	struct vj_flow_entry *fe = first, *mine = NULL;
	int cpu = raw_smp_processor_id();
	u32 n = 0;

	/*
	 * The lookup found the first member in the bucket: walk from it,
	 * counting the members and, for VJ_SPREAD_CONSUMER, noting the first
	 * whose consumer last ran on this CPU: one walk for either rule.
	 */
	hlist_for_each_entry_from_rcu(fe, hnode) {
		if (!vj_flow_same_id(fe, first))
			continue;
		n++;
		if (consumer && !mine && vj_ring_consumer_cpu(fe->ring) == cpu)
			mine = fe;
	}
	if (n < 2)
		return first;
	if (mine)
		return mine;
	if (first->spread == VJ_SPREAD_CPU)
		return vj_flow_group_nth(first, (u32)cpu % n);
	return vj_flow_group_nth(first,
				 reciprocal_scale(vj_flow_hash(vn, pkt), n));
}

/*
 * Put @fe (key, mask, flow and ring set) into the table and the channel
 * list; @except, if not NULL, is a channel about to leave the table, whose
 * flow id @fe may share.  Channels of one group share a flow id (see
 * struct vj_flow_entry).  Called with vn->lock held.  Returns 0,
 * -ENODEV (no such interface), -EADDRINUSE or -ENOMEM.
 */
static int vj_flow_insert(struct vj_net *vn, struct vj_flow_entry *fe,
			  const struct vj_flow_entry *except)
{
	unsigned int fam = fe->key.family;
	bool shared;
	int err;

	lockdep_assert_held(&vn->lock);
	if (fe->key.ifindex) {
		struct net_device *dev;

		/* Checked under vn->lock, which the unregister notifier also
		 * takes after marking the device, so a device cannot vanish
		 * between this check and the insertion unnoticed.
		 */
		rcu_read_lock();
		dev = dev_get_by_index_rcu(vn->net, fe->key.ifindex);
		err = (!dev || dev->reg_state != NETREG_REGISTERED) ? -ENODEV : 0;
		rcu_read_unlock();
		if (err)
			return err;
	}
	if (vj_flow_taken(vn, fe, except, &shared))
		return -EADDRINUSE;

	if (!vn->mask_refs[fam][fe->mask]++) {
		err = vj_masks_rebuild(vn, fam);
		if (err) {
			vn->mask_refs[fam][fe->mask]--;
			return err;
		}
	}
	fe->grouped = false;
	vj_flow_count_paths(vn, fe, 1);
	hlist_add_head_rcu(&fe->hnode, vj_flow_bucket(vn, &fe->key, fe->mask));
	if (shared)
		vj_flow_mark_grouped(vn, fe);
	WRITE_ONCE(fe->hashed, true);
	list_add_tail(&fe->list, &vn->channels);
	return 0;
}

/*
 * Bind @fe (key, mask, flow and ring already set) into @vn.
 * Returns 0, -ENODEV (no such interface), -EADDRINUSE or -ENOMEM.
 */
int vj_flow_bind(struct vj_net *vn, struct vj_flow_entry *fe)
{
	int err;

	mutex_lock(&vn->lock);
	err = vj_flow_insert(vn, fe, NULL);
	mutex_unlock(&vn->lock);
	return err;
}

/*
 * Give @old's place to @new: a new flow id for the same ring and socket.
 * @new has its key, mask, flow, ring and socket set, and no receive path
 * can still see it (it was never in the table, or it left it a grace
 * period ago).  @new is hashed before @old is unhashed, so a packet that
 * matches both finds one of them at every moment.  Returns 0, -ENOENT if
 * @old is not in the table (its device went away), or what vj_flow_bind()
 * returns; on an error @old stays as it was.  The caller waits for a grace
 * period before it reuses @old.
 */
int vj_flow_replace(struct vj_net *vn, struct vj_flow_entry *old,
		    struct vj_flow_entry *new)
{
	int err = -ENOENT;

	mutex_lock(&vn->lock);
	if (old->hashed) {
		err = vj_flow_insert(vn, new, old);
		if (!err) {
			vj_flow_unhash(vn, old);
			list_del(&old->list);
		}
	}
	mutex_unlock(&vn->lock);
	return err;
}

/* The caller waits for an RCU grace period before freeing @fe. */
void vj_flow_unbind(struct vj_net *vn, struct vj_flow_entry *fe)
{
	mutex_lock(&vn->lock);
	if (fe->hashed)
		vj_flow_unhash(vn, fe);
	list_del(&fe->list);
	mutex_unlock(&vn->lock);
}

/* The interface @ifindex is being unregistered: its channels go dead. */
void vj_flow_dev_gone(struct vj_net *vn, int ifindex)
{
	struct vj_flow_entry *fe;

	mutex_lock(&vn->lock);
	list_for_each_entry(fe, &vn->channels, list) {
		if (!fe->hashed || fe->key.ifindex != ifindex)
			continue;
		vj_flow_unhash(vn, fe);
		/* The socket cannot be released meanwhile: its close
		 * unbinds under vn->lock.
		 */
		vj_ring_set_dead(fe->ring);
		WRITE_ONCE(fe->sk->sk_err, ENODEV);
		sk_error_report(fe->sk);
	}
	mutex_unlock(&vn->lock);
}

void vj_flow_net_init(struct vj_net *vn, struct net *net)
{
	unsigned int i;

	mutex_init(&vn->lock);
	INIT_LIST_HEAD(&vn->channels);
	for (i = 0; i < ARRAY_SIZE(vn->table); i++)
		INIT_HLIST_HEAD(&vn->table[i]);
	vn->seed = get_random_u32();
	vn->net = net;
	vj_sanction_net_init(vn);
}

/*
 * The namespace is going away: no channel is left in it.  A mask list can
 * still be published here (a rebuild that found no memory leaves the old
 * one).  The hooks are gone since pre_exit, but a driver may still pass a
 * frame of a device of this namespace to vj_netif_rx() until the device is
 * moved or unregistered; free the list after a grace period, as every other
 * mask list, rather than rely on the device teardown's own.
 */
void vj_flow_net_exit(struct vj_net *vn)
{
	struct vj_masks *masks;
	unsigned int fam;

	WARN_ON_ONCE(!list_empty(&vn->channels));
	vj_sanction_net_exit(vn);
	for (fam = 0; fam < ARRAY_SIZE(vn->masks); fam++) {
		masks = rcu_dereference_protected(vn->masks[fam], true);
		RCU_INIT_POINTER(vn->masks[fam], NULL);
		if (masks)
			kfree_rcu(masks, rcu);
	}
}
