// SPDX-License-Identifier: GPL-2.0
/*
 * The end of a batch, for the receive paths that see one packet per call:
 * the netfilter hooks (deliver.c) and the XDP kfunc (xdp.c).  They fill
 * ring slots with VJ_PUBLISH_BATCH and name the channel here; the slots
 * are published, with one (B) of vj_ring.h, and the consumer woken, once
 * per channel for all the packets of a softirq pass, as AF_XDP publishes
 * and wakes once per NAPI poll.  A consumer that is running meanwhile sees
 * them in batches (of at most 64: the producer publishes a long batch
 * itself, see vj_ring_publish_due()); one that sleeps is woken once per
 * pass.  The driver API and direct receive see the end of their NAPI poll
 * and wake per run of frames themselves.
 *
 * In softirq each CPU keeps a short list of the channels named since its
 * last flush (a reference held on each socket, which keeps its ring) and
 * queues its flush on the bottom-half workqueue, which runs in the same
 * softirq pass after the network receive work of that pass: once per NAPI
 * poll round, whatever the driver.
 *
 * Outside softirq (a hook run from process context), when the list is full
 * or when the socket is being released, the ring is published and the
 * socket woken at once.  Nothing is shared between CPUs: the list and the
 * work item are per CPU, and only that CPU touches them, with bottom
 * halves off.
 */

#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/workqueue.h>
#include <net/sock.h>

#include "vj_ring_prod.h"
#include "vj_wake.h"

/* Distinct channels named per CPU between two flushes. */
#define VJ_WAKE_MAX	16

struct vj_wake {
	struct work_struct work;
	unsigned int n;
	struct {
		struct sock *sk;
		struct vj_ring *ring;
	} ch[VJ_WAKE_MAX];
};

static DEFINE_PER_CPU(struct vj_wake, vj_wakes);

/*
 * The bottom-half work: publish and wake every channel named on this CPU.
 * The reference on each socket keeps its ring (freed by the socket's
 * destructor).
 */
static void vj_wake_flush(struct work_struct *work)
{
	struct vj_wake *w = container_of(work, struct vj_wake, work);
	unsigned int i;

	/*
	 * BH work runs with bottom halves off, on the CPU that queued it (or,
	 * if that CPU went offline, on another, after it).
	 */
	for (i = 0; i < w->n; i++) {
		struct sock *sk = w->ch[i].sk;

		vj_ring_publish_batch(w->ch[i].ring);
		sk->sk_data_ready(sk);
		sock_put(sk);
	}
	w->n = 0;
}

/**
 * vj_wake - publish the slots @ring was given with VJ_PUBLISH_BATCH and wake
 *	@sk's consumer: at the end of this softirq's network receive work,
 *	or now
 * @sk: a channel's socket, which the caller may only use under RCU
 * @ring: its ring
 */
void vj_wake(struct sock *sk, struct vj_ring *ring)
{
	struct vj_wake *w;
	unsigned int i;

	if (!in_serving_softirq())
		goto now;
	w = this_cpu_ptr(&vj_wakes);
	for (i = 0; i < w->n; i++)
		if (w->ch[i].sk == sk)
			return;
	/*
	 * A socket being released is published and woken at once: under
	 * RCU its ring lives on (the socket is freed after a grace period).
	 */
	if (w->n == VJ_WAKE_MAX || !refcount_inc_not_zero(&sk->sk_refcnt))
		goto now;
	w->ch[w->n].sk = sk;
	w->ch[w->n].ring = ring;
	if (++w->n == 1)
		queue_work_on(smp_processor_id(), system_bh_wq, &w->work);
	return;
now:
	vj_ring_publish_batch(ring);
	sk->sk_data_ready(sk);
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
