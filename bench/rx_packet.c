// SPDX-License-Identifier: GPL-2.0
/*
 * vjrx: receive through an AF_PACKET socket with a TPACKET_V3 ring.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rx.h"

/* ---- packet-v3: AF_PACKET TPACKET_V3 receive ring ------------------------ */

#define PKT_BLOCK_SIZE	(1U << 16)
#define PKT_FRAME_SIZE	2048
#define PKT_BLOCKS	(QUEUE_PKTS * PKT_FRAME_SIZE / PKT_BLOCK_SIZE)
#define PKT_TOV_MS	1		/* block retire timeout: a jiffy */

struct pkt_rx {
	int		fd;
	uint8_t		*map;
	size_t		map_len;
	unsigned int	cur;
};

static int pkt_open(struct rx *rx)
{
	/* The flow: IPv4, UDP, not a fragment, destination port. */
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 8),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 23),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 6),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 20),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x3fff, 4, 0),
		BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 14),
		BPF_STMT(BPF_LD | BPF_H | BPF_IND, 16),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BENCH_DPORT, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0x40000),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { ARRAY_SIZE(code), code };
	struct tpacket_req3 req = {
		.tp_block_size = PKT_BLOCK_SIZE,
		.tp_block_nr = PKT_BLOCKS,
		.tp_frame_size = PKT_FRAME_SIZE,
		.tp_frame_nr = PKT_BLOCKS * (PKT_BLOCK_SIZE / PKT_FRAME_SIZE),
		.tp_retire_blk_tov = PKT_TOV_MS,
	};
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_IP),
		.sll_ifindex = rx->ifindex,
	};
	struct pkt_rx *p = calloc(1, sizeof(*p));
	int v = TPACKET_V3;

	if (!p)
		return -ENOMEM;
	rx->priv = p;
	/* Protocol 0: nothing arrives before the filter is in place. */
	p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (p->fd < 0) {
		set_why(rx, "socket(AF_PACKET): %s", strerror(errno));
		return -errno;
	}
	if (setsockopt(p->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) ||
	    setsockopt(p->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) ||
	    setsockopt(p->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog))) {
		set_why(rx, "setsockopt: %s", strerror(errno));
		return -errno;
	}
	p->map_len = (size_t)PKT_BLOCK_SIZE * PKT_BLOCKS;
	p->map = mmap(NULL, p->map_len, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_POPULATE, p->fd, 0);
	if (p->map == MAP_FAILED) {
		p->map = NULL;
		set_why(rx, "mmap: %s", strerror(errno));
		return -errno;
	}
	if (bind(p->fd, (struct sockaddr *)&sll, sizeof(sll))) {
		set_why(rx, "bind: %s", strerror(errno));
		return -errno;
	}
	rx->lat_clock = CLOCK_REALTIME;
	return 0;
}

/* One block per call: the ring hands over whole blocks. */
static int pkt_poll(struct rx *rx, int timeout_ms)
{
	struct pkt_rx *p = rx->priv;
	struct tpacket_block_desc *b;
	struct tpacket3_hdr *h;
	unsigned int i, n;
	int64_t now = 0;

	b = (void *)(p->map + (size_t)p->cur * PKT_BLOCK_SIZE);
	if (!(__atomic_load_n(&b->hdr.bh1.block_status, __ATOMIC_ACQUIRE) &
	      TP_STATUS_USER)) {
		struct pollfd pfd = { .fd = p->fd, .events = POLLIN | POLLERR };

		if (poll(&pfd, 1, timeout_ms) < 0)
			return errno == EINTR ? 0 : -errno;
		if (!(__atomic_load_n(&b->hdr.bh1.block_status,
				      __ATOMIC_ACQUIRE) & TP_STATUS_USER))
			return 0;
	}
	if (rx->lat)
		now = clock_ns(CLOCK_REALTIME);
	n = b->hdr.bh1.num_pkts;
	h = (void *)((uint8_t *)b + b->hdr.bh1.offset_to_first_pkt);
	for (i = 0; i < n; i++) {
		int64_t lat = -1;

		if (rx->lat)
			lat = now - ((int64_t)h->tp_sec * 1000000000 +
				     h->tp_nsec);
		if (h->tp_snaplen != h->tp_len)
			WR(rx->cnt.bad, rx->cnt.bad + 1);
		else
			deliver_eth(rx, (uint8_t *)h + h->tp_mac, h->tp_snaplen,
				    lat);
		h = (void *)((uint8_t *)h + h->tp_next_offset);
	}
	__atomic_store_n(&b->hdr.bh1.block_status, TP_STATUS_KERNEL,
			 __ATOMIC_RELEASE);
	p->cur = (p->cur + 1) % PKT_BLOCKS;
	return n;
}

static void pkt_drops(struct rx *rx)
{
	struct pkt_rx *p = rx->priv;
	struct tpacket_stats_v3 st;
	socklen_t len = sizeof(st);

	if (!getsockopt(p->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len))
		snprintf(rx->drops, sizeof(rx->drops),
			 "tp_drops=%u tp_freeze_q_cnt=%u", st.tp_drops,
			 st.tp_freeze_q_cnt);
}

static void pkt_close(struct rx *rx)
{
	struct pkt_rx *p = rx->priv;

	if (!p)
		return;
	if (p->map)
		munmap(p->map, p->map_len);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}

const struct rx_mode rx_packet_v3 = {
	"packet-v3", "tp_sec/tp_nsec: CLOCK_REALTIME at skb receive; blocks retire after a jiffy",
	pkt_open, pkt_poll, NULL, pkt_drops, pkt_close, 0, 0
};
