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
 * back properly so that the device keeps getting buffers.  Then prints
 * "rx_direct N" and "rx_invalid_cons N" and exits 0; 1 on any error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/vjchan.h>

static int die(const char *what)
{
	fprintf(stderr, "vj_scribble: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct vj_mmap_offsets off;
	struct vj_statistics st;
	struct sockaddr_vj sa;
	socklen_t len;
	unsigned char *map;
	volatile __u32 *prod, *cons;
	time_t end;
	unsigned long n = 0;
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: vj_scribble IFINDEX DPORT SECONDS READY_FILE\n");
		return 2;
	}
	fd = socket(AF_VJCHAN, SOCK_RAW, 0);
	if (fd < 0)
		return die("socket");
	memset(&sa, 0, sizeof(sa));
	sa.svj_family = AF_VJCHAN;
	sa.svj_flags = VJ_BIND_FW_BYPASS | VJ_BIND_F_DIRECT;
	sa.svj_flow.family = AF_INET;
	sa.svj_flow.proto = IPPROTO_UDP;
	sa.svj_flow.dport = htons(atoi(argv[2]));
	sa.svj_flow.ifindex = atoi(argv[1]);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return die("bind");
	len = sizeof(off);
	if (getsockopt(fd, SOL_VJCHAN, VJ_MMAP_OFFSETS, &off, &len))
		return die("VJ_MMAP_OFFSETS");
	map = mmap(NULL, off.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return die("mmap");
	prod = (__u32 *)(map + off.producer);
	cons = (__u32 *)(map + off.consumer);
	if (close(open(argv[4], O_CREAT | O_WRONLY, 0644)))
		return die(argv[4]);

	srandom(getpid());
	end = time(NULL) + atoi(argv[3]);
	while (time(NULL) < end) {
		unsigned int i = random() % off.entries;
		unsigned char *buf = map + off.bufs + (size_t)i * off.buf_size;

		switch (random() % 4) {
		case 0:		/* any consumer index at all */
			*cons = random();
			break;
		case 1:		/* a descriptor */
			memset(map + off.desc + i * sizeof(struct vj_desc),
			       random(), sizeof(struct vj_desc));
			break;
		case 2:		/* the headers of a buffer, posted or not */
			memset(buf + random() % 128, random(), 32);
			break;
		default:	/* hand everything back, properly */
			*cons = __atomic_load_n(prod, __ATOMIC_ACQUIRE);
			break;
		}
		if (!(++n % 64))
			usleep(100);
	}
	*cons = __atomic_load_n(prod, __ATOMIC_ACQUIRE);
	len = sizeof(st);
	if (getsockopt(fd, SOL_VJCHAN, VJ_STATISTICS, &st, &len))
		return die("VJ_STATISTICS");
	printf("rx_direct %llu\nrx_invalid_cons %llu\n",
	       (unsigned long long)st.rx_direct,
	       (unsigned long long)st.rx_invalid_cons);
	return 0;
}
