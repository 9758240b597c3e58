// SPDX-License-Identifier: GPL-2.0
/*
 * The XDP receive path.  vjchan registers one kfunc for BPF_PROG_TYPE_XDP
 * programs:
 *
 *   int vj_xdp_deliver(struct xdp_md *ctx);
 *
 * An XDP program (xdp/vjchan.bpf.c, attached by tools/vjchan-xdp) calls it
 * with its context.  The kfunc classifies the frame like the other fast
 * paths (vj_classify_frame(): bypass channels only, and only traffic for
 * this host unless the channel is a transit one), parsing only the linear
 * part of the buffer (a frame whose headers continue into its fragments
 * passes, counted in hdr_unreadable), copies the whole frame,
 * linear part and fragments, into the winning channel's ring with
 * VJ_DESC_F_XDP, and returns:
 *
 *   VJ_XDP_CLAIMED (1)  the frame is the channel's: it was copied, or
 *                       dropped and counted because the ring was full.
 *                       The program returns XDP_DROP.
 *   VJ_XDP_PASS (0)     not a channel's frame (no match, a filtered
 *                       channel, not for this host, a dead channel, a
 *                       frame that cannot be parsed): the program returns
 *                       XDP_PASS and the frame goes on untouched.
 *
 * The frame is never modified.  A program that calls the kfunc holds a
 * reference on this module, so vjchan cannot be unloaded while such a
 * program is attached (or otherwise alive).
 *
 * Publication and wake-ups: a module gets no call at the end of a NAPI
 * poll (the flush of the redirect maps, xdp_do_flush(), is internal to the
 * core), so the frame is copied with VJ_PUBLISH_BATCH and the channel
 * named to vj_wake() (wake.c), which publishes the ring and wakes the
 * consumer once for all the frames a channel got in one softirq pass.
 */

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <net/sock.h>
#include <net/xdp.h>

#include "vj_classify.h"
#include "vj_flow.h"
#include "vj_ring_prod.h"
#include "vj_stats.h"
#include "vj_wake.h"
#include "vj_xdp.h"

#define VJ_XDP_PASS	0
#define VJ_XDP_CLAIMED	1

static int vj_xdp_rx(struct xdp_buff *xdp)
{
	struct net_device *dev = xdp->rxq->dev;
	struct vj_flow_entry *fe;
	__be16 proto;
	int ret = VJ_XDP_PASS;

	rcu_read_lock();
	/*
	 * Only the linear part (data to data_end) may be read in place; the
	 * rest of a multi-buffer frame is in fragments.  A frame whose
	 * headers do not all lie in the linear part is left to the stack.
	 */
	fe = vj_classify_frame(dev, xdp->data, xdp->data_end - xdp->data,
			       xdp_get_buff_len(xdp), &proto);
	if (!fe)
		goto out_unlock;
	switch (vj_ring_rx_xdp(fe->ring, xdp, dev->ifindex, proto,
			       VJ_PUBLISH_BATCH)) {
	case 0:
		vj_count(VJ_CNT_XDP_CLAIMED);
		vj_wake(fe->sk, fe->ring);
		ret = VJ_XDP_CLAIMED;
		break;
	case -ENOSPC:
		vj_count(VJ_CNT_XDP_DROPPED);
		ret = VJ_XDP_CLAIMED;
		break;
	default:	/* dead channel: as if it were not there */
		break;
	}
out_unlock:
	rcu_read_unlock();
	return ret;
}

__bpf_kfunc_start_defs();

/**
 * vj_xdp_deliver - hand an XDP frame to its channel
 * @ctx: the XDP program's context
 *
 * Returns 1 if a channel claimed the frame (the program should return
 * XDP_DROP), 0 if the frame must go on (XDP_PASS).  See the comment at
 * the top of this file.
 */
__bpf_kfunc int vj_xdp_deliver(struct xdp_md *ctx)
{
	return vj_xdp_rx((struct xdp_buff *)ctx);
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(vj_xdp_kfunc_ids)
BTF_ID_FLAGS(func, vj_xdp_deliver)
BTF_KFUNCS_END(vj_xdp_kfunc_ids)

static const struct btf_kfunc_id_set vj_xdp_kfunc_set = {
	.owner = THIS_MODULE,
	.set = &vj_xdp_kfunc_ids,
};

/*
 * Registration cannot be undone: the kernel drops the set with the
 * module's BTF when the module goes.  Without module BTF (a module built
 * without pahole, or whose BTF does not match the running kernel's) the
 * kernel logs "missing module BTF" and returns 0: vjchan then works
 * without the XDP path, and tools/vjchan-xdp refuses to attach.
 */
int vj_xdp_init(void)
{
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_XDP, &vj_xdp_kfunc_set);
}
