// SPDX-License-Identifier: GPL-2.0
/*
 * stress: many channels under load from both CPUs and the driver API, with
 * consumers that come and go, and exact accounting of every datagram.
 *
 *   stress [-t SECONDS] [-c CHANNELS] [-r PPS] [-s SEED] [-v]
 *
 * CHANNELS (default 64) UDP ports each get, at times, a channel bound to
 * {udp4, dport P}, fed over lo from both CPUs and through the driver API
 * (stress_traffic.c), by consumer threads that come and go and close
 * channels in every state (stress_chan.c).  Every datagram is attributed
 * to a channel incarnation or to the stack (stress_model.c), and every
 * packet, incarnation, port and the module's pool counters are checked
 * against that (stress_check.c).
 *
 * Prints totals and "ok STRESS" or "FAIL STRESS: reason"; exit 0 or 1.
 * Bounded by an alarm even if the kernel misbehaves.  Runs only in the test
 * guest, as root, with vjchan.ko and vjtest.ko loaded and vjtest0 up with
 * 198.51.100.1/24 (tests/run-guest.sh sets that up).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/vjtest.h"
#include "stress.h"

#define BACKLOG		"/proc/sys/net/core/netdev_max_backlog"

struct port ports[MAX_CH], uports[NUNCL];
static struct group groups[NGROUPS];
int nch = 64;
unsigned int pps = 3000;		/* per sender */
uint64_t seed;
static bool verbose;
int if_lo, if_vjt;
uint32_t lo_addr, vjt_local, vjt_peer;
atomic_int stop_tx, stop_cons, stop_drain;
atomic_ullong tx_ok[NSENDERS], tx_err[NSENDERS], inj_writes, inj_enobufs,
	      ring_bad;
atomic_int sender_cpu[NSENDERS];
atomic_int quiesce_timed_out;
atomic_llong quiesce_queued_max, quiesce_sock_max;
atomic_ullong quiesce_longest_ms;
static const char *volatile phase = "setup";

/* The flow of p's channels: {udp4, dport P}. */
void port_flow(const struct port *p, struct vj_flow *flow)
{
	*flow = (struct vj_flow){
		.family = AF_INET,
		.proto = IPPROTO_UDP,
		.dport = htons(p->num),
	};
}

struct port *port_at(int i)
{
	return i < nch ? &ports[i] : &uports[i - nch];
}

static void on_alarm(int sig)
{
	char buf[256];
	int n;

	(void)sig;
	n = snprintf(buf, sizeof(buf),
		     "FAIL STRESS: watchdog: still in phase \"%s\" (seed %llu)\n",
		     phase, (unsigned long long)seed);
	if (write(1, buf, n) < 0)
		_exit(1);
	_exit(1);
}

static long backlog_get(void)
{
	long v = -1;
	FILE *f = fopen(BACKLOG, "re");

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void backlog_set(long v)
{
	FILE *f = fopen(BACKLOG, "we");

	if (f) {
		fprintf(f, "%ld\n", v);
		fclose(f);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: stress [-t SECONDS] [-c CHANNELS] [-r PPS] [-s SEED] [-v]\n");
	exit(2);
}

/* The pool at rest: channels of earlier tests gone, the default path idle. */
static bool pool_idle(const long long *v)
{
	return !v[P_LIVE] && v[P_FREE] == v[P_BUFFERS] &&
	       v[P_DEFRX] == v[P_DEFSTACK] + v[P_DEFNOMEM];
}

/* Consumers come and go until the deadline. */
static void run_consumers(uint64_t deadline)
{
	int i;

	for (i = 0; i < NGROUPS; i++)
		groups[i].id = i;
	while (now_ns() < deadline) {
		for (i = 0; i < NGROUPS; i++) {
			struct group *g = &groups[i];
			struct rng r = { seed ^ now_ns() ^ i };

			if (atomic_load(&g->running))
				continue;
			if (g->started) {
				pthread_join(g->th, NULL);
				g->started = false;
				/* A gap with the ports unbound, to the stack. */
				g->respawn_at = now_ns() + below(&r, 200) * MSEC;
			}
			if (now_ns() < g->respawn_at)
				continue;
			atomic_store(&g->running, 1);
			g->started = true;
			pthread_create(&g->th, NULL, consumer, g);
		}
		msleep(10);
	}
}

static void print_totals(const struct totals *t, double secs,
			 const long long *before, const long long *after)
{
#define D(k)	((unsigned long long)(after[k] - before[k]))
#define U(x)	((unsigned long long)(x))
	printf("stress: %.1f s of load; lo sent %llu (CPU0 %llu, CPU1 %llu, %llu send errors), driver frames %llu in %llu writes (%llu ENOBUFS; %llu to unclaimed ports)\n",
	       secs, U(t->lo), U(atomic_load(&tx_ok[0])),
	       U(atomic_load(&tx_ok[1])),
	       U(atomic_load(&tx_err[0]) + atomic_load(&tx_err[1])),
	       U(t->inj + t->uncl_inj), U(atomic_load(&inj_writes)),
	       U(atomic_load(&inj_enobufs)), U(t->uncl_inj));
	printf("stress: %llu incarnations (%llu closed with packets queued, %llu without a last poll, leaving %llu driver-API packets uncopied); channels counted %llu (driver %llu) = consumed %llu + left %llu, ring_full %llu; the stack got %llu lo + %llu driver while unbound, %llu from unclaimed ports\n",
	       U(t->incs), U(t->incs_left), U(t->abrupt), U(t->pending),
	       U(t->rx), U(t->drv), U(t->consumed), U(t->left), U(t->full),
	       U(t->stk_lo), U(t->stk_inj), U(t->uncl_stk));
	printf("stress: pool: driver_rx %llu = claimed %llu + dropped %llu + bad %llu + default %llu (to stack %llu, nomem %llu); hook claimed %llu dropped %llu; pool_empty %llu\n",
	       D(P_DRX), D(P_DCLAIMED), D(P_DDROPPED), D(P_DBAD), D(P_DEFRX),
	       D(P_DEFSTACK), D(P_DEFNOMEM), D(P_HCLAIMED), D(P_HDROPPED),
	       D(P_EMPTY));
	printf("stress: variants: %llu closes with the mapping outliving the descriptor (a second bind refused meanwhile), %llu descriptors swapped for a dup()\n",
	       U(t->late), U(t->swaps));
	printf("stress: the longest wait for the stack or a channel to account for what was sent: %llu ms (past %d ms, input backlogs seen holding up to %lld packets, a UDP socket up to %lld bytes the drainer had not read)\n",
	       U(atomic_load(&quiesce_longest_ms)), QUIESCE_MS,
	       (long long)atomic_load(&quiesce_queued_max),
	       (long long)atomic_load(&quiesce_sock_max));
#undef D
#undef U
}

int main(int argc, char **argv)
{
	long long before[P_NR], after[P_NR], sn0, sn1, rcvbuf0, rcvbuf1,
		  injected0 = -1, injected1 = -1;
	unsigned int secs = 30;
	uint64_t t0, end, deadline;
	pthread_t snd[NSENDERS], inj, drn;
	struct totals t;
	const char *why;
	long old_backlog;
	int c, i;

	while ((c = getopt(argc, argv, "t:c:r:s:v")) != -1) {
		switch (c) {
		case 't': secs = strtoul(optarg, NULL, 0); break;
		case 'c': nch = atoi(optarg); break;
		case 'r': pps = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'v': verbose = true; break;
		default: usage();
		}
	}
	if (!secs || nch < NGROUPS || nch > MAX_CH || pps < 16)
		usage();
	if (!seed)
		seed = now_ns() ^ ((uint64_t)getpid() << 32);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("stress: seed %llu, %d channels, %u s, %u datagrams/s per sender\n",
	       (unsigned long long)seed, nch, secs, pps);
	signal(SIGALRM, on_alarm);
	signal(SIGPIPE, SIG_IGN);
	/* Run, final closes (a quiesce each at worst), settling. */
	alarm(secs + 90);
	inet_pton(AF_INET, "127.0.0.1", &lo_addr);
	inet_pton(AF_INET, VJT_LOCAL4, &vjt_local);
	inet_pton(AF_INET, VJT_PEER4, &vjt_peer);
	if_lo = if_nametoindex("lo");
	if_vjt = if_nametoindex("vjtest0");

	if (pool_read(before)) {
		printf("FAIL STRESS: /proc/net/vjchan_pool unreadable (vjchan.ko not loaded?)\n");
		return 1;
	}
	why = vjt_ready();
	if (why) {
		printf("FAIL STRESS: %s\n", why);
		return 1;
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < NSENDERS) {
		printf("FAIL STRESS: %ld CPUs online, need %d\n",
		       sysconf(_SC_NPROCESSORS_ONLN), NSENDERS);
		return 1;
	}
	for (i = 0; i < nch + NUNCL; i++) {
		struct port *p = port_at(i);

		pthread_mutex_init(&p->gate, NULL);
		p->num = i < nch ? SBASE + i : UBASE + i - nch;
		p->ch.fd = -1;
		p->udp = udp_port_socket(p->num);
		if (p->udp < 0) {
			printf("FAIL STRESS: cannot bind UDP port %u: %s\n",
			       p->num, errname(errno));
			return 1;
		}
	}
	/*
	 * lo queues a datagram on the sending CPU's backlog; should softirq
	 * processing fall behind two busy senders, the backlog's limit would
	 * drop datagrams before vjchan or UDP see them.  Raise it for the run.
	 */
	old_backlog = backlog_get();
	if (old_backlog > 0 && old_backlog < 100000)
		backlog_set(100000);

	/* Settle the leftovers of earlier tests before the baseline. */
	for (i = 0; i < 250 && !pool_read(before) && !pool_idle(before); i++)
		msleep(20);
	sn0 = softnet_drops();
	rcvbuf0 = udp_snmp("RcvbufErrors");
	vjt_stat_read("injected", &injected0);

	t0 = now_ns();
	deadline = t0 + (uint64_t)secs * NSEC;
	phase = "load";
	pthread_create(&drn, NULL, drainer, NULL);
	for (i = 0; i < NSENDERS; i++)
		pthread_create(&snd[i], NULL, sender, (void *)(intptr_t)i);
	pthread_create(&inj, NULL, injector, NULL);
	run_consumers(deadline);

	phase = "stopping traffic";
	atomic_store(&stop_tx, 1);
	for (i = 0; i < NSENDERS; i++)
		pthread_join(snd[i], NULL);
	pthread_join(inj, NULL);
	phase = "final closes";
	atomic_store(&stop_cons, 1);
	for (i = 0; i < NGROUPS; i++)
		if (groups[i].started)
			pthread_join(groups[i].th, NULL);
	end = now_ns();

	/* Every port is unbound now: wait for the stack to deliver the rest. */
	phase = "stack quiesce";
	for (i = 0; i < nch + NUNCL; i++)
		quiesce_stack(port_at(i));
	atomic_store(&stop_drain, 1);
	pthread_join(drn, NULL);

	phase = "settling";
	for (i = 0; i < 250; i++) {
		if (pool_read(after))
			break;
		if (pool_idle(after) && !after[P_PINNED])
			break;
		msleep(20);
	}
	sn1 = softnet_drops();
	rcvbuf1 = udp_snmp("RcvbufErrors");
	vjt_stat_read("injected", &injected1);
	if (old_backlog > 0 && old_backlog < 100000)
		backlog_set(old_backlog);

	check_ports();
	model_totals(&t);
	if (pool_read(after))
		record_fail("/proc/net/vjchan_pool unreadable at the end");
	else
		check_pool(before, after, &t, injected1 - injected0);
	if (sn1 != sn0 || rcvbuf1 != rcvbuf0)
		record_fail("the network stack itself dropped datagrams (softnet backlog %lld, UDP RcvbufErrors %lld): imbalances above may be those",
			    sn1 - sn0, rcvbuf1 - rcvbuf0);
	for (i = 0; i < NSENDERS; i++)
		if (atomic_load(&sender_cpu[i]) != i)
			record_fail("sender %d ran on CPU %d", i,
				    atomic_load(&sender_cpu[i]));
	print_totals(&t, (end - t0) / 1e9, before, after);
	(void)verbose;
	return report_fails();
}
