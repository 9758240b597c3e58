// SPDX-License-Identifier: GPL-2.0
/*
 * stress: the checks.  Every received packet (bounds, headers, port,
 * source, payload, per-sender order); every incarnation of every channel
 * at its close against what the model says was sent to it:
 *
 *   sent to it == rx_packets + rx_ring_full          (its counters)
 *   rx_packets == consumed + left in the ring (producer - consumer)
 *   rx_driver  == driver frames among consumed + left
 *
 * (after a close without a last poll(), rx_packets - consumed - left is
 * what still waited for its copy: at most the free part of the ring, and
 * only behind a driver frame); per port, sent == what the incarnations
 * counted + what the stack got while unbound; and globally the module's
 * pool counters against the model, and the pool whole at the end.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/sock_diag.h>

#include "lib/pattern.h"
#include "lib/pkt.h"
#include "stress.h"

static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static int nfails;
static char fails[3][600];

void record_fail(const char *fmt, ...)
{
	char buf[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&fail_lock);
	if (nfails < (int)ARRAY_SIZE(fails))
		memcpy(fails[nfails], buf, sizeof(buf));
	nfails++;
	if (nfails <= 20)
		fprintf(stderr, "stress: %s\n", buf);
	pthread_mutex_unlock(&fail_lock);
}

void pkt_fail(struct port *p, const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	atomic_fetch_add(&ring_bad, 1);
	if (p->pkt_fails++ >= 2)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	record_fail("port %u: %s", p->num, buf);
}

/* A driver frame: from the peer on vjtest0, the pattern, in order. */
static int check_driver(struct port *p, uint32_t idx, const struct vj_desc *d,
			const struct pkt_info *pi, bool track)
{
	uint32_t seq;

	if ((int)d->ifindex != if_vjt || pi->saddr.ip4 != vjt_peer ||
	    pi->daddr.ip4 != vjt_local || pi->plen < 4) {
		pkt_fail(p, "slot %u: driver frame with ifindex %u or addresses wrong",
			 idx, d->ifindex);
		return -1;
	}
	seq = get_be32(pi->payload);
	if (!pattern_ok_from(pi->payload, 4, pi->plen, seq)) {
		pkt_fail(p, "slot %u: driver frame seq %u: payload damaged",
			 idx, seq);
		return -1;
	}
	if (track) {
		if (p->have_inj && (int32_t)(seq - p->last_inj) <= 0)
			pkt_fail(p, "driver frame seq %u after %u", seq,
				 p->last_inj);
		p->last_inj = seq;
		p->have_inj = true;
	}
	return 1;
}

/* A hook packet: over lo, one of our senders', the pattern, in order. */
static int check_lo(struct port *p, uint32_t idx, const struct vj_desc *d,
		    const struct pkt_info *pi, bool track)
{
	struct lo_hdr h;

	if ((int)d->ifindex != if_lo || pi->saddr.ip4 != lo_addr ||
	    pi->daddr.ip4 != lo_addr || pi->plen < sizeof(h)) {
		pkt_fail(p, "slot %u: hook packet with ifindex %u or addresses wrong",
			 idx, d->ifindex);
		return -1;
	}
	memcpy(&h, pi->payload, sizeof(h));
	if (h.magic != MAGIC || h.port != p->num || h.sender >= NSENDERS ||
	    !pattern_ok_from(pi->payload, sizeof(h), pi->plen, h.seq)) {
		pkt_fail(p, "slot %u: payload damaged (magic %#x port %u sender %u)",
			 idx, h.magic, h.port, h.sender);
		return -1;
	}
	if (track) {
		if (p->have_lo[h.sender] &&
		    (int32_t)(h.seq - p->last_lo[h.sender]) <= 0)
			pkt_fail(p, "sender %u seq %u after %u", h.sender,
				 h.seq, p->last_lo[h.sender]);
		p->last_lo[h.sender] = h.seq;
		p->have_lo[h.sender] = true;
	}
	return 0;
}

/*
 * Checks one descriptor of p's ring; returns 1 for a driver frame, 0 for a
 * hook packet, -1 for a bad one.  With track, the per-sender order is
 * checked and advanced (consumed packets); left ones are only checked.
 */
int check_pkt(struct port *p, uint32_t idx, bool track)
{
	const uint8_t *pkt;
	struct pkt_info pi;
	struct vj_desc d;
	const char *why;

	why = ring_desc(&p->ch, idx, &d, &pkt);
	if (why) {
		pkt_fail(p, "slot %u: %s", idx, why);
		return -1;
	}
	if ((d.flags & ~(VJ_DESC_F_L2 | VJ_DESC_F_DRIVER | VJ_DESC_F_CSUM_OK)) ||
	    !(d.flags & VJ_DESC_F_L2) || d.l3_off != 14 ||
	    ntohs(d.proto) != 0x0800 || d.len < 14 + 20 + 8) {
		pkt_fail(p, "slot %u: flags %#x l3_off %u proto %#x len %u",
			 idx, d.flags, d.l3_off, ntohs(d.proto), d.len);
		return -1;
	}
	why = pkt_parse_at(&d, pkt, &pi);
	if (!why)
		why = pi.l4_err;
	/* IPv4 without options, UDP to this port, exactly the frame. */
	if (why || pi.ip_hlen != 20 || pi.proto != IPPROTO_UDP ||
	    pi.ip_len + 14 != d.len || pi.dport != p->num ||
	    pi.udp_len != d.len - 14 - 28 || pi.plen != pi.udp_len) {
		pkt_fail(p, "slot %u: not a whole UDP datagram for this port (%s; header %u proto %u tot %u len %u dport %u udp %u)",
			 idx, why ? why : "parsed", pi.ip_hlen, pi.proto,
			 pi.ip_len, d.len, pi.dport, pi.udp_len);
		return -1;
	}
	if (d.flags & VJ_DESC_F_DRIVER)
		return check_driver(p, idx, &d, &pi, track);
	return check_lo(p, idx, &d, &pi, track);
}

/* At the close of an incarnation whose counters added up to what was sent. */
void check_incarnation(struct port *p, const struct inc_result *r)
{
	const struct vj_statistics *st = &r->st;
	bool bad;

	if (r->abrupt)
		/* In order behind a driver frame, or none at all. */
		bad = st->rx_packets < p->consumed + r->left ||
		      r->pend > p->ch.off.entries - r->left ||
		      st->rx_driver < p->consumed_drv + r->left_drv ||
		      r->pend_drv > r->pend || (r->pend && !r->pend_drv);
	else
		bad = r->prod != (uint32_t)st->rx_packets || r->pend ||
		      r->pend_drv;
	if (bad || st->rx_driver > p->cur_inj ||
	    st->rx_packets - st->rx_driver > p->cur_lo ||
	    st->rx_invalid_cons || st->rx_truncated)
		record_fail("port %u incarnation %llu%s: sent lo %llu + driver %llu; counters packets %llu (driver %llu) ring_full %llu invalid_cons %llu truncated %llu; producer %u; consumed %llu (driver %llu) + left %llu (driver %llu)",
			    p->num, (unsigned long long)p->incs,
			    r->abrupt ? " (closed without poll)" : "",
			    (unsigned long long)p->cur_lo,
			    (unsigned long long)p->cur_inj,
			    (unsigned long long)st->rx_packets,
			    (unsigned long long)st->rx_driver,
			    (unsigned long long)st->rx_ring_full,
			    (unsigned long long)st->rx_invalid_cons,
			    (unsigned long long)st->rx_truncated, r->prod,
			    (unsigned long long)p->consumed,
			    (unsigned long long)p->consumed_drv,
			    (unsigned long long)r->left,
			    (unsigned long long)r->left_drv);
}

/* At the close of an incarnation whose counters never added up. */
void check_unsettled(struct port *p, const struct inc_result *r,
		     uint64_t waited_ms)
{
	if (p->broken)
		return;
	record_fail("port %u incarnation %llu: counted %llu + %llu ring_full of %llu sent (lo %llu, driver %llu), waited %d ms",
		    p->num, (unsigned long long)p->incs,
		    (unsigned long long)r->st.rx_packets,
		    (unsigned long long)r->st.rx_ring_full,
		    (unsigned long long)model_inc_sent(p),
		    (unsigned long long)p->cur_lo,
		    (unsigned long long)p->cur_inj, (int)waited_ms);
	p->broken = true;
	atomic_store(&quiesce_timed_out, 1);
}

/*
 * p's channel has lost its descriptor but is still mapped: it is still
 * bound, so a second channel cannot take its flow (vjchan(7): the flow is
 * released with the last reference to the socket).
 */
void check_still_bound(struct port *p)
{
	struct vj_flow flow;
	int fd, r, e;

	port_flow(p, &flow);
	fd = socket(AF_VJCHAN, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		record_fail("port %u: socket: %s", p->num, errname(errno));
		return;
	}
	r = test_set_ring(fd, 8, 2048);
	if (!r)
		r = test_bind(fd, &flow);
	e = errno;
	if (!r)
		record_fail("port %u: a second channel took the flow of one still mapped",
			    p->num);
	else if (e != EADDRINUSE)
		record_fail("port %u: a second bind while the first channel is still mapped: %s, want EADDRINUSE",
			    p->num, errname(e));
	close(fd);
}

/* Per port: everything sent is somewhere. */
void check_ports(void)
{
	int i;

	for (i = 0; i < nch; i++) {
		struct port *p = &ports[i];
		uint64_t slo = atomic_load(&p->stk_lo);
		uint64_t sinj = atomic_load(&p->stk_inj);

		if (p->sent_lo + p->inj != p->rx + p->full + slo + sinj ||
		    p->inc_lo + p->unb_lo != p->sent_lo ||
		    p->inc_inj + p->unb_inj != p->inj)
			record_fail("port %u: sent lo %llu + driver %llu, channels counted %llu + ring_full %llu over %llu incarnations, stack got lo %llu + driver %llu",
				    p->num, (unsigned long long)p->sent_lo,
				    (unsigned long long)p->inj,
				    (unsigned long long)p->rx,
				    (unsigned long long)p->full,
				    (unsigned long long)p->incs,
				    (unsigned long long)slo,
				    (unsigned long long)sinj);
	}
	for (i = 0; i < NUNCL; i++) {
		struct port *p = &uports[i];

		if (p->inj != atomic_load(&p->stk_inj) ||
		    atomic_load(&p->stk_lo))
			record_fail("unclaimed port %u: injected %llu, the stack got %llu",
				    p->num, (unsigned long long)p->inj,
				    (unsigned long long)atomic_load(&p->stk_inj));
	}
}

#define D(k)	((unsigned long long)(after[k] - before[k]))
#define E(k)	((unsigned long long)exp[k])

/* Globally, the module's own counters against the model. */
void check_pool(const long long *before, const long long *after,
		const struct totals *t, long long injected)
{
	long long exp[P_NR];

	model_pool(t, exp);
	if (D(P_DRX) != D(P_DCLAIMED) + D(P_DDROPPED) + D(P_DBAD) + D(P_DEFRX))
		record_fail("driver_rx %llu != driver_claimed %llu + driver_dropped %llu + driver_bad %llu + default_rx %llu",
			    D(P_DRX), D(P_DCLAIMED), D(P_DDROPPED),
			    D(P_DBAD), D(P_DEFRX));
	if (D(P_DEFRX) != D(P_DEFSTACK) + D(P_DEFNOMEM))
		record_fail("default_rx %llu != default_to_stack %llu + default_nomem %llu",
			    D(P_DEFRX), D(P_DEFSTACK), D(P_DEFNOMEM));
	if (D(P_DRX) != (unsigned long long)injected || D(P_DRX) != E(P_DRX))
		record_fail("driver_rx %llu, vjtest injected %lld, we counted %llu",
			    D(P_DRX), injected, E(P_DRX));
	if (D(P_DCLAIMED) != E(P_DCLAIMED) || D(P_DDROPPED) != E(P_DDROPPED))
		record_fail("driver_claimed %llu, driver_dropped %llu; channels got %llu of %llu driver frames sent to them",
			    D(P_DCLAIMED), D(P_DDROPPED),
			    (unsigned long long)t->drv,
			    (unsigned long long)t->inc_inj);
	if (D(P_DEFRX) != E(P_DEFRX) || D(P_DEFSTACK) != E(P_DEFSTACK) ||
	    D(P_DBAD) != E(P_DBAD))
		record_fail("default_rx %llu, default_to_stack %llu, driver_bad %llu; %llu frames went to unbound or unclaimed ports, the stack delivered %llu",
			    D(P_DEFRX), D(P_DEFSTACK), D(P_DBAD), E(P_DEFRX),
			    E(P_DEFSTACK));
	if (D(P_HCLAIMED) != E(P_HCLAIMED) || D(P_HDROPPED) != E(P_HDROPPED) ||
	    t->full != D(P_DDROPPED) + D(P_HDROPPED))
		record_fail("hook_claimed %llu, hook_dropped %llu; channels got %llu of %llu lo datagrams sent to them, ring_full %llu",
			    D(P_HCLAIMED), D(P_HDROPPED), E(P_HCLAIMED),
			    (unsigned long long)t->inc_lo,
			    (unsigned long long)t->full);
	if (after[P_LIVE] || after[P_FREE] != after[P_BUFFERS] ||
	    after[P_PINNED] || D(P_CREATED) != D(P_DESTROYED))
		record_fail("at the end: channels_live %lld (created %llu, destroyed %llu), pool_free %lld of %lld, bytes_pinned %lld",
			    after[P_LIVE], D(P_CREATED), D(P_DESTROYED),
			    after[P_FREE], after[P_BUFFERS], after[P_PINNED]);
}

/* Sum over CPUs of the backlog drops column of /proc/net/softnet_stat. */
long long softnet_drops(void)
{
	unsigned int processed, dropped;
	long long sum = 0;
	char line[512];
	FILE *f = fopen("/proc/net/softnet_stat", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%x %x", &processed, &dropped) == 2)
			sum += dropped;
	fclose(f);
	return sum;
}

/*
 * Packets waiting in the CPUs' input backlogs now: the sum over CPUs of
 * /proc/net/softnet_stat's 12th column, input_qlen + process_qlen (6.12,
 * net/core/net-procfs.c); -1 where the kernel does not print it.
 */
long long softnet_queued(void)
{
	unsigned int v[12];
	long long sum = -1;
	char line[512];
	FILE *f = fopen("/proc/net/softnet_stat", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%x %x %x %x %x %x %x %x %x %x %x %x",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7], &v[8], &v[9], &v[10], &v[11]) == 12)
			sum = (sum < 0 ? 0 : sum) + v[11];
	fclose(f);
	return sum;
}

/*
 * Driver-API frames in vjchan's stack queue, waiting for its work item to
 * hand them to the stack; -1 if unknown.
 */
long long stack_queue_held(void)
{
	long long v[P_NR];

	if (pool_read(v))
		return -1;
	return v[P_DEFRX] - v[P_DEFSTACK] - v[P_DEFNOMEM];
}

/*
 * Bytes in @fd's receive queue (SO_MEMINFO's rmem_alloc): datagrams the
 * stack delivered that the drainer has not read yet; -1 if unknown.
 */
long long udp_queued(int fd)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mi);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mi, &len) ||
	    len <= SK_MEMINFO_RMEM_ALLOC * sizeof(mi[0]))
		return -1;
	return mi[SK_MEMINFO_RMEM_ALLOC];
}

/* Prints the verdict line; the exit status. */
int report_fails(void)
{
	if (atomic_load(&ring_bad))
		record_fail("%llu bad packets in rings",
			    (unsigned long long)atomic_load(&ring_bad));
	if (nfails) {
		printf("FAIL STRESS: %s%s%s%s%s", fails[0],
		       nfails > 1 ? "; " : "", nfails > 1 ? fails[1] : "",
		       nfails > 2 ? "; " : "", nfails > 2 ? fails[2] : "");
		if (nfails > 3)
			printf(" (and %d more)", nfails - 3);
		printf("\n");
		return 1;
	}
	printf("ok STRESS\n");
	return 0;
}
