// SPDX-License-Identifier: GPL-2.0
/*
 * vj_hold: keep a vjchan channel alive for shell tests.
 *
 *   vj_hold [-c] [-p DPORT] READY_FILE
 *
 * Creates a channel (bound to udp4 DPORT if -p is given, else unbound),
 * maps its ring, with -c closes the descriptor so that only the mapping
 * holds the socket, creates READY_FILE and sleeps until SIGTERM or SIGINT;
 * then unmaps and exits 0.  Exits 1 on any error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/vjchan.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int die(const char *what)
{
	fprintf(stderr, "vj_hold: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct vj_mmap_offsets off;
	socklen_t len = sizeof(off);
	int opt, close_fd = 0, port = 0, fd, rf;
	sigset_t block, old;
	struct sigaction sa;
	void *map;

	while ((opt = getopt(argc, argv, "cp:")) != -1) {
		switch (opt) {
		case 'c':
			close_fd = 1;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: vj_hold [-c] [-p DPORT] READY_FILE\n");
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: vj_hold [-c] [-p DPORT] READY_FILE\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &old);

	fd = socket(AF_VJCHAN, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return die("socket");
	if (port) {
		struct sockaddr_vj a;

		memset(&a, 0, sizeof(a));
		a.svj_family = AF_VJCHAN;
		a.svj_flow.family = AF_INET;
		a.svj_flow.proto = IPPROTO_UDP;
		a.svj_flow.dport = htons(port);
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
			return die("bind");
	}
	if (getsockopt(fd, SOL_VJCHAN, VJ_MMAP_OFFSETS, &off, &len))
		return die("VJ_MMAP_OFFSETS");
	map = mmap(NULL, off.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return die("mmap");
	if (close_fd)
		close(fd);
	rf = open(argv[optind], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (rf < 0)
		return die("ready file");
	close(rf);
	while (!stop)
		sigsuspend(&old);
	munmap(map, off.size);
	return 0;
}
