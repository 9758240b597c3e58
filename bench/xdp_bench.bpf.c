// SPDX-License-Identifier: GPL-2.0
/*
 * XDP programs of the vjchan benchmark (guest side), built with clang -target
 * bpf and loaded by vjrx:
 *
 *   xdp_flow_drop      the ceiling: count the benchmark flow's frames and
 *                      drop them, before any skb exists
 *   xdp_flow_redirect  AF_XDP: redirect the flow's frames to the XSK bound
 *                      to the receive queue, pass everything else
 *
 * Both match the flow the way the other receivers bind it: IPv4, UDP,
 * destination port BENCH_DPORT, not a fragment.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xdp_bench.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdp_bench_count);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

/* The flow's UDP payload, or NULL. */
static __always_inline void *flow_payload(struct xdp_md *ctx, __u32 *plen)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
	struct udphdr *udp = (void *)(ip + 1);
	__u16 ulen;

	if ((void *)(udp + 1) > end)
		return NULL;
	if (eth->h_proto != bpf_htons(ETH_P_IP) || ip->ihl != 5 ||
	    ip->protocol != IPPROTO_UDP || (ip->frag_off & bpf_htons(0x3fff)) ||
	    udp->dest != bpf_htons(BENCH_DPORT))
		return NULL;
	ulen = bpf_ntohs(udp->len);
	if (ulen < sizeof(*udp))
		return NULL;
	*plen = ulen - sizeof(*udp);
	return udp + 1;
}

SEC("xdp")
int xdp_flow_drop(struct xdp_md *ctx)
{
	void *end = (void *)(long)ctx->data_end;
	struct xdp_bench_count *c;
	__u32 key = 0, plen, seq, ctr;
	__u8 *p;

	p = flow_payload(ctx, &plen);
	if (!p)
		return XDP_PASS;
	c = bpf_map_lookup_elem(&counts, &key);
	if (!c)
		return XDP_DROP;
	if ((void *)(p + 4) > end) {
		c->bad++;
		return XDP_DROP;
	}
	seq = (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
	if (seq >> BENCH_CTR_BITS != c->tag) {
		c->stale++;
		return XDP_DROP;
	}
	/* One receive queue: one NAPI context at a time updates this. */
	ctr = seq & BENCH_CTR_MASK;
	c->pkts++;
	c->bytes += plen;
	if (ctr + 1 > c->max_ctr)
		c->max_ctr = ctr + 1;
	return XDP_DROP;
}

SEC("xdp")
int xdp_flow_redirect(struct xdp_md *ctx)
{
	__u32 plen;

	if (!flow_payload(ctx, &plen))
		return XDP_PASS;
	return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

char _license[] SEC("license") = "GPL";
