// SPDX-License-Identifier: GPL-2.0
/*
 * vjrx: receive through a UDP socket, the stack's own path, and through a
 * UDP channel socket (AF_VJCHAN, VJ_PROTO_UDP4) with the same loop: the
 * kernel takes the datagrams out of the channel's ring in recvmmsg().
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/vjchan.h>

#include "rx.h"

/* rx_mode.arg of the two modes here. */
/* The receiver: a UDP socket, or a UDP channel in bypass or filtered mode. */
enum { UDP_SOCKET, UDP_CHANNEL, UDP_CHANNEL_FILTERED };

/* ---- udp-recvmmsg: a UDP socket, recvmmsg() batches of 64 ---------------- */

struct udp_rx {
	int		fd;
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
	bool chan = rx->mode->arg != UDP_SOCKET;
	uint32_t fw = rx->mode->arg == UDP_CHANNEL ? VJ_BIND_FW_BYPASS :
						      VJ_BIND_FW_FILTERED;

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
				   sizeof(one)))) {
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
	return 0;
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

	if (rx->mode->arg != UDP_SOCKET) {
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
		return;
	}
	if (!getsockopt(u->fd, SOL_SOCKET, SO_MEMINFO, mi, &len))
		snprintf(rx->drops, sizeof(rx->drops), "sk_drops=%u",
			 mi[SK_MEMINFO_DROPS]);
}

static void udp_close(struct rx *rx)
{
	struct udp_rx *u = rx->priv;

	if (u && u->fd >= 0)
		close(u->fd);
	free(u);
}

const struct rx_mode rx_udp_recvmmsg = {
	"udp-recvmmsg", "SO_TIMESTAMPNS: CLOCK_REALTIME at skb receive",
	udp_open, udp_poll, NULL, udp_drops, udp_close, UDP_SOCKET
};

const struct rx_mode rx_udp_vjchan = {
	"udp-vjchan", "SO_TIMESTAMPNS: CLOCK_REALTIME at the pre-routing hook",
	udp_open, udp_poll, NULL, udp_drops, udp_close, UDP_CHANNEL
};

const struct rx_mode rx_udp_vjchan_filtered = {
	"udp-vjchan-filtered", "SO_TIMESTAMPNS: CLOCK_REALTIME at the copy from the holder",
	udp_open, udp_poll, NULL, udp_drops, udp_close, UDP_CHANNEL_FILTERED
};
