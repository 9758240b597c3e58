// SPDX-License-Identifier: GPL-2.0
/*
 * stress: the generators of traffic, and the stack's side of it.
 *
 *   - two sender threads, pinned to CPU 0 and CPU 1, send UDP datagrams to
 *     127.0.0.1:P through ordinary sockets, so the receive hook runs on
 *     both CPUs at once (lo processes a datagram on the sending CPU);
 *   - an injector thread writes to vjtest's inject file, which hands
 *     frames for 198.51.100.1:P to vj_netif_rx()/vj_netif_rx_batch() on
 *     vjtest0, and for 8 more ports that no channel ever claims: those
 *     take the stack queue to the stack.
 *
 * Every port also has a plain UDP socket bound to it, drained by one
 * thread: it receives exactly what arrives while no channel is bound (a
 * bound channel takes the port's datagrams before the stack sees them).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "lib/pattern.h"
#include "lib/vjtest.h"
#include "stress.h"

void *sender(void *arg)
{
	int id = (int)(intptr_t)arg;
	struct rng r = { seed ^ (0x5e4d0000ull + id) };
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	uint8_t buf[sizeof(struct lo_hdr) + 400];
	uint32_t seq[MAX_CH] = { 0 };
	uint64_t t = now_ns(), gap = NSEC / pps * 16;
	unsigned long n = 0;
	cpu_set_t set;
	int fd;

	CPU_ZERO(&set);
	CPU_SET(id, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		record_fail("sender %d: sched_setaffinity(CPU %d): %s", id, id,
			    errname(errno));
	atomic_store(&sender_cpu[id], sched_getcpu());
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		record_fail("sender %d: socket: %s", id, errname(errno));
		return NULL;
	}
	while (!atomic_load(&stop_tx)) {
		int i = below(&r, nch);
		struct port *p = &ports[i];
		struct lo_hdr h = { MAGIC, p->num, id, 0, seq[i] };
		uint32_t len = sizeof(h) + below(&r, 400);
		ssize_t s;

		if (pthread_mutex_trylock(&p->gate))
			continue;	/* the port is changing state */
		memcpy(buf, &h, sizeof(h));
		pattern_fill_from(buf, sizeof(h), len, h.seq);
		dst.sin_port = htons(p->num);
		s = sendto(fd, buf, len, 0, (struct sockaddr *)&dst, sizeof(dst));
		if (s == (ssize_t)len) {
			model_sent_lo(p);
			seq[i]++;
			atomic_fetch_add(&tx_ok[id], 1);
		} else {
			/* Not sent, so not counted; only these are plausible. */
			if (s >= 0 || (errno != EAGAIN && errno != ENOBUFS &&
				       errno != ENOMEM))
				record_fail("sender %d: sendto: %zd %s", id, s,
					    errname(errno));
			atomic_fetch_add(&tx_err[id], 1);
		}
		pthread_mutex_unlock(&p->gate);
		/* Pace in bursts of 16 so consumers get CPU time too. */
		if (++n % 16 == 0) {
			uint64_t now = now_ns();

			t += gap;
			if (t > now)
				usleep((t - now) / 1000);
			else if (now - t > 100 * MSEC)
				t = now;	/* behind: do not burst to catch up */
		}
	}
	close(fd);
	return NULL;
}

void *injector(void *arg)
{
	struct rng r = { seed ^ 0x1213c7ull };
	long long base, local, now;
	char line[256];
	int fd;

	(void)arg;
	fd = vjt_open();
	if (fd < 0 || vjt_stat_read("injected", &base)) {
		record_fail("injector: cannot use %s", VJT_INJECT);
		return NULL;
	}
	local = base;
	while (!atomic_load(&stop_tx)) {
		bool uncl = chance(&r, 15);
		struct port *p = uncl ? &uports[below(&r, NUNCL)] :
					&ports[below(&r, nch)];
		struct vjt_req q = {
			.count = 1 + below(&r, 32),
			.sport = 5000,
			.saddr = VJT_PEER4,
			.daddr = VJT_LOCAL4,
		};
		uint64_t k;
		long w;
		int n;

		if (pthread_mutex_trylock(&p->gate)) {
			usleep(100);
			continue;
		}
		q.batch = 1 + below(&r, 16);
		q.len = 16 + below(&r, 497);
		q.seq = p->inj_seq;
		q.dport = p->num;
		n = vjt_format(&q, line, sizeof(line));
		atomic_fetch_add(&inj_writes, 1);
		w = vjt_write(fd, line, n);
		if (w == n) {
			k = q.count;
			local += q.count;
		} else {
			/* Out of pool buffers part way: the first k went in. */
			if (w == -ENOBUFS)
				atomic_fetch_add(&inj_enobufs, 1);
			else
				record_fail("inject \"%.*s\": %s", n - 1, line,
					    w < 0 ? errname(-w) : "short write");
			if (vjt_stat_read("injected", &now))
				now = -1;
			k = now - local;
			local = now;
		}
		model_sent_inj(p, k);
		p->inj_seq += q.count;
		pthread_mutex_unlock(&p->gate);
		usleep(300 + below(&r, 1200));
	}
	close(fd);
	return NULL;
}

/* Counts what the stack delivers to the ports' UDP sockets. */
static void drain_udp(struct port *p)
{
	uint8_t buf[2048];
	ssize_t n;

	while ((n = recv(p->udp, buf, sizeof(buf), MSG_DONTWAIT)) >= 0) {
		struct lo_hdr h;

		memcpy(&h, buf, n >= (ssize_t)sizeof(h) ? sizeof(h) : 0);
		if (n >= (ssize_t)sizeof(h) && h.magic == MAGIC &&
		    h.port == p->num && pattern_ok_from(buf, sizeof(h), n, h.seq))
			atomic_fetch_add(&p->stk_lo, 1);
		else if (payload_ok(buf, n, NULL))
			atomic_fetch_add(&p->stk_inj, 1);
		else
			record_fail("port %u: the UDP socket got a %zd-byte datagram that nobody sent",
				    p->num, n);
	}
}

void *drainer(void *arg)
{
	struct epoll_event ev[64];
	int ep = epoll_create1(EPOLL_CLOEXEC), i, n;

	(void)arg;
	for (i = 0; i < nch + NUNCL; i++) {
		struct port *p = port_at(i);
		struct epoll_event e = { .events = EPOLLIN, .data.ptr = p };

		epoll_ctl(ep, EPOLL_CTL_ADD, p->udp, &e);
	}
	while (!atomic_load(&stop_drain)) {
		n = epoll_wait(ep, ev, ARRAY_SIZE(ev), 20);
		for (i = 0; i < n; i++)
			drain_udp(ev[i].data.ptr);
	}
	for (i = 0; i < nch + NUNCL; i++)
		drain_udp(port_at(i));
	close(ep);
	return NULL;
}

int udp_port_socket(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), big = 8 << 20;

	if (fd < 0)
		return -1;
	/* Big enough that the drainer never loses a datagram to rcvbuf. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}
