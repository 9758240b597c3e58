// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/vjchan lists the channels of the reader's namespace with their
 * flow and counters; /proc/net/vjchan_pool, in the initial namespace only,
 * shows the module-wide counters (global pool, stack queue, audit of
 * channel lifetimes).  Formats are documented in vjchan(7).
 */

#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "vj_flow.h"
#include "vj_net.h"
#include "vj_pool.h"
#include "vj_proc.h"
#include "vj_ring.h"
#include "vj_stats.h"

DEFINE_PER_CPU(struct vj_counters, vj_counters);

/* The sum of every CPU's copy of counter @c. */
s64 vj_counter_read(enum vj_counter c)
{
	s64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(&vj_counters, cpu)->c[c]);
	return sum;
}

static const char *const vj_counter_names[VJ_CNT_MAX] = {
	[VJ_CNT_POOL_EMPTY] = "pool_empty",
	[VJ_CNT_DRIVER_RX] = "driver_rx",
	[VJ_CNT_DRIVER_CLAIMED] = "driver_claimed",
	[VJ_CNT_DRIVER_DROPPED] = "driver_dropped",
	[VJ_CNT_DRIVER_BAD] = "driver_bad",
	[VJ_CNT_DRIVER_CAPPED] = "driver_capped",
	[VJ_CNT_DEFAULT_RX] = "default_rx",
	[VJ_CNT_DEFAULT_TO_STACK] = "default_to_stack",
	[VJ_CNT_DEFAULT_NOMEM] = "default_nomem",
	[VJ_CNT_DEFAULT_NOCOPY] = "default_nocopy",
	[VJ_CNT_HOOK_CLAIMED] = "hook_claimed",
	[VJ_CNT_HOOK_DROPPED] = "hook_dropped",
	[VJ_CNT_XDP_CLAIMED] = "xdp_claimed",
	[VJ_CNT_XDP_DROPPED] = "xdp_dropped",
	[VJ_CNT_FW_CLAIMED] = "fw_claimed",
	[VJ_CNT_FW_DROPPED] = "fw_dropped",
	[VJ_CNT_FW_DEFERRED] = "fw_deferred",
	[VJ_CNT_NOT_LOCAL] = "not_local",
	[VJ_CNT_HDR_UNREADABLE] = "hdr_unreadable",
	[VJ_CNT_GSO_SEGMENTED] = "gso_segmented",
	[VJ_CNT_GSO_FAILED] = "gso_failed",
	[VJ_CNT_CSUM_BAD] = "csum_bad",
	[VJ_CNT_SANCTION_NOTED] = "sanction_noted",
	[VJ_CNT_SANCTION_ENDED] = "sanction_ended",
	[VJ_CNT_SANCTION_REFUSED] = "sanction_refused",
	[VJ_CNT_MASKS_NOMEM] = "masks_nomem",
	[VJ_CNT_CHANNELS_CREATED] = "channels_created",
	[VJ_CNT_CHANNELS_DESTROYED] = "channels_destroyed",
	[VJ_CNT_BYTES_PINNED] = "bytes_pinned",
};

static void *vj_proc_seq_start(struct seq_file *seq, loff_t *pos)
{
	struct vj_net *vn = vj_pernet(seq_file_net(seq));

	mutex_lock(&vn->lock);
	return seq_list_start_head(&vn->channels, *pos);
}

static void *vj_proc_seq_next(struct seq_file *seq, void *v, loff_t *pos)
{
	struct vj_net *vn = vj_pernet(seq_file_net(seq));

	return seq_list_next(v, &vn->channels, pos);
}

static void vj_proc_seq_stop(struct seq_file *seq, void *v)
{
	struct vj_net *vn = vj_pernet(seq_file_net(seq));

	mutex_unlock(&vn->lock);
}

/*
 * The columns of /proc/net/vjchan after buf_size: the channel counters,
 * the fields of struct vj_statistics (uapi) in its order, with the
 * channel's firewall mode (fw, no counter) between rx_driver and rx_hook.
 */
#define VJ_FW_COLUMN	SIZE_MAX
#define VJ_STAT(field)	{ #field, offsetof(struct vj_statistics, field) }

static const struct {
	const char *name;
	size_t off;
} vj_proc_columns[] = {
	VJ_STAT(rx_packets), VJ_STAT(rx_bytes), VJ_STAT(rx_ring_full),
	VJ_STAT(rx_invalid_cons), VJ_STAT(rx_truncated), VJ_STAT(rx_driver),
	{ "fw", VJ_FW_COLUMN },
	VJ_STAT(rx_hook), VJ_STAT(rx_xdp), VJ_STAT(rx_filtered),
	VJ_STAT(rx_csum_bad), VJ_STAT(rx_udp_bad_csum),
	VJ_STAT(rx_udp_malformed), VJ_STAT(rx_udp_not_peer),
	VJ_STAT(rx_direct),
};

/* Every field of struct vj_statistics has its column. */
static_assert(sizeof(struct vj_statistics) ==
	      (ARRAY_SIZE(vj_proc_columns) - 1) * sizeof(__u64));

static void vj_proc_show_addr(struct seq_file *seq, const struct vj_flow *f,
			      const union vj_addr *a, bool any)
{
	if (any)
		seq_puts(seq, " *");
	else if (f->family == AF_INET)
		seq_printf(seq, " %pI4", &a->ip4);
	else
		seq_printf(seq, " %pI6c", a->bytes);
}

static void vj_proc_show_num(struct seq_file *seq, unsigned int v)
{
	if (v)
		seq_printf(seq, " %u", v);
	else
		seq_puts(seq, " *");
}

static const char *const vj_fw_mode_name[] = {
	[VJ_BIND_FW_FILTERED] = "filtered",
	[VJ_BIND_FW_SANCTIONED] = "sanctioned",
	[VJ_BIND_FW_BYPASS] = "bypass",
	[3] = "?",
};

/* One line of /proc/net/vjchan; called under vj_net->lock. */
static void vj_proc_show_chan(struct seq_file *seq, struct vj_flow_entry *fe)
{
	const struct vj_flow *f = &fe->flow;
	struct vj_ring *ring = fe->ring;
	struct vj_statistics st;
	unsigned int i;

	vj_ring_get_stats(ring, &st);
	seq_printf(seq, "%lu %s", sock_i_ino(fe->sk),
		   f->family == AF_INET ? "ipv4" : "ipv6");
	vj_proc_show_num(seq, f->proto);
	vj_proc_show_addr(seq, f, &f->saddr, !(fe->mask & VJ_M_SADDR));
	vj_proc_show_num(seq, ntohs(f->sport));
	vj_proc_show_addr(seq, f, &f->daddr, !(fe->mask & VJ_M_DADDR));
	vj_proc_show_num(seq, ntohs(f->dport));
	vj_proc_show_num(seq, f->ifindex);
	seq_printf(seq, " %u %u", ring->entries, ring->buf_size);
	for (i = 0; i < ARRAY_SIZE(vj_proc_columns); i++) {
		size_t off = vj_proc_columns[i].off;

		if (off == VJ_FW_COLUMN)
			seq_printf(seq, " %s", vj_fw_mode_name[fe->fw_mode]);
		else
			seq_printf(seq, " %llu", *(u64 *)((u8 *)&st + off));
	}
	seq_putc(seq, '\n');
}

static int vj_proc_seq_show(struct seq_file *seq, void *v)
{
	struct vj_net *vn = vj_pernet(seq_file_net(seq));

	unsigned int i;

	if (v != &vn->channels) {
		vj_proc_show_chan(seq, list_entry(v, struct vj_flow_entry, list));
		return 0;
	}
	seq_puts(seq, "inode family proto saddr sport daddr dport ifindex entries buf_size");
	for (i = 0; i < ARRAY_SIZE(vj_proc_columns); i++)
		seq_printf(seq, " %s", vj_proc_columns[i].name);
	seq_putc(seq, '\n');
	return 0;
}

static const struct seq_operations vj_proc_seq_ops = {
	.start = vj_proc_seq_start,
	.next = vj_proc_seq_next,
	.stop = vj_proc_seq_stop,
	.show = vj_proc_seq_show,
};

static int vj_proc_pool_show(struct seq_file *seq, void *v)
{
	s64 created = vj_counter_read(VJ_CNT_CHANNELS_CREATED);
	s64 destroyed = vj_counter_read(VJ_CNT_CHANNELS_DESTROYED);
	unsigned int i;

	seq_printf(seq, "pool_buffers %u\n", vj_pool_size());
	seq_printf(seq, "pool_free %u\n", vj_pool_free());
	for (i = 0; i < VJ_CNT_MAX; i++)
		seq_printf(seq, "%s %lld\n", vj_counter_names[i],
			   vj_counter_read(i));
	seq_printf(seq, "channels_live %lld\n", created - destroyed);
	return 0;
}

int vj_proc_net_init(struct net *net)
{
	if (!proc_create_net("vjchan", 0444, net->proc_net, &vj_proc_seq_ops,
			     sizeof(struct seq_net_private)))
		return -ENOMEM;
	if (net_eq(net, &init_net) &&
	    !proc_create_single("vjchan_pool", 0444, net->proc_net,
				vj_proc_pool_show)) {
		remove_proc_entry("vjchan", net->proc_net);
		return -ENOMEM;
	}
	return 0;
}

void vj_proc_net_exit(struct net *net)
{
	if (net_eq(net, &init_net))
		remove_proc_entry("vjchan_pool", net->proc_net);
	remove_proc_entry("vjchan", net->proc_net);
}
