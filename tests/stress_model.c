// SPDX-License-Identifier: GPL-2.0
/*
 * stress: the model of expected results.
 *
 * A datagram sent over lo during a close or a bind could land on either
 * side, so every port has a gate: a sender holds it around each send and
 * counts the datagram here for the channel or for the stack according to
 * the port's state, and a consumer changing that state holds it and first
 * waits until everything already sent is accounted for where it was sent
 * to.  So each datagram is attributable: to the current incarnation of
 * the port's channel (cur_*), or to the stack (unb_*), and the sums of
 * both are what the channels' counters, the UDP sockets and the module's
 * pool counters must show.
 */
#include <unistd.h>

#include "stress.h"

/* Under p's gate: one datagram went over lo to p. */
void model_sent_lo(struct port *p)
{
	p->sent_lo++;
	if (p->bound)
		p->cur_lo++;
	else
		p->unb_lo++;
}

/* Under p's gate: k frames went through the driver API to p. */
void model_sent_inj(struct port *p, uint64_t k)
{
	p->inj += k;
	if (p->bound)
		p->cur_inj += k;
	else
		p->unb_inj += k;
}

/*
 * Whether a wait for the stack or a channel to account for what was sent
 * to p, begun at @start, may go on.  A datagram sent over lo, and a frame
 * the driver API hands to the stack, waits in a CPU's input backlog until
 * that CPU's softirq gets to it; a slow (debug) kernel under this load can
 * be seconds behind, as can vjchan's stack queue, where such frames wait
 * for a work item; and a datagram the stack delivered to p's UDP socket
 * waits there until the drainer thread, which may not be scheduled for as
 * long, reads it.  So a wait lasts QUIESCE_MS, and beyond that as long as
 * the backlogs, the stack queue or p's UDP socket still hold something, up
 * to QUIESCE_MAX_MS: a datagram still missing once all are empty was
 * lost, not late.  After one wait has timed out, the others get 100 ms (the run
 * is failed).
 */
bool quiesce_wait(const struct port *p, uint64_t start)
{
	uint64_t waited = now_ns() - start;
	long long queued;

	if (p->broken)
		return false;
	if (atomic_load(&quiesce_timed_out))
		return waited < 100 * MSEC;
	if (waited < QUIESCE_MS * MSEC)
		return true;
	if (waited >= QUIESCE_MAX_MS * MSEC)
		return false;
	queued = softnet_queued();
	if (queued > atomic_load(&quiesce_queued_max))
		atomic_store(&quiesce_queued_max, queued);
	if (queued > 0 || stack_queue_held() > 0)
		return true;
	queued = udp_queued(p->udp);
	if (queued > atomic_load(&quiesce_sock_max))
		atomic_store(&quiesce_sock_max, queued);
	return queued > 0;
}

/* A wait that ended after @start: the longest one is in the summary. */
void quiesce_done(uint64_t start)
{
	uint64_t ms = (now_ns() - start) / MSEC, max;

	max = atomic_load(&quiesce_longest_ms);
	while (ms > max &&
	       !atomic_compare_exchange_weak(&quiesce_longest_ms, &max, ms))
		;
}

/* Under p's gate: waits until the stack got all that was sent unbound. */
void quiesce_stack(struct port *p)
{
	uint64_t start = now_ns();

	for (;;) {
		uint64_t lo = atomic_load(&p->stk_lo);
		uint64_t inj = atomic_load(&p->stk_inj);

		if (lo == p->unb_lo && inj == p->unb_inj) {
			quiesce_done(start);
			return;
		}
		if (!quiesce_wait(p, start)) {
			if (!p->broken)
				record_fail("port %u unbound: the stack got %llu of %llu lo datagrams, %llu of %llu driver frames, waited %d ms (input backlogs hold %lld packets, the stack queue %lld frames, its UDP socket %lld bytes)",
					    p->num, (unsigned long long)lo,
					    (unsigned long long)p->unb_lo,
					    (unsigned long long)inj,
					    (unsigned long long)p->unb_inj,
					    (int)((now_ns() - start) / MSEC),
					    softnet_queued(), stack_queue_held(),
					    udp_queued(p->udp));
			p->broken = true;
			atomic_store(&quiesce_timed_out, 1);
			return;
		}
		usleep(500);
	}
}

/* Under p's gate: a new incarnation; nothing sent to it yet. */
void model_bound(struct port *p)
{
	p->bound = true;
	p->cur_lo = p->cur_inj = 0;
}

/* What the current incarnation's counters must add up to. */
uint64_t model_inc_sent(const struct port *p)
{
	return p->cur_lo + p->cur_inj;
}

/* Under p's gate: the incarnation is closed; add up what it held. */
void model_closed(struct port *p, const struct inc_result *r,
		  uint64_t consumed)
{
	p->incs_abrupt += r->abrupt;
	p->incs_late += r->late_unmap;
	p->pending += r->pend;
	p->incs++;
	p->incs_left += r->left + r->pend > 0;
	p->rx += r->st.rx_packets;
	p->full += r->st.rx_ring_full;
	p->drv += r->st.rx_driver;
	p->left += r->left + r->pend;
	p->consumed_all += consumed;
	p->inc_lo += p->cur_lo;
	p->inc_inj += p->cur_inj;
	p->bound = false;
}

void model_totals(struct totals *t)
{
	int i;

	*t = (struct totals){ 0 };
	for (i = 0; i < nch; i++) {
		struct port *p = &ports[i];

		t->lo += p->sent_lo;
		t->inj += p->inj;
		t->unb_lo += p->unb_lo;
		t->unb_inj += p->unb_inj;
		t->inc_lo += p->inc_lo;
		t->inc_inj += p->inc_inj;
		t->rx += p->rx;
		t->full += p->full;
		t->drv += p->drv;
		t->left += p->left;
		t->consumed += p->consumed_all;
		t->incs += p->incs;
		t->incs_left += p->incs_left;
		t->abrupt += p->incs_abrupt;
		t->pending += p->pending;
		t->late += p->incs_late;
		t->swaps += p->fd_swaps;
		t->stk_lo += atomic_load(&p->stk_lo);
		t->stk_inj += atomic_load(&p->stk_inj);
	}
	for (i = 0; i < NUNCL; i++) {
		t->uncl_inj += uports[i].inj;
		t->uncl_stk += atomic_load(&uports[i].stk_inj);
	}
}

/*
 * What the pool counters of /proc/net/vjchan_pool must have moved by over
 * the run; -1 where the model has nothing to say.  Every driver frame sent
 * to a bound port was claimed or dropped (ring full) by its channel; every
 * one sent to an unbound or unclaimed port went to the stack queue and
 * on to the stack; every lo datagram sent to a bound port was claimed or
 * dropped by the hook.
 */
void model_pool(const struct totals *t, long long exp[P_NR])
{
	int i;

	for (i = 0; i < P_NR; i++)
		exp[i] = -1;
	exp[P_DRX] = t->inj + t->uncl_inj;
	exp[P_DCLAIMED] = t->drv;
	exp[P_DDROPPED] = t->inc_inj - t->drv;
	exp[P_DBAD] = 0;
	exp[P_DEFRX] = t->unb_inj + t->uncl_inj;
	exp[P_DEFSTACK] = t->stk_inj + t->uncl_stk;
	exp[P_HCLAIMED] = t->rx - t->drv;
	exp[P_HDROPPED] = t->inc_lo - (t->rx - t->drv);
}
