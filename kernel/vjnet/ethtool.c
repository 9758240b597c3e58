// SPDX-License-Identifier: GPL-2.0
/*
 * vjnet ethtool: channels (-l/-L), the RSS key and table (-x), and the
 * statistics: ip -s link (ndo_get_stats64) and ethtool -S, summed over the
 * queue pairs and per pair, from each pair's receive counters (its NAPI
 * poll) and transmit counters (its queue lock).
 */

#include <linux/ethtool.h>
#include <linux/netdevice.h>

#include "vjnet.h"

struct vjnet_stat_desc {
	char name[ETH_GSTRING_LEN];
	size_t offset;
};

#define VJNET_RX_STAT(n, f) { n, offsetof(struct vjnet_rx_stats, f) }
#define VJNET_TX_STAT(n, f) { n, offsetof(struct vjnet_tx_stats, f) }

static const struct vjnet_stat_desc vjnet_rx_descs[] = {
	VJNET_RX_STAT("rx_packets", packets),
	VJNET_RX_STAT("rx_bytes", bytes),
	VJNET_RX_STAT("rx_channel", channel),
	VJNET_RX_STAT("rx_stack", stack),
	VJNET_RX_STAT("rx_stack_copied", stack_copied),
	VJNET_RX_STAT("rx_stack_bytes", stack_bytes),
	VJNET_RX_STAT("rx_dropped", dropped),
	VJNET_RX_STAT("rx_length_errors", length_errors),
	VJNET_RX_STAT("rx_pool_empty", pool_empty),
	VJNET_RX_STAT("rx_polls", polls),
	VJNET_RX_STAT("rx_direct", direct),
	VJNET_RX_STAT("rx_direct_posted", direct_posted),
	VJNET_RX_STAT("rx_direct_returned", direct_returned),
	VJNET_RX_STAT("rx_spill_posted", spill_posted),
	VJNET_RX_STAT("rx_spilled", spilled),
	VJNET_RX_STAT("rx_csum_valid", csum_valid),
	VJNET_RX_STAT("rx_csum_partial", csum_partial),
	VJNET_RX_STAT("rx_hdr_errors", hdr_errors),
	VJNET_RX_STAT("rx_gso", gso),
};

static const struct vjnet_stat_desc vjnet_tx_descs[] = {
	VJNET_TX_STAT("tx_packets", packets),
	VJNET_TX_STAT("tx_bytes", bytes),
	VJNET_TX_STAT("tx_dropped", dropped),
	VJNET_TX_STAT("tx_queue_stopped", queue_stopped),
	VJNET_TX_STAT("tx_kicks", kicks),
};

#define VJNET_NRX	ARRAY_SIZE(vjnet_rx_descs)
#define VJNET_RX_DIRECT	10	/* "rx_direct" in vjnet_rx_descs */
#define VJNET_RX_HDR_ERRORS	17	/* "rx_hdr_errors" */
#define VJNET_NTX	ARRAY_SIZE(vjnet_tx_descs)
/* Per queue pair, after the sums: rxN_packets, rxN_direct, txN_packets. */
#define VJNET_NPERQ	3

static u64 vjnet_stat_read(const void *base, size_t offset)
{
	return u64_stats_read((const u64_stats_t *)(base + offset));
}

static void vjnet_read_rx(const struct vjnet_queue *q, u64 *out)
{
	unsigned int start, i;

	do {
		start = u64_stats_fetch_begin(&q->rx_stats.syncp);
		for (i = 0; i < VJNET_NRX; i++)
			out[i] = vjnet_stat_read(&q->rx_stats,
						 vjnet_rx_descs[i].offset);
	} while (u64_stats_fetch_retry(&q->rx_stats.syncp, start));
}

static void vjnet_read_tx(const struct vjnet_queue *q, u64 *out)
{
	unsigned int start, i;

	do {
		start = u64_stats_fetch_begin(&q->tx_stats.syncp);
		for (i = 0; i < VJNET_NTX; i++)
			out[i] = vjnet_stat_read(&q->tx_stats,
						 vjnet_tx_descs[i].offset);
	} while (u64_stats_fetch_retry(&q->tx_stats.syncp, start));
}

/*
 * The sums over every pair into @rx and @tx, and if @perq, each pair's
 * VJNET_NPERQ counters.
 */
static void vjnet_read_all(struct vjnet_priv *vi, u64 *rx, u64 *tx, u64 *perq)
{
	u64 r[VJNET_NRX], t[VJNET_NTX];
	unsigned int i, j;

	memset(rx, 0, sizeof(r));
	memset(tx, 0, sizeof(t));
	for (i = 0; i < vi->max_pairs; i++) {
		vjnet_read_rx(&vi->q[i], r);
		vjnet_read_tx(&vi->q[i], t);
		for (j = 0; j < VJNET_NRX; j++)
			rx[j] += r[j];
		for (j = 0; j < VJNET_NTX; j++)
			tx[j] += t[j];
		if (perq) {
			perq[VJNET_NPERQ * i] = r[0];
			perq[VJNET_NPERQ * i + 1] = r[VJNET_RX_DIRECT];
			perq[VJNET_NPERQ * i + 2] = t[0];
		}
	}
}

void vjnet_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *s)
{
	struct vjnet_priv *vi = netdev_priv(dev);
	u64 rx[VJNET_NRX], tx[VJNET_NTX];

	vjnet_read_all(vi, rx, tx, NULL);
	/* rx_packets: every frame the device delivered to us intact. */
	s->rx_packets = rx[0];
	s->rx_bytes = rx[1];
	s->rx_dropped = rx[6];
	s->rx_length_errors = rx[7];
	s->rx_frame_errors = rx[VJNET_RX_HDR_ERRORS];
	s->rx_errors = rx[7] + rx[VJNET_RX_HDR_ERRORS];
	s->tx_packets = tx[0];
	s->tx_bytes = tx[1];
	s->tx_dropped = tx[2];
}

static void vjnet_get_drvinfo(struct net_device *dev,
			      struct ethtool_drvinfo *info)
{
	struct vjnet_priv *vi = netdev_priv(dev);

	strscpy(info->driver, KBUILD_MODNAME, sizeof(info->driver));
	strscpy(info->bus_info, virtio_bus_name(vi->vdev),
		sizeof(info->bus_info));
}

static int vjnet_get_sset_count(struct net_device *dev, int sset)
{
	struct vjnet_priv *vi = netdev_priv(dev);

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return VJNET_NRX + VJNET_NTX + VJNET_NPERQ * vi->max_pairs;
}

static void vjnet_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct vjnet_priv *vi = netdev_priv(dev);
	unsigned int i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < VJNET_NRX; i++)
		ethtool_puts(&data, vjnet_rx_descs[i].name);
	for (i = 0; i < VJNET_NTX; i++)
		ethtool_puts(&data, vjnet_tx_descs[i].name);
	for (i = 0; i < vi->max_pairs; i++) {
		ethtool_sprintf(&data, "rx%u_packets", i);
		ethtool_sprintf(&data, "rx%u_direct", i);
		ethtool_sprintf(&data, "tx%u_packets", i);
	}
}

static void vjnet_get_ethtool_stats(struct net_device *dev,
				    struct ethtool_stats *stats, u64 *data)
{
	struct vjnet_priv *vi = netdev_priv(dev);

	vjnet_read_all(vi, data, data + VJNET_NRX, data + VJNET_NRX + VJNET_NTX);
}

/* ethtool -l: one combined channel per queue pair. */
static void vjnet_get_channels(struct net_device *dev,
			       struct ethtool_channels *ch)
{
	struct vjnet_priv *vi = netdev_priv(dev);

	ch->max_combined = vi->max_pairs;
	ch->combined_count = vi->pairs;
}

/* ethtool -L combined N: EBUSY while a direct channel owns a queue. */
static int vjnet_set_channels(struct net_device *dev,
			      struct ethtool_channels *ch)
{
	struct vjnet_priv *vi = netdev_priv(dev);

	if (ch->rx_count || ch->tx_count || ch->other_count ||
	    !ch->combined_count || ch->combined_count > vi->max_pairs)
		return -EINVAL;
	if (ch->combined_count == vi->pairs)
		return 0;
	return vjnet_set_pairs(vi, ch->combined_count);
}

static u32 vjnet_get_rxfh_key_size(struct net_device *dev)
{
	struct vjnet_priv *vi = netdev_priv(dev);

	return vi->has_rss ? VJNET_RSS_KEY_LEN : 0;
}

static u32 vjnet_get_rxfh_indir_size(struct net_device *dev)
{
	struct vjnet_priv *vi = netdev_priv(dev);

	return vi->has_rss ? VJNET_RSS_TABLE_LEN : 0;
}

/* ethtool -x asks how many receive queues the table may name. */
static int vjnet_get_rxnfc(struct net_device *dev, struct ethtool_rxnfc *info,
			   u32 *rule_locs)
{
	struct vjnet_priv *vi = netdev_priv(dev);

	if (info->cmd != ETHTOOL_GRXRINGS)
		return -EOPNOTSUPP;
	info->data = vi->pairs;
	return 0;
}

/* ethtool -x: the key and table vjnet gave the device (read-only). */
static int vjnet_get_rxfh(struct net_device *dev, struct ethtool_rxfh_param *p)
{
	struct vjnet_priv *vi = netdev_priv(dev);
	unsigned int i;

	if (!vi->has_rss)
		return -EOPNOTSUPP;
	p->hfunc = ETH_RSS_HASH_TOP;
	if (p->key)
		memcpy(p->key, vi->rss_key, VJNET_RSS_KEY_LEN);
	if (p->indir)
		for (i = 0; i < VJNET_RSS_TABLE_LEN; i++)
			p->indir[i] = vi->rss_table[i];
	return 0;
}

const struct ethtool_ops vjnet_ethtool_ops = {
	.get_drvinfo = vjnet_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = vjnet_get_sset_count,
	.get_strings = vjnet_get_strings,
	.get_ethtool_stats = vjnet_get_ethtool_stats,
	.get_channels = vjnet_get_channels,
	.set_channels = vjnet_set_channels,
	.get_rxfh_key_size = vjnet_get_rxfh_key_size,
	.get_rxfh_indir_size = vjnet_get_rxfh_indir_size,
	.get_rxnfc = vjnet_get_rxnfc,
	.get_rxfh = vjnet_get_rxfh,
};
