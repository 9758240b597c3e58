// SPDX-License-Identifier: GPL-2.0
/*
 * A second XDP program for tests/xdp.sh, loaded with xdp-loader next to
 * vjchan's on the same device: it drops IPv4 UDP to port 9499 and passes
 * everything else, so the test can see that it keeps running.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

SEC("xdp.frags")
int xdp_drop_port(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	struct udphdr *uh;

	if ((void *)(iph + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    iph->protocol != IPPROTO_UDP || iph->ihl != 5)
		return XDP_PASS;
	uh = (void *)(iph + 1);
	if ((void *)(uh + 1) > end)
		return XDP_PASS;
	return uh->dest == bpf_htons(9499) ? XDP_DROP : XDP_PASS;
}

char _license[] SEC("license") = "GPL";
