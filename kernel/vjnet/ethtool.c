// SPDX-License-Identifier: GPL-2.0
/*
 * vjnet statistics: ip -s link (ndo_get_stats64) and ethtool -S, from the
 * receive counters (NAPI poll) and the transmit counters (queue lock).
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
};

static const struct vjnet_stat_desc vjnet_tx_descs[] = {
	VJNET_TX_STAT("tx_packets", packets),
	VJNET_TX_STAT("tx_bytes", bytes),
	VJNET_TX_STAT("tx_dropped", dropped),
	VJNET_TX_STAT("tx_queue_stopped", queue_stopped),
	VJNET_TX_STAT("tx_kicks", kicks),
};

#define VJNET_NRX	ARRAY_SIZE(vjnet_rx_descs)
#define VJNET_NTX	ARRAY_SIZE(vjnet_tx_descs)

static u64 vjnet_stat_read(const void *base, size_t offset)
{
	return u64_stats_read((const u64_stats_t *)(base + offset));
}

static void read_rx(struct vjnet_priv *vi, u64 *out)
{
	unsigned int start, i;

	do {
		start = u64_stats_fetch_begin(&vi->rx_stats.syncp);
		for (i = 0; i < VJNET_NRX; i++)
			out[i] = vjnet_stat_read(&vi->rx_stats,
						 vjnet_rx_descs[i].offset);
	} while (u64_stats_fetch_retry(&vi->rx_stats.syncp, start));
}

static void read_tx(struct vjnet_priv *vi, u64 *out)
{
	unsigned int start, i;

	do {
		start = u64_stats_fetch_begin(&vi->tx_stats.syncp);
		for (i = 0; i < VJNET_NTX; i++)
			out[i] = vjnet_stat_read(&vi->tx_stats,
						 vjnet_tx_descs[i].offset);
	} while (u64_stats_fetch_retry(&vi->tx_stats.syncp, start));
}

void vjnet_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *s)
{
	struct vjnet_priv *vi = netdev_priv(dev);
	u64 rx[VJNET_NRX], tx[VJNET_NTX];

	read_rx(vi, rx);
	read_tx(vi, tx);
	/* rx_packets: every frame the device delivered to us intact. */
	s->rx_packets = rx[0];
	s->rx_bytes = rx[1];
	s->rx_dropped = rx[6];
	s->rx_length_errors = rx[7];
	s->rx_errors = rx[7];
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
	return sset == ETH_SS_STATS ? VJNET_NRX + VJNET_NTX : -EOPNOTSUPP;
}

static void vjnet_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	unsigned int i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < VJNET_NRX; i++)
		ethtool_puts(&data, vjnet_rx_descs[i].name);
	for (i = 0; i < VJNET_NTX; i++)
		ethtool_puts(&data, vjnet_tx_descs[i].name);
}

static void vjnet_get_ethtool_stats(struct net_device *dev,
				    struct ethtool_stats *stats, u64 *data)
{
	struct vjnet_priv *vi = netdev_priv(dev);

	read_rx(vi, data);
	read_tx(vi, data + VJNET_NRX);
}

const struct ethtool_ops vjnet_ethtool_ops = {
	.get_drvinfo = vjnet_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = vjnet_get_sset_count,
	.get_strings = vjnet_get_strings,
	.get_ethtool_stats = vjnet_get_ethtool_stats,
};
