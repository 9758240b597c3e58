// SPDX-License-Identifier: GPL-2.0
/*
 * stress: the operations on channels.  Consumer threads own a share of the
 * ports each, live one to four seconds and are replaced; while alive they
 * drain their rings (sometimes lazily, so rings fill up; sometimes not
 * polling a big ring for a while, so that driver frames waiting in it for
 * their copy hold pool buffers until the pool runs dry), and close and
 * rebind channels under load, sometimes with packets still in the ring,
 * sometimes without a last poll() (the frames not yet copied go back to
 * the pool with the ring), sometimes closing the descriptor before the
 * mapping (a second bind must fail meanwhile), and sometimes leaving the
 * port unbound for a while; now and then a consumer swaps a channel's
 * descriptor for a dup() of it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stress.h"

static void drain(struct port *p)
{
	struct test_chan *c = &p->ch;
	const char *why;
	uint32_t n, i;

	why = ring_avail(c, &n);
	if (why) {
		pkt_fail(p, "%s", why);
		return;
	}
	for (i = 0; i < n; i++) {
		p->consumed++;
		if (check_pkt(p, c->head + i, true) == 1)
			p->consumed_drv++;
	}
	ring_release(c, n);
}

static bool get_stats(struct port *p, struct vj_statistics *st)
{
	socklen_t l;
	int e = test_getopt(p->ch.fd, VJ_STATISTICS, st, sizeof(*st), &l);

	if (e) {
		record_fail("port %u: VJ_STATISTICS: %s", p->num, errname(-e));
		return false;
	}
	return true;
}

static void open_channel(struct port *p, int ep, struct rng *r)
{
	static const uint32_t ents[] = { 8, 16, 32, 64, 256, 1024 };
	uint32_t entries = PICK(r, ents), buf_size = 2048;
	struct vj_flow flow;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = p };
	struct test_chan *c = &p->ch;
	const char *why;
	int fd;

	/* 4 KiB buffers for the smaller rings: the guest has 1 GiB. */
	if (entries <= 256 && chance(r, 20))
		buf_size = 4096;
	port_flow(p, &flow);
	pthread_mutex_lock(&p->gate);
	quiesce_stack(p);
	fd = socket(AF_VJCHAN, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		record_fail("port %u: socket: %s", p->num, errname(errno));
		goto out;
	}
	chan_init(c, fd);
	if (test_set_ring(fd, entries, buf_size) || test_bind(fd, &flow)) {
		record_fail("port %u: setting up a %u x %u channel: %s",
			    p->num, entries, buf_size, errname(errno));
		close(fd);
		c->fd = -1;
		goto out;
	}
	why = ring_map(c);
	if (why) {
		record_fail("port %u: %s", p->num, why);
		close(fd);
		c->fd = -1;
		goto out;
	}
	p->consumed = p->consumed_drv = 0;
	p->stalled = false;
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	model_bound(p);
out:
	pthread_mutex_unlock(&p->gate);
}

/*
 * Close p's channel.  drain_first: consume what is there before the gate.
 * abrupt: no poll() at all, so driver frames still waiting for their copy
 * stay queued (the destructor must return their pool buffers); then only
 * the published part of the ring can be read, and the rest is bounded.
 * late_unmap: close the descriptor first; the mapping keeps the channel
 * bound (a second bind must fail) until it goes too.
 */
static void close_channel(struct port *p, int ep, bool drain_first,
			  bool abrupt, bool late_unmap)
{
	struct test_chan *c = &p->ch;
	struct inc_result r = { .abrupt = abrupt, .late_unmap = late_unmap };
	uint64_t sent, start;
	uint32_t i;

	if (drain_first)
		drain(p);
	pthread_mutex_lock(&p->gate);
	sent = model_inc_sent(p);
	start = now_ns();
	/*
	 * Wait until every datagram sent to this incarnation is counted:
	 * both receive paths count a packet when they queue it, whether or
	 * not it is published yet.
	 */
	for (;;) {
		if (!abrupt)
			ring_poll(c);
		if (!get_stats(p, &r.st))
			break;
		if (r.st.rx_packets + r.st.rx_ring_full == sent) {
			r.counted = true;
			quiesce_done(start);
			break;
		}
		if (!quiesce_wait(p, start))
			break;
		usleep(500);
	}
	if (!abrupt)
		ring_poll(c);
	if (r.counted && get_stats(p, &r.st)) {
		r.prod = chan_producer(c);
		r.left = r.prod - c->head;
		if (r.left > c->off.entries) {
			pkt_fail(p, "at close: producer %u, consumer %u",
				 r.prod, c->head);
			r.left = 0;
		}
		for (i = 0; i < r.left; i++)
			if (check_pkt(p, c->head + i, false) == 1)
				r.left_drv++;
		/* Counted but not published: waiting for a poll(). */
		r.pend = r.st.rx_packets - p->consumed - r.left;
		r.pend_drv = r.st.rx_driver - p->consumed_drv - r.left_drv;
		check_incarnation(p, &r);
	} else {
		check_unsettled(p, &r, (now_ns() - start) / MSEC);
	}
	model_closed(p, &r, p->consumed);
	epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
	if (late_unmap) {
		close(c->fd);
		check_still_bound(p);
		/* The last reference: the channel goes, its flow is free. */
		munmap(c->map, c->off.size);
	} else {
		/* The mapping holds the file: unmap first, so close() unbinds. */
		munmap(c->map, c->off.size);
		close(c->fd);
	}
	c->fd = -1;
	p->stalled = false;
	pthread_mutex_unlock(&p->gate);
}

/*
 * Swap p's descriptor for a dup() of it and close the old one: the socket
 * lives on, bound and counting, which the accounting at its close checks.
 */
static void swap_fd(struct port *p, int ep)
{
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = p };
	int fd = fcntl(p->ch.fd, F_DUPFD_CLOEXEC, 0);

	if (fd < 0) {
		record_fail("port %u: F_DUPFD: %s", p->num, errname(errno));
		return;
	}
	if (!p->stalled)
		epoll_ctl(ep, EPOLL_CTL_DEL, p->ch.fd, NULL);
	close(p->ch.fd);
	p->ch.fd = fd;
	if (!p->stalled)
		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
	p->fd_swaps++;
}

void *consumer(void *arg)
{
	struct group *g = arg;
	struct rng r = { seed ^ (0xc0c0ull << 20) ^ (now_ns() + g->id) };
	uint64_t now = now_ns(), life_end = now + (1 + below(&r, 4)) * NSEC,
		 next_sweep = now;
	struct epoll_event ev[64];
	int ep = epoll_create1(EPOLL_CLOEXEC), i, n;
	/* Ports g->id, g->id + NGROUPS, ... */
	uint32_t mine = (nch - g->id + NGROUPS - 1) / NGROUPS;

	for (i = g->id; i < nch; i += NGROUPS) {
		ports[i].rebind_at = now + below(&r, 300) * MSEC;
		if (chance(&r, 80))
			open_channel(&ports[i], ep, &r);
	}
	while (!atomic_load(&stop_cons) && (now = now_ns()) < life_end) {
		bool lazy = chance(&r, 5);

		n = epoll_wait(ep, ev, ARRAY_SIZE(ev), 10);
		for (i = 0; i < n && !lazy; i++)
			drain(ev[i].data.ptr);
		/* Now and then poll every ring: driver frames wait for it. */
		if (now >= next_sweep && !lazy) {
			next_sweep = now + 50 * MSEC;
			for (i = g->id; i < nch; i += NGROUPS)
				if (ports[i].bound && !ports[i].stalled) {
					ring_poll(&ports[i].ch);
					drain(&ports[i]);
				}
		}
		/*
		 * A stalled consumer does not poll a big ring for a while, so
		 * driver frames pile up in it holding pool buffers until the
		 * pool runs dry.
		 */
		if (chance(&r, 2)) {
			struct port *p = &ports[g->id + NGROUPS * below(&r, mine)];

			if (p->bound && !p->stalled && p->ch.off.entries >= 256) {
				epoll_ctl(ep, EPOLL_CTL_DEL, p->ch.fd, NULL);
				p->stalled = true;
				p->stall_end = now + (300 + below(&r, 1200)) * MSEC;
			}
		}
		for (i = g->id; i < nch; i += NGROUPS) {
			struct port *p = &ports[i];
			struct epoll_event e = { .events = EPOLLIN, .data.ptr = p };

			if (p->bound && p->stalled && now >= p->stall_end) {
				p->stalled = false;
				epoll_ctl(ep, EPOLL_CTL_ADD, p->ch.fd, &e);
			}
		}
		if (chance(&r, 2)) {
			struct port *p = &ports[g->id + NGROUPS * below(&r, mine)];

			if (p->bound)
				swap_fd(p, ep);
		}
		if (chance(&r, 8)) {
			struct port *p = &ports[g->id + NGROUPS * below(&r, mine)];

			if (p->bound) {
				close_channel(p, ep, chance(&r, 50),
					      chance(&r, 25), chance(&r, 25));
				if (chance(&r, 50))
					open_channel(p, ep, &r);
				else
					p->rebind_at = now + (10 + below(&r, 300)) * MSEC;
			}
		}
		for (i = g->id; i < nch; i += NGROUPS)
			if (!ports[i].bound && ports[i].rebind_at <= now)
				open_channel(&ports[i], ep, &r);
		if (lazy)
			usleep((2 + below(&r, 30)) * 1000);
	}
	/* Leave: close every channel, some with packets still queued. */
	for (i = g->id; i < nch; i += NGROUPS)
		if (ports[i].bound)
			close_channel(&ports[i], ep, chance(&r, 50),
				      chance(&r, 25), chance(&r, 25));
	close(ep);
	atomic_store(&g->running, 0);
	return NULL;
}
