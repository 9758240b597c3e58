// SPDX-License-Identifier: GPL-2.0
/*
 * Waking a channel's consumer once per batch of packets, not once per
 * packet, for the receive paths that see one packet per call: the netfilter
 * hooks (deliver.c) and the XDP kfunc (xdp.c).  The driver API and direct
 * receive see the end of their NAPI poll and wake per run of frames
 * themselves.
 *
 * In softirq a producer names the channel's socket here instead of calling
 * its sk_data_ready(); each CPU keeps a short list of the sockets named
 * since its last flush (a reference held on each) and queues its flush on
 * the bottom-half workqueue, which runs in the same softirq pass after the
 * network receive work of that pass: once per NAPI poll round, whatever
 * the driver.  A consumer that sleeps is thus woken once for all the
 * packets of a round, and a consumer that is running sees them at its next
 * look at the ring without any wake-up cost but the flush's.
 *
 * Outside softirq (a hook run from process context), or when the list is
 * full, the socket is woken at once, as before.  Nothing is shared between
 * CPUs: the list and the work item are per CPU, and only that CPU touches
 * them, with bottom halves off.
 */

#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/workqueue.h>
#include <net/sock.h>

#include "vj_wake.h"

/* Distinct sockets named per CPU between two flushes. */
#define VJ_WAKE_MAX	16

struct vj_wake {
	struct work_struct work;
	unsigned int n;
	struct sock *sk[VJ_WAKE_MAX];
};

static DEFINE_PER_CPU(struct vj_wake, vj_wakes);

/* The bottom-half work: wake every socket named on this CPU. */
static void vj_wake_flush(struct work_struct *work)
{
	struct vj_wake *w = container_of(work, struct vj_wake, work);
	unsigned int i;

	/* BH work runs with bottom halves off, on the CPU that queued it. */
	for (i = 0; i < w->n; i++) {
		w->sk[i]->sk_data_ready(w->sk[i]);
		sock_put(w->sk[i]);
	}
	w->n = 0;
}

/**
 * vj_wake - wake @sk's consumer: now, or at the end of this softirq's
 *	network receive work
 * @sk: a channel's socket, which the caller may only use under RCU
 */
void vj_wake(struct sock *sk)
{
	struct vj_wake *w;
	unsigned int i;

	if (!in_serving_softirq()) {
		sk->sk_data_ready(sk);
		return;
	}
	w = this_cpu_ptr(&vj_wakes);
	for (i = 0; i < w->n; i++)
		if (w->sk[i] == sk)
			return;
	/* A socket being released is woken at once, if at all. */
	if (w->n == VJ_WAKE_MAX || !refcount_inc_not_zero(&sk->sk_refcnt)) {
		sk->sk_data_ready(sk);
		return;
	}
	w->sk[w->n++] = sk;
	if (w->n == 1)
		queue_work_on(smp_processor_id(), system_bh_wq, &w->work);
}

void vj_wake_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		INIT_WORK(&per_cpu_ptr(&vj_wakes, cpu)->work, vj_wake_flush);
}

/* Module exit: no flush may still be pending or running. */
void vj_wake_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		flush_work(&per_cpu_ptr(&vj_wakes, cpu)->work);
}
