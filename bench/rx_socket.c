// SPDX-License-Identifier: GPL-2.0
/*
 * vjrx: receive through a UDP socket, the stack's own path, and through a
 * UDP channel socket (AF_VJCHAN, VJ_PROTO_UDP4) with the same loop: the
 * kernel takes the datagrams out of the channel's ring in recvmmsg().
 * Groups: one or two such sockets in one SO_REUSEPORT group, each taken by
 * its own thread, the generator sending BENCH_GROUP_FLOWS flows.  The UDP
 * channel in bypass mode is fed by the pre-routing hook, or with UDP_XDP
 * by the XDP path (vjchan's program attached to the NIC).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/vjchan.h>

#include "rx.h"

/*
 * rx_mode.arg: the receiver, a UDP socket or a UDP channel in bypass or
 * filtered mode; with UDP_REUSEPORT, SO_REUSEPORT set before bind(); with
 * UDP_XDP (a bypass channel), vjchan's XDP program attached to the NIC; for
 * a group cell, UDP_MEMBERS(n) of them.
 */
enum { UDP_SOCKET, UDP_CHANNEL, UDP_CHANNEL_FILTERED };
#define UDP_KIND(arg)		((arg) & 3)
#define UDP_REUSEPORT		4
#define UDP_XDP			8
#define UDP_MEMBERS(n)		((n) << 4)
#define UDP_NMEMBERS(arg)	((arg) >> 4)

/* ---- udp-recvmmsg: a UDP socket, recvmmsg() batches of 64 ---------------- */

struct udp_rx {
	int		fd;
	struct xdp_program *xdp;	/* UDP_XDP: attached */
	struct mmsghdr	msgs[BATCH];
	struct iovec	iov[BATCH];
	uint8_t		bufs[BATCH][2048];
	char		ctl[BATCH][CMSG_SPACE(sizeof(struct timespec))];
};

static int udp_open(struct rx *rx)
{
	struct udp_rx *u = calloc(1, sizeof(*u));
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct timeval tv = { 0, SLICE_MS * 1000 };
	int one = 1, buf = 8 << 20, i;

	struct vj_ring_req ring = { .entries = QUEUE_PKTS, .buf_size = 2048 };
	bool chan = UDP_KIND(rx->mode->arg) != UDP_SOCKET;
	uint32_t fw = UDP_KIND(rx->mode->arg) == UDP_CHANNEL ?
		      VJ_BIND_FW_BYPASS : VJ_BIND_FW_FILTERED;

	if (!u)
		return -ENOMEM;
	rx->priv = u;
	u->fd = chan ? socket(AF_VJCHAN, SOCK_DGRAM | SOCK_CLOEXEC, VJ_PROTO_UDP4) :
		       socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (u->fd < 0) {
		set_why(rx, "socket: %s", strerror(errno));
		return -errno;
	}
	/*
	 * A queue like the others': the socket's buffer (the kernel doubles
	 * the value), or the channel's ring; the channel in bypass mode, as
	 * vjchan-hook's, taken at the pre-routing hook, or in filtered mode
	 * (the default), delivered by UDP through its port holder.
	 */
	if (chan ? setsockopt(u->fd, SOL_VJCHAN, VJ_RING, &ring, sizeof(ring)) ||
		   setsockopt(u->fd, SOL_VJCHAN, VJ_BIND_FLAGS, &fw, sizeof(fw)) :
		   setsockopt(u->fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf))) {
		set_why(rx, "setsockopt: %s", strerror(errno));
		return -errno;
	}
	if (setsockopt(u->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    (rx->lat && setsockopt(u->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one,
				   sizeof(one))) ||
	    ((rx->mode->arg & UDP_REUSEPORT) &&
	     setsockopt(u->fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)))) {
		set_why(rx, "setsockopt: %s", strerror(errno));
		return -errno;
	}
	inet_pton(AF_INET, BENCH_DST_IP, &a.sin_addr);
	a.sin_port = htons(BENCH_DPORT);
	if (bind(u->fd, (struct sockaddr *)&a, sizeof(a))) {
		set_why(rx, "bind: %s", strerror(errno));
		return -errno;
	}
	for (i = 0; i < BATCH; i++) {
		u->iov[i].iov_base = u->bufs[i];
		u->iov[i].iov_len = sizeof(u->bufs[i]);
		u->msgs[i].msg_hdr.msg_iov = &u->iov[i];
		u->msgs[i].msg_hdr.msg_iovlen = 1;
	}
	rx->lat_clock = CLOCK_REALTIME;
	return rx->mode->arg & UDP_XDP ? vjxdp_attach(rx, &u->xdp) : 0;
}

static int udp_poll(struct rx *rx, int timeout_ms)
{
	struct udp_rx *u = rx->priv;
	int64_t now = 0;
	int n, i;

	(void)timeout_ms;	/* SO_RCVTIMEO is SLICE_MS */
	for (i = 0; i < BATCH; i++) {
		u->msgs[i].msg_hdr.msg_control = rx->lat ? u->ctl[i] : NULL;
		u->msgs[i].msg_hdr.msg_controllen = rx->lat ? sizeof(u->ctl[i]) : 0;
	}
	/* Block for the first datagram, then take what is queued. */
	n = recvmmsg(u->fd, u->msgs, BATCH, MSG_WAITFORONE, NULL);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (rx->lat)
		now = clock_ns(CLOCK_REALTIME);
	for (i = 0; i < n; i++) {
		struct msghdr *m = &u->msgs[i].msg_hdr;
		int64_t lat = -1;

		if (rx->lat) {
			struct cmsghdr *c;

			for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
				struct timespec ts;

				if (c->cmsg_level != SOL_SOCKET ||
				    c->cmsg_type != SCM_TIMESTAMPNS)
					continue;
				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				lat = now - ((int64_t)ts.tv_sec * 1000000000 +
					     ts.tv_nsec);
			}
		}
		if (m->msg_flags & MSG_TRUNC) {
			WR(rx->cnt.bad, rx->cnt.bad + 1);
			continue;
		}
		deliver_udp(rx, u->bufs[i], u->msgs[i].msg_len, lat);
	}
	return n;
}

static void udp_drops(struct rx *rx)
{
	struct udp_rx *u = rx->priv;
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mi);
	struct vj_statistics st;

	if (UDP_KIND(rx->mode->arg) != UDP_SOCKET) {
		len = sizeof(st);
		if (!getsockopt(u->fd, SOL_VJCHAN, VJ_STATISTICS, &st, &len))
			snprintf(rx->drops, sizeof(rx->drops),
				 "rx_ring_full=%llu rx_udp_bad_csum=%llu rx_hook=%llu rx_driver=%llu rx_xdp=%llu rx_filtered=%llu",
				 (unsigned long long)st.rx_ring_full,
				 (unsigned long long)st.rx_udp_bad_csum,
				 (unsigned long long)st.rx_hook,
				 (unsigned long long)st.rx_driver,
				 (unsigned long long)st.rx_xdp,
				 (unsigned long long)st.rx_filtered);
		/* The mode names the path: make sure the datagrams took it. */
		if (rx->mode->arg & UDP_XDP)
			rx_check_path(rx, st.rx_xdp, st.rx_packets);
		return;
	}
	if (!getsockopt(u->fd, SOL_SOCKET, SO_MEMINFO, mi, &len))
		snprintf(rx->drops, sizeof(rx->drops), "sk_drops=%u",
			 mi[SK_MEMINFO_DROPS]);
}

static void udp_close(struct rx *rx)
{
	struct udp_rx *u = rx->priv;

	if (!u)
		return;
	vjxdp_detach(rx, u->xdp);
	if (u->fd >= 0)
		close(u->fd);
	free(u);
}

const struct rx_mode rx_udp_recvmmsg = {
	"udp-recvmmsg", "SO_TIMESTAMPNS: CLOCK_REALTIME at skb receive",
	udp_open, udp_poll, NULL, udp_drops, udp_close, UDP_SOCKET, 0
};

const struct rx_mode rx_udp_vjchan = {
	"udp-vjchan", "SO_TIMESTAMPNS: CLOCK_REALTIME at the pre-routing hook",
	udp_open, udp_poll, NULL, udp_drops, udp_close, UDP_CHANNEL, 0
};

const struct rx_mode rx_udp_vjchan_xdp = {
	"udp-vjchan-xdp", "SO_TIMESTAMPNS: CLOCK_REALTIME in the XDP kfunc",
	udp_open, udp_poll, NULL, udp_drops, udp_close, UDP_CHANNEL | UDP_XDP, 0
};

const struct rx_mode rx_udp_vjchan_filtered = {
	"udp-vjchan-filtered", "SO_TIMESTAMPNS: CLOCK_REALTIME at the copy from the holder",
	udp_open, udp_poll, NULL, udp_drops, udp_close, UDP_CHANNEL_FILTERED, 0
};

/* ---- groups: 1 or 2 members of one SO_REUSEPORT group, a thread each ---- */

#define GROUP_MAX	2

/*
 * Each member is a receiver of its own (a struct rx copied from the
 * cell's, with its own counters) run by its own thread; the cell's
 * counters are their sums, taken by group_counts() at each snapshot.
 */
struct group_member {
	struct rx	rx;
	pthread_t	th;
	bool		opened;
	bool		running;
};

struct group_rx {
	unsigned int		n;
	struct group_member	m[GROUP_MAX];
};

static const struct rx_mode group_member_udp = {
	"udp-reuseport member", NULL, udp_open, udp_poll, NULL, udp_drops,
	udp_close, UDP_SOCKET | UDP_REUSEPORT, 0
};

static const struct rx_mode group_member_chan = {
	"udp-vjchan-group member", NULL, udp_open, udp_poll, NULL, udp_drops,
	udp_close, UDP_CHANNEL | UDP_REUSEPORT, 0
};

static void *group_member_run(void *arg)
{
	struct group_member *m = arg;

	rx_run(&m->rx);
	return NULL;
}

/* Stop the members' threads and wait for them. */
static void group_stop(struct group_rx *g)
{
	unsigned int i;

	for (i = 0; i < g->n; i++) {
		WR(g->m[i].rx.stop, 1);
		if (g->m[i].running)
			pthread_join(g->m[i].th, NULL);
		g->m[i].running = false;
	}
}

static int group_open(struct rx *rx)
{
	struct group_rx *g = calloc(1, sizeof(*g));
	unsigned int i;
	int e;

	if (!g)
		return -ENOMEM;
	rx->priv = g;
	g->n = UDP_NMEMBERS(rx->mode->arg);
	if (!g->n || g->n > GROUP_MAX) {
		set_why(rx, "%u members: 1 to %u", g->n, GROUP_MAX);
		return -EINVAL;
	}
	for (i = 0; i < g->n; i++) {
		struct rx *r = &g->m[i].rx;

		/* Configuration and tag from the cell; no stamps, no state. */
		*r = *rx;
		memset(&r->cnt, 0, sizeof(r->cnt));
		r->lat = 0;
		r->priv = NULL;
		r->why[0] = 0;
		r->mode = UDP_KIND(rx->mode->arg) == UDP_CHANNEL ?
			  &group_member_chan : &group_member_udp;
		sem_init(&r->first, 0, 0);
		g->m[i].opened = true;
		e = udp_open(r);
		if (e) {
			set_why(rx, "member %u: %s", i, r->why);
			return e;
		}
	}
	for (i = 0; i < g->n; i++) {
		e = pthread_create(&g->m[i].th, NULL, group_member_run,
				   &g->m[i]);
		if (e) {
			set_why(rx, "pthread_create: %s", strerror(e));
			return -e;
		}
		g->m[i].running = true;
	}
	return 0;
}

/*
 * The cell's thread: pass on the members' first frame and phase, and
 * their stop; the members do the receiving.
 */
static int group_poll(struct rx *rx, int timeout_ms)
{
	struct group_rx *g = rx->priv;
	unsigned int i;

	usleep(timeout_ms < 10 ? timeout_ms * 1000 : 10000);
	for (i = 0; i < g->n; i++) {
		struct rx *r = &g->m[i].rx;

		WR(r->phase, RD(rx->phase));
		if (r->why[0] && !rx->why[0])
			set_why(rx, "member %u: %s", i, r->why);
		if (RD(r->started) && !rx->started) {
			rx->started = 1;
			sem_post(&rx->first);
		}
	}
	return 0;
}

/* The cell's counters: the members' sums (the highest frame for max_ctr). */
static void group_counts(struct rx *rx)
{
	struct group_rx *g = rx->priv;
	struct counts c = { 0 };
	unsigned int i;

	for (i = 0; i < g->n; i++) {
		const struct counts *m = &g->m[i].rx.cnt;

		c.pkts += RD(m->pkts);
		c.bytes += RD(m->bytes);
		c.bad += RD(m->bad);
		c.stale += RD(m->stale);
		c.calls += RD(m->calls);
		if (RD(m->max_ctr) > c.max_ctr)
			c.max_ctr = RD(m->max_ctr);
	}
	rx->cnt = c;
}

/* The cell is over: stop the members, then read their counters. */
static void group_drops(struct rx *rx)
{
	struct group_rx *g = rx->priv;
	size_t at = 0;
	unsigned int i;

	group_stop(g);
	for (i = 0; i < g->n; i++) {
		struct rx *r = &g->m[i].rx;

		r->drops[0] = 0;
		udp_drops(r);
		at += snprintf(rx->drops + at, sizeof(rx->drops) - at,
			       "%sm%u: %s pkts=%llu", i ? " " : "", i,
			       r->drops,
			       (unsigned long long)r->cnt.pkts);
		if (at >= sizeof(rx->drops))
			break;
	}
}

static void group_close(struct rx *rx)
{
	struct group_rx *g = rx->priv;
	unsigned int i;

	if (!g)
		return;
	group_stop(g);
	for (i = 0; i < g->n; i++) {
		if (!g->m[i].opened)
			continue;
		udp_close(&g->m[i].rx);
		sem_destroy(&g->m[i].rx.first);
	}
	free(g);
}

#define GROUP_MODE(name, kind, n) {					\
	name, NULL, group_open, group_poll, group_counts, group_drops,	\
	group_close, (kind) | UDP_MEMBERS(n), BENCH_GROUP_FLOWS		\
}

const struct rx_mode rx_udp_reuseport_1 =
	GROUP_MODE("udp-reuseport-1", UDP_SOCKET, 1);
const struct rx_mode rx_udp_reuseport_2 =
	GROUP_MODE("udp-reuseport-2", UDP_SOCKET, 2);
const struct rx_mode rx_udp_vjchan_group_1 =
	GROUP_MODE("udp-vjchan-group-1", UDP_CHANNEL, 1);
const struct rx_mode rx_udp_vjchan_group_2 =
	GROUP_MODE("udp-vjchan-group-2", UDP_CHANNEL, 2);
