// SPDX-License-Identifier: GPL-2.0
/*
 * The vjchan XDP program: hand every frame to vjchan's kfunc and drop the
 * frames that a channel claimed; everything else goes on (XDP_PASS).
 * Multi-buffer frames (jumbo MTU) are accepted: the kfunc copies the
 * fragments itself.  Attached by tools/vjchan-xdp through libxdp's
 * dispatcher, so it runs next to other XDP programs on the same device.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <xdp/xdp_helpers.h>

/* kernel/xdp.c: 1 if a channel claimed the frame, 0 if it must go on. */
extern int vj_xdp_deliver(struct xdp_md *ctx) __ksym;

/* Early in the dispatcher's chain; later programs see what is not claimed. */
struct {
	__uint(priority, 10);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(vjchan_xdp);

SEC("xdp.frags")
int vjchan_xdp(struct xdp_md *ctx)
{
	return vj_xdp_deliver(ctx) > 0 ? XDP_DROP : XDP_PASS;
}

char _license[] SEC("license") = "GPL";
