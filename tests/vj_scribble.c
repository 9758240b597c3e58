// SPDX-License-Identifier: GPL-2.0
/*
 * vj_scribble: a hostile owner of a direct channel, for tests/vjnet.sh.
 *
 *   vj_scribble IFINDEX DPORT SECONDS READY_FILE
 *
 * Binds a direct bypass channel (VJ_BIND_F_DIRECT) for udp4 DPORT on
 * IFINDEX, maps its ring, creates READY_FILE, and for SECONDS writes random
 * values into the consumer index, the descriptors and the bytes of every
 * buffer (the ones posted to the device too), now and then handing slots
 * back properly so that the device keeps getting buffers.  Then prints the
 * channel's counters, "rx_packets N", "rx_driver N", "rx_direct N",
 * "rx_ring_full N" and "rx_invalid_cons N", and exits 0; 1 on any error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/vjchan.h>

#include "lib/ring.h"
#include "lib/util.h"

static int die(const char *what, const char *why)
{
	fprintf(stderr, "vj_scribble: %s: %s\n", what, why);
	return 1;
}

int main(int argc, char **argv)
{
	struct rng rng = { .s = (uint64_t)getpid() };
	struct vj_statistics st;
	struct vj_flow flow;
	struct vj_chan c;
	uint64_t end;
	unsigned long n = 0;
	const char *why;
	socklen_t len;
	int fd, e;

	if (argc != 5) {
		fprintf(stderr, "usage: vj_scribble IFINDEX DPORT SECONDS READY_FILE\n");
		return 2;
	}
	fd = socket(AF_VJCHAN, SOCK_DGRAM, 0);
	if (fd < 0)
		return die("socket", errname(errno));
	memset(&flow, 0, sizeof(flow));
	flow.family = AF_INET;
	flow.proto = IPPROTO_UDP;
	flow.dport = htons(atoi(argv[2]));
	flow.ifindex = atoi(argv[1]);
	vj_bind_flags = VJ_BIND_FW_BYPASS | VJ_BIND_F_DIRECT;
	if (vj_bind(fd, &flow))
		return die("bind", errname(errno));
	chan_init(&c, fd);
	why = ring_map(&c);
	if (why)
		return die("map", why);
	if (close(open(argv[4], O_CREAT | O_WRONLY, 0644)))
		return die(argv[4], errname(errno));

	end = now_ns() + (uint64_t)atoi(argv[3]) * NSEC;
	while (now_ns() < end) {
		uint32_t i = below(&rng, c.off.entries);
		uint8_t *buf = c.bufs + (size_t)i * c.off.buf_size;

		switch (below(&rng, 4)) {
		case 0:		/* any consumer index at all */
			chan_set_consumer(&c, (uint32_t)rnd64(&rng));
			break;
		case 1:		/* a descriptor */
			memset(&c.desc[i], (int)rnd64(&rng), sizeof(c.desc[i]));
			break;
		case 2:		/* the headers of a buffer, posted or not */
			memset(buf + below(&rng, 128), (int)rnd64(&rng), 32);
			break;
		default:	/* hand everything back, properly */
			chan_set_consumer(&c, chan_producer(&c));
			break;
		}
		if (!(++n % 64))
			usleep(100);
	}
	chan_set_consumer(&c, chan_producer(&c));
	e = vj_getopt(fd, VJ_STATISTICS, &st, sizeof(st), &len);
	if (e)
		return die("VJ_STATISTICS", errname(-e));
	printf("rx_packets %llu\nrx_driver %llu\nrx_direct %llu\n"
	       "rx_ring_full %llu\nrx_invalid_cons %llu\n",
	       (unsigned long long)st.rx_packets,
	       (unsigned long long)st.rx_driver,
	       (unsigned long long)st.rx_direct,
	       (unsigned long long)st.rx_ring_full,
	       (unsigned long long)st.rx_invalid_cons);
	return 0;
}
