// SPDX-License-Identifier: GPL-2.0
/*
 * vjtest: a test driver for the vjchan driver API.  It registers an Ethernet
 * device, vjtest0, that receives nothing from the wire; instead, writes to
 * /sys/kernel/debug/vjtest/inject make it "receive" UDP frames built in
 * global buffers, exactly as a vj-aware NIC driver would:
 *
 *   echo "count=100 saddr=198.51.100.2 daddr=198.51.100.1 sport=1000 \
 *         dport=2000 len=64 batch=8" > /sys/kernel/debug/vjtest/inject
 *
 * IPv6 frames may carry one extension header between the IPv6 and the UDP
 * header: exthdr=0 (hop-by-hop, 8 bytes of padding), 60 (destination
 * options, likewise) or 51 (AH, 24 bytes).
 *
 * Malformed frames, for the checks of UDP channel sockets: csum=1 sends a
 * wrong UDP checksum, csum=2 a zero one; ulen=N puts N in the UDP length
 * field (after the checksum was computed over the real datagram).
 *
 * Checksum offload, as a device would report it (struct vj_rx_csum):
 * offload=1 says the device verified the checksum (VJ_CSUM_VALID);
 * offload=2 leaves it partial (VJ_CSUM_PARTIAL): the UDP checksum field
 * holds the pseudo-header sum only, csum start and offset name it.
 * cstart=N and coff=N replace that start and offset (crafted ones, which
 * the driver API must refuse when they reach outside the frame).
 *
 * Payload byte 0..3 carry the sequence number (big endian), byte i >= 4 is
 * (seq + i) & 0xff.  Frames that no channel claims reach the stack on
 * vjtest0 through the stack queue.
 */

#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/inet.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/ip6_checksum.h>
#include <net/ipv6.h>

#include "vjchan_driver.h"

#define VJTEST_MAX_BATCH	64

/* The transport checksum of injected frames (csum=N). */
#define VJTEST_CSUM_GOOD	0
#define VJTEST_CSUM_BAD		1	/* the correct one plus 1 */
#define VJTEST_CSUM_ZERO	2	/* zero: "none" on IPv4, bad on IPv6 */

static struct net_device *vjtest_dev;
static struct dentry *vjtest_dir;
static DEFINE_MUTEX(vjtest_lock);
static u64 stat_injected, stat_no_buffer;

struct inject_req {
	unsigned int count, len, batch, seq;
	u16 sport, dport;
	u8 proto;
	int exthdr;		/* IPv6 extension header type, or -1 */
	unsigned int csum;	/* VJTEST_CSUM_* */
	unsigned int ulen;	/* UDP length field if not 0 (a malformed one) */
	unsigned int offload;	/* enum vj_rx_csum_state */
	int cstart, coff;	/* csum start and offset if not -1 */
	bool v6;
	__be32 saddr4, daddr4;
	struct in6_addr saddr6, daddr6;
};

static netdev_tx_t vjtest_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev->stats.tx_dropped++;
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops vjtest_ops = {
	.ndo_start_xmit = vjtest_xmit,
	.ndo_validate_addr = eth_validate_addr,
};

static unsigned int vjtest_exthdr_len(int type)
{
	switch (type) {
	case NEXTHDR_HOP:
	case NEXTHDR_DEST:
		return 8;
	case NEXTHDR_AUTH:
		return 24;
	default:
		return 0;
	}
}

/* One extension header of @type in front of a header of type @next. */
static void vjtest_build_exthdr(u8 *p, int type, u8 next)
{
	unsigned int len = vjtest_exthdr_len(type);

	memset(p, 0, len);
	p[0] = next;
	if (type == NEXTHDR_AUTH) {
		p[1] = len / 4 - 2;	/* 4-byte words beyond the first two */
		p[7] = 1;		/* SPI 1 */
		p[11] = 1;		/* sequence number 1 */
	} else {
		p[1] = len / 8 - 1;	/* 8-byte words beyond the first */
		p[2] = IPV6_TLV_PADN;
		p[3] = len - 4;
	}
}

static unsigned int vjtest_build_frame(u8 *p, const struct inject_req *r,
				       u32 seq, struct vj_rx_csum *c)
{
	static const u8 src_mac[ETH_ALEN] = { 0x02, 0x56, 0x4a, 0, 0, 2 };
	unsigned int ext = r->v6 ? vjtest_exthdr_len(r->exthdr) : 0;
	unsigned int l3 = (r->v6 ? sizeof(struct ipv6hdr) :
			   sizeof(struct iphdr)) + ext;
	unsigned int ulen = sizeof(struct udphdr) + r->len;
	struct ethhdr *eth = (struct ethhdr *)p;
	struct udphdr *uh = (struct udphdr *)(p + ETH_HLEN + l3);
	u8 *pl = (u8 *)(uh + 1);
	unsigned int i;
	__wsum csum;

	ether_addr_copy(eth->h_dest, vjtest_dev->dev_addr);
	ether_addr_copy(eth->h_source, src_mac);
	eth->h_proto = htons(r->v6 ? ETH_P_IPV6 : ETH_P_IP);

	for (i = 0; i < r->len; i++)
		pl[i] = i < 4 ? (u8)(seq >> (24 - 8 * i)) : (u8)(seq + i);
	uh->source = htons(r->sport);
	uh->dest = htons(r->dport);
	uh->len = htons(ulen);
	uh->check = 0;
	csum = csum_partial(uh, ulen, 0);

	if (r->v6) {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)(p + ETH_HLEN);

		memset(ip6, 0, sizeof(*ip6));
		ip6->version = 6;
		ip6->payload_len = htons(ext + ulen);
		ip6->nexthdr = ext ? r->exthdr : r->proto;
		if (ext)
			vjtest_build_exthdr((u8 *)(ip6 + 1), r->exthdr, r->proto);
		ip6->hop_limit = 64;
		ip6->saddr = r->saddr6;
		ip6->daddr = r->daddr6;
		uh->check = csum_ipv6_magic(&ip6->saddr, &ip6->daddr, ulen,
					    r->proto, csum);
	} else {
		struct iphdr *iph = (struct iphdr *)(p + ETH_HLEN);

		memset(iph, 0, sizeof(*iph));
		iph->version = 4;
		iph->ihl = 5;
		iph->tot_len = htons(l3 + ulen);
		iph->ttl = 64;
		iph->protocol = r->proto;
		iph->saddr = r->saddr4;
		iph->daddr = r->daddr4;
		iph->check = ip_fast_csum(iph, iph->ihl);
		uh->check = csum_tcpudp_magic(r->saddr4, r->daddr4, ulen,
					      r->proto, csum);
	}
	if (!uh->check)
		uh->check = CSUM_MANGLED_0;
	if (r->csum == VJTEST_CSUM_BAD) {
		u16 bad = ntohs((__force __be16)uh->check) + 1;

		uh->check = (__force __sum16)htons(bad ?: 1);
	} else if (r->csum == VJTEST_CSUM_ZERO) {
		uh->check = 0;
	}
	c->state = r->offload;
	c->start = r->cstart >= 0 ? r->cstart : ETH_HLEN + l3;
	c->offset = r->coff >= 0 ? r->coff : offsetof(struct udphdr, check);
	if (r->offload == VJ_CSUM_PARTIAL) {
		/* The pseudo-header sum only, as a sender offloading it. */
		if (r->v6) {
			struct ipv6hdr *ip6 = (struct ipv6hdr *)(p + ETH_HLEN);

			uh->check = ~csum_ipv6_magic(&ip6->saddr, &ip6->daddr,
						     ulen, r->proto, 0);
		} else {
			uh->check = ~csum_tcpudp_magic(r->saddr4, r->daddr4,
						       ulen, r->proto, 0);
		}
	}
	/* After the checksum: a length that lies about the datagram. */
	if (r->ulen)
		uh->len = htons(r->ulen);
	return ETH_HLEN + l3 + ulen;
}

static int vjtest_inject(const struct inject_req *r)
{
	struct vj_gbuf *bufs[VJTEST_MAX_BATCH];
	unsigned int done = 0;

	while (done < r->count) {
		unsigned int n = min(r->batch, r->count - done), i;

		for (i = 0; i < n; i++) {
			bufs[i] = vj_gbuf_get(vjtest_dev);
			if (!bufs[i])
				break;
			bufs[i]->len = vjtest_build_frame(bufs[i]->data, r,
							  r->seq + done + i,
							  &bufs[i]->csum);
		}
		/* Deliver like a NAPI poll would: bottom halves off. */
		local_bh_disable();
		if (r->batch == 1 && i == 1)
			vj_netif_rx(bufs[0], bufs[0]->len);
		else if (i)
			vj_netif_rx_batch(bufs, i);
		local_bh_enable();
		done += i;
		stat_injected += i;
		if (i < n) {
			stat_no_buffer++;
			return -ENOBUFS;
		}
		cond_resched();
	}
	return 0;
}

static int vjtest_parse_addr(const char *s, struct inject_req *r, bool src)
{
	if (strchr(s, ':')) {
		r->v6 = true;
		return in6_pton(s, -1, (u8 *)(src ? &r->saddr6 : &r->daddr6),
				-1, NULL) ? 0 : -EINVAL;
	}
	return in4_pton(s, -1, (u8 *)(src ? &r->saddr4 : &r->daddr4), -1,
			NULL) ? 0 : -EINVAL;
}

static int vjtest_parse_req(char *line, struct inject_req *r)
{
	char *tok;

	memset(r, 0, sizeof(*r));
	r->count = 1;
	r->len = 64;
	r->batch = 1;
	r->proto = IPPROTO_UDP;
	r->sport = 1000;
	r->dport = 2000;
	r->exthdr = -1;
	r->cstart = -1;
	r->coff = -1;
	while ((tok = strsep(&line, " \t\n"))) {
		char *val = strchr(tok, '=');
		unsigned int v;
		int err = 0;

		if (!*tok)
			continue;
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "saddr") || !strcmp(tok, "daddr")) {
			err = vjtest_parse_addr(val, r, tok[0] == 's');
		} else {
			err = kstrtouint(val, 0, &v);
			if (err)
				return err;
			if (!strcmp(tok, "count"))
				r->count = v;
			else if (!strcmp(tok, "len"))
				r->len = v;
			else if (!strcmp(tok, "batch"))
				r->batch = v;
			else if (!strcmp(tok, "seq"))
				r->seq = v;
			else if (!strcmp(tok, "sport") && v <= U16_MAX)
				r->sport = v;
			else if (!strcmp(tok, "dport") && v <= U16_MAX)
				r->dport = v;
			else if (!strcmp(tok, "proto") && v <= U8_MAX)
				r->proto = v;
			else if (!strcmp(tok, "exthdr") && vjtest_exthdr_len(v))
				r->exthdr = v;
			else if (!strcmp(tok, "csum") && v <= VJTEST_CSUM_ZERO)
				r->csum = v;
			else if (!strcmp(tok, "ulen") && v <= U16_MAX)
				r->ulen = v;
			else if (!strcmp(tok, "offload") &&
				 v <= VJ_CSUM_PARTIAL)
				r->offload = v;
			else if (!strcmp(tok, "cstart") && v <= U16_MAX)
				r->cstart = v;
			else if (!strcmp(tok, "coff") && v <= U16_MAX)
				r->coff = v;
			else
				return -EINVAL;
		}
		if (err)
			return err;
	}
	if (!r->batch || r->batch > VJTEST_MAX_BATCH)
		return -EINVAL;
	if (r->exthdr >= 0 && !r->v6)
		return -EINVAL;
	if (ETH_HLEN + sizeof(struct ipv6hdr) + vjtest_exthdr_len(r->exthdr) +
	    sizeof(struct udphdr) + (u64)r->len > VJ_GBUF_SIZE)
		return -EINVAL;
	return 0;
}

static ssize_t vjtest_inject_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	struct inject_req r;
	char buf[256];
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	err = vjtest_parse_req(buf, &r);
	if (err)
		return err;
	mutex_lock(&vjtest_lock);
	err = vjtest_inject(&r);
	mutex_unlock(&vjtest_lock);
	return err ? err : len;
}

static const struct file_operations inject_fops = {
	.owner = THIS_MODULE,
	.write = vjtest_inject_write,
};

static int stats_show(struct seq_file *seq, void *v)
{
	mutex_lock(&vjtest_lock);
	seq_printf(seq, "injected %llu\nno_buffer %llu\n", stat_injected,
		   stat_no_buffer);
	mutex_unlock(&vjtest_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int __init vjtest_init(void)
{
	static const u8 mac[ETH_ALEN] = { 0x02, 0x56, 0x4a, 0, 0, 1 };
	int err;

	vjtest_dev = alloc_etherdev(0);
	if (!vjtest_dev)
		return -ENOMEM;
	strscpy(vjtest_dev->name, "vjtest%d", IFNAMSIZ);
	vjtest_dev->netdev_ops = &vjtest_ops;
	eth_hw_addr_set(vjtest_dev, mac);
	err = register_netdev(vjtest_dev);
	if (err)
		goto err_free_netdev;

	vjtest_dir = debugfs_create_dir("vjtest", NULL);
	debugfs_create_file("inject", 0200, vjtest_dir, NULL, &inject_fops);
	debugfs_create_file("stats", 0444, vjtest_dir, NULL, &stats_fops);
	return 0;

err_free_netdev:
	free_netdev(vjtest_dev);
	return err;
}

static void __exit vjtest_exit(void)
{
	debugfs_remove_recursive(vjtest_dir);
	unregister_netdev(vjtest_dev);
	free_netdev(vjtest_dev);
}

module_init(vjtest_init);
module_exit(vjtest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vjchan driver API test driver");
