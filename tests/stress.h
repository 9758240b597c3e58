/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stress: many channels under load from both CPUs and the driver API, with
 * consumers that come and go, and exact accounting of every datagram.
 * stress_main.c says what the test does; the files split it by concern:
 *
 *   stress_traffic.c  the generators: UDP senders on both CPUs, the
 *                     driver-API injector, the drainer of the ports'
 *                     ordinary UDP sockets
 *   stress_chan.c     the operations on channels: consumer threads that
 *                     open, drain and close (with and without a last poll)
 *                     channels
 *   stress_model.c    the model of expected results: where each datagram
 *                     must be counted, per incarnation, per port and in
 *                     the module's pool counters
 *   stress_check.c    the checks: every received packet, every
 *                     incarnation at its close, the ports and the pool
 *                     counters at the end
 */
#ifndef _VJ_STRESS_H
#define _VJ_STRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/vjchan.h>

#include "lib/proc.h"
#include "lib/ring.h"
#include "lib/util.h"

#define SBASE		47000	/* channel ports: SBASE .. SBASE + nch - 1 */
#define UBASE		47900	/* unclaimed ports */
#define NUNCL		8
#define MAX_CH		256
#define NGROUPS		4	/* consumer threads alive at once */
#define NSENDERS	2
#define MAGIC		0x564a5354u	/* "VJST" */
#define QUIESCE_MS	10000	/* see quiesce_wait() */
#define QUIESCE_MAX_MS	60000

/* The payload of our own datagrams; the pattern byte i is seq + i. */
struct lo_hdr {
	uint32_t magic;
	uint16_t port;
	uint8_t sender;
	uint8_t pad;
	uint32_t seq;
};

struct port {
	pthread_mutex_t gate;
	uint16_t num;
	int udp;
	/* Under gate: the model (stress_model.c). */
	bool bound;
	uint64_t cur_lo, cur_inj;	/* sent to the current incarnation */
	uint64_t sent_lo, inj;		/* whole run */
	uint64_t unb_lo, unb_inj;	/* sent while no channel was bound */
	uint64_t inc_lo, inc_inj;	/* sum of cur_* at each close */
	uint32_t inj_seq;
	/* The drainer: what the stack delivered to the UDP socket. */
	atomic_ullong stk_lo, stk_inj;
	/* The owning consumer thread (ownership passes at thread exit). */
	struct test_chan ch;
	uint64_t consumed, consumed_drv;	/* of the current incarnation */
	uint64_t rebind_at;
	uint32_t last_lo[NSENDERS], last_inj;
	bool have_lo[NSENDERS], have_inj;
	bool broken;			/* a quiesce timed out once */
	bool stalled;			/* its consumer does not poll it now */
	uint64_t stall_end;
	int pkt_fails;
	/* Sums over the closed incarnations. */
	uint64_t incs, incs_left, rx, full, drv, left, consumed_all;
	uint64_t incs_abrupt, pending;
	uint64_t incs_late, fd_swaps;	/* the variants of stress_chan.c */
};

struct group {
	int id;
	pthread_t th;
	bool started;
	atomic_int running;
	uint64_t respawn_at;
};

/* What a channel's counters and ring held when it was closed. */
struct inc_result {
	struct vj_statistics st;
	bool counted;		/* every datagram sent to it was counted */
	bool abrupt;		/* closed without a last poll() */
	bool late_unmap;	/* the descriptor closed before the mapping */
	uint32_t prod;
	uint64_t left, left_drv;	/* published, not consumed */
	uint64_t pend, pend_drv;	/* counted, not published */
};

/* Sums over the ports, for the end of the run. */
struct totals {
	uint64_t lo, inj, unb_lo, unb_inj, inc_lo, inc_inj, rx, full, drv;
	uint64_t left, consumed, incs, incs_left, abrupt, pending;
	uint64_t stk_lo, stk_inj, uncl_inj, uncl_stk;
	uint64_t late, swaps;
};

/* stress_main.c */
extern struct port ports[MAX_CH], uports[NUNCL];
extern int nch;
extern unsigned int pps;
extern uint64_t seed;
extern int if_lo, if_vjt;
extern uint32_t lo_addr, vjt_local, vjt_peer;
extern atomic_int stop_tx, stop_cons, stop_drain;
extern atomic_ullong tx_ok[NSENDERS], tx_err[NSENDERS], inj_writes,
		     inj_enobufs, ring_bad;
extern atomic_int sender_cpu[NSENDERS];
extern atomic_int quiesce_timed_out;
extern atomic_llong quiesce_queued_max, quiesce_sock_max;
extern atomic_ullong quiesce_longest_ms;
struct port *port_at(int i);	/* ports, then uports */

void port_flow(const struct port *p, struct vj_flow *flow);

/* stress_traffic.c */
void *sender(void *arg);
void *injector(void *arg);
void *drainer(void *arg);
int udp_port_socket(uint16_t port);

/* stress_chan.c */
void *consumer(void *arg);

/* stress_model.c */
void model_sent_lo(struct port *p);
void model_sent_inj(struct port *p, uint64_t k);
bool quiesce_wait(const struct port *p, uint64_t start);
void quiesce_done(uint64_t start);
void quiesce_stack(struct port *p);
void model_bound(struct port *p);
uint64_t model_inc_sent(const struct port *p);
void model_closed(struct port *p, const struct inc_result *r,
		  uint64_t consumed);
void model_totals(struct totals *t);
void model_pool(const struct totals *t, long long exp[P_NR]);

/* stress_check.c */
void record_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pkt_fail(struct port *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int check_pkt(struct port *p, uint32_t idx, bool track);
void check_incarnation(struct port *p, const struct inc_result *r);
void check_unsettled(struct port *p, const struct inc_result *r,
		     uint64_t waited_ms);
void check_still_bound(struct port *p);
void check_ports(void);
void check_pool(const long long *before, const long long *after,
		const struct totals *t, long long injected);
long long softnet_drops(void);
long long softnet_queued(void);
long long udp_queued(int fd);
long long stack_queue_held(void);
int report_fails(void);

#endif /* _VJ_STRESS_H */
