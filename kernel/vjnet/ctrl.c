// SPDX-License-Identifier: GPL-2.0
/*
 * vjnet control queue: how many queue pairs the device uses, how it
 * steers received frames to them, and whether it segments what it
 * receives (VIRTIO_NET_CTRL_GUEST_OFFLOADS_SET: rx-gro-hw, off while a
 * direct channel binds).
 *
 * Without VIRTIO_NET_F_RSS, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET says how many
 * pairs are in use and the device (its back end) picks the receive queue.
 * With it, VIRTIO_NET_CTRL_MQ_RSS_CONFIG does, and vjnet steers by a
 * Toeplitz hash of each frame's addresses and ports, its key random per
 * device, and an indirection table of VJNET_RSS_TABLE_LEN entries:
 *
 *  - no direct channel: entry i goes to queue i % pairs; IPv4, IPv6, and
 *    their TCP and UDP 4-tuples are hashed, anything else (ARP) goes to
 *    queue 0 (the unclassified queue);
 *  - a direct channel owns the last pair's receive queue: its flow names
 *    both addresses and both ports, vjnet computes the hash the device
 *    will compute for its frames, and that hash's entry alone goes to the
 *    owner's queue; every other entry spreads over the other queues.  Only
 *    the owner's protocol and IP version are hashed (e.g. UDP over IPv4):
 *    every other frame, ARP, ICMP and TCP for a UDP owner included, goes to
 *    queue 0.  Only the frames of the other flows of its protocol whose
 *    hash falls into the same one entry of the table share the owner's
 *    queue; they reach the stack in copies, and go on doing so while the
 *    owner holds every buffer of its own (rx.c posts global buffers then).
 *
 * Every command runs under rtnl_lock, which serialises the control queue;
 * the device answers it before vjnet reads the status (it spins, as
 * virtio_net does: a command traps into the device at once).
 */

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/unaligned.h>
#include <linux/virtio.h>
#include <linux/virtio_config.h>

#include "vjnet.h"

#define VJNET_HASH_ALL	(VIRTIO_NET_RSS_HASH_TYPE_IPv4 | \
			 VIRTIO_NET_RSS_HASH_TYPE_TCPv4 | \
			 VIRTIO_NET_RSS_HASH_TYPE_UDPv4 | \
			 VIRTIO_NET_RSS_HASH_TYPE_IPv6 | \
			 VIRTIO_NET_RSS_HASH_TYPE_TCPv6 | \
			 VIRTIO_NET_RSS_HASH_TYPE_UDPv6)

static int vjnet_ctrl_cmd(struct vjnet_priv *vi, u8 class, u8 cmd,
			  void *data, unsigned int len)
{
	struct scatterlist hdr, out, stat, *sgs[3];
	struct vjnet_ctrl *c = vi->ctrl;
	unsigned int tmp;
	int err;

	ASSERT_RTNL();
	c->status = ~0;
	c->hdr.class = class;
	c->hdr.cmd = cmd;
	sg_init_one(&hdr, &c->hdr, sizeof(c->hdr));
	sg_init_one(&out, data, len);
	sg_init_one(&stat, &c->status, sizeof(c->status));
	sgs[0] = &hdr;
	sgs[1] = &out;
	sgs[2] = &stat;
	err = virtqueue_add_sgs(vi->cvq, sgs, 2, 1, vi, GFP_KERNEL);
	if (err)
		return err;
	if (!virtqueue_kick(vi->cvq))
		return -EIO;
	while (!virtqueue_get_buf(vi->cvq, &tmp) &&
	       !virtqueue_is_broken(vi->cvq)) {
		cond_resched();
		cpu_relax();
	}
	return c->status == VIRTIO_NET_OK ? 0 : -EIO;
}

/*
 * The Toeplitz hash of @len bytes of @in under @key (@len + 4 bytes):
 * for each set bit of the input, from the most significant, the 32 key
 * bits that start at that bit position are XORed in.
 */
static u32 vjnet_toeplitz(const u8 *key, const u8 *in, unsigned int len)
{
	u32 window = get_unaligned_be32(key), hash = 0;
	unsigned int i, b;

	for (i = 0; i < len; i++) {
		for (b = 0; b < 8; b++) {
			if (in[i] & (0x80 >> b))
				hash ^= window;
			window = (window << 1) | ((key[i + 4] >> (7 - b)) & 1);
		}
	}
	return hash;
}

/*
 * The direct owner's flow: the hash types that cover only its frames'
 * protocol and version, and the table entry its frames' hash selects.
 */
static int vjnet_direct_entry(struct vjnet_priv *vi, const struct vj_direct *d,
			      u32 *types, unsigned int *entry)
{
	struct vj_direct_flow f;
	u8 in[36];
	unsigned int alen;
	int err;

	err = vj_direct_flow(d, &f);
	if (err)
		return err;
	alen = f.family == AF_INET ? 4 : 16;
	if (f.family == AF_INET)
		*types = f.proto == IPPROTO_TCP ? VIRTIO_NET_RSS_HASH_TYPE_TCPv4 :
						  VIRTIO_NET_RSS_HASH_TYPE_UDPv4;
	else
		*types = f.proto == IPPROTO_TCP ? VIRTIO_NET_RSS_HASH_TYPE_TCPv6 :
						  VIRTIO_NET_RSS_HASH_TYPE_UDPv6;
	memcpy(in, f.saddr, alen);
	memcpy(in + alen, f.daddr, alen);
	memcpy(in + 2 * alen, &f.sport, 2);
	memcpy(in + 2 * alen + 2, &f.dport, 2);
	*entry = vjnet_toeplitz(vi->rss_key, in, 2 * alen + 4) &
		 (VJNET_RSS_TABLE_LEN - 1);
	return 0;
}

/**
 * vjnet_steer - use @pairs queue pairs, steering for direct owner @d
 * @vi: the device
 * @pairs: pairs to use, 1..vi->max_pairs
 * @d: the channel that owns the last pair's receive queue, or NULL
 *
 * Return: 0; -EOPNOTSUPP if @d cannot be steered to one queue (no RSS, or
 * a flow that does not name both addresses and both ports) or if @pairs
 * is more than one on a device without MQ; -EIO if the device refused or
 * failed the command; an error of virtqueue_add_sgs().
 * Context: rtnl_lock held.
 */
int vjnet_steer(struct vjnet_priv *vi, u16 pairs, const struct vj_direct *d)
{
	struct vjnet_rss_cmd *r = &vi->ctrl->rss;
	unsigned int i, entry = 0, spread = pairs;
	u32 types = VJNET_HASH_ALL;
	int err;

	ASSERT_RTNL();
	if (!vi->has_rss) {
		if (d && pairs > 1)
			return -EOPNOTSUPP;
		if (!vi->has_cvq || !virtio_has_feature(vi->vdev, VIRTIO_NET_F_MQ))
			return pairs == 1 ? 0 : -EOPNOTSUPP;
		vi->ctrl->pairs = cpu_to_virtio16(vi->vdev, pairs);
		return vjnet_ctrl_cmd(vi, VIRTIO_NET_CTRL_MQ,
				      VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET,
				      &vi->ctrl->pairs, sizeof(vi->ctrl->pairs));
	}
	if (d && pairs > 1) {
		err = vjnet_direct_entry(vi, d, &types, &entry);
		if (err)
			return err;
		spread = pairs - 1;
	}
	r->hash_types = cpu_to_le32(types);
	r->table_mask = cpu_to_le16(VJNET_RSS_TABLE_LEN - 1);
	r->unclassified_queue = 0;
	for (i = 0; i < VJNET_RSS_TABLE_LEN; i++)
		r->table[i] = cpu_to_le16(d && pairs > 1 && i == entry ?
					  pairs - 1 : i % spread);
	r->max_tx_vq = cpu_to_le16(pairs);
	r->key_len = VJNET_RSS_KEY_LEN;
	memcpy(r->key, vi->rss_key, VJNET_RSS_KEY_LEN);
	err = vjnet_ctrl_cmd(vi, VIRTIO_NET_CTRL_MQ,
			     VIRTIO_NET_CTRL_MQ_RSS_CONFIG, r, sizeof(*r));
	if (err)
		return err;
	/* What ethtool -x shows: the table the device took. */
	for (i = 0; i < VJNET_RSS_TABLE_LEN; i++)
		vi->rss_table[i] = le16_to_cpu(r->table[i]);
	return 0;
}

/* A direct channel owns one of the device's queues. */
static bool vjnet_has_direct(struct vjnet_priv *vi)
{
	unsigned int i;

	for (i = 0; i < vi->max_pairs; i++)
		if (vi->q[i].direct)
			return true;
	return false;
}

/**
 * vjnet_set_pairs - ethtool -L: use @pairs queue pairs
 * @vi: the device
 * @pairs: 1..vi->max_pairs
 *
 * Return: 0, -EIO if the device is broken (vjnet_reinit() failed), -EBUSY
 * while a direct channel owns a queue, or vjnet_steer()'s error.
 * Context: rtnl_lock held.
 */
int vjnet_set_pairs(struct vjnet_priv *vi, u16 pairs)
{
	int err;

	ASSERT_RTNL();
	if (vi->broken)
		return -EIO;
	if (vjnet_has_direct(vi))
		return -EBUSY;
	err = vjnet_steer(vi, pairs, NULL);
	if (err)
		return err;
	WRITE_ONCE(vi->pairs, pairs);
	return netif_set_real_num_queues(vi->dev, pairs, pairs);
}

/**
 * vjnet_set_guest_tso - turn the device's receive segmentation on or off
 * @vi: the device
 * @on: GUEST_TSO4/6 as negotiated, or none (each frame in one buffer)
 *
 * The checksum offload stays on.  Nothing to do without GUEST_TSO.
 *
 * Return: 0, or -EIO if the device refused or is broken (no queues).
 * Context: rtnl_lock held.
 */
int vjnet_set_guest_tso(struct vjnet_priv *vi, bool on)
{
	struct virtio_device *vdev = vi->vdev;
	u64 offloads = BIT_ULL(VIRTIO_NET_F_GUEST_CSUM);

	if (!vi->guest_tso)
		return 0;
	if (vi->broken)
		return -EIO;
	if (on && virtio_has_feature(vdev, VIRTIO_NET_F_GUEST_TSO4))
		offloads |= BIT_ULL(VIRTIO_NET_F_GUEST_TSO4);
	if (on && virtio_has_feature(vdev, VIRTIO_NET_F_GUEST_TSO6))
		offloads |= BIT_ULL(VIRTIO_NET_F_GUEST_TSO6);
	vi->ctrl->offloads = cpu_to_virtio64(vdev, offloads);
	return vjnet_ctrl_cmd(vi, VIRTIO_NET_CTRL_GUEST_OFFLOADS,
			      VIRTIO_NET_CTRL_GUEST_OFFLOADS_SET,
			      &vi->ctrl->offloads, sizeof(vi->ctrl->offloads));
}

/* Receive segmentation as the user wants it (ethtool -K rx-gro-hw). */
int vjnet_tso_wanted(struct vjnet_priv *vi)
{
	return vjnet_set_guest_tso(vi, vi->dev->features & NETIF_F_GRO_HW);
}

/*
 * ndo_set_features, rx-gro-hw: the device's receive segmentation on or
 * off, unless a direct channel binds (it is off then, and set as wanted
 * when the channel goes, vjnet_tso_wanted()).
 */
int vjnet_set_features(struct net_device *dev, netdev_features_t features)
{
	struct vjnet_priv *vi = netdev_priv(dev);

	if (!((dev->features ^ features) & NETIF_F_GRO_HW) ||
	    vjnet_has_direct(vi))
		return 0;
	return vjnet_set_guest_tso(vi, features & NETIF_F_GRO_HW);
}

/**
 * vjnet_ctrl_init - read the device's queue and RSS limits; the pairs to drive
 * @vi: the device, features negotiated, queues not yet found
 *
 * Return: 0 or -ENOMEM.
 */
int vjnet_ctrl_init(struct vjnet_priv *vi)
{
	struct virtio_device *vdev = vi->vdev;
	unsigned int pool;
	u16 max = 1;

	vi->ctrl = kzalloc(sizeof(*vi->ctrl), GFP_KERNEL);
	if (!vi->ctrl)
		return -ENOMEM;
	vi->has_cvq = virtio_has_feature(vdev, VIRTIO_NET_F_CTRL_VQ);
	/* The control queue follows all of them, with MQ or RSS. */
	if (vi->has_cvq && (virtio_has_feature(vdev, VIRTIO_NET_F_MQ) ||
			    virtio_has_feature(vdev, VIRTIO_NET_F_RSS)))
		max = virtio_cread16(vdev, offsetof(struct virtio_net_config,
						    max_virtqueue_pairs));
	/* The spec's range; the control queue comes after all of them. */
	vi->dev_pairs = clamp_t(u16, max, 1, 0x8000);
	/*
	 * Every receive queue vjnet drives is filled, in use or not, each
	 * with a share of half the pool, at least VJNET_RX_SHARE_MIN: so no
	 * more pairs than that allows (7 of the default 1024; QEMU's queues
	 * hold 256, so two pairs fill theirs).  Without a share, a device
	 * with many pairs took the whole pool in its first queues and left
	 * the others empty, where a frame steered to one waited for good.
	 */
	pool = vj_gbuf_total();
	vi->max_pairs = clamp_t(unsigned int, pool / (2 * VJNET_RX_SHARE_MIN),
				1, min_t(u16, vi->dev_pairs, VJNET_MAX_PAIRS));
	/* A pool too small for two shares: up to VJNET_RX_SHARE_MIN of it. */
	vi->rx_share = max(pool / (2 * vi->max_pairs),
			   min_t(unsigned int, pool, VJNET_RX_SHARE_MIN));
	if (vi->has_cvq && virtio_has_feature(vdev, VIRTIO_NET_F_RSS)) {
		u8 klen = virtio_cread8(vdev, offsetof(struct virtio_net_config,
						       rss_max_key_size));
		u16 tlen = virtio_cread16(vdev, offsetof(struct virtio_net_config,
				rss_max_indirection_table_length));
		u32 types = virtio_cread32(vdev, offsetof(struct virtio_net_config,
				supported_hash_types));

		vi->has_rss = klen >= VJNET_RSS_KEY_LEN &&
			      tlen >= VJNET_RSS_TABLE_LEN &&
			      (types & VJNET_HASH_ALL) == VJNET_HASH_ALL;
	}
	netdev_rss_key_fill(vi->rss_key, sizeof(vi->rss_key));
	return 0;
}
